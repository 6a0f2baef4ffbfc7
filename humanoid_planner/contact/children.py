"""Children of a node: its 1-neighbours (Escande 2008, §5.3.2.2, §6.1 and §6.2.2, Algorithms 3-5, 8, 9).

- **Removal** (finite): for a stance of >= 2 contacts, each contact in turn is released: the
  child's stance lacks it, its witness still holds it geometrically with the remaining contacts
  stable (`Feasibility.transition`). Duplicate test first, then the PG (§5.3.2.2).
  - **Settled releases** (``settle_releases``, off by default: the thesis's potential at the
    witness): a release's witness still touches the released contact (the geometry of the
    larger stance), so its potential is that of the larger stance, and a release that is
    the way on scores no better than the stance it leaves (the chair's seat-off at its still
    seated witness -0.008, under 200-odd seated shuffles down to -0.015; the side step's foot
    release under 100-odd hand placements on the table). With it, after the transition
    succeeds, one more PG call on the child's stance alone, from the witness, the potential as
    criterion (purpose "settle"), and the child's potential is taken there; its witness stays
    the transition's (what `check_plan` and the motion use) and its children start from it. A
    failed settle leaves the witness's potential.
- **Addition** (infinite, candidates by the PG): for each contact location whose body is not in
  contact, each surface, unless the pair is forbidden (§5.3.2.2): the pre-contact test (§6.1.3; a
  pair whose pre-contact test fails is skipped, the negation of the test Algorithms 5 and 8 print),
  then the light contact in a search box Υ (the surface ∩ the square about the root, `Box.around`,
  radius ``reach``), converted to a strong contact at the solution; the duplicate test only after
  the PG (the contact is known only then, Algorithm 5).
  - BFP (Algorithm 5, §6.1.3): Υ minus V (δl × δl × δθ) split into convex boxes, recursively, while
    the PG succeeds, at most ``max_candidates`` PG successes per pair (our cap; 0: none, as the
    thesis's Algorithm 5).
  - random candidates (``candidates`` "random", the thesis's strategy 2, §5.3.4, used on its stairs,
    §5.4.2): ``ceil(density sqrt(A))`` triplets uniform on the surface ∩ the sphere of radius
    ``reach`` about the root (A that part's area), each a transition PG call (Algorithm 4, §5.3.3:
    the new contact geometric, the father's stance stable); the random generator is seeded by
    (``seed``, the father's index, the pair), so a plan depends on the seed only, not on the workers
    or the order of the jobs. The duplicate test comes after the PG, as for the boxes (the jobs run
    apart from N); BFP only (VBFP's lazy brothers need boxes).
  - **Placed candidates** (``placed_candidates``, off by default: the thesis's draws as they
    are): a candidate fixes its body's whole pose (the strong contact), so one whose body's
    capsule there is within the collision margin of an obstacle other than the stance's and
    its own surface's (`Feasibility.placed_clear`) can never be a witness; it is drawn again
    instead of costing a PG call, at most ``MAX_DRAWS`` draws per candidate (20, chosen: the
    stairs' accepted part is 28 % of a tread for BIP, 42 % for HRP-2, so the count is met
    with a chance of 1 - 0.72^20 = 0.9986 per candidate; a surface where nothing fits costs
    20 cheap capsule tests per candidate, no PG call). BIP's stairs: its 0.29 m foot's
    capsule reaches 7.6 cm past the toe, so only the back 7 cm of a 0.30 m tread holds it
    clear of the next riser: without placed candidates 72 % of the thesis's ~2 candidates per
    tread fail in the PG, and the search starves (docs/contact_planner.md "Scenes").
  - VBFP (Algorithm 8, §6.2.2): only the best contact of Υ (the PG criterion is the potential, so
    it beats everything its sub-boxes hold), remembering Υ; its brothers (Algorithm 9) are
    generated when it is itself expanded, one per sub-box, each recursing into its own sub-boxes
    only when it is a duplicate.
Warm starts: a removal child and the pre-contact test start from the father's witness posture;
the additions from the pre-contact test's posture (§6.1.3); lazy brothers from the father's.

**Jobs.** The PG work of one expansion is a batch of independent jobs (module-level functions of
the `Feasibility` and plain data: `removal_job`, `pair_job`, `box_job`) run by a
`parallel.JobRunner`, serially or over worker processes. Every decision that depends on other
children (the duplicate test against the registry N, the VBFP recursion into a duplicate's
brothers, node numbering) is taken here, after the batch, in the jobs' order: the plan is the
same for any number of workers.
"""

