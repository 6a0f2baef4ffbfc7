"""What the motion sources share: joint rows to the controller model's configurations, and the
check that a motion was made for the robot that executes it."""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import ControlError

__all__ = ["configurations", "check_robot", "increasing", "RAMP"]

RAMP = 0.5  # [s] (chosen) longest load or unload ramp of a contact: 5 % of the weight per 25 ms at 1 kHz


def check_robot(src: str, motion_robot, robot) -> None:
    """`ControlError` when the motion names a robot other than ``robot``'s."""
    if motion_robot and motion_robot != robot.name:
        raise ControlError(
            f"{src}: field 'robot' must be {robot.name!r} (the robot executing it); value {motion_robot!r}"
        )


def configurations(src: str, model, joint_names, joints, base) -> np.ndarray:
    """(N, nq) configurations of ``model`` from joint rows ``joints`` (N, k) in the order of
    ``joint_names`` and base poses ``base`` (N, 7: x y z qx qy qz qw); a joint of the model
    the motion does not name keeps its neutral value, a name the model does not know is an error."""
    joints, base = np.asarray(joints, float), np.asarray(base, float)
    q = np.tile(pin.neutral(model), (len(joints), 1))
    unknown = [n for n in joint_names if not model.existJointName(n)]
    if unknown:
        raise ControlError(
            f"{src}: field 'joint_names' must name the robot's joints; unknown {unknown[:5]}"
            + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        )
    for j, name in enumerate(joint_names):
        jm = model.joints[model.getJointId(name)]
        if jm.nq != 1:
            raise ControlError(f"{src}: joint {name!r} has {jm.nq} coordinates; a motion file gives one per joint")
        q[:, jm.idx_q] = joints[:, j]
    q[:, :7] = base
    norms = np.linalg.norm(q[:, 3:7], axis=1)
    if np.any(norms < 1e-9):
        raise ControlError(f"{src}: a base quaternion is zero (sample {int(np.argmax(norms < 1e-9))})")
    q[:, 3:7] /= norms[:, None]
    return q


def increasing(t, *rows):
    """``t`` and ``rows`` without the samples whose time repeats the one before (a phase's first
    sample repeating the previous phase's last): the reference needs increasing times."""
    t = np.asarray(t, float)
    keep = np.r_[True, np.diff(t) > 0]
    return (t[keep], *(np.asarray(r)[keep] for r in rows))
