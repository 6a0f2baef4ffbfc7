"""The ``topp`` policy: time-optimal retiming along the trajectory's path (TOPP-RA, the ``toppra``
package), sampled at the command period.

The path is the trajectory as a function of its own time s (the original ``time_from_start``):

* with velocities, the cubic Hermite the controller runs (`humanoid_model.interpolation`): the
  retimed motion follows exactly that path;
* without, the C² cubic spline through the points (not-a-knot ends). A linear interpolation has a
  corner at every point, which a finite acceleration can pass only at rest; the bridge already
  reads such points as samples of a smooth motion (the second finite difference is its
  acceleration, `humanoid_control.bridge.bounds`), and the spline is that motion. It goes through
  every point; between points it departs from the straight segments by about h²·|q''(s)| / 8,
  which `time_optimal` measures at every command and bounds by `PATH_TOL`.

TOPP-RA finds the fastest s(t), at rest at both ends, such that every joint's velocity
q'(s)·ṡ and acceleration q'(s)·s̈ + q''(s)·ṡ² stay within the joints' limits (at its grid points),
and ṡ <= 1: the motion is nowhere faster than given, it slows down only where a limit demands (a
slow trajectory is not sped up to the limits; a joint without limits never jumps). The result is
sampled every ``period`` [s] (the node's control period) as positions only: the controller
interpolates linearly between commands. The second finite difference of samples of a motion never
exceeds that motion's largest acceleration, nor a secant speed its largest speed, so the bridge's
exact checks of linear interpolation hold whenever the time-optimal motion holds its limits; a
cubic Hermite through the same samples overshoots the acceleration where the time-optimal one
switches between its bounds (measured on BIP's double support: 11.3 rad/s² for a limit of 10).
`validate` runs every check on the result anyway, and falls back to the uniform stretch when one
refuses (docs/bridge.md).
"""

from __future__ import annotations

import logging
import time

import numpy as np
from scipy.interpolate import CubicHermiteSpline, CubicSpline

from humanoid_control.bridge.limits import JointLimits
from humanoid_control.bridge.trajectory import Trajectory, sample
from humanoid_control.exceptions import BridgeError

__all__ = ["time_optimal", "ToppResult", "PATH_TOL", "MAX_SAMPLES", "GRID_MIN", "SCALES", "UNBOUNDED"]

#: [rad] or [m] (chosen: the bridge's default start_tolerance, MoveIt's allowed_start_tolerance: the
#: gap the bridge already accepts between a motion and the robot) largest distance between a
#: command of the retimed motion and the given interpolation at the same path parameter
PATH_TOL = 0.01
#: (chosen) most commands a retimed motion may have: 30 min at 100 Hz (48 MB for 30 joints); a
#: longer time-optimal motion is refused in one line rather than filling memory
MAX_SAMPLES = 180_000
#: (chosen) TOPP-RA grid points per unit share of the duration and of the motion (`_grid`):
#: toppra's own default (100 in all) left BIP's double support 3 % slower than 400, which cost 35 ms
GRID_MIN = 100
#: (chosen) the fractions of the limits TOPP-RA is given, one after the other until its motion
#: passes every check: it holds the limits at its grid points, and between them may pass them by
#: a little (measured: 1e-4 of the speed limit on a single-joint cubic, 200 grid points)
SCALES = (1.0, 0.99, 0.95)
#: (chosen) the limit given to TOPP-RA for a joint without one (inf): a finite number it can
#: compute with, 1e6 rad/s or rad/s², far beyond any joint
UNBOUNDED = 1e6

logging.getLogger("toppra").setLevel(logging.ERROR)  # its warnings repeat what `time_optimal` raises


class _Path:
    """A scipy piecewise polynomial of s as a toppra geometric path (``__call__(s, order)``,
    ``dof``, ``path_interval``)."""

    def __init__(self, spline):
        self.splines = (spline, spline.derivative(), spline.derivative(2))
        self.dof = spline.c.shape[-1]
        self.path_interval = np.array([spline.x[0], spline.x[-1]])

    def __call__(self, s, order=0):
        return self.splines[order](s)

    def eval(self, s):
        return self(s, 0)

    def evald(self, s):
        return self(s, 1)

    def evaldd(self, s):
        return self(s, 2)

    @property
    def waypoints(self):
        return None


