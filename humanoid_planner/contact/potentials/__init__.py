"""Planner potentials (Escande 2008, §5.3.5 and §6.3): one interface (`base.Potential`:
``evaluate(q) -> (U, dU/dv)``, the configuration part used as the PG criterion; ``stance_term(s)``,
the discrete part; ``total(s, q)``; a kind of `humanoid_planner.posture.PostureCriterion`), one
module per member, and the registry ``POTENTIALS`` (name -> class).

- `mixed_potential`: the mixed attractive potential (5.12)-(5.16) on the root's horizontal position;
- `bonus_malus`: the discrete bonus/malus U_S(s);
- `guide`: the guide-trajectory potential U_T (6.7)/(6.8) with rounded corners (`curve`) in
  guide coordinates (`coordinates`) and the arc-length progress term;
- `body`: individual body potentials U_{T_i} (6.9);
- `body_group`: several of them evaluated together (one kinematics pass, one compiled kernel);
- `weighted_sum`: alpha U_T + sum lambda_i U_{T_i} (+ U_S).
"""

from .base import Potential, mixed
from .body import BodyPotential
from .body_group import BodyGroup
from .bonus_malus import StanceBonus
from .coordinates import GuideCoordinates
from .curve import ClosestPoint, RoundedPolyline
from .guide import GuidePotential
from .mixed_potential import MixedPotential
from .weighted_sum import WeightedSum

POTENTIALS = {
    "mixed": MixedPotential,
    "bonus_malus": StanceBonus,
    "guide": GuidePotential,
    "body": BodyPotential,
    "body_group": BodyGroup,
    "weighted_sum": WeightedSum,
}

__all__ = [
    "POTENTIALS",
    "BodyGroup",
    "BodyPotential",
    "ClosestPoint",
    "GuideCoordinates",
    "GuidePotential",
    "MixedPotential",
    "Potential",
    "RoundedPolyline",
    "StanceBonus",
    "WeightedSum",
    "mixed",
]
