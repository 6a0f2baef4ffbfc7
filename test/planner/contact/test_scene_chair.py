"""Standing up from the chair and walking away (Escande 2008, §7.3; acceptance test 001 A20):
HRP-2 seated (thighs on the seat, feet on the floor) at a table plans to stand past y = 2 m on
both feet, guided by the thesis's four key postures, then its motion. Checked by the independent
`check_plan`, by the plan's structure (the thesis's: a hand on the table frees a foot, off the
seat, then a walk on the soles alone) and by the motion: every segment clear of the chair, the
table and the robot itself (`motion_problems` on the URDF geometry at every 25th sample; the
segment the projections cannot keep clear is planned on its stance manifold,
`humanoid_planner.motion.manifold_path`), the held contacts within 1 mm of their contacts at every
5th sample (Pinocchio's forward kinematics). Planned as the plan command plans, with the search's
path check (docs/planning.md "Motion", step 8), whose clear knots the motion takes. One plan per
run (conftest ``checked_scene_plan``)."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_planner.contact import check_plan
from humanoid_planner.contact.check import motion_problems
from humanoid_planner.motion import generate_motion

HELD = 1e-3  # [m] a held contact's bound along the motion (docs/planning.md "Motion")
STRIDE = 25  # samples between two collision checks of the motion (chosen: ~5,000 of its ~127,000 samples)


@pytest.fixture(scope="module")
def chair(checked_scene_plan):
    sp, plan, check = checked_scene_plan("chair_table")
    assert plan.success, plan.reason
    motion = generate_motion(sp.planner.feas, plan.nodes, plan.goal_q, start_q=sp.start_q, known=check.for_motion())
    return sp, plan, motion


@pytest.mark.slow
@pytest.mark.spec("001", "A20")
def test_hrp2_stands_up_with_a_hand_on_the_table_and_walks_past_the_goal_line(chair):
    sp, plan, _ = chair
    assert check_plan(sp.planner, plan) == []
    kind = {n: loc.kind for n, loc in sp.planner.feas.locations.items()}
    stances = [n.stance for n in plan.nodes]
    assert {c.location for c in stances[0]} == {"l_sole", "r_sole", "l_thigh", "r_thigh"}
    assert any(  # a hand on the table holds while one foot is free
        any(kind[c.location] == "hand" and c.surface == "table" for c in s)
        and sum(kind[c.location] == "sole" for c in s) == 1
        for s in stances
    )
    last_other = max(i for i, s in enumerate(stances) if any(kind[c.location] != "sole" for c in s))
    walk = stances[last_other + 1 :]
    assert len(walk) >= 4 and all(set(s.locations) <= {"l_sole", "r_sole"} for s in walk)
    assert plan.goal_q[1] >= 2.0 - 1e-6  # the root past the goal line (the posture generator's tolerance)


@pytest.mark.slow
@pytest.mark.spec("001", "A22")
def test_the_stand_up_motion_is_clear_and_holds_its_contacts(chair):
    sp, plan, motion = chair
    assert motion.unclear == [], motion.unclear
    assert motion_problems(sp.planner, motion, stride=STRIDE) == []
    robot, feas = sp.robot, sp.planner.feas
    m, data = robot.model, robot.model.createData()
    worst = 0.0
    for seg, t0, t1 in motion.windows():
        window = np.flatnonzero((motion.t >= t0 - 1e-9) & (motion.t <= t1 + 1e-9))
        for i in window[:: STRIDE // 5]:
            pin.framesForwardKinematics(m, data, motion.q[i])
            for c in seg.fixed:  # the contact point of the location against the contact's point E on its surface
                loc = feas.locations[c.location]
                p = data.oMf[m.getFrameId(loc.body)].act(loc.point)
                worst = max(worst, float(((p - feas.env_frame(c).point) ** 2).sum() ** 0.5))
    assert worst <= HELD, worst
