"""The sinusoidal time law with a speed cap (Escande 2008, §7.1.2, (7.3)).

A segment's projections q^0 .. q^k are joined by a path parameterised by an arc length a. Each piece
j costs, in seconds at the caps,

    d_j = max( max_joints abs(dq) / v_joint, abs(dp_base) / v_base, abs(dtheta_base) / w_base )

(dq the tangent difference `pin.difference` from q^j to q^{j+1}: joint angles and the base's
twist), and the knots sit at a_j = d_0 + ... + d_{j-1}, L = a_k. The path through them is a C²
cubic spline (SciPy's not-a-knot `CubicSpline`) of the tangent coordinates difference(q^0, q)
against a, mapped back by `pin.integrate`: the thesis's piecewise-linear path has velocity jumps
at every q^{i,j} (the thesis lets the motors filter them, §7.1.2); a robot bridge checks accelerations
(`humanoid_control.bridge`: 10 rad/s² by default), and the linear path's jumps reach 16 rad/s²
on the flat walk, so we keep the knots and smooth between them. Two knots give the straight
line. The arc length follows a(t) = (L/2)(1 - cos(pi t / T)) (7.3): zero velocity at both ends,
where contacts are made and broken (§7.1.2). T starts at pi L / 2 (the largest
rate of a is then 1: the caps on a piecewise-linear path) rounded up to a whole number of control
periods ``dt`` (the thesis's T_i a multiple of dt, so the segment's last sample is exactly q^k and
every witness posture is a sample); the spline may be faster than the chords between knots, so
the sampled speeds are measured and T is stretched by their ratio to the caps when above
(speeds scale as 1/T on a fixed path; repeated while the rounding leaves them above).

Numbers: ``v_joint`` = 10 deg/s, the thesis's cap for its chair motion (Escande 2008, §7.1.2, Fig.
7.2). Chosen: ``v_base`` 0.1 m/s and ``w_base`` 10 deg/s (the base is carried by the joints and
stays well under them in the scenes' plans; the caps only keep a base-only piece from getting zero
duration); ``dt`` 5 ms, HRP-2's control period ([HRP2-T1]; Chardonnet 2009).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from scipy.interpolate import CubicSpline

from humanoid_planner.exceptions import PlanningError

__all__ = ["piece_costs", "sinusoidal_samples", "speed_ratio", "spline_path"]

STRETCHES = 3  # (chosen) stretch rounds; one suffices on the scenes' plans (speeds scale as 1/T)


def piece_costs(model, knots: np.ndarray, v_joint: float, v_base: float, w_base: float) -> np.ndarray:
    """(k,) seconds at the caps of each piece between consecutive ``knots`` (k+1, nq)."""
    out = np.empty(len(knots) - 1)
    for j in range(len(knots) - 1):
        out[j] = _cost(pin.difference(model, knots[j], knots[j + 1]), v_joint, v_base, w_base)
    return out


def _cost(d, v_joint, v_base, w_base) -> float:
    """Seconds at the caps for a tangent step ``d`` (nv,), or for each row of ``d`` (m, nv)."""
    d = np.atleast_2d(d)
    joints = np.max(np.abs(d[:, 6:]), axis=1, initial=0.0) / v_joint
    out = np.maximum(
        joints, np.maximum(np.linalg.norm(d[:, :3], axis=1) / v_base, np.linalg.norm(d[:, 3:6], axis=1) / w_base)
    )
    return out if len(out) > 1 else float(out[0])


def speed_ratio(model, q: np.ndarray, dt: float, v_joint: float, v_base: float, w_base: float) -> float:
    """The largest sampled speed of ``q`` (m, nq) every ``dt`` [s] relative to its cap (1: at a cap)."""
    if len(q) < 2:
        return 0.0
    d = np.array([pin.difference(model, a, b) for a, b in zip(q[:-1], q[1:])])
    return float(np.max(_cost(d, v_joint, v_base, w_base))) / dt


def spline_path(model, knots: np.ndarray, cost: np.ndarray):
    """The C² path a -> q through the knots (module docstring); knots after a zero-cost piece
    (equal configurations) are dropped, the last knot kept."""
    idx = [0] + [j + 1 for j in np.flatnonzero(cost > 0)]
    idx[-1] = len(knots) - 1
    k = knots[idx]
    a = np.concatenate([[0.0], np.cumsum(cost[cost > 0])])
    tangent = np.array([pin.difference(model, k[0], q) for q in k])
    spline = CubicSpline(a, tangent, axis=0)
    return (lambda x: pin.integrate(model, k[0], spline(x))), float(a[-1])


def _sample(model, path, length, steps, dt):
    t = np.arange(steps + 1) * dt
    arc = 0.5 * length * (1.0 - np.cos(np.pi * t / t[-1]))
    return t, np.array([path(x) for x in arc])


def _steps(count: float, max_steps: float, dt: float) -> int:
    """``count`` periods rounded up, or `PlanningError` when more than ``max_steps`` (or not finite)."""
    if not count <= max_steps:  # also NaN and inf: a speed cap of 1e-300 rad/s
        raise PlanningError(
            f"time law: the motion needs more than {max_steps:g} more samples of {dt:g} s "
            f"(at most humanoid_planner.bounds.MAX_SAMPLES in a motion): raise dt or the speed caps"
        )
    return max(1, int(np.ceil(count)))


def sinusoidal_samples(
    model, knots, dt: float, v_joint: float, v_base: float, w_base: float, max_steps: float = np.inf
):
    """``(t, q)``: the segment through ``knots`` (k+1, nq) sampled every ``dt`` [s] from t = 0 to
    T (module docstring); t (m,) and q (m, nq), first row knots[0], last row knots[-1].
    `PlanningError` when it needs more than ``max_steps`` periods."""
    knots = np.asarray(knots, float)
    if not (dt > 0 and v_joint > 0 and v_base > 0 and w_base > 0):
        raise PlanningError(f"time law: dt, v_joint, v_base, w_base must be > 0; {dt}, {v_joint}, {v_base}, {w_base}")
    cost = piece_costs(model, knots, v_joint, v_base, w_base)
    if cost.sum() == 0:
        return np.zeros(1), knots[:1].copy()
    if not np.all(np.isfinite(cost)):
        _steps(np.inf, max_steps, dt)
    path, length = spline_path(model, knots, cost)
    steps = _steps(np.pi * length / 2.0 / dt - 1e-9, max_steps, dt)
    t, q = _sample(model, path, length, steps, dt)
    for _ in range(STRETCHES):
        ratio = speed_ratio(model, q, dt, v_joint, v_base, w_base)
        if ratio <= 1.0:
            break
        steps = _steps(steps * ratio, max_steps, dt)
        t, q = _sample(model, path, length, steps, dt)
    q[0], q[-1] = knots[0], knots[-1]
    return t, q
