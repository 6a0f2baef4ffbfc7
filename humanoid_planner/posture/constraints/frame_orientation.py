"""Task: a frame's orientation equal to a world target rotation R_t (3 equalities, [rad]):
c = log3(R_t^T R(q)), the rotation vector of the error; dc/dv = Jlog3(R_t^T R) J_w^local, with
J_w^local the frame's angular Jacobian in its own axes. A task of (3.5), Escande 2008, §3.1; the
thesis writes orientations as dot products of axes ((3.31)-(3.33), §3.4.1), which vanish at the
same rotations; the rotation vector is the minimal 3-row form (our choice)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_planner.exceptions import PlanningError

from ..base import EQUALITY, PostureConstraint
from ..kinematics import frame_id

__all__ = ["FrameOrientation"]


class FrameOrientation(PostureConstraint):
    """Frame ``frame`` rotated as ``target`` (3, 3) (world)."""

    dim = 3
    kinds = (EQUALITY,) * 3
    equations = "(3.5), Escande 2008, §3.1"

    def __init__(self, model, frame: str, target, name: str | None = None):
        R = np.asarray(target, float).reshape(3, 3)
        if not np.allclose(R.T @ R, np.eye(3), atol=1e-9) or np.linalg.det(R) < 0:
            raise PlanningError(f"orientation task {frame!r}: field 'target' must be a rotation matrix")
        self.model = model
        self.fid = frame_id(model, frame)
        self.target = R
        self.name = name or f"orientation:{frame}"

    def evaluate(self, q, data):
        Rerr = self.target.T @ data.oMf[self.fid].rotation
        J = pin.getFrameJacobian(self.model, data, self.fid, pin.LOCAL)[3:]
        return pin.log3(Rerr), pin.Jlog3(Rerr) @ J
