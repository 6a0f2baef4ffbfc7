"""An optimal gait (GAIT.json data of `humanoid_planner.gait.phase_sequence`) as the messages of the
gait generator's `humanoid_stack_interfaces/action/GenerateGait` result: what the `gait_generator`
node answers.

- ``trajectory``: BIP's URDF joints (trajectory_msgs/JointTrajectory);
- ``base_motion``: the pelvis (floating joint ``root_joint``) along the gait, shifted by the goal's
  start x (trajectory_msgs/MultiDOFJointTrajectory, in ``frame``);
- ``contact_schedule``: the feet's contacts phase after phase as the whole-body controller reads a
  gait (`humanoid_control.wbc.sources.gait.gait_phases`: the stance sole in single support, the rear
  toe and the front heel then sole in double support, the front foot flat from the first sample
  where its toe and heel are level), each contact frame's pose taken by forward kinematics at the
  phase's start;
- ``energy``: the criterion summed over the solved phases [J] (Chessé 2002, eq. of the energy).
ROS glue only.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from humanoid_stack_interfaces.action import GenerateGait
from humanoid_stack_interfaces.msg import Contact, ContactPhase, ContactSchedule
from trajectory_msgs.msg import (
    JointTrajectory,
    JointTrajectoryPoint,
    MultiDOFJointTrajectory,
    MultiDOFJointTrajectoryPoint,
)

from humanoid_control.wbc.sources.common import configurations
from humanoid_control.wbc.sources.gait import front_foot_flat_times, gait_phases, gait_spans
from humanoid_ros.common import duration
from humanoid_ros.plan_messages import BASE_JOINT, base_transform, pose_of

__all__ = ["gait_result"]


def _with_contact_frames(robot):
    """A copy of ``robot``'s model with one frame per contact location (z the inward normal, x the
    tangent, origin the location's point: `humanoid_model.tf_tree.robot_frames`'s convention) ->
    (model, {location: frame id})."""
    model = pin.Model(robot.model)
    frames = {}
    for name, loc in robot.contact_locations.items():
        body = model.frames[model.getFrameId(loc.body)]
        z, x = np.asarray(loc.normal, float), np.asarray(loc.tangent, float)
        local = pin.SE3(np.column_stack([x, np.cross(z, x), z]), np.asarray(loc.point, float))
        frame = pin.Frame(
            f"contact:{name}",
            body.parentJoint,
            model.getFrameId(loc.body),
            body.placement * local,
            pin.FrameType.OP_FRAME,
        )
        frames[name] = model.addFrame(frame)
    return model, frames


def gait_result(data: dict, robot, frame: str, stamp, x0: float, message: str) -> GenerateGait.Result:
    """The `GenerateGait.Result` of a solved gait ``data`` for ``robot`` (BIP), its base shifted by
    ``x0`` [m] along x."""
    tr = data["trajectory"]
    t = np.asarray(tr["t"], float)
    joints = np.asarray(tr["joint_positions"], float)
    base = np.asarray(tr["base_pose"], float).copy()
    base[:, 0] += x0
    result = GenerateGait.Result(success=True, message=message, energy=float(data["total_energy"]))
    traj = JointTrajectory(joint_names=list(data["joint_names"]))
    motion = MultiDOFJointTrajectory(joint_names=[BASE_JOINT])
    traj.header.stamp = motion.header.stamp = stamp
    motion.header.frame_id = frame
    for ti, q, b in zip(t, joints, base):
        d = duration(float(ti - t[0]))
        traj.points.append(JointTrajectoryPoint(positions=[float(x) for x in q], time_from_start=d))
        motion.points.append(MultiDOFJointTrajectoryPoint(transforms=[base_transform(b)], time_from_start=d))
    result.trajectory, result.base_motion = traj, motion
    model, frames = _with_contact_frames(robot)
    Q = configurations("gait", model, list(data["joint_names"]), joints, base)
    flat = front_foot_flat_times(model, frames, t, Q, gait_spans(data["phases"], "gait"))
    phases = gait_phases(data["phases"], "gait", flat)
    cuts = sorted({t[0], t[-1], *(x for p in phases for x in (p.start, p.end) if t[0] < x < t[-1])})
    schedule = ContactSchedule()
    schedule.header.frame_id, schedule.header.stamp = frame, stamp
    fk = model.createData()
    for a, b in zip(cuts[:-1], cuts[1:]):
        k = min(int(np.searchsorted(t, a, side="left")), len(t) - 1)
        pin.framesForwardKinematics(model, fk, Q[k])
        held = [p for p in phases if p.start <= 0.5 * (a + b) < p.end]
        contacts = []
        for p in held:
            placement = fk.oMf[frames[p.location]]
            contacts.append(
                Contact(
                    location=p.location,
                    body=robot.contact_locations[p.location].body,
                    surface="ground",
                    pose=pose_of(placement),
                )
            )
        schedule.phases.append(ContactPhase(start=duration(a - t[0]), end=duration(b - t[0]), contacts=contacts))
    result.contact_schedule = schedule
    return result
