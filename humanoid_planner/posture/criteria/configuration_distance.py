"""Criterion: the squared distance to a configuration p over the tangent space, (1/2)
||difference(p, q)||^2 (Pinocchio's ``difference``: the base pose as a twist, the joints as
angles), with the gradient J^T d, d = difference(p, q) and J = dDifference/dq (w.r.t. the tangent
increment at q, the constraints' convention, `base`). The criterion of the projection of an
interpolated configuration on a stance, (7.2) of Escande 2008, §7.1.2 (`humanoid_planner.motion`);
the 1/2 changes nothing at the optimum. Units: [m^2] for the base translation, [rad^2] for the
rotation and the revolute joints.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from ..base import PostureCriterion

__all__ = ["ConfigurationDistance"]


class ConfigurationDistance(PostureCriterion):
    """(1/2) ||difference(p, q)||^2 to a configuration ``p`` (nq,): the criterion of (7.2)."""

    name = "configuration_distance"
    equations = "(7.2), Escande 2008, §7.1.2"

    def __init__(self, model, p):
        self.model = model
        self.p = np.asarray(p, float)

    def evaluate(self, q) -> tuple[float, np.ndarray]:
        d = pin.difference(self.model, self.p, q)
        J = pin.dDifference(self.model, self.p, q, pin.ARG1)
        return 0.5 * float(d @ d), J.T @ d

    def __call__(self, q) -> float:
        return self.evaluate(q)[0]