from __future__ import annotations

import numpy as np

from .boxes import MIN_AREA, Box, clip_polygon, polygon_area
from .node import ADDED, RELEASED, Node
from .parallel import JobRunner
from .stance import Contact

__all__ = ["ChildGenerator", "box_job", "forbidden_pair", "pair_job", "random_candidates", "removal_job"]

DISC_SIDES = 32  #: the candidate sphere's disc on a surface as a polygon of this many sides (chosen: < 0.5 % area)
MAX_DRAWS = 20  #: draws per random candidate before giving up on the rest (chosen, module docstring)


def removal_job(feas, geometric, stable, q0, settle=False):
    """The transition PG call of a removal child: ``(PostureResult, settled q or None)``; with
    ``settle``, after a success, one more call on ``stable`` alone from the witness, the potential
    as criterion (purpose "settle"; module docstring "Settled releases")."""
    res = feas.transition(geometric, stable, q0)
    if not (settle and res.success):
        return res, None
    settled = feas.transition(stable, stable, res.q, purpose="settle")
    return res, (settled.q if settled.success else None)


def box_job(feas, stance, location, box, q0):
    """One light contact of ``location`` in ``box``: ``(Contact, q)`` or None."""
    res, contact = feas.addition(stance, location, box, q0)
    return None if contact is None else (contact, res.q)


def random_candidates(surface, point, radius: float, theta_range, density: float, rng, keep=None) -> list[tuple]:
    """The thesis's strategy 2 (Escande 2008, §5.3.4): ``ceil(density sqrt(A))`` triplets
    (x, y, theta) uniform on the part of ``surface`` inside the sphere of ``radius`` [m] about the
    world ``point`` (A its area [m²], the sphere's disc as a 32-gon), theta uniform in
    ``theta_range`` [rad]; [] when the sphere misses the surface. ``keep(x, y, theta)``: a triplet
    it refuses is drawn again (module docstring, "Placed candidates"), at most `MAX_DRAWS` draws
    per candidate in all (fewer candidates when the part it accepts is that small)."""
    t, s, n = surface.rotation.T
    rel = np.asarray(point, float) - surface.centroid
    h = float(rel @ n)
    if abs(h) >= radius:
        return []
    r = float(np.sqrt(radius**2 - h**2)) / np.cos(np.pi / DISC_SIDES)  # the 32-gon contains the disc
    P = (surface.vertices - surface.centroid) @ np.column_stack([t, s])
    c = np.array([rel @ t, rel @ s])
    for k in range(DISC_SIDES):
        a = np.array([np.cos(2 * np.pi * (k + 0.5) / DISC_SIDES), np.sin(2 * np.pi * (k + 0.5) / DISC_SIDES)])
        P = clip_polygon(P, a, float(a @ c) + r * np.cos(np.pi / DISC_SIDES))
    area = polygon_area(P)
    if len(P) < 3 or area < MIN_AREA:
        return []
    lo, hi = P.min(axis=0), P.max(axis=0)
    E = np.roll(P, -1, axis=0) - P
    out, count = [], int(np.ceil(density * np.sqrt(area)))
    draws = MAX_DRAWS * count
    while len(out) < count and draws > 0:
        x, y = rng.uniform(lo, hi)
        if np.all(E[:, 0] * (y - P[:, 1]) - E[:, 1] * (x - P[:, 0]) >= 0):  # inside (counter-clockwise)
            draws -= 1
            c = (float(x), float(y), float(rng.uniform(*theta_range)))
            if keep is None or keep(*c):
                out.append(c)
    return out


