"""Joint bounds q_i^- <= q_i <= q_i^+ of the 1-DOF joints: eq. (3.1), 001_escande.md:69.

Rows, two per bounded joint (inequalities c <= 0) [rad or m]: q_i - q_i^+ <= 0, then
q_i^- - q_i <= 0. For a 1-DOF joint (nq = nv = 1) the tangent increment adds to q_i, so the
Jacobian rows are +-e_{idx_v}. Joints with infinite limits (continuous joints) and the free-flyer
have no rows.
"""

from __future__ import annotations

import weakref

import numpy as np

from .base import INEQUALITY, PostureConstraint

__all__ = ["JointLimits", "bounded_joints"]


_CACHE: dict = {}  # id(model) -> (weakref to it, its limits, the result): the model's joint table is read once


def bounded_joints(model):
    """``(idx_q, idx_v, lower, upper)`` arrays of the 1-DOF joints with finite limits (cached per
    model while its position limits are unchanged: reading the joint table costs ~0.1 ms)."""
    lo_all, hi_all = model.lowerPositionLimit, model.upperPositionLimit
    hit = _CACHE.get(id(model))
    if hit is not None and hit[0]() is model and np.array_equal(hit[1], lo_all) and np.array_equal(hit[2], hi_all):
        return tuple(a.copy() for a in hit[3])
    nq, nv = np.array(model.nqs), np.array(model.nvs)
    iq, iv = np.array(model.idx_qs), np.array(model.idx_vs)
    one = (nq == 1) & (nv == 1)
    one[0] = False  # the universe
    iq, iv = iq[one], iv[one]
    lo, hi = lo_all[iq], hi_all[iq]
    ok = np.isfinite(lo) & np.isfinite(hi)
    out = (iq[ok].astype(int), iv[ok].astype(int), lo[ok].copy(), hi[ok].copy())
    key = id(model)
    ref = weakref.ref(model, lambda _: _CACHE.pop(key, None))
    _CACHE[key] = (ref, lo_all.copy(), hi_all.copy(), out)
    return tuple(a.copy() for a in out)


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
