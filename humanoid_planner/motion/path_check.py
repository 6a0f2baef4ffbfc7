"""The motion of a contact plan's transitions checked during the search: a plan whose segment has no
clear motion is not returned, its transition is cut and the search goes on.

The thesis's planner proves each transition by its witness postures alone and corrects the
colliding paths between them by hand (Escande 2008, §5.3.1.3, §7.1.2); a plan can then hold a
transition that no clear motion joins (the glass scene's right sole stepping from behind the
chair's front leg to in front of it, the standing left sole leaving no room to pass: every
projection crosses the leg, and the path planner finds no path). The search (`contact.search`)
calls a `SegmentCheck` on each plan it would return, root to the goal posture; the first segment
without a clear motion (`generate.clear_knots`: the projections with their collision rows on
every body path, then the path planned on the stance manifold) cuts its transition: the child
node and everything found from it leave the search, which goes on with the rest of its list
(a lazy check, as a lazy PRM checks an edge only on a candidate path: Bohlin and Kavraki 2000).
The goal segment cuts only the goal test of its node, which is then expanded. A segment whose end
witness has a collision on the robot's own geometry (`contact.check.witness_collisions`, the test of
`check_plan`; the search keeps the capsules' margins, which contain the geometry but for the
lowered ones: a seated thigh's, and the free thigh's box over the seat, which the search keeps
off the seat by its own rows, `contact.collision_pairs`) is cut the same way.

The knots of the clear segments are kept (``known``, by `segments.segment_key`) for the motion
(`generate_motion(..., known=check.for_motion())`), which does not compute them again, nor tries
again the segments `clear_knots` failed on (a search that returns its first plan unchecked: their
thesis projections are then made at once); ``stats`` logs every projection the check made, those
of the cut segments included.
"""

from __future__ import annotations

from dataclasses import dataclass

from humanoid_planner.contact.check import witness_collisions
from humanoid_planner.contact.feasibility import Stats

from .generate import MotionSettings, clear_knots
from .segments import plan_segments, segment_key

__all__ = ["CutSegment", "SegmentCheck"]


@dataclass(frozen=True)
class CutSegment:
    """A segment the check found without a clear motion: its ``index`` in the plan it was checked
    in and the path planner's `PlannedSegment` records (``planned``: its time and reason)."""

    index: int
    planned: tuple = ()


class SegmentCheck:
    """``check(nodes, goal_q)``: the index of the first segment of the plan ``nodes`` (root to
    last) and ``goal_q`` without a clear motion, None when every one has one (module docstring);
    ``feas`` the planner's `Feasibility`, ``settings`` the motion's (`MotionSettings`),
    ``progress`` a callable given a line when a path is planned and when a segment is cut;
    ``collide(q, geometric)``: the collisions of a witness posture on the robot's own geometry
    (`contact.check.witness_collisions`), or None: a segment whose end posture has one is cut
    too (module docstring)."""

    def __init__(self, feas, settings: MotionSettings | None = None, progress=None, collide=None):
        self.feas = feas
        self.collide = collide
        self.settings = settings or MotionSettings()
        self.progress = progress
        self.stats = Stats()
        self.known: dict = {}  #: segment_key -> (knots, [PlannedSegment]) of the clear segments
        #: segment_key -> [PlannedSegment] of the segments `clear_knots` found no clear knots for
        self.unclear: dict = {}
        self.cut: list[CutSegment] = []  #: the segments found without a clear motion, in order
        self._collided: set = set()  # segment_key of the segments cut for their end witness

    @classmethod
    def of(cls, planner, settings: MotionSettings | None = None, progress=None) -> SegmentCheck:
        """The check the plan command runs for ``planner`` (a `contact.ContactPlanner`): its
        `Feasibility`, and the witnesses tested on its robot's geometry (`witness_collisions`)."""
        return cls(planner.feas, settings, progress, witness_collisions(planner))

    def __call__(self, nodes, goal_q) -> int | None:
        nodes = list(nodes)
        for seg in plan_segments(nodes, goal_q):
            key = segment_key(seg)
            if key in self.known:
                continue
            if key in self.unclear or key in self._collided:
                return seg.index
            planned: list = []
            found = self._collisions(nodes, seg)
            knots = None if found else clear_knots(self.feas, seg, self.settings, self.stats, planned, self.progress)
            if knots is None:
                if found:
                    self._collided.add(key)
                else:
                    self.unclear[key] = planned
                self.cut.append(CutSegment(seg.index, tuple(planned)))
                if self.progress is not None:
                    why = found[0] if found else "no clear motion"
                    self.progress(f"motion check: segment {seg.index}: {why}: its transition is cut")
                return seg.index
            self.known[key] = (knots, planned)
        return None

    def for_motion(self) -> dict:
        """`generate_motion`'s ``known``: segment_key -> (knots, [PlannedSegment]) of the clear
        segments, and (None, [PlannedSegment]) of those `clear_knots` failed on."""
        return {**{k: (None, p) for k, p in self.unclear.items()}, **self.known}

    def _collisions(self, nodes, seg) -> list[str]:
        """The collisions (`collide`) of the end posture of segment ``seg``: the next node's witness
        with the contacts of the larger of its stance and its father's, the goal posture with the
        last stance's; none without ``collide``."""
        if self.collide is None:
            return []
        a = nodes[seg.index]
        b = nodes[seg.index + 1] if seg.index + 1 < len(nodes) else a
        larger = b if len(b.stance) > len(a.stance) else a
        return self.collide(seg.q_end, larger.stance.contacts)
