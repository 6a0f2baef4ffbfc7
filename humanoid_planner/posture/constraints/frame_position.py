"""Task: a point fixed in a frame at a world target, P^W(q) - target = 0 (3 equalities, [m]).
A task's equalities g_i(q) = 0 of (3.5), Escande 2008, §3.1; written like (3.28)-(3.30) (§3.4.1)."""

from __future__ import annotations

import numpy as np

from ..base import EQUALITY, PostureConstraint
from ..kinematics import frame_id, point_jacobian

__all__ = ["FramePosition"]


class FramePosition(PostureConstraint):
    """``point`` [m] in frame ``frame`` at ``target`` [m] (world)."""

    dim = 3
    kinds = (EQUALITY,) * 3
    equations = "(3.5) with (3.28)-(3.30), Escande 2008, §3.1 and §3.4.1"

    def __init__(self, model, frame: str, target, point=(0.0, 0.0, 0.0), name: str | None = None):
        self.model = model
        self.fid = frame_id(model, frame)
        self.point = np.asarray(point, float).reshape(3)
        self.target = np.asarray(target, float).reshape(3)
        self.name = name or f"position:{frame}"

    def evaluate(self, q, data):
        p, J = point_jacobian(self.model, data, self.fid, self.point)
        return p - self.target, J
