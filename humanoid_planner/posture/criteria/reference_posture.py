"""Criteria of the posture generator (Escande 2008, §3.3). `ReferencePosture` is (4.11)
(Escande 2008, §4.6; the same as (5.23), §5.4): f(q) = sum over the internal 1-DOF joints of
(q_i - (q_i^- + q_i^+)/4)^2 [rad^2], the squared distance to the mean of the all-zero and the
mid-range postures; its gradient w.r.t. the tangent increment is 2 (q_i - r_i) on the joints'
velocity indices (a 1-DOF joint's increment adds to q_i)."""

from __future__ import annotations

import numpy as np

from ..base import PostureCriterion
from ..joint_bounds import bounded_joints

__all__ = ["ReferencePosture"]


class ReferencePosture(PostureCriterion):
    """f(q) = sum (q_i - r_i)^2 over the bounded 1-DOF joints, r_i = (q_i^- + q_i^+)/4 (4.11)."""

    name = "reference_posture"
    equations = "(4.11), Escande 2008, §4.6"

    def __init__(self, model, reference=None):
        self.model = model
        self.idx_q, self.idx_v, lo, hi = bounded_joints(model)
        self.reference = (lo + hi) / 4.0 if reference is None else np.asarray(reference, float)[self.idx_q]

    def evaluate(self, q) -> tuple[float, np.ndarray]:
        """``(f, g)``: the value [rad^2] and its gradient df/dv (nv,)."""
        e = np.asarray(q)[self.idx_q] - self.reference
        g = np.zeros(self.model.nv)
        g[self.idx_v] = 2.0 * e
        return float(e @ e), g
