"""What the pilot may command, whatever its input: the bounds a `PilotSession` keeps.

- **Goals are bounded.** A frame's goal stays within `TARGET_BOUND` of where the frame is when the
  goal is set (`bounded_goal`: the point is pulled back along the line from the frame, the
  rotation kept), a joint's goal within its limits (`bounded_joint`), and one increment of a held
  twist turns by at most `ROTATION_BOUND` (`bounded_increment`). A finite but huge input (a 1e300
  target or twist) is so kept to numbers the solver can handle, and a twist held while the frame
  cannot follow runs at most `TARGET_BOUND` ahead of it.
- **Joints stay inside their limits by a margin** (`POSITION_MARGIN`): the prioritized solver
  saturates them there; the svd solver's step (the thesis's method, which has no limits) is
  clipped there.
- **Every step is within the joints' speed and acceleration limits** (`StepLimiter`), as MoveIt
  Servo's velocity and acceleration scaling does: the solver's step over one cycle is scaled down
  as a whole, its direction kept, until every joint moves at most v_max·dt (the URDF's velocity
  limit) and changes its step by at most a_max·dt² (`ACCELERATION`, the URDF giving none). When a
  joint must reverse faster than a_max allows, no scaling of the new step is enough: the step then
  brakes the previous one at a_max and adds as much of the new one as fits. A scaled step keeps
  the closures to first order (both the solver's step and the previous one do), so a welded foot
  does not slip; the next cycle's solve starts from the limited configuration.
- **A command is finite** (`finite_configuration`): a cycle whose solve fails or returns a
  non-finite configuration holds the last command (the session's fault, reported).
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

from humanoid_control.bridge.limits import A_MAX_DEFAULT

__all__ = [
    "TARGET_BOUND",
    "ROTATION_BOUND",
    "ACCELERATION",
    "POSITION_MARGIN",
    "StepLimiter",
    "stopping_step",
    "speed_limits",
    "bounded_goal",
    "bounded_increment",
    "bounded_joint",
    "finite_configuration",
]

#: [m] (chosen) the farthest a frame's goal may be from the frame when it is set: above the span
#: of every shipped structure (HRP-2, the largest, is 1.6 m tall and its hand reaches at most
#: about 1 m from where it stands), so every goal a structure could reach, and a deliberately
#: unreachable one a few metres away (whose residual then reports the true gap), is kept as given.
#: A farther goal is pulled back to this distance: it only bounds the numbers (a 1e300 target
#: overflowed the solver into NaN) and how far a held twist runs ahead of a frame that cannot follow
#: (50 s of the default 0.1 m/s to come back)
TARGET_BOUND = 5.0
#: [rad] the largest rotation of one increment of a held twist: a larger angle is the same rotation
#: as a smaller one about the opposite axis, and the exponential of a huge one overflows
ROTATION_BOUND = math.pi
#: [rad] or [m] (chosen) the solver keeps every joint this far inside its URDF limits: the robot
#: bridge's default `position_margin` (`BridgeSettings`), the URDF limits of a real robot being often
#: its mechanical stops; a set-point on the stop made the simulated wrist bounce against it at 24
#: rad/s, 8.8 times its speed limit (measured: HRP-2's right wrist stretched toward a far target)
POSITION_MARGIN = 0.01
#: [rad/s²] or [m/s²] (chosen) the acceleration limit of every joint's commanded motion, the URDF
#: giving none: the robot bridge's default `max_acceleration` (`A_MAX_DEFAULT`, docs/bridge.md),
#: so that every command the stack sends to a robot has one acceleration bound; a joint reaches
#: 1 rad/s in 0.1 s, enough for a hand following a 6-DOF mouse
ACCELERATION = A_MAX_DEFAULT


def speed_limits(structure) -> np.ndarray:
    """(nv,) the velocity limit [rad/s] or [m/s] of each velocity index of ``structure``: the URDF's
    ``<limit velocity>`` of its 1-DOF joints; inf for a joint whose URDF gives none (0: "not given",
    as the robot bridge reads it) and for the floating base (it follows from the closures)."""
    out = np.full(structure.model.nv, np.inf)
    limits = structure.model.velocityLimit
    for name in structure.joint_names:
        iv = structure.joint_index(name)[1]
        v = float(limits[iv])
        if math.isfinite(v) and v > 0.0:
            out[iv] = v
    return out


def bounded_goal(current: pin.SE3, goal: pin.SE3, bound: float = TARGET_BOUND) -> tuple[pin.SE3, bool]:
    """(``goal`` with its point at most ``bound`` [m] from ``current``'s, pulled back along the line
    between them, rotation kept; whether it was pulled back). Both points finite."""
    # in units of the larger coordinate: the offset of a 1e300 goal overflows when squared
    unit = max(1.0, float(np.max(np.abs(goal.translation))), float(np.max(np.abs(current.translation))))
    d = goal.translation / unit - current.translation / unit
    n = float(np.linalg.norm(d))
    if n * unit <= bound:
        return goal, False
    return pin.SE3(goal.rotation, current.translation + bound * (d / n)), True


def bounded_increment(increment, linear: float = TARGET_BOUND, angular: float = ROTATION_BOUND):
    """(the increment [dx dy dz, drx dry drz] with its translation at most ``linear`` [m] and its
    rotation at most ``angular`` [rad] long, directions kept; whether it was shortened). A
    non-finite increment is returned as it is (the caller refuses it)."""
    v = np.array(increment, float).reshape(-1)
    if v.shape != (6,) or not np.isfinite(v).all():
        return v, False
    cut = False
    for part, bound in ((slice(0, 3), linear), (slice(3, 6), angular)):
        unit = max(1.0, float(np.max(np.abs(v[part]))))  # no overflow when squared
        n = float(np.linalg.norm(v[part] / unit))
        if n * unit > bound:
            v[part] = (v[part] / unit) * (bound / n)
            cut = True
    return v, cut


def bounded_joint(value: float, lower: float | None, upper: float | None, current: float, bound: float = TARGET_BOUND):
    """(a joint's goal [rad] or [m] within its limits ``lower``..``upper``, or, for a joint without
    limits (None), within ``bound`` of its ``current`` value; whether it was moved)."""
    lo, hi = (lower, upper) if lower is not None else (current - bound, current + bound)
    x = min(max(value, lo), hi)
    return x, x != value


def finite_configuration(q) -> bool:
    """Whether every entry of ``q`` is finite (a command may be sent)."""
    return bool(np.isfinite(np.asarray(q, float)).all())


class StepLimiter:
    """Limits the step of a commanded configuration over one cycle of ``dt`` [s] (module
    docstring): every velocity index moves at most ``v_max``·dt ((nv,) [rad/s] or [m/s]; inf: no
    limit) and changes its step from the previous cycle's by at most ``a_max``·dt² (a number or
    (nv,); inf: no limit). `limit` keeps the step it returns as the previous one; `reset` forgets
    it (the robot at rest)."""

    def __init__(self, model: pin.Model, v_max, a_max, dt: float):
        self.model, self.dt = model, float(dt)
        self.v_max = np.asarray(v_max, float)
        self.a_max = np.broadcast_to(np.asarray(a_max, float), self.v_max.shape).copy()
        self.a_max[~np.isfinite(self.v_max)] = np.inf  # the base and joints without limits
        self.previous = np.zeros(model.nv)

    def reset(self) -> None:
        """The previous step becomes zero (a start from rest)."""
        self.previous = np.zeros(self.model.nv)

    def box(self, step) -> tuple[np.ndarray, np.ndarray]:
        """(lowest, highest) step (nv,) allowed this cycle toward the solver's ``step`` (nv,): the
        speed bound, lowered to the speed from which the joint can still stop within ``step``
        (`stopping_step`) as far as the acceleration bound lets it slow down, and the acceleration
        bound around the previous step."""
        u, prev = self.a_max * self.dt**2, self.previous
        with np.errstate(invalid="ignore"):  # inf - inf of the joints without limits
            w = np.minimum(self.v_max * self.dt, np.maximum(stopping_step(np.abs(step), u), np.abs(prev) - u))
        w = np.where(np.isfinite(u), w, self.v_max * self.dt)
        return np.maximum(-w, prev - u), np.minimum(w, prev + u)

    def limit(self, q0, q, keep: bool = True) -> tuple[np.ndarray, float, bool]:
        """(the configuration reached from ``q0`` by the allowed part of the step to ``q``, the
        scale of the solver's step kept (1: within the limits), whether the previous step had to
        be braked: a reversal faster than a_max allows). ``keep``: the step becomes the previous
        one (False: a trial, `keep_step` later)."""
        step = pin.difference(self.model, q0, q)
        lo, hi = self.box(step)
        scale = _largest_scale(np.zeros_like(step), step, lo, hi)
        braked = scale is None
        if braked:  # brake the previous step at a_max, add what fits of the new one
            base = self.previous * _braking(self.previous, self.a_max * self.dt**2)
            scale = _largest_scale(base, step, lo, hi) or 0.0
            out = base + scale * step
        else:
            out = scale * step
        out = np.clip(out, lo, hi)  # rounding only: both bounds hold to the last bit
        if keep:
            self.previous = out
        return pin.integrate(self.model, np.asarray(q0, float), out), float(scale), braked

    def keep_step(self, q0, q) -> None:
        """The step from ``q0`` to ``q`` (a configuration `limit` returned) is the previous one."""
        self.previous = pin.difference(self.model, q0, q)


def stopping_step(distance, accel_step):
    """The largest step (per cycle) from which steps shrinking by ``accel_step`` (a_max·dt²) each
    cycle stop within ``distance`` (both (nv,) or numbers, [rad] or [m]): d(d + u)/(2u) <= r, so
    d = (sqrt(u² + 8ur) - u)/2; a joint at this step decelerates at exactly a_max to its goal."""
    u, r = np.asarray(accel_step, float), np.asarray(distance, float)
    with np.errstate(invalid="ignore", over="ignore"):
        return (np.sqrt(u * u + 8.0 * u * r) - u) / 2.0


def _largest_scale(base, step, lo, hi) -> float | None:
    """The largest s in [0, 1] with lo <= base + s·step <= hi at every index, None when none is."""
    still = step == 0.0
    if np.any(still & ((base < lo) | (base > hi))):
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        t0, t1 = (lo - base) / step, (hi - base) / step
    s_lo = max(0.0, float(np.max(np.where(still, -np.inf, np.minimum(t0, t1)))))
    s_hi = min(1.0, float(np.min(np.where(still, np.inf, np.maximum(t0, t1)))))
    return None if s_lo > s_hi else s_hi


def _braking(previous, accel_step) -> float:
    """The factor (0..1) of ``previous`` that slows every index as much as ``accel_step`` (its
    a_max·dt²) allows: 0 when every index can stop in one cycle."""
    moving = np.abs(previous) > 0.0
    if not moving.any():
        return 0.0
    return float(max(0.0, np.max(1.0 - accel_step[moving] / np.abs(previous[moving]))))
