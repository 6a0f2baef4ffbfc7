"""The frame-height task: one frame's height at a value (the walking IK keeps the waist at constant
height, as the thesis's pattern generator keeps the torso).

    e = z(q) - z* [m],  J = the z row of the frame's LOCAL_WORLD_ALIGNED Jacobian
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_control.kinematics.base import Constraint

__all__ = ["FrameHeightTask"]


class FrameHeightTask(Constraint):
    """The height of frame ``frame`` at ``target`` [m]: e = z(q) - z*, J = the z row of the frame's
    LOCAL_WORLD_ALIGNED Jacobian (default target: its height at the structure's initial configuration)."""

    dim = 1
    row_scale = np.ones(1)
    linear = np.ones(1, dtype=bool)

    def __init__(self, structure, frame: str, target=None, weight=1.0, level=1, gain=1.0):
        self.name, self.weight, self.level, self.gain = f"{frame}_height", float(weight), int(level), float(gain)
        self.model = structure.model
        self.fid = structure.frame_id(frame, f"height task '{frame}'")
        self.target = structure.placement(structure.q0, frame).translation[2] if target is None else float(target)

    def evaluate(self, q, data):
        J = pin.getFrameJacobian(self.model, data, self.fid, pin.LOCAL_WORLD_ALIGNED)[2:3]
        return np.array([data.oMf[self.fid].translation[2] - self.target]), J
