"""Task: gaze. A camera axis a (fixed in a head frame, through the camera origin H) points at a
world target B: camera axis d_H collinear with HB and in the same sense, HB > eps (Escande 2008,
§3.6.1). With u = HB/|HB| and (e1, e2) two body axes orthogonal to a, the rows are

0  u . e1 = 0               (collinear)            [-]
1  u . e2 = 0
2  -u . a <= 0              (same sense)
3  eps - |HB| <= 0          (target far enough)    [m]

the dot-product form of the contact constraints ((3.31)-(3.35), §3.4.1). Rows 0-1 with row 2
are the thesis's condition; row 3 is its HB > eps.
"""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

from ..base import EQUALITY, INEQUALITY, PostureConstraint
from ..kinematics import frame_id, point_jacobian, vector_jacobian

__all__ = ["Gaze"]


class Gaze(PostureConstraint):
    """Axis ``axis`` of ``frame`` from ``origin`` [m] (frame) at ``target`` [m] (world), |HB| >= ``min_distance``."""

    dim = 4
    kinds = (EQUALITY, EQUALITY, INEQUALITY, INEQUALITY)
    equations = "gaze task, Escande 2008, §3.6.1"

    def __init__(
        self, model, frame: str, target, axis=(1.0, 0.0, 0.0), origin=(0.0, 0.0, 0.0), min_distance=0.1, name=None
    ):
        a = np.asarray(axis, float).reshape(3)
        if not np.linalg.norm(a) > 1e-12 or not min_distance > 0:
            raise PlanningError(f"gaze task {frame!r}: fields 'axis' non-zero and 'min_distance' > 0 required")
        a = a / np.linalg.norm(a)
        e1 = np.cross(a, [0.0, 0.0, 1.0] if abs(a[2]) < 0.9 else [1.0, 0.0, 0.0])
        e1 /= np.linalg.norm(e1)
        self.axes = np.array([e1, np.cross(a, e1), a])
        self.model = model
        self.fid = frame_id(model, frame)
        self.origin = np.asarray(origin, float).reshape(3)
        self.target = np.asarray(target, float).reshape(3)
        self.min_distance = float(min_distance)
        self.name = name or f"gaze:{frame}"

    def evaluate(self, q, data):
        h, Jh = point_jacobian(self.model, data, self.fid, self.origin)
        (e1, e2, a), (J1, J2, Ja) = vector_jacobian(self.model, data, self.fid, self.axes)
        r = self.target - h
        dist = np.linalg.norm(r)
        u = r / dist
        Ju = -(np.eye(3) - np.outer(u, u)) @ Jh / dist
        c = np.array([u @ e1, u @ e2, -(u @ a), self.min_distance - dist])
        J = np.stack([e1 @ Ju + u @ J1, e2 @ Ju + u @ J2, -(a @ Ju + u @ Ja), u @ Jh])
        return c, J
