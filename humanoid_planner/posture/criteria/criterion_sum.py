"""Criterion: a weighted sum of criteria, sum_k w_k f_k(q) (e.g. the thesis's gaze-tracking
criterion alpha sum (q - q_ref)^2 + (1 - alpha) sum (q - q_prev)^2, (3.92), Escande 2008, §3.6.1,
or a path distance plus the reference posture)."""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

from ..base import PostureCriterion

__all__ = ["CriterionSum"]


class CriterionSum(PostureCriterion):
    """sum of ``w * criterion`` over ``terms``, a list of ``(w, criterion)`` (w >= 0)."""

    equations = "(3.92) form, Escande 2008, §3.6.1"

    def __init__(self, terms, name: str = "criterion_sum"):
        self.terms = [(float(w), c) for w, c in terms]
        if not self.terms or any(not w >= 0 for w, _ in self.terms):
            raise PlanningError(f"{name}: field 'terms' must be non-empty (w >= 0, criterion) pairs")
        self.name = name

    def evaluate(self, q) -> tuple[float, np.ndarray]:
        f, g = 0.0, 0.0
        for w, c in self.terms:
            fk, gk = c.evaluate(q)
            f, g = f + w * fk, g + w * np.asarray(gk)
        return float(f), g
