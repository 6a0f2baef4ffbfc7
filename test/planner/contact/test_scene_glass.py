"""Sitting down at the table with a glass (Escande 2008, §7.4; acceptance test 001 A21): HRP-2
standing beside the chair, a glass in its right hand, plans to sit (both thighs on the seat, both
soles on the floor) with the glass upright at every witness, T_glass ((6.24): the hand's z axis
vertical), then its motion. Checked by the independent `check_plan` and, from Pinocchio's forward
kinematics, the glass's axis at every witness, at the goal posture and at every 5th sample of the
motion from the root's witness on: abs(n.i), abs(n.j) <= 1e-4 and n.k > 0. One plan per run (conftest ``scene_plan``)."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_planner.contact import check_plan
from humanoid_planner.motion import generate_motion

VERTICAL = 1e-4  # acceptance test 001 A21's bound on abs(n.i) and abs(n.j)
STRIDE = 5  # samples between two checks of the motion (chosen)


def tilts(robot, qs):
    """(m, 3): the world z axis of the right hand's body (the glass's axis) at each of ``qs``."""
    m, data = robot.model, robot.model.createData()
    fid = m.getFrameId(robot.contact_locations["r_hand"].body)
    out = []
    for q in qs:
        pin.framesForwardKinematics(m, data, q)
        out.append(data.oMf[fid].rotation[:, 2].copy())
    return np.array(out)


@pytest.fixture(scope="module")
def glass(scene_plan):
    sp, plan = scene_plan("glass")
    assert plan.success, plan.reason
    return sp, plan


@pytest.mark.slow
@pytest.mark.spec("001", "A21")
def test_hrp2_sits_at_the_table_with_the_glass_upright_at_every_witness(glass):
    sp, plan = glass
    assert check_plan(sp.planner, plan) == []
    last = plan.nodes[-1].stance
    assert {c.location for c in last} >= {"l_sole", "r_sole", "l_thigh", "r_thigh"}
    assert {c.surface for c in last if c.location.endswith("thigh")} == {"seat"}
    n = tilts(sp.robot, [node.q for node in plan.nodes] + [plan.goal_q])
    assert np.abs(n[:, :2]).max() <= VERTICAL and n[:, 2].min() > 0


@pytest.mark.slow
@pytest.mark.spec("001", "A21")
def test_the_glass_stays_upright_along_the_whole_motion(glass):
    sp, plan = glass
    motion = generate_motion(sp.planner.feas, plan.nodes, plan.goal_q, start_q=sp.start_q)
    # from the root's witness on: the lead-in starts at the scene's start posture, which holds the
    # glass 4 cm off vertical (config/scenes/glass.yaml), and brings it upright
    t_root = min(t0 for seg, t0, _ in motion.windows() if seg.index >= 0)
    picked = np.flatnonzero(motion.t >= t_root - 1e-9)[::STRIDE]
    assert len(picked) > 0.9 * len(motion.t) / STRIDE  # the lead-in is short
    n = tilts(sp.robot, motion.q[picked])
    assert np.abs(n[:, :2]).max() <= VERTICAL and n[:, 2].min() > 0
