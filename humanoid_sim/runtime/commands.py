"""ROS-free checks of the simulator node's commands (ros2_control-style topics, external wrenches).

The node (`humanoid_ros.simulator`) turns messages into plain values and calls these functions
(through `humanoid_sim.runtime.session.SimulationSession`); every bad command raises `CommandError` (a
`HumanoidStackError`) whose message names the topic, the field and the value, and the node logs
it and keeps the previous command.

* `check_positions` / `check_efforts`: a forward controller's ``Float64MultiArray.data``, one
  value per actuated joint in the robot's joint order (`Robot.joint_names`), finite, positions
  within the URDF limits [rad], efforts within the URDF effort limits [N·m].
* `build_trajectory`: a ``trajectory_msgs/JointTrajectory`` with ros2_control's semantics
  (joint_trajectory_controller): ``header.stamp`` zero = start on receipt, else start at that
  time of the simulation clock (/clock); ``time_from_start`` is relative to the start. Joints the
  message does not name keep their current set-point (a partial goal; our choice, where
  ros2_control's default rejects it). When the first point's ``time_from_start`` is > 0 the
  trajectory starts from the current set-point at time 0 (as ros2_control interpolates from the
  current state). Names must be known and unique, times strictly increasing, positions finite and
  within the limits, velocities (all points or none) finite.
* `check_wrench`: an external wrench (``geometry_msgs/WrenchStamped``): ``header.frame_id`` names
  a link of the robot or a free body of the scene, force [N] and torque [N·m] finite.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from humanoid_model.validation import finite_number, finite_vector, message, short
from humanoid_sim.exceptions import CommandError
from humanoid_sim.stages.actuators import JointTrajectory
from humanoid_sim.stages.wrenches import check_bounds

__all__ = [
    "CommandError",
    "check_positions",
    "check_efforts",
    "check_wrench",
    "build_trajectory",
    "TrajectoryPoint",
    "LIMIT_TOL",
]

LIMIT_TOL = 1e-9  # [rad] a command this far outside a limit still counts as inside (rounding; chosen)


def _finite(values, topic, field):
    return finite_vector(values, None, topic, field, CommandError)


def _check_length(a, n, topic, field):
    if a.shape[0] != n:
        raise CommandError(
            f"{topic}: field '{field}' has {a.shape[0]} values; expected {n} "
            "(one per actuated joint, in /joint_states order)"
        )


def _check_limits(a, lower, upper, names, topic, field, unit):
    out = np.flatnonzero((a < lower - LIMIT_TOL) | (a > upper + LIMIT_TOL))
    if out.size:
        i = int(out[0])
        raise CommandError(
            f"{topic}: field '{field}' value {a[i]:.6g} {unit} for joint '{names[i]}' is "
            f"outside its limits [{lower[i]:.6g}, {upper[i]:.6g}]"
        )


def check_positions(values, names: Sequence[str], lower, upper, topic: str = "command") -> np.ndarray:
    """Position set-points (n,) [rad], checked (see module docstring)."""
    a = _finite(values, topic, "data")
    _check_length(a, len(names), topic, "data")
    _check_limits(a, np.asarray(lower, float), np.asarray(upper, float), names, topic, "data", "rad")
    return a


def check_efforts(values, names: Sequence[str], effort_max, topic: str = "command") -> np.ndarray:
    """Joint torques (n,) [N·m], checked against ±effort_max (a limit ≤ 0 means none)."""
    a = _finite(values, topic, "data")
    _check_length(a, len(names), topic, "data")
    em = np.asarray(effort_max, float)
    em = np.where(em > 0, em, np.inf)
    _check_limits(a, -em, em, names, topic, "data", "N·m")
    return a


def check_wrench(link: str, force, torque, model, robot_name: str, topic: str = "external wrench"):
    """(link, force (3,) [N], torque (3,) [N·m]) of an external wrench, checked: ``link`` is a frame
    of ``model`` (the world's combined Pinocchio model: robot links and free bodies; a leading
    "/" is dropped), the six values are finite and the force and torque magnitudes are within
    `humanoid_sim.stages.wrenches.MAX_FORCE` / `MAX_TORQUE` (1e6 N, 1e6 N·m)."""
    link = str(link).lstrip("/")
    if not link or model.getFrameId(link) >= len(model.frames):
        raise CommandError(
            message(topic, "header.frame_id", f"a link of robot '{robot_name}' or a free body of the scene", link)
        )
    wrench = finite_vector(list(force) + list(torque), 6, topic, "wrench", CommandError)
    check_bounds(wrench[:3], wrench[3:], topic, CommandError, ("wrench.force", "wrench.torque"))
    return link, wrench[:3], wrench[3:]


class TrajectoryPoint:
    """Plain stand-in of a ``JointTrajectoryPoint``: positions, velocities, time_from_start [s]."""

    def __init__(self, positions, time_from_start, velocities=()):
        self.positions = list(positions)
        self.velocities = list(velocities)
        self.time_from_start = float(time_from_start)


def build_trajectory(
    joint_names: Sequence[str],
    points,
    robot_names: Sequence[str],
    lower,
    upper,
    current,
    stamp: float,
    now: float,
    topic: str = "trajectory",
    v_max=None,
):
    """(`JointTrajectory` over all robot joints, start time [s] on the simulation clock).

    joint_names: the message's names; points: objects with ``positions``, ``velocities`` and
    ``time_from_start`` [s] (float); current (n,): the current set-point (held by joints the
    message does not name, and the start of the interpolation when the first time is > 0);
    stamp [s]: ``header.stamp`` (0 = now); now [s]: the simulation time of receipt; v_max (n,)
    [rad/s]: the URDF velocity limits the given ``velocities`` must respect (None, or a limit
    <= 0 or inf: that joint's velocities are not checked; URDF velocity 0 means "not given").
    """
    robot_names = list(robot_names)
    index = {n: i for i, n in enumerate(robot_names)}
    names = list(joint_names)
    if not names:
        raise CommandError(f"{topic}: field 'joint_names' is empty")
    unknown = [n for n in names if n not in index]
    if unknown:
        raise CommandError(
            f"{topic}: field 'joint_names' has unknown joint {short(unknown[0])} "
            f"(robot joints: {', '.join(robot_names[:6])}, ...)"
        )
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise CommandError(f"{topic}: field 'joint_names' names joint {short(dup)} twice")
    points = list(points)
    if not points:
        raise CommandError(f"{topic}: field 'points' is empty")
    stamp = finite_number(stamp, topic, "header.stamp", minimum=0.0, unit="[s]", error=CommandError)
    times = np.array([float(p.time_from_start) for p in points])
    if not np.all(np.isfinite(times)) or times[0] < 0 or np.any(np.diff(times) <= 0):
        raise CommandError(
            f"{topic}: field 'points[].time_from_start' must be >= 0 and strictly increasing; value {times.tolist()}"
        )
    cols = np.array([index[n] for n in names])
    current = np.asarray(current, float).reshape(-1)
    P = np.tile(current, (len(points), 1))
    with_vel = [len(p.velocities) > 0 for p in points]
    if any(with_vel) and not all(with_vel):
        raise CommandError(f"{topic}: field 'points[].velocities' must be given for all points or none")
    V = np.zeros_like(P) if all(with_vel) else None
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    if v_max is not None:  # a limit <= 0 or inf (URDF: not given) checks nothing
        vm = np.asarray(v_max, float)[cols]
        vm = np.where((vm > 0) & np.isfinite(vm), vm, np.inf)
    for k, p in enumerate(points):
        pos = _finite(p.positions, topic, f"points[{k}].positions")
        if pos.shape[0] != len(names):
            raise CommandError(
                f"{topic}: field 'points[{k}].positions' has {pos.shape[0]} values for {len(names)} joint_names"
            )
        _check_limits(pos, lower[cols], upper[cols], names, topic, f"points[{k}].positions", "rad")
        P[k, cols] = pos
        if V is not None:
            vel = _finite(p.velocities, topic, f"points[{k}].velocities")
            if vel.shape[0] != len(names):
                raise CommandError(
                    f"{topic}: field 'points[{k}].velocities' has {vel.shape[0]} values for {len(names)} joint_names"
                )
            if v_max is not None:
                _check_limits(vel, -vm, vm, names, topic, f"points[{k}].velocities", "rad/s")
            V[k, cols] = vel
    if times[0] > 0:
        times = np.concatenate([[0.0], times])
        P = np.vstack([current, P])
        if V is not None:
            V = np.vstack([np.zeros_like(current), V])
    start = float(now) if stamp == 0 else float(stamp)
    return JointTrajectory(times, P, V, names=robot_names), start
