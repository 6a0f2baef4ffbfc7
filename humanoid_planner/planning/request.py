"""The checks of a planning request's inputs (the `contact_planner` node's ~/plan goal poses and
/joint_states): a pose must be in the planning frame, finite, with a unit quaternion; the measured
joints kept are the robot's own. Each refusal is a `PlanningError` in one line naming the field.
"""

from __future__ import annotations

import math

from humanoid_model.validation import message, short
from humanoid_planner.exceptions import PlanningError

__all__ = ["UNIT_QUATERNION_TOLERANCE", "UNKNOWN_NAMES_SHOWN", "check_frame", "request_pose", "robot_joints"]

#: (chosen) a quaternion counts as unit when |x² + y² + z² + w² - 1| is below this: tf2's tolerance
#: for the rotation of a transform (its BufferCore refuses one beyond QUATERNION_NORMALIZATION_TOLERANCE,
#: 10e-3); a zero quaternion, or one far from unit, is a client's mistake, not a heading
UNIT_QUATERNION_TOLERANCE = 1e-2
#: (chosen) unknown joint names shown in the one log line about them (a message may name 10 000)
UNKNOWN_NAMES_SHOWN = 5


def check_frame(frame_id: str, planning_frame: str, source: str) -> None:
    """``frame_id`` (a leading "/" ignored) must be ``planning_frame`` or empty: the planner does
    not transform poses. `PlanningError` naming ``source``'s ``header.frame_id`` else."""
    if frame_id.lstrip("/") not in ("", planning_frame):
        raise PlanningError(
            message(source, "header.frame_id", f"the planning frame {planning_frame} or empty", frame_id)
        )


def request_pose(position, quaternion, source: str) -> tuple[float, float, float]:
    """(x [m], y [m], heading [rad] about the world z axis) of a pose: ``position`` (x, y, z) finite
    and ``quaternion`` (x, y, z, w) finite and unit (`UNIT_QUATERNION_TOLERANCE`; normalised then).
    `PlanningError` naming ``source``'s field else."""
    x, y, z = (float(v) for v in position)
    if not all(math.isfinite(v) for v in (x, y, z)):
        raise PlanningError(message(source, "pose.position", "finite", [x, y, z]))
    q = [float(v) for v in quaternion]
    n2 = sum(v * v for v in q)
    if not (math.isfinite(n2) and abs(n2 - 1.0) < UNIT_QUATERNION_TOLERANCE):
        raise PlanningError(
            message(source, "pose.orientation", f"a unit quaternion (|q|² within {UNIT_QUATERNION_TOLERANCE} of 1)", q)
        )
    qx, qy, qz, qw = (v / math.sqrt(n2) for v in q)
    return x, y, math.atan2(2.0 * (qw * qz + qx * qy), 1.0 - 2.0 * (qy * qy + qz * qz))


def robot_joints(robot, names, positions) -> tuple[dict[str, float], str]:
    """({name: position} of ``robot``'s joints among ``names``; "" or one line naming the first
    `UNKNOWN_NAMES_SHOWN` names the robot does not have and their count): what a node keeps of a
    /joint_states message, so that its state is bounded by the robot whatever the message names."""
    known = set(robot.joint_names)
    kept, unknown, shown = {}, 0, []
    for n, x in zip(names, positions):
        if n in known:
            kept[n] = float(x)
        else:
            unknown += 1
            if len(shown) < UNKNOWN_NAMES_SHOWN:
                shown.append(short(n, 40))
    if not unknown:
        return kept, ""
    more = f" and {unknown - len(shown)} more" if unknown > len(shown) else ""
    return kept, f"{unknown} joint names that robot '{robot.name}' does not have, ignored: {', '.join(shown)}{more}"
