"""Talos (example-robot-data's ``talos_reduced.urdf``, the optional ``robots`` extra) plans the
flat walk and the stairs with what its URDF and SRDF give (the SRDF's half-sitting start, the
soles of its sole frames; docs/robots.md "How to bring a new robot"): each plan is checked by the
planner's independent checks (`check_plan`; the walk's motion by `motion_problems`) and by where
the feet end. Plans are made once per module (about 15 s each on a quiet core)."""

from __future__ import annotations

import pytest
from support.robot_data import TALOS, erd_robot
from support.robot_plans import check_stairs, check_walk, stairs, walk

pytestmark = pytest.mark.skipif(
    erd_robot(TALOS) is None, reason="optional extra example-robot-data not installed (pip install '.[robots]')"
)


@pytest.fixture(scope="module")
def talos_walk():
    return walk(erd_robot(TALOS))


@pytest.fixture(scope="module")
def talos_stairs():
    return stairs(erd_robot(TALOS))


def test_talos_walks_on_flat_ground_from_its_srdf_half_sitting(talos_walk):
    check_walk(talos_walk)
    robot = talos_walk.problem.robot
    assert talos_walk.problem.start_q == pytest.approx(robot.q("half-sitting"))


def test_talos_climbs_the_stairs_to_the_top_step(talos_stairs):
    check_stairs(*talos_stairs)


def test_taloss_walk_retimed_needs_a_contact_wrench_its_soles_can_give(talos_walk):
    """`plan --time-optimal` on another robot (docs/planning.md, "Time-optimal motion"):
    `check_retimed_walk`."""
    from support.contact_wrench import check_retimed_walk

    check_retimed_walk(talos_walk)