def pair_job(feas, stance, location, surface, q, lazy, reach, theta_range, max_candidates, dl, dtheta, random=None):
    """The additions of one (location, surface) pair from a father (stance contacts, witness
    ``q``): the pruned search box, the pre-contact test, then VBFP's one best contact or BFP's
    recursive splitting; ``[(Contact, q, Box), ...]`` in the order found. ``random`` = (density,
    seed key): the random candidates of `random_candidates` instead, each checked by the
    transition PG call (Algorithm 4), its Box None."""
    radius = reach or feas.reach(location)
    if random is not None:
        density, key, placed = random
        rng = np.random.default_rng(key)
        surf = feas.surfaces[surface]
        keep = (lambda x, y, th: feas.placed_clear(stance, Contact(location, surface, x, y, th))) if placed else None
        found = []
        for x, y, th in random_candidates(surf, q[:3], radius, theta_range, density, rng, keep):
            c = Contact(location, surface, x, y, th)
            res = feas.transition(tuple(stance) + (c,), stance, q, purpose="candidate")
            if res.success:
                found.append((c, res.q, None))
        return found
    box = Box.around(feas.surfaces[surface], q[:3], radius, theta_range)
    if box is None:
        return []
    pc = feas.pre_contact(stance, location, box, q)
    if not pc.success:
        return []
    stack, found = [box], []
    cap = 1 if lazy else (max_candidates or np.inf)  # 0: no cap (the thesis's Algorithm 5)
    while stack and len(found) < cap:
        b = stack.pop(0)
        res, c = feas.addition(stance, location, b, pc.q)
        if c is None:
            continue
        found.append((c, res.q, b))
        stack += b.split(c.x, c.y, c.theta, dl, dtheta)
    return found


def forbidden_pair(forbidden, name: str, location, surface: str) -> bool:
    """Whether contact location ``name`` (its `ContactLocation` ``location``) may not touch
    ``surface``: an entry of ``forbidden`` ((who, surface) pairs, `PlannerSettings.forbidden`)
    names the location, its kind or its body, with the surface's name."""
    return any(s == surface and a in (name, location.kind, location.body) for a, s in forbidden)


