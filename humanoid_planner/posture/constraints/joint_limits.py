"""Joint bounds q_i^- <= q_i <= q_i^+ of the 1-DOF joints: eq. (3.1), Escande 2008, §3.1.

Rows, two per bounded joint (inequalities c <= 0) [rad or m]: q_i - q_i^+ <= 0, then
q_i^- - q_i <= 0. For a 1-DOF joint (nq = nv = 1) the tangent increment adds to q_i, so the
Jacobian rows are +-e_{idx_v}. Joints with infinite limits (continuous joints) and the free-flyer
have no rows.
"""

from __future__ import annotations

import numpy as np

from ..base import INEQUALITY, PostureConstraint
from ..joint_bounds import bounded_joints

__all__ = ["JointLimitConstraint"]


class JointLimitConstraint(PostureConstraint):
    """The bounds of every bounded 1-DOF joint of ``model`` (2 rows per joint)."""

    equations = "(3.1), Escande 2008, §3.1"

    def __init__(self, model, name: str = "joint_limits"):
        self.model = model
        self.name = name
        self.idx_q, self.idx_v, self.lower, self.upper = bounded_joints(model)
        k = len(self.idx_q)
        self.dim = 2 * k
        self.kinds = (INEQUALITY,) * self.dim
        self._J = np.zeros((self.dim, model.nv))
        self._J[np.arange(k), self.idx_v] = 1.0
        self._J[k + np.arange(k), self.idx_v] = -1.0

    def evaluate(self, q, data):
        x = np.asarray(q)[self.idx_q]
        return np.concatenate([x - self.upper, self.lower - x]), self._J.copy()
