"""Task: keep a body axis n vertical, pointing up (the full-glass task T_glass), eq. (6.24),
Escande 2008, §6.5: n(q) . i = 0, n(q) . j = 0, -n(q) . k < 0 (written
<= 0 here), with (i, j, k) the world axes. Rows [-]: 2 equalities, 1 inequality."""

from __future__ import annotations

import numpy as np

from ..base import EQUALITY, INEQUALITY, PostureConstraint
from ..kinematics import frame_id, vector_jacobian

__all__ = ["KeepVertical"]


class KeepVertical(PostureConstraint):
    """Axis ``axis`` of frame ``frame`` vertical and pointing up."""

    dim = 3
    kinds = (EQUALITY, EQUALITY, INEQUALITY)
    equations = "(6.24), Escande 2008, §6.5"

    def __init__(self, model, frame: str, axis=(0.0, 0.0, 1.0), name: str | None = None):
        self.model = model
        self.fid = frame_id(model, frame)
        a = np.asarray(axis, float).reshape(3)
        self.axis = a / np.linalg.norm(a)
        self.name = name or f"vertical:{frame}"

    def evaluate(self, q, data):
        (n,), (Jn,) = vector_jacobian(self.model, data, self.fid, self.axis[None])
        return np.array([n[0], n[1], -n[2]]), np.stack([Jn[0], Jn[1], -Jn[2]])
