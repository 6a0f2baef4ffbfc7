"""The search's path check (humanoid_planner/contact/search.py, "Path check";
humanoid_planner/motion/path_check.py): a plan whose segment the check rejects is not returned, its
transition is cut with everything found from it, and the search goes on; a rejected goal segment
fails only its node's goal test; a search that ends without a plan the check accepts returns the
first plan it found. On the flat walk of test_contact_plan.py (HRP-2, 0.4 m, VBFP),
with checks that reject chosen segments, and with the real `SegmentCheck`, whose clear knots the
motion takes as they are."""

import numpy as np
import pytest
from test_contact_plan import _plan

from humanoid_planner.contact import check_plan
from humanoid_planner.motion import MotionSettings, SegmentCheck, generate, generate_motion, path_check


@pytest.fixture(scope="module")
def walk(robot, floor):
    planner, start, plan = _plan(robot, floor, "vbfp")
    assert plan.success, plan.reason
    return planner, start, plan


def same_stance(a, b) -> bool:
    return a.contacts == b.contacts


class Rejects:
    """A path check that rejects segment ``index`` of every plan whose node ``index + 1`` has the
    stance of ``node`` (``index`` None: the goal segment of the first plan only); logs its calls."""

    def __init__(self, index, node=None):
        self.index, self.node, self.calls = index, node, []

    def __call__(self, nodes, goal_q):
        self.calls.append(list(nodes))
        if self.index is None:
            return len(nodes) - 1 if len(self.calls) == 1 else None
        if len(nodes) > self.index + 1 and same_stance(nodes[self.index + 1].stance, self.node.stance):
            return self.index
        return None


def test_a_cut_transition_is_left_out_and_the_search_goes_on(walk):
    planner, start, first = walk
    check = Rejects(0, first.nodes[1])
    plan = planner.plan(start, planner.robot.q(), path_check=check)
    assert plan.success, plan.reason
    assert plan.cut == 1 and len(check.calls) >= 2
    assert check.calls[0][1].stance.contacts == first.nodes[1].stance.contacts  # the same first plan, rejected
    assert not same_stance(plan.nodes[1].stance, first.nodes[1].stance)
    assert check_plan(planner, plan) == []


def test_a_rejected_goal_segment_fails_only_that_goal_test(walk):
    planner, start, first = walk
    check = Rejects(None)
    plan = planner.plan(start, planner.robot.q(), path_check=check)
    assert plan.success, plan.reason
    assert plan.cut == 0 and len(check.calls) == 2
    assert [n.stance.contacts for n in check.calls[0]] == [n.stance.contacts for n in first.nodes]
    assert [n.stance.contacts for n in plan.nodes] != [n.stance.contacts for n in first.nodes]
    assert check_plan(planner, plan) == []


def test_the_motion_takes_the_checked_knots_as_they_are(walk):
    planner, start, first = walk
    settings = MotionSettings()
    check = SegmentCheck(planner.feas, settings)
    assert check(first.nodes, first.goal_q) is None and check.cut == []
    assert len(check.known) == len(first.nodes)  # every segment, the goal's included
    again = generate_motion(planner.feas, first.nodes, first.goal_q, settings, known=check.known)
    fresh = generate_motion(planner.feas, first.nodes, first.goal_q, settings)
    assert again.unclear == fresh.unclear == []
    assert np.array_equal(again.t, fresh.t) and np.array_equal(again.q, fresh.q)
    assert again.stats.total_calls == 0 < fresh.stats.total_calls  # nothing projected again


def test_the_motion_does_not_try_again_the_segments_the_check_found_unclear(walk, monkeypatch):
    """A segment `clear_knots` failed on in the check (here: stubbed to fail on segment 1) goes
    to the thesis's projections at once in the motion; the clear ones are taken as they are, the
    unchecked ones behind it are tried."""
    planner, start, first = walk
    settings = MotionSettings()
    real = generate.clear_knots
    monkeypatch.setattr(
        path_check, "clear_knots", lambda feas, seg, *a: None if seg.index == 1 else real(feas, seg, *a)
    )
    check = SegmentCheck(planner.feas, settings)
    assert check(first.nodes, first.goal_q) == 1 and list(check.unclear) and len(check.known) == 1
    tried = []
    monkeypatch.setattr(generate, "clear_knots", lambda feas, seg, *a: tried.append(seg.index) or real(feas, seg, *a))
    motion = generate_motion(planner.feas, first.nodes, first.goal_q, settings, known=check.for_motion())
    assert motion.unclear == [1]
    assert tried == list(range(2, len(first.nodes)))  # the goal segment's index is len(nodes) - 1


def test_a_search_that_ends_without_a_clear_plan_returns_its_first_plan_and_says_so(walk):
    """Every plan rejected at its first step until the node limit: the first plan found comes
    back, as without the check, with the reason."""
    planner, start, first = walk
    plan = planner.plan(start, planner.robot.q(), path_check=lambda nodes, goal_q: 0)
    assert plan.success and plan.cut >= 1
    assert plan.reason.startswith("no plan with a clear motion: ") and "the first plan found is returned" in plan.reason
    assert [n.stance.contacts for n in plan.nodes] == [n.stance.contacts for n in first.nodes]
    assert np.array_equal(plan.goal_q, first.goal_q)


def test_a_witness_in_collision_cuts_its_transition_before_any_projection(walk):
    """The check's collision test of the end postures (`contact.check.witness_collisions` in the
    plan command): here a stub that finds one at node 2's witness."""
    planner, start, first = walk
    lines = []

    def collide(q, geometric):
        return ["witness: geometry X penetrates obstacle Y by 0.0084 m"] if np.array_equal(q, first.nodes[2].q) else []

    check = SegmentCheck(planner.feas, MotionSettings(), lines.append, collide)
    assert check(first.nodes, first.goal_q) == 1
    assert [c.index for c in check.cut] == [1] and len(check.known) == 1  # segment 0 checked and kept
    assert lines == [
        "motion check: segment 1: witness: geometry X penetrates obstacle Y by 0.0084 m: its transition is cut"
    ]
    assert check(first.nodes, first.goal_q) == 1 and len(lines) == 1  # remembered, not checked again
