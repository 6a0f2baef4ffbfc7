"""The bridge's checks: each has a ``name`` and ``run(trajectory, context) -> list[Refusal]``.

Input checks (`INPUT_CHECKS`) judge the trajectory as received; `validate` stops after them if any
refuses (nothing else can be computed on unknown joints or NaN). Motion checks (`MOTION_CHECKS`)
judge the trajectory to be sent: every robot joint, time scaled, in the order of ``limits.names``.
Limit checks look at the points and along the interpolation the controller runs, exactly
(`humanoid_control.bridge.bounds`), and report, per joint, the worst point or segment.

| name | refuses |
|---|---|
| points | no point |
| joint_names | an empty name list, or a name the robot does not have |
| repeated_joints | a joint named twice |
| finite | a NaN or infinite time, position, velocity or acceleration |
| time_order | time_from_start not strictly increasing |
| start_time | a first point at t < 0 |
| held_joints | a joint of unknown current position: not named (cannot be held), named (start not checked) |
| current_state | a NaN or infinite current position |
| start_state | a first point farther than start_tolerance from the current position |
| position_limits | a position outside [lower + margin, upper - margin], at a point or between points |
| velocity_limits | a |velocity| above v_max, at a point or between points |
| acceleration_limits | a |acceleration| above a_max, between points or at a velocity step |
| self_collision | two links of the robot in collision at a point (`humanoid_control.bridge.collision`) |
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from humanoid_control.bridge import bounds
from humanoid_control.bridge.limits import JointLimits
from humanoid_control.bridge.report import Refusal, refusal
from humanoid_control.bridge.settings import BridgeSettings
from humanoid_control.bridge.trajectory import Trajectory
from humanoid_model.validation import did_you_mean

__all__ = [
    "Check",
    "CheckContext",
    "INPUT_CHECKS",
    "MOTION_CHECKS",
    "LIMIT_TOL",
    "LISTED",
    "limit_ratios",
]

# relative tolerance on velocity and acceleration limits, absolute [rad] on positions (chosen:
# rounding of the time scaling and of the cubic's coefficients, far below any physical effect)
LIMIT_TOL = 1e-9
# (chosen) problems an input check lists by name; the rest are counted in one more refusal, so a
# 100 000-name trajectory is reported in a few lines (and no close-match hint is searched for each)
LISTED = 5


def _listed(check: str, items: list, one, what: str) -> list[Refusal]:
    """``one(item)`` for the first `LISTED` ``items``, then one refusal counting the others
    (``what``: their plural noun and why, e.g. "names unknown to the robot")."""
    out = [one(x) for x in items[:LISTED]]
    rest = len(items) - LISTED
    if rest > 0:
        out.append(refusal(check, None, None, rest, f"{rest} more {what} (the first {LISTED} are listed)"))
    return out


@dataclass
class CheckContext:
    """What checks may look at besides the trajectory."""

    limits: JointLimits
    settings: BridgeSettings
    current: Mapping[str, float] | None = None
    robot: object | None = None  #: a humanoid_model.robot.Robot (self-collision only)
    hold: Mapping[str, float] | None = None  #: the set-point of the joints not named (`validate`)


class Check(Protocol):
    name: str

    def run(self, traj: Trajectory, context: CheckContext) -> list[Refusal]: ...


# ------------------------------------------------------------------------------ input checks
class Points:
    name = "points"

    def run(self, traj, context):
        if traj.n_points == 0:
            return [refusal(self.name, None, None, 0, "a trajectory needs at least one point")]
        return []


class JointNames:
    name = "joint_names"

    def run(self, traj, context):
        if not traj.joint_names:
            return [refusal(self.name, None, None, None, "the trajectory names no joint")]
        known = context.limits.index
        unknown = [n for n in dict.fromkeys(traj.joint_names) if n not in known]
        return _listed(
            self.name,
            unknown,
            lambda n: refusal(self.name, n, None, None, f"unknown to the robot{did_you_mean(n, known)}"),
            "names unknown to the robot",
        )


class RepeatedJoints:
    name = "repeated_joints"

    def run(self, traj, context):
        names = traj.joint_names
        counts = Counter(names)  # (no list per name: 100 000 small lists would make the collector pause)

        def one(n):
            idx = [i for i, x in enumerate(names) if x == n][: LISTED + 1]
            cols = ", ".join(map(str, idx[:LISTED])) + (", ..." if counts[n] > LISTED else "")
            return refusal(self.name, n, None, counts[n], f"named {counts[n]} times (columns {cols})")

        return _listed(self.name, [n for n, c in counts.items() if c > 1], one, "joints named twice")


class Finite:
    name = "finite"

    def run(self, traj, context):
        out = []
        bad_t = np.flatnonzero(~np.isfinite(traj.times))
        if bad_t.size:
            k = int(bad_t[0])
            out.append(refusal(self.name, None, k, float(traj.times[k]), "time_from_start is not finite", "s"))
        for field in ("positions", "velocities", "accelerations"):
            a = getattr(traj, field)
            if a is None:
                continue
            bad = ~np.isfinite(a)

            def one(j, a=a, bad=bad, field=field):
                k = int(np.flatnonzero(bad[:, j])[0])
                return refusal(self.name, traj.joint_names[j], k, float(a[k, j]), f"{field[:-1]} is not finite")

            columns = np.flatnonzero(bad.any(axis=0)).tolist()
            out += _listed(self.name, columns, one, f"joints with a {field[:-1]} that is not finite")
        return out


class TimeOrder:
    name = "time_order"

    def run(self, traj, context):
        d = np.diff(traj.times)
        bad = np.flatnonzero(~(d > 0))
        return [
            refusal(
                self.name,
                None,
                int(k) + 1,
                float(traj.times[k + 1]),
                f"time_from_start must be strictly increasing (point {k} is at {traj.times[k]:.6g} s)",
                "s",
            )
            for k in bad[:1]
        ]


class StartTime:
    name = "start_time"

    def run(self, traj, context):
        if traj.n_points and traj.times[0] < 0:
            return [refusal(self.name, None, 0, float(traj.times[0]), "the first point must be at t >= 0", "s")]
        return []


class HeldJoints:
    name = "held_joints"

    def run(self, traj, context):
        named = set(traj.joint_names)
        known = set(context.current or {}) | set(context.hold or {})
        out = [
            refusal(self.name, n, None, None, "not named by the trajectory and its current position is unknown")
            for n in context.limits.names
            if n not in named and n not in known
        ]
        if context.current is not None:  # a measured state that lacks a named joint (joint_map?)
            out += [
                refusal(
                    self.name,
                    n,
                    None,
                    None,
                    "not in the measured joint state (/joint_states, after joint_map): its start cannot be checked",
                )
                for n in traj.joint_names
                if n in context.limits.index and n not in context.current
            ]
        return out


class CurrentState:
    name = "current_state"

    def run(self, traj, context):
        current = context.current or {}
        return [
            refusal(self.name, n, None, float(current[n]), "the current position (/joint_states) is not finite", "rad")
            for n in context.limits.names
            if n in current and not np.isfinite(float(current[n]))
        ]


INPUT_CHECKS = (
    Points(),
    JointNames(),
    RepeatedJoints(),
    Finite(),
    TimeOrder(),
    StartTime(),
    HeldJoints(),
    CurrentState(),
)


# ------------------------------------------------------------------------------ motion checks
def _columns(traj, limits):
    return np.array([limits.index[n] for n in traj.joint_names], dtype=int)


class StartState:
    """The first point against the current positions. Held joints start where they are by
    construction; `validate` runs this on the trajectory as named, before the approach."""

    name = "start_state"

    def run(self, traj, context):
        current = context.current
        if current is None:
            return []
        tol = context.settings.start_tolerance
        out = []
        for j, n in enumerate(traj.joint_names):
            if n in current:
                err = float(traj.positions[0, j] - current[n])
                if abs(err) > tol:
                    out.append(
                        refusal(
                            self.name,
                            n,
                            0,
                            float(traj.positions[0, j]),
                            f"first point is {err:+.6g} rad from the current position {current[n]:.6g} rad "
                            f"(tolerance {tol:g} rad)",
                            "rad",
                        )
                    )
        return out


def _worst(check, traj, excess, value, limit, unit, what, point_of, verb="exceeds the limit"):
    """One refusal per joint whose ``excess`` (rows: points or segments) is > 0, at its worst row."""
    out = []
    for j in np.flatnonzero((excess > 0).any(axis=0)):
        k = int(np.argmax(excess[:, j]))
        point, where = point_of(k)
        out.append(
            refusal(
                check,
                traj.joint_names[j],
                point,
                float(value[k, j]),
                f"{what} {where} {verb} {limit[j]:.6g} {unit}",
                unit,
            )
        )
    return out


def _segment(traj):
    def at(k):
        return k, f"between points {k} and {k + 1} (t {traj.times[k]:.6g}-{traj.times[k + 1]:.6g} s)"

    return at


def _point(traj):
    def at(k):
        return k, f"at point {k} (t {traj.times[k]:.6g} s)"

    return at


class PositionLimits:
    name = "position_limits"

    def run(self, traj, context):
        lim, m = context.limits, context.settings.position_margin
        cols = _columns(traj, lim)
        lo, hi = lim.lower[cols] + m, lim.upper[cols] - m
        p = traj.positions
        out = []
        for label, value, bound, sign in (("below", p, lo, -1), ("above", p, hi, 1)):
            excess = sign * (value - bound) - LIMIT_TOL
            verb = f"is {label} the limit minus margin {m:g} rad:"
            out += _worst(self.name, traj, excess, value, bound, "rad", "position", _point(traj), verb)
        if out or traj.n_points < 2 or traj.velocities is None:
            return out
        seg_lo, seg_hi = bounds.position_extremes(traj.times, p, traj.velocities)
        for label, value, bound, sign in (("below", seg_lo, lo, -1), ("above", seg_hi, hi, 1)):
            excess = sign * (value - bound) - LIMIT_TOL
            verb = f"is {label} the limit minus margin {m:g} rad:"
            out += _worst(self.name, traj, excess, value, bound, "rad", "cubic overshoot", _segment(traj), verb)
        return out


def limit_ratios(traj: Trajectory, limits: JointLimits):
    """(velocity peak / v_max per segment (N-1, n), acceleration peak / a_max per segment (N-1, n),
    knot acceleration / a_max (N, n)); zeros for a single point."""
    n = len(traj.joint_names)
    if traj.n_points < 2:
        z = np.zeros((0, n))
        return z, z, np.zeros((traj.n_points, n))
    cols = _columns(traj, limits)
    v = bounds.velocity_peaks(traj.times, traj.positions, traj.velocities)
    a_seg, a_knot = bounds.acceleration_peaks(traj.times, traj.positions, traj.velocities)
    vm, am = limits.v_max[cols], limits.a_max[cols]
    return v / vm, a_seg / am, a_knot / am


class VelocityLimits:
    name = "velocity_limits"

    def run(self, traj, context):
        if traj.n_points < 2:
            return []
        cols = _columns(traj, context.limits)
        vm = context.limits.v_max[cols]
        v = bounds.velocity_peaks(traj.times, traj.positions, traj.velocities)
        what = "velocity" if traj.velocities is not None else "velocity (linear interpolation)"
        return _worst(self.name, traj, v / vm - 1 - LIMIT_TOL, v, vm, "rad/s", what, _segment(traj))


class AccelerationLimits:
    name = "acceleration_limits"

    def run(self, traj, context):
        if traj.n_points < 2:
            return []
        cols = _columns(traj, context.limits)
        am = context.limits.a_max[cols]
        a_seg, a_knot = bounds.acceleration_peaks(traj.times, traj.positions, traj.velocities)
        out = _worst(self.name, traj, a_seg / am - 1 - LIMIT_TOL, a_seg, am, "rad/s²", "acceleration", _segment(traj))
        seen = {r.joint for r in out}
        knot = _worst(self.name, traj, a_knot / am - 1 - LIMIT_TOL, a_knot, am, "rad/s²", "velocity step", _point(traj))
        return out + [r for r in knot if r.joint not in seen]


class SelfCollisionCheck:
    """Refuses a trajectory that puts two links of the robot in collision at a point (the
    posture generator's self-collision constraint is `humanoid_planner.posture.SelfCollision`)."""

    name = "self_collision"

    def run(self, traj, context):
        if not context.settings.self_collision:
            return []
        from humanoid_control.bridge.collision import self_collisions

        return self_collisions(traj, context.robot, self.name)


MOTION_CHECKS = (PositionLimits(), VelocityLimits(), AccelerationLimits(), SelfCollisionCheck())
