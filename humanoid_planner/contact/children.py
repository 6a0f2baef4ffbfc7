"""Children of a node: its 1-neighbours (001_escande.md §5.3-5.5, Algorithms 3, 5, 8, 9).

- **Removal** (finite): for a stance of >= 2 contacts, each contact in turn is released: the
  child's stance lacks it, its witness still holds it geometrically with the remaining contacts
  stable (`Feasibility.transition`). Duplicate test first, then the PG (:283).
- **Addition** (infinite, candidates by the PG): for each contact location whose body is not in
  contact, each surface, unless the pair is forbidden (:288): the pre-contact test (:305,
  erratum 7), then the light contact in a search box Υ (the surface ∩ the square about the
  root, `Box.around`, radius ``reach``), converted to a strong contact at the solution; the
  duplicate test only after the PG (the contact is known only then, :303).
  - BFP (Algorithm 5, :296): Υ minus V (δl × δl × δθ) split into convex boxes, recursively, while
    the PG succeeds, at most ``max_candidates`` PG successes per pair (our cap; the thesis has
    none).
  - VBFP (Algorithm 8, :338): only the best contact of Υ (the PG criterion is the potential, so
    it beats everything its sub-boxes hold), remembering Υ; its brothers (Algorithm 9, :347) are
    generated when it is itself expanded (``brothers``), one per sub-box, each recursing into
    its own sub-boxes only when it is a duplicate.
Warm starts: a removal child and the pre-contact test start from the father's witness posture;
the additions from the pre-contact test's posture (:305); lazy brothers from the father's.
"""

from __future__ import annotations

from .boxes import Box
from .node import ADDED, RELEASED, Node
from .stance import Contact

__all__ = ["ChildGenerator"]


class ChildGenerator:
    """1-neighbours of nodes for a `feasibility.Feasibility` ``feas``, a `registry.StanceRegistry`
    ``registry``, the ``potential`` (callable q -> U) and a `search.PlannerSettings`."""

    def __init__(self, feas, registry, potential, settings):
        self.feas, self.registry, self.potential, self.s = feas, registry, potential, settings
        self.locations = settings.locations or sorted(feas.locations)
        self.generated = 0

    def _node(self, stance, q, parent, kind, changed, box=None) -> Node:
        self.generated += 1
        return Node(
            stance,
            q.copy(),
            self.potential.total(stance, q),
            parent,
            kind,
            changed,
            box,
            self.generated,
            parent.depth + 1,
        )

    def forbidden(self, location: str, surface: str) -> bool:
        """Whether (location, surface) is forbidden: a forbidden entry names the location, its kind
        or its body, with the surface name."""
        loc = self.feas.locations[location]
        return any(s == surface and a in (location, loc.kind, loc.body) for a, s in self.s.forbidden)

    def removals(self, n: Node) -> list[Node]:
        out = []
        if len(n.stance) < 2:
            return out
        for c in n.stance:
            child = n.stance.without(c.location)
            if not self.registry.add(child):
                continue
            res = self.feas.transition(n.stance.contacts, child.contacts, n.q)
            if res.success:
                out.append(self._node(child, res.q, n, RELEASED, c))
        return out

    def pairs(self, n: Node) -> list[tuple[str, str]]:
        bodies = {self.feas.locations[c.location].body for c in n.stance}
        return [
            (loc, surf)
            for loc in self.locations
            if self.feas.locations[loc].body not in bodies
            for surf in sorted(self.feas.surfaces)
            if not self.forbidden(loc, surf)
        ]

    def _try(self, n: Node, location: str, box: Box, q0) -> tuple[Node | None, Contact | None]:
        res, contact = self.feas.addition(n.stance.contacts, location, box, q0)
        if contact is None:
            return None, None
        return self._node(n.stance.with_contact(contact), res.q, n, ADDED, contact, box), contact

    def additions(self, n: Node, lazy: bool) -> list[Node]:
        out = []
        for location, surface in self.pairs(n):
            box = Box.around(self.feas.surfaces[surface], n.q[:3], self.s.reach, self.s.theta_range)
            if box is None:
                continue
            pc = self.feas.pre_contact(n.stance.contacts, location, box, n.q)
            if not pc.success:
                continue
            if lazy:
                child, _ = self._try(n, location, box, pc.q)
                if child is not None:
                    out += [child] if self.registry.add(child.stance) else self.brothers(child)
                continue
            stack, found = [box], 0
            while stack and found < self.s.max_candidates:
                b = stack.pop(0)
                child, c = self._try(n, location, b, pc.q)
                if child is None:
                    continue
                found += 1
                stack += b.split(c.x, c.y, c.theta, self.s.dl, self.s.dtheta)
                if self.registry.add(child.stance):
                    out.append(child)
        return out

    def brothers(self, n: Node) -> list[Node]:
        """Algorithm 9: the best contact of each sub-box of ``n``'s box (same pair, same father)."""
        if n.kind != ADDED or n.box is None:
            return []
        out = []
        c, father = n.changed, n.parent
        for b in n.box.split(c.x, c.y, c.theta, self.s.dl, self.s.dtheta):
            child, _ = self._try(father, c.location, b, father.q)
            if child is not None:
                out += [child] if self.registry.add(child.stance) else self.brothers(child)
        return out
