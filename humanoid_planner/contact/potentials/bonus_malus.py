"""The discrete bonus/malus U_S(s) on stances (Escande 2008, §5.3.5):

    U_S(s) = c |card(s) - k0|  +  sum over contacts of bonus[location, kind or body]  +  M_hands [s on hands only]

- c |k - k0|: a preference for k0 contacts (k0 < 2 about minimises the contacts);
- a constant bonus (< 0) or malus (> 0) per contact whose location, kind (``sole``, ``hand``,
  ...) or body is listed (e.g. a bonus for the soles favours standing);
- a strong malus for a stance whose contacts are all of the ``hands`` kinds (hands only), which
  does not penalise every stance using a hand.

It has no configuration part: ``evaluate`` is (0, 0) and the PG criterion is untouched (§6.3.2).
Values [m², the unit of the other potentials]; the gains are the caller's (scene files, tests):
the defaults (c = 0, no bonus, hands-only malus 1.0: the potential of a root about 1.4 m from the
goal, `mixed`, so a hands-only stance is a last resort) are chosen.
"""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

from .base import Potential

__all__ = ["StanceBonus"]


class StanceBonus(Potential):
    """U_S for a robot's ``locations`` (name -> `ContactLocation`) and ``nv`` (module docstring)."""

    name = "bonus_malus"
    equations = "U_S(s), Escande 2008, §5.3.5"

    def __init__(
        self,
        locations: dict,
        nv: int,
        per_contact: float = 0.0,
        k0: int = 0,
        bonus: dict | None = None,
        hands_only: float = 1.0,
        hand_kinds: tuple = ("hand", "hand_side", "forearm"),
    ):
        if per_contact < 0 or k0 < 0 or not np.isfinite(hands_only):
            raise PlanningError(f"bonus/malus: fields per_contact >= 0, k0 >= 0 required; {per_contact}, {k0}")
        self.locations, self.nv = locations, int(nv)
        self.per_contact, self.k0 = float(per_contact), int(k0)
        self.bonus = dict(bonus or {})
        self.hands_only, self.hand_kinds = float(hands_only), tuple(hand_kinds)

    def evaluate(self, q) -> tuple[float, np.ndarray]:
        return 0.0, np.zeros(self.nv)

    def _keys(self, location: str) -> tuple:
        loc = self.locations[location]
        return (location, loc.kind, loc.body)

    def stance_term(self, stance) -> float:
        u = self.per_contact * abs(len(stance) - self.k0)
        for c in stance:
            u += next((self.bonus[key] for key in self._keys(c.location) if key in self.bonus), 0.0)
        if all(self.locations[c.location].kind in self.hand_kinds for c in stance):
            u += self.hands_only
        return float(u)
