"""The segments of a contact plan's motion and the bodies that move in each (Escande 2008,
§7.1.2: the five cases of the bodies that need a path).

A plan is the list of nodes root -> last (`humanoid_planner.contact.Node`: stance s_i, witness
q_i, ``kind`` and ``changed``) plus the goal posture. The witness of node i proves the transition
from node i-1 (geometry of the larger stance, stability of the smaller, Escande 2008, §5.3.1.3), so
both q_i and q_{i+1} hold every contact of s_i and are stable on s_i: segment i goes from q_i to
q_{i+1} inside Q_{s_i} (the thesis's path stays in Q_{s_i}, §7.1.2). The body that changes
its geometric contact status in segment i is

- the contact **released** by node i (q_i still holds it: isBeingReleased), which leaves, and
- the contact **added** by node i+1 (q_{i+1} holds it, without force), which arrives.

That gives the thesis's five cases: s_{i-1} ⊂ s_i ⊂ s_{i+1} (one arrives), s_{i-1} ⊃ s_i ⊃
s_{i+1} (one leaves), s_{i-1} ⊂ s_i ⊃ s_{i+1} (none), s_{i-1} ⊃ s_i ⊂ s_{i+1} (one body leaving
and returning, or two bodies). The last segment goes from the last witness to the goal posture in
the last stance (its released contact, if any, leaves).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_model.validation import finite_vector
from humanoid_planner.contact.node import ADDED, RELEASED
from humanoid_planner.exceptions import PlanningError

__all__ = ["LEAD_IN", "Segment", "coincide", "lead_in_segment", "plan_segments", "segment_key"]

LEAD_IN = -1  # the index of the lead-in segment (start posture -> root witness; module docstring)


@dataclass(frozen=True)
class Segment:
    """From ``q_start`` to ``q_end`` (nq,) with the contacts ``fixed`` held and stable throughout;
    ``leaving``: the contact the robot holds at ``q_start`` and breaks (or None); ``arriving``: the
    contact it makes at ``q_end`` (or None). Contacts are `humanoid_planner.contact.Contact`."""

    index: int
    q_start: np.ndarray
    q_end: np.ndarray
    fixed: tuple
    leaving: object = None
    arriving: object = None

    @property
    def changes(self) -> tuple:
        """The contacts broken and made in the segment (``leaving``, ``arriving``; those given)."""
        return tuple(c for c in (self.leaving, self.arriving) if c is not None)

    @property
    def contacts(self) -> tuple:
        """Every contact of the segment: held, leaving, arriving (their bodies may touch their
        surfaces' obstacles, so the collision rows and checks leave those pairs out)."""
        return (*self.fixed, *self.changes)

    @property
    def moving(self) -> tuple[str, ...]:
        """The locations whose body follows a prescribed path (leaving and/or arriving)."""
        return tuple(dict.fromkeys(c.location for c in self.changes))


def plan_segments(nodes, goal_q=None) -> list[Segment]:
    """The segments of ``nodes`` (root first; each with ``stance``, ``q``, ``kind``, ``changed``)
    and, when given, the final segment to ``goal_q`` (nq,) in the last stance."""
    nodes = list(nodes)
    if not nodes:
        raise PlanningError("motion: field 'nodes' must hold at least the root node")
    out = []
    for i, n in enumerate(nodes):
        last = i == len(nodes) - 1
        if last and goal_q is None:
            break
        nxt = None if last else nodes[i + 1]
        q_end = np.asarray(goal_q if last else nxt.q, float)
        leaving = n.changed if n.kind == RELEASED else None
        arriving = nxt.changed if nxt is not None and nxt.kind == ADDED else None
        if nxt is not None and not n.stance.differs_by_one(nxt.stance):
            raise PlanningError(f"motion: nodes {i} and {i + 1} must differ by exactly one contact")
        out.append(Segment(i, np.asarray(n.q, float), q_end, n.stance.contacts, leaving, arriving))
    return out


def lead_in_segment(model, nodes, start_q) -> Segment | None:
    """The lead-in from ``start_q`` (nq,) to the root's witness in the root's stance (module
    docstring), or None when ``start_q`` is None or is the witness (to 1e-12 in the tangent space:
    nothing to move, `coincide`)."""
    if start_q is None:
        return None
    nodes = list(nodes)
    if not nodes:
        raise PlanningError("motion: field 'nodes' must hold at least the root node")
    q0 = finite_vector(start_q, model.nq, "motion", "start_q", PlanningError)
    root = nodes[0]
    q1 = np.asarray(root.q, float)
    return None if coincide(model, q0, q1) else Segment(LEAD_IN, q0, q1, root.stance.contacts)


def coincide(model, a, b) -> bool:
    """Whether configurations ``a`` and ``b`` (nq,) are the same posture: their difference in the
    tangent space is 0 to 1e-12 (nothing to move between them)."""
    return bool(np.allclose(pin.difference(model, a, b), 0.0, rtol=0.0, atol=1e-12))


def segment_key(seg: Segment) -> tuple:
    """What makes two segments the same motion problem: their end postures (bytes) and contacts
    (held, leaving, arriving); not their index."""
    return (
        np.asarray(seg.q_start, float).tobytes(),
        np.asarray(seg.q_end, float).tobytes(),
        seg.fixed,
        seg.leaving,
        seg.arriving,
    )
