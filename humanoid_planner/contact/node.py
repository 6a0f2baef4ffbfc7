"""A search node (Escande 2008, §5.3.2): a stance, its witness posture, its
father, its potential, and the bookkeeping of the transition rule.

The witness of a child proves the transition from its father (geometry of the larger stance,
stability of the smaller, Escande 2008, §5.3.1.3): a node made by **adding** ``changed`` has it in
its stance, geometrically, without stability (participatesToStability = False); a node made by
**releasing** ``changed`` no longer has it in its stance, but its witness still holds it
geometrically (isBeingReleased = True). When the node is expanded, the released contact is
dropped and every contact of the stance participates to stability (Algorithm 3, §5.3.2.2).
``box`` and ``basis`` remember an added contact's search box and the stance it is added to, for
the lazy brothers of Contacts-VBFP (Algorithm 9, §6.2.2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .stance import Contact, Stance

__all__ = ["ADDED", "RELEASED", "ROOT", "Node"]

ROOT, ADDED, RELEASED = "root", "added", "released"


@dataclass(eq=False)
class Node:
    """``stance``; ``q`` the witness posture (nq,); ``potential`` U(n); ``parent``; ``kind`` (ROOT,
    ADDED or RELEASED) and ``changed`` the contact added or being released."""

    stance: Stance
    q: np.ndarray
    potential: float
    parent: Node | None = None
    kind: str = ROOT
    changed: Contact | None = None
    box: object = None  #: the `Box` an added contact was found in (VBFP)
    index: int = 0  #: generation order
    depth: int = 0

    @property
    def geometric(self) -> tuple[Contact, ...]:
        """Contacts the witness holds geometrically: the stance, plus a contact being released."""
        extra = (self.changed,) if self.kind == RELEASED else ()
        return self.stance.contacts + extra

    @property
    def stable(self) -> tuple[Contact, ...]:
        """Contacts that participate to stability at the witness: the stance minus a new contact."""
        if self.kind == ADDED:
            return tuple(c for c in self.stance if c != self.changed)
        return self.stance.contacts

    @property
    def participates_to_stability(self) -> dict:
        """location -> participatesToStability, for every geometric contact."""
        st = {c.location for c in self.stable}
        return {c.location: c.location in st for c in self.geometric}

    @property
    def is_being_released(self) -> dict:
        """location -> isBeingReleased, for every geometric contact."""
        return {c.location: self.kind == RELEASED and c == self.changed for c in self.geometric}

    def path(self) -> list[Node]:
        """The nodes from the root to this one (backtrack)."""
        out, n = [], self
        while n is not None:
            out.append(n)
            n = n.parent
        return out[::-1]
