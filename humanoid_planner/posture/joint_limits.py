"""Joint bounds q_i^- <= q_i <= q_i^+ of the 1-DOF joints: eq. (3.1), 001_escande.md:69.

Rows, two per bounded joint (inequalities c <= 0) [rad or m]: q_i - q_i^+ <= 0, then
q_i^- - q_i <= 0. For a 1-DOF joint (nq = nv = 1) the tangent increment adds to q_i, so the
Jacobian rows are +-e_{idx_v}. Joints with infinite limits (continuous joints) and the free-flyer
have no rows.
"""

from __future__ import annotations

import numpy as np

from .base import INEQUALITY, PostureConstraint

__all__ = ["JointLimits", "bounded_joints"]


def bounded_joints(model):
    """``(idx_q, idx_v, lower, upper)`` arrays of the 1-DOF joints with finite limits."""
    iq, iv, lo, hi = [], [], [], []
    for j in model.joints[1:]:
        if j.nq == 1 and j.nv == 1:
            a, b = model.lowerPositionLimit[j.idx_q], model.upperPositionLimit[j.idx_q]
            if np.isfinite(a) and np.isfinite(b):
                iq.append(j.idx_q), iv.append(j.idx_v), lo.append(a), hi.append(b)
    return np.array(iq, int), np.array(iv, int), np.array(lo), np.array(hi)


class JointLimits(PostureConstraint):
    """The bounds of every bounded 1-DOF joint of ``model`` (2 rows per joint)."""

    equations = "(3.1), 001_escande.md:69"

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
