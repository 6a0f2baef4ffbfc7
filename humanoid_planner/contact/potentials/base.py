"""The one interface of the planner potentials (Escande 2008, §5.3.5 and §6.3).

A potential U(s, q) of a node (stance s, witness posture q) is a configuration part U_C(q) plus a
discrete part U_S(s) (Escande 2008, §6.3.2: U(s, q) = U_T(q) + U_S(s)). Only the configuration
part is the posture generator's criterion (§6.3.2), which makes the Contacts-VBFP oracle work
(§6.2.2).

- ``evaluate(q) -> (U_C, dU_C/dv)``: the value and its gradient (nv,) with respect to the tangent
  increment v at q (q' = pin.integrate(model, q, v)), the convention of
  `humanoid_planner.posture.problem.PostureProblem`'s criterion;
- ``stance_term(stance) -> U_S``: the discrete part (0 for a purely continuous potential);
- ``total(stance, q)``: U_C(q) + U_S(s), the node's potential in the search.

Units: every member's value is in m² (or a gain times m²: squared distances in guide
coordinates, `guide`), so that terms add; gains and their reasons are in each module.
A potential is a kind of posture criterion: `Potential` derives from
`humanoid_planner.posture.PostureCriterion`, whose interface (``name``, ``equations``,
``evaluate(q) -> (f, df/dv)``) is its configuration part's, so a potential is given to the posture
generator as its criterion as it is. It adds ``nv``, the discrete part ``stance_term`` and
``total``, which the search uses and the posture generator does not see.

``mixed(d, a, d0)`` is the C¹ mixed attractive shape (5.12)-(5.16) (§5.1.2), shared by the
members. Its first branch is a d²/2, as in (5.12): (5.16) and (6.8) print it without the 1/2, a
typo, since only with it do the two branches join C¹ at d0.
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np

from humanoid_planner.posture import PostureCriterion

__all__ = ["Potential", "mixed"]


def mixed(d: float, a: float, d0: float) -> tuple[float, float]:
    """(U_m(d), dU_m/dd) of (5.16) (first branch with the 1/2, module docstring), for a distance
    ``d`` >= 0 [m]:
    a d²/2 for d <= d0, else a d0 d - a d0²/2 (C¹ at d0)."""
    if d <= d0:
        return 0.5 * a * d * d, a * d
    return a * d0 * d - 0.5 * a * d0 * d0, a * d0


class Potential(PostureCriterion):
    """A planner potential, a kind of posture criterion (module docstring). Subclasses set ``name``,
    ``equations`` (the thesis equations it implements) and ``nv`` (the model's tangent dimension)
    and implement `evaluate`; the discrete ones override `stance_term`."""

    name: str = ""
    equations: str = ""
    nv: int = 0

    @abstractmethod
    def evaluate(self, q) -> tuple[float, np.ndarray]:
        """``(U_C, dU_C/dv)``: the configuration part at ``q`` (nq,) and its gradient (nv,)."""

    def stance_term(self, stance) -> float:
        """U_S(s) of a `humanoid_planner.contact.Stance` (0 unless the potential is discrete)."""
        return 0.0

    def __call__(self, q) -> float:
        return self.evaluate(q)[0]

    def total(self, stance, q) -> float:
        """U(s, q) = U_C(q) + U_S(s): the potential of a search node."""
        return self.evaluate(q)[0] + self.stance_term(stance)