class ToppResult:
    """``trajectory``: the retimed motion (positions every ``period``); ``path_error`` [rad]: the
    largest distance between a command and the given interpolation at the same path parameter;
    ``solve_s`` [s]: TOPP-RA's computation time; ``grid``: its number of grid points."""

    def __init__(self, trajectory: Trajectory, path_error: float, solve_s: float, grid: int):
        self.trajectory, self.path_error, self.solve_s, self.grid = trajectory, path_error, solve_s, grid


def _grid(times: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The trajectory's points, each segment split evenly into parts in proportion to both its share
    of the duration and its share of the motion (largest joint travel): about 2 x `GRID_MIN` in all,
    so that a short, fast segment is resolved as finely as a long, slow one."""
    h = np.diff(times)
    travel = np.abs(np.diff(positions, axis=0)).max(axis=1)
    share = h / h.sum() + (travel / travel.sum() if travel.sum() > 0 else 0.0)
    per = np.maximum(1, np.ceil(GRID_MIN * share).astype(int))
    parts = [np.linspace(a, b, k + 1)[:-1] for a, b, k in zip(times[:-1], times[1:], per)]
    return np.concatenate([*parts, times[-1:]])


def _finite(x: np.ndarray) -> np.ndarray:
    return np.where(np.isfinite(x), x, UNBOUNDED)


def time_optimal(traj: Trajectory, limits: JointLimits, period: float, scale: float = 1.0) -> ToppResult:
    """The time-optimal retiming of ``traj`` (every joint of ``limits``, in its order: the
    trajectory `validate` builds) within ``scale`` x ``limits.v_max`` and ``limits.a_max``, never
    faster than given, sampled every ``period`` [s] (module docstring). A `BridgeError` (one line, "topp: ...")
    when TOPP-RA finds no parameterisation, when the result would need more than `MAX_SAMPLES`
    commands, or when it leaves the given path by more than `PATH_TOL`."""
    import toppra.algorithm as algorithm
    import toppra.constraint as constraint

    if traj.n_points < 2:
        raise BridgeError("topp: a trajectory of one point has no path to retime")
    s = traj.times
    n = len(traj.joint_names)
    # one more coordinate, s itself, with speed limit 1: the motion is never faster than given
    P = np.hstack([traj.positions, s[:, None]])
    if traj.velocities is not None:
        spline = CubicHermiteSpline(s, P, np.hstack([traj.velocities, np.ones((s.size, 1))]))
    else:
        spline = CubicSpline(s, P)  # not-a-knot: the s column stays linear
    cols = np.array([limits.index[j] for j in traj.joint_names], dtype=int)
    v = np.append(_finite(scale * limits.v_max[cols]), 1.0)
    a = np.append(_finite(scale * limits.a_max[cols]), UNBOUNDED)
    path = _Path(spline)
    t0 = time.perf_counter()
    bounds = [
        constraint.JointVelocityConstraint(np.stack([-v, v], 1)),
        constraint.JointAccelerationConstraint(np.stack([-a, a], 1)),
    ]
    solver = algorithm.TOPPRA(
        bounds,
        path,
        gridpoints=_grid(s, traj.positions),
        parametrizer="ParametrizeConstAccel",
    )
    result = solver.compute_trajectory(0.0, 0.0)
    solve_s = time.perf_counter() - t0
    if result is None:
        code = solver.problem_data.return_code
        raise BridgeError(
            f"topp: TOPP-RA found no time parameterisation of the path within the velocity and acceleration "
            f"limits ({getattr(code, 'value', code)}); the smallest acceleration limit is "
            f"{float(np.min(a[:-1])):.3g} rad/s²"
        )
    T = float(result.duration)
    count = int(np.floor(T / period)) + 2
    if count > MAX_SAMPLES:
        raise BridgeError(
            f"topp: the time-optimal motion lasts {T:.6g} s, {count} commands at the {period:g} s period: "
            f"more than {MAX_SAMPLES}"
        )
    t = np.arange(count - 1) * period
    t = np.append(t[t < T - 1e-9 * max(period, T)], T)
    Q = result(t)
    out = Trajectory(traj.joint_names, t, Q[:, :n], None, None, traj.source)
    # the path parameter of each command is its last coordinate: where it should be on the given path
    err = float(np.max(np.abs(Q[:, :n] - sample(traj, np.clip(Q[:, n], s[0], s[-1])))))
    if err > PATH_TOL:
        raise BridgeError(
            f"topp: the smooth path through the points departs {err:.3g} rad from their interpolation "
            f"(at most {PATH_TOL:g} rad): the points are too sparse for the spline"
        )
    return ToppResult(out, err, solve_s, len(solver.gridpoints))
