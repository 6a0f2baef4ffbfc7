"""Criterion: a potential given as callables, the hook through which a planner makes its
potential the posture generator's criterion (Escande 2008, §6.2.2: the potential's configuration
part is the posture generator's criterion; U_T of §6.3.2). The potential's units are the caller's; its
gradient must be w.r.t. the tangent increment at q (the constraints' convention, `base`)."""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

from ..base import PostureCriterion

__all__ = ["PotentialCriterion"]


class PotentialCriterion(PostureCriterion):
    """``potential(q) -> U`` and ``gradient(q) -> dU/dv`` (nv,); or ``potential(q) -> (U, dU/dv)``
    when ``gradient`` is None."""

    equations = "potential as criterion, Escande 2008, §6.2.2 and §6.3.2"

    def __init__(self, potential, gradient=None, name: str = "potential"):
        if not callable(potential) or (gradient is not None and not callable(gradient)):
            raise PlanningError(f"{name}: fields 'potential' and 'gradient' must be callables")
        self.potential, self.gradient, self.name = potential, gradient, name

    def evaluate(self, q) -> tuple[float, np.ndarray]:
        if self.gradient is None:
            u, g = self.potential(q)
        else:
            u, g = self.potential(q), self.gradient(q)
        return float(u), np.asarray(g, float)
