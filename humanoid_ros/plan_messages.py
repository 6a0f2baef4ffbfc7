"""A contact plan (PLAN.json, `humanoid_model.formats.plan`) as the messages of the contact planner's
`humanoid_stack_interfaces/action/PlanContacts` result: what the `contact_planner` node answers.

    result = plan_result(doc, frame="odom")

- ``trajectory``: the joints at the plan's period (trajectory_msgs/JointTrajectory);
- ``base_motion``: the base (the floating joint ``root_joint``) along the motion
  (trajectory_msgs/MultiDOFJointTrajectory, one transform per point, in ``frame``);
- ``stances``: each stance's contacts (location, body, surface, world pose of the contact frame)
  and witness posture (base pose, joints);
- ``contact_schedule``: the contacts held phase after phase, from the whole-body controller's own
  reading of the plan (`humanoid_control.wbc.sources.plan.plan_phases`: a location is held from
  the end of the transition that adds it to the end of the one that releases it); a phase per
  interval between consecutive contact changes;
- ``statistics`` and ``plan_document`` (the PLAN.json text).
ROS glue only: the plan is parsed by `humanoid_model.formats.plan`.
"""

from __future__ import annotations

import json

import numpy as np
from geometry_msgs.msg import Pose, Transform
from humanoid_stack_interfaces.action import PlanContacts
from humanoid_stack_interfaces.msg import Contact, ContactPhase, ContactSchedule, PlanStatistics, Stance
from trajectory_msgs.msg import (
    JointTrajectory,
    JointTrajectoryPoint,
    MultiDOFJointTrajectory,
    MultiDOFJointTrajectoryPoint,
)

from humanoid_control.wbc.sources.plan import plan_phases
from humanoid_model.exceptions import ConfigError
from humanoid_model.formats.plan import parse_contact_plan
from humanoid_ros.common import duration

__all__ = ["BASE_JOINT", "base_transform", "contact_schedule", "plan_result", "pose_of"]

BASE_JOINT = "root_joint"
"""The floating joint's name in ``base_motion`` (Pinocchio's free-flyer of `humanoid_model.load_robot`)."""


def _pose(position, quaternion_xyzw) -> Pose:
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in position)
    o = pose.orientation
    o.x, o.y, o.z, o.w = (float(v) for v in quaternion_xyzw)
    return pose


def _contact(c) -> Contact:
    return Contact(location=c.location, body=c.body, surface=c.surface, pose=_pose(c.position, c.quaternion))


def pose_of(placement) -> Pose:
    """The Pose of a `pinocchio.SE3`."""
    return _pose(placement.translation, _quaternion(placement.rotation))


def base_transform(row) -> Transform:
    """The Transform of a base pose row (x, y, z, qx, qy, qz, qw)."""
    t = Transform()
    t.translation.x, t.translation.y, t.translation.z = (float(v) for v in row[:3])
    t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w = (float(v) for v in row[3:7])
    return t


def contact_schedule(plan, frame: str, stamp, locations) -> ContactSchedule:
    """The `ContactSchedule` of a parsed plan (module docstring); ``locations``: the robot's contact
    location names (the plan's must be among them)."""
    phases = plan_phases(plan, "plan", {name: name for name in locations})
    by_location = {c.location: c for s in plan.stances for c in s.contacts}
    t0, t1 = float(plan.trajectory_t[0]), float(plan.trajectory_t[-1])
    cuts = sorted({t0, t1, *(x for p in phases for x in (p.start, p.end) if t0 < x < t1)})
    out = ContactSchedule()
    out.header.frame_id, out.header.stamp = frame, stamp
    for a, b in zip(cuts[:-1], cuts[1:]):
        mid = 0.5 * (a + b)
        held = [p for p in phases if p.start <= mid < p.end]
        contacts = []
        for p in held:
            c = by_location[p.location]
            if p.placement is None:
                contacts.append(_contact(c))
                continue
            contacts.append(Contact(location=p.location, body=c.body, surface=p.surface, pose=pose_of(p.placement)))
        out.phases.append(ContactPhase(start=duration(a - t0), end=duration(b - t0), contacts=contacts))
    return out


def _quaternion(rotation) -> np.ndarray:
    import pinocchio as pin

    q = pin.Quaternion(np.asarray(rotation, float))
    q.normalize()
    return q.coeffs()  # x, y, z, w


def plan_result(doc: dict, frame: str, stamp, locations, message: str = "") -> PlanContacts.Result:
    """The `PlanContacts.Result` of a plan document (module docstring); ``success`` is the plan's
    (a plan without motion: the reason as ``message``)."""
    plan = parse_contact_plan(doc, "plan", ConfigError)
    st = doc.get("stats", {})
    result = PlanContacts.Result(success=bool(plan.success), message=message or plan.reason)
    result.plan_document = json.dumps(doc, separators=(",", ":"))
    result.statistics = PlanStatistics(
        generated_nodes=int(st.get("nodes_generated", 0)),
        expanded_nodes=int(st.get("nodes_expanded", 0)),
        posture_generator_calls=int(st.get("pg_calls", {}).get("calls", 0)),
        search_time=float(st.get("search_time", 0.0)),
        total_time=float(st.get("total_time", 0.0)),
        motion_duration=float(plan.trajectory_t[-1] - plan.trajectory_t[0]) if len(plan.trajectory_t) else 0.0,
        unclear_segments=[int(k) for k in plan.unclear_segments if k >= 0],
    )
    for s in plan.stances:
        row = np.asarray(s.witness_q, float)
        stance = Stance(contacts=[_contact(c) for c in s.contacts], joint_names=list(plan.joint_names))
        if len(row):
            stance.base_pose = _pose(row[:3], row[3:7])
            stance.positions = [float(x) for x in row[7:]]
        result.stances.append(stance)
    if not plan.success or not len(plan.trajectory_t):
        return result
    traj = JointTrajectory(joint_names=list(plan.joint_names))
    base = MultiDOFJointTrajectory(joint_names=[BASE_JOINT])
    traj.header.stamp = base.header.stamp = stamp
    base.header.frame_id = frame
    t0 = float(plan.trajectory_t[0])
    for t, q in zip(plan.trajectory_t, plan.trajectory_q):
        d = duration(float(t) - t0)
        traj.points.append(JointTrajectoryPoint(positions=[float(v) for v in q[7:]], time_from_start=d))
        base.points.append(MultiDOFJointTrajectoryPoint(transforms=[base_transform(q)], time_from_start=d))
    result.trajectory, result.base_motion = traj, base
    result.contact_schedule = contact_schedule(plan, frame, stamp, locations)
    return result
