"""`validate`: every check of a trajectory before it is sent, and the trajectory to send.

Order (docs/bridge.md):

1. input checks on the trajectory as received (`checks.INPUT_CHECKS`); any refusal ends here;
2. start state: the first point against the current positions (``start_tolerance``); beyond it,
   refuse, unless ``approach`` is on;
3. the trajectory to send is built: every robot joint, in ``limits.names`` order, joints not named
   holding their set-point (``hold``: what the controller was last commanded; else their current
   position); time stretched by 1 / ``speed_scale``; accelerations dropped
   (the controller then runs the cubic that is checked here, not a quintic);
4. with the ``retime`` policy, a velocity or acceleration excess stretches time (`retime`); with
   ``topp``, it retimes the motion time-optimally along its path (`topp.time_optimal`, sampled
   every ``command_period``), and when that fails or its result fails a velocity, acceleration or
   position check, the uniform stretch is used instead, with a note saying why;
5. the approach segment is prepended (``approach``, at its own speed, not stretched; its profile
   ``approach_profile``, `approach`), or, when the first point is at t > 0, the current position
   at t = 0 (the controller interpolates from where the robot is, as ros2_control's
   joint_trajectory_controller does);
6. motion checks (`checks.MOTION_CHECKS`) on that trajectory, along its interpolation; with
   ``retime`` or ``topp``, an excess left at the junction of a prepended segment stretches the
   whole again (uniformly).

Point indices in refusals of step 4 count the points of the trajectory to send; a note says when
a point was prepended (index 0 is then the current position).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from humanoid_control.bridge.approach import approach_duration, prepend_approach, prepend_rest
from humanoid_control.bridge.checks import (
    INPUT_CHECKS,
    AccelerationLimits,
    CheckContext,
    PositionLimits,
    SelfCollisionCheck,
    StartState,
    VelocityLimits,
)
from humanoid_control.bridge.limits import JointLimits
from humanoid_control.bridge.report import ValidationReport
from humanoid_control.bridge.retime import retime, scale_time
from humanoid_control.bridge.settings import BridgeSettings
from humanoid_control.bridge.trajectory import Trajectory
from humanoid_control.exceptions import BridgeError

__all__ = ["validate", "approach_duration", "fill_joints"]


def _held(names, current, hold) -> np.ndarray:
    """Where each joint not named stays: ``hold[joint]``, else ``current[joint]`` (else 0)."""
    hold, current = hold or {}, current or {}
    return np.array([float(hold[n]) if n in hold else float(current[n]) if n in current else 0.0 for n in names])


def fill_joints(
    traj: Trajectory,
    limits: JointLimits,
    current: Mapping[str, float] | None,
    hold: Mapping[str, float] | None = None,
) -> Trajectory:
    """``traj`` over every joint of ``limits.names`` (that order); a joint it does not name holds
    ``hold[joint]`` (its set-point), else ``current[joint]`` (zero velocity)."""
    N, names = traj.n_points, limits.names
    cols = np.array([limits.index[n] for n in traj.joint_names], dtype=int)
    held = _held(names, current, hold)
    P = np.tile(held, (N, 1))
    P[:, cols] = traj.positions
    V = None
    if traj.velocities is not None:
        V = np.zeros((N, len(names)))
        V[:, cols] = traj.velocities
    return Trajectory(names, traj.times.copy(), P, V, None, traj.source)


def _time_optimal(full, limits, settings, ctx, dynamic_of, notes) -> tuple[Trajectory, float, str]:
    """(``full`` retimed time-optimally, new duration / old, "time-optimal"), or, when TOPP-RA
    fails or its motion fails a check, (the uniform stretch, its factor, "uniform") with a note."""
    from humanoid_control.bridge.topp import SCALES, time_optimal

    for scale in SCALES:
        try:
            res = time_optimal(full, limits, settings.command_period, scale)
        except BridgeError as exc:
            why = str(exc)
            break
        out = res.trajectory
        refused = dynamic_of(out) + PositionLimits().run(out, ctx)
        if not refused:
            at = f" within x{scale:g} of the limits" if scale != 1.0 else ""
            notes.append(
                f"topp: {out.n_points} commands every {settings.command_period:g} s (linear interpolation){at}, "
                f"duration {out.duration:.6g} s instead of {full.duration:.6g} s, at most {res.path_error:.3g} rad "
                "from the given path"
            )
            return out, out.duration / full.duration, "time-optimal"
        why = f"topp: the time-optimal motion fails a check at x{scale:g} of the limits: {refused[0].message}"
    notes.append(f"{why}; the uniform stretch is used instead")
    return (*retime(full, limits), "uniform")


def validate(
    traj: Trajectory,
    limits: JointLimits,
    current: Mapping[str, float] | None = None,
    settings: BridgeSettings | None = None,
    robot=None,
    hold: Mapping[str, float] | None = None,
) -> ValidationReport:
    """Check ``traj`` for the robot of ``limits`` standing at ``current`` ({joint: position}, from
    /joint_states; None: unknown, the start state is then not checked) and build what to send
    (module docstring). ``hold`` ({joint: position} or None): the set-point the controller holds
    now, where the joints ``traj`` does not name stay (a robot sagging under gravity measures
    below it: holding the measurement would lower those joints at every motion). ``robot`` (a
    `humanoid_model.robot.Robot`) is needed only when ``settings.self_collision`` is on."""
    settings = settings or BridgeSettings()
    ctx = CheckContext(limits, settings, current, robot, hold)
    notes: list[str] = []
    refusals = [r for check in INPUT_CHECKS for r in check.run(traj, ctx)]
    if refusals:
        return ValidationReport(False, refusals, None, 1.0, notes)

    named = set(traj.joint_names)
    held = [n for n in limits.names if n not in named]
    if held:
        where = "their last commanded position" if hold else "their current position"
        notes.append(
            f"{len(held)} joints not named hold {where}: {', '.join(held[:8])}" + (", ..." if len(held) > 8 else "")
        )
    start = StartState().run(traj, ctx) if current is not None else []
    full = fill_joints(traj, limits, current, hold)
    if traj.accelerations is not None:
        notes.append("accelerations dropped: the controller runs the checked cubic (or linear) interpolation")
    if settings.speed_scale != 1.0:
        full = scale_time(full, 1.0 / settings.speed_scale)
        notes.append(f"time stretched by 1 / speed_scale = {1.0 / settings.speed_scale:.6g}")
    if start and not settings.approach:
        return ValidationReport(False, start, None, 1.0, notes)

    def dynamic_of(tr):
        return VelocityLimits().run(tr, ctx) + AccelerationLimits().run(tr, ctx)

    stretch, how = 1.0, "uniform"
    if settings.policy == "retime" and dynamic_of(full):
        full, stretch = retime(full, limits)  # the motion itself, before any approach segment
    elif settings.policy == "topp" and dynamic_of(full):
        full, stretch, how = _time_optimal(full, limits, settings, ctx, dynamic_of, notes)
    if current is None:
        notes.append("current joint positions unknown: the start state is not checked")
    else:
        # named joints start from where they are; the others stay at their set-point
        q0 = np.where([n in named for n in limits.names], _held(limits.names, current, None), full.positions[0])
        if start:
            full, T = prepend_approach(full, q0, limits, settings)
            notes.append(
                f"approach segment ({settings.approach_profile}) of {T:.6g} s prepended from the current position "
                f"(largest start error {max(abs(r.value - current[r.joint]) for r in start):.6g} rad); "
                "point indices count it as point 0"
            )
        elif full.times[0] > 0:
            full = prepend_rest(full, q0, full.times[0])
            notes.append("current position prepended at t = 0 (first point at t > 0); point indices count it as 0")

    unbounded = [n for n, v in zip(limits.names, limits.v_max) if not np.isfinite(v)]
    if unbounded:
        notes.append(f"no velocity limit (URDF velocity 0) for: {', '.join(unbounded)}")
    refusals = PositionLimits().run(full, ctx)
    dynamic = dynamic_of(full)
    if dynamic and settings.policy in ("retime", "topp"):  # left: the junction with the prepended segment
        full, again = retime(full, limits)
        stretch *= again
        how = "uniform" if how == "uniform" else f"{how}, then x{again:.6g} uniform"
        dynamic = dynamic_of(full)
    if stretch != 1.0:
        what = "time stretched" if how == "uniform" else "duration"
        notes.append(
            f"retimed: {what} x{stretch:.6g} ({how}) so that every velocity and acceleration limit holds; "
            f"duration {full.duration:.6g} s"
        )
    refusals += dynamic
    refusals += SelfCollisionCheck().run(full, ctx)
    ok = not refusals
    return ValidationReport(ok, refusals, full if ok else None, stretch, notes)