class ChildGenerator:
    """1-neighbours of nodes for a `feasibility.Feasibility` ``feas``, a `registry.StanceRegistry`
    ``registry``, the ``potential`` (a `potentials.Potential`) and a `search.PlannerSettings`;
    ``runner`` a `parallel.JobRunner` (default: serial)."""

    def __init__(self, feas, registry, potential, settings, runner: JobRunner | None = None):
        self.feas, self.registry, self.potential, self.s = feas, registry, potential, settings
        self.runner = runner or JobRunner(feas)
        self.locations = settings.locations or sorted(feas.locations)
        self.generated = 0

    def _node(self, stance, q, parent, kind, changed, box=None, q_potential=None) -> Node:
        self.generated += 1
        u = self.potential.total(stance, q if q_potential is None else q_potential)
        return Node(stance, q.copy(), u, parent, kind, changed, box, self.generated, parent.depth + 1)

    def forbidden(self, location: str, surface: str) -> bool:
        """Whether (location, surface) is forbidden (`forbidden_pair`)."""
        return forbidden_pair(self.s.forbidden, location, self.feas.locations[location], surface)

    def pairs(self, n: Node) -> list[tuple[str, str]]:
        bodies = {self.feas.locations[c.location].body for c in n.stance}
        return [
            (loc, surf)
            for loc in self.locations
            if self.feas.locations[loc].body not in bodies
            for surf in sorted(self.feas.surfaces)
            if not self.forbidden(loc, surf)
        ]

    def _pair_args(self, n: Node, location: str, surface: str, lazy: bool) -> tuple:
        s = self.s
        random = None
        if s.candidates == "random":  # the seed key: the run's seed, the father, the pair (worker-independent)
            pair = (sorted(self.feas.locations).index(location), sorted(self.feas.surfaces).index(surface))
            random = (s.density, (s.seed, n.index, *pair), s.placed_candidates)
        return (
            n.stance.contacts,
            location,
            surface,
            n.q,
            lazy,
            s.reach,
            s.theta_range,
            s.max_candidates,
            s.dl,
            s.dtheta,
            random,
        )

    def _sub_boxes(self, n: Node) -> list[Box]:
        c = n.changed
        return n.box.split(c.x, c.y, c.theta, self.s.dl, self.s.dtheta)

    def _box_jobs(self, n: Node) -> list:
        """The jobs of Algorithm 9 for ``n``'s brothers: one per sub-box of its box."""
        if n.kind != ADDED or n.box is None:
            return []
        father = n.parent
        return [(box_job, (father.stance.contacts, n.changed.location, b, father.q)) for b in self._sub_boxes(n)]

    def _merge_brothers(self, n: Node, results) -> list[Node]:
        out = []
        for b, r in zip(self._sub_boxes(n), results):
            if r is not None:
                child = self._node(n.parent.stance.with_contact(r[0]), r[1], n.parent, ADDED, r[0], b)
                out += [child] if self.registry.add(child.stance) else self.brothers(child)
        return out

    def brothers(self, n: Node) -> list[Node]:
        """Algorithm 9: the best contact of each sub-box of ``n``'s box (same pair, same father)."""
        jobs = self._box_jobs(n)
        return self._merge_brothers(n, self.runner.run(jobs)) if jobs else []

    def _removal_jobs(self, n: Node) -> tuple[list, list]:
        """The removal children not yet in N (the duplicate test before the PG, §5.3.2.2), and their jobs."""
        removed = []
        if len(n.stance) >= 2:
            for c in n.stance:
                child = n.stance.without(c.location)
                if self.registry.add(child):
                    removed.append((c, child))
        settle = self.s.settle_releases
        return removed, [(removal_job, (n.stance.contacts, child.contacts, n.q, settle)) for _, child in removed]

    def _merge_removals(self, n: Node, removed, results) -> list[Node]:
        return [
            self._node(child, r.q, n, RELEASED, c, q_potential=settled)
            for (c, child), (r, settled) in zip(removed, results)
            if r.success
        ]

    def _addition_jobs(self, n: Node, lazy: bool) -> list:
        return [(pair_job, self._pair_args(n, loc, surf, lazy)) for loc, surf in self.pairs(n)]

    def _merge_additions(self, n: Node, results, lazy: bool) -> list[Node]:
        out = []
        for found in results:
            for contact, q, box in found:
                child = self._node(n.stance.with_contact(contact), q, n, ADDED, contact, box)
                if self.registry.add(child.stance):
                    out.append(child)
                elif lazy:  # Algorithm 8: a duplicate is replaced by its next brothers
                    out += self.brothers(child)
        return out

    def removals(self, n: Node) -> list[Node]:
        removed, jobs = self._removal_jobs(n)
        return self._merge_removals(n, removed, self.runner.run(jobs))

    def additions(self, n: Node, lazy: bool) -> list[Node]:
        return self._merge_additions(n, self.runner.run(self._addition_jobs(n, lazy)), lazy)

    def expand(self, n: Node, lazy: bool) -> list[Node]:
        """Every child of ``n``: removals, additions (BFP eager, VBFP lazy) and, for VBFP, ``n``'s
        own next brothers, in that order, with the PG calls of all of them in one batch."""
        removed, rjobs = self._removal_jobs(n)
        ajobs = self._addition_jobs(n, lazy)
        bjobs = self._box_jobs(n) if lazy else []
        results = self.runner.run(rjobs + ajobs + bjobs)
        i, k = len(rjobs), len(rjobs) + len(ajobs)
        out = self._merge_removals(n, removed, results[:i]) + self._merge_additions(n, results[i:k], lazy)
        return out + (self._merge_brothers(n, results[k:]) if bjobs else [])
