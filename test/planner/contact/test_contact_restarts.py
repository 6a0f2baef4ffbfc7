"""Restarted searches (humanoid_planner/contact/search.py, "Restarts"): a search that expands
``restart_expanded`` nodes without a plan starts again from its start posture with every joint
jittered by at most ``restart_jitter`` (seeded by the plan's seed and the restart's index), at most
``restarts`` times, the last search with the rest of ``max_expanded``; the time limit is never
restarted. On the flat scene's 0.4 m walk (test_contact_plan.py's problem): a budget of one
expansion forces every restart, and the last search still plans a walk that `check_plan` passes."""

import numpy as np
import pytest
from test_contact_plan import GOAL_X, SOLES, _goal

from humanoid_planner.contact import ContactPlanner, MixedPotential, PlannerSettings, Stance, check_plan
from humanoid_planner.exceptions import PlanningError


def _planner(robot, floor, **settings):
    s = PlannerSettings(locations=SOLES, max_expanded=40, threshold=0.5, **settings)
    pot = MixedPotential(robot.model, (GOAL_X, 0.0), robot.q())
    planner = ContactPlanner(robot, [floor], _goal(robot), pot, s, goal_contacts=SOLES)
    return planner, Stance(planner.feas.contacts_at(robot.q(), SOLES, "floor"))


@pytest.fixture(scope="module")
def plain(robot, floor):
    planner, start = _planner(robot, floor)
    return planner.plan(start, robot.q())


@pytest.fixture(scope="module")
def restarted(robot, floor):
    planner, start = _planner(robot, floor, restarts=3, restart_expanded=1)
    return planner, planner.plan(start, robot.q())


def test_a_search_stopped_at_its_budget_is_restarted_and_the_last_one_plans(plain, restarted):
    planner, plan = restarted
    assert plain.success and plain.restarts == 0 and plain.expanded > 1  # the walk needs several expansions
    assert plan.success, plan.reason
    assert plan.restarts == 3
    assert check_plan(planner, plan) == []
    # three searches of one expansion each, then the last one's (the counts add up over the searches)
    assert plan.expanded >= 3 + plain.expanded - 1
    assert plan.generated > plain.generated


def test_a_restarted_root_is_the_start_jittered_then_projected(robot, plain, restarted):
    """The last search's root witness is not the plain one's (its start was jittered) but holds the
    same stance: the jitter moves every joint by at most ``restart_jitter`` before the projection."""
    planner, plan = restarted
    q0, q3 = plain.nodes[0].q, plan.nodes[0].q
    assert plan.nodes[0].stance == plain.nodes[0].stance
    assert not np.array_equal(q0, q3)
    jittered = planner._jittered(robot.q(), 3)
    assert 0 < np.max(np.abs(jittered[7:] - robot.q()[7:])) <= planner.s.restart_jitter + 1e-12
    assert np.array_equal(jittered[:7], robot.q()[:7])


def test_restarts_are_seeded_so_the_plan_is_repeated_bit_for_bit(robot, floor, restarted):
    _, first = restarted
    planner, start = _planner(robot, floor, restarts=3, restart_expanded=1)
    again = planner.plan(start, robot.q())
    assert len(again.nodes) == len(first.nodes) and again.generated == first.generated
    for a, b in zip(first.nodes, again.nodes):
        assert a.stance == b.stance and np.array_equal(a.q, b.q)
    other, start = _planner(robot, floor, restarts=3, restart_expanded=1, seed=1)
    assert not np.array_equal(other._jittered(robot.q(), 1), planner._jittered(robot.q(), 1))


def test_without_a_restart_budget_the_search_is_the_plain_one(robot, floor, plain):
    """``restarts`` without ``restart_expanded`` (0) restarts nothing: the same plan, bit for bit."""
    planner, start = _planner(robot, floor, restarts=5)
    plan = planner.plan(start, robot.q())
    assert plan.restarts == 0 and plan.generated == plain.generated
    for a, b in zip(plain.nodes, plan.nodes):
        assert a.stance == b.stance and np.array_equal(a.q, b.q)


def test_the_time_limit_is_not_restarted(robot, floor):
    planner, start = _planner(robot, floor, restarts=3, restart_expanded=1, time_limit=1e-9)
    plan = planner.plan(start, robot.q())
    assert not plan.success and plan.restarts == 0
    assert "time limit" in plan.reason


def test_max_expanded_bounds_all_the_searches_together(robot, floor):
    """One-expansion searches and a ``max_expanded`` of 3: two searches of one expansion, then a
    last one with the one expansion left (no fourth search, which would have none), and the failure
    says how many searches ran."""
    planner, start = _planner(robot, floor, restarts=3, restart_expanded=1)
    planner.s.max_expanded = 3
    plan = planner.plan(start, robot.q())
    assert not plan.success and plan.expanded == 3 and plan.restarts == 2
    assert "max_expanded" in plan.reason and "3 searches" in plan.reason


@pytest.mark.parametrize(
    "bad",
    [
        {"restarts": -1},
        {"restarts": 1000},
        {"restart_expanded": -1},
        {"restart_jitter": -1e-3},
        {"restart_jitter": 1.0},
    ],
)
def test_restart_settings_are_checked(bad):
    with pytest.raises(PlanningError, match=next(iter(bad))):
        PlannerSettings(**bad)
