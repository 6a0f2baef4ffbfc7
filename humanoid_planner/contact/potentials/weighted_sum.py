"""A weighted sum of potentials (Escande 2008, §6.3.3, (6.9): U'_T = alpha U_T + sum lambda_i
U_{T_i}, plus the discrete U_S(s) of U(s, q) = U_T(q) + U_S(s), §6.3.2).

``WeightedSum([(w_1, U_1), (w_2, U_2), ...])``: value, gradient and discrete part are the weighted
sums of the members'. The thesis's lambda_i are 0 or 1 (§6.3.3); any weight >= 0 is accepted.
"""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

from .base import Potential

__all__ = ["WeightedSum"]


class WeightedSum(Potential):
    """sum_i w_i U_i of ``terms`` [(w_i >= 0, `Potential`), ...] (all of one model's nv)."""

    name = "weighted_sum"
    equations = "(6.9), Escande 2008, §6.3.3; U(s, q) = U_T + U_S, §6.3.2"

    def __init__(self, terms):
        self.terms = [(float(w), p) for w, p in terms]
        if not self.terms or any(not (w >= 0 and np.isfinite(w)) for w, _ in self.terms):
            raise PlanningError(f"weighted sum: field 'terms' must be (weight >= 0, potential) pairs; {terms}")
        nvs = {p.nv for _, p in self.terms}
        if len(nvs) != 1:
            raise PlanningError(f"weighted sum: the potentials must share one model (nv {sorted(nvs)})")
        self.nv = nvs.pop()

    def evaluate(self, q) -> tuple[float, np.ndarray]:
        u, g = 0.0, np.zeros(self.nv)
        for w, p in self.terms:
            if w:
                ui, gi = p.evaluate(q)
                u += w * ui
                g += w * gi
        return u, g

    def stance_term(self, stance) -> float:
        return float(sum(w * p.stance_term(stance) for w, p in self.terms if w))
