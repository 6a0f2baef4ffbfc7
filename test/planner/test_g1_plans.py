"""Unitree G1 (example-robot-data's ``g1_29dof_rev_1_0.urdf``, the optional ``robots`` extra)
plans the flat walk and the stairs with what its URDF gives: no SRDF, so it starts from its
``zero`` posture (the scene's half-sitting is HRP-2's), soles from the bottom of its ankle
geometry (no sole frames), hands at its rubber-hand frames (docs/robots.md "How to bring a new
robot"). Each plan is checked by the planner's independent checks (`check_plan`; the walk's motion
by `motion_problems`) and by where the feet end. Plans are made once per module."""

from __future__ import annotations

import pytest
from support.robot_data import G1, erd_robot
from support.robot_plans import check_stairs, check_walk, stairs, walk

pytestmark = pytest.mark.skipif(
    erd_robot(G1) is None, reason="optional extra example-robot-data not installed (pip install '.[robots]')"
)


@pytest.fixture(scope="module")
def g1_walk():
    return walk(erd_robot(G1))


@pytest.fixture(scope="module")
def g1_stairs():
    return stairs(erd_robot(G1))


def test_g1_walks_on_flat_ground_from_its_zero_posture(g1_walk):
    check_walk(g1_walk)
    robot = g1_walk.problem.robot
    assert set(robot.postures) == {"zero"} and g1_walk.problem.start_q == pytest.approx(robot.q("zero"))
    assert {"l_hand", "r_hand"} <= set(robot.contact_locations)  # found, though the walk forbids them on the floor


def test_g1_climbs_the_stairs_to_the_top_step(g1_stairs):
    check_stairs(*g1_stairs)


def test_g1s_walk_retimed_needs_a_contact_wrench_its_soles_can_give(g1_walk):
    """`plan --time-optimal` on another robot (docs/planning.md, "Time-optimal motion"):
    `check_retimed_walk`."""
    from support.contact_wrench import check_retimed_walk

    check_retimed_walk(g1_walk)
