"""Goal task: a point fixed in a frame in an axis-aligned box of the world (`box_region`; the
chair's "y_pelvis > 2 m", Escande 2008, §7.3.1, the glass's "a point of each thigh in a thin
slab on the seat", §7.4.1). Rows [m]: one inequality per finite bound; Jacobian: the point Jacobian.
"""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

from ..kinematics import frame_id, point_jacobian
from .box_region import BoxRegion

__all__ = ["PointRegion"]


class PointRegion(BoxRegion):
    """A point fixed in frame ``frame`` (``point`` [m] in it) in the box ``x`` × ``y`` (× ``z``) [m]
    (world); ``None`` for an axis leaves it free."""

    def __init__(self, model, frame: str, point, x, y, z=None, name: str | None = None):
        self.name = name or f"goal_region:{frame}"
        self.model = model
        self.fid = frame_id(model, frame, PlanningError)
        self.point = np.asarray(point, float).reshape(3)
        self._box(x, y, z)

    def evaluate(self, q, data):
        p, J = point_jacobian(self.model, data, self.fid, self.point)
        return self._S @ p - self._o, self._S @ J
