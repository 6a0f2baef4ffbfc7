"""The chair scene guided by the automatic guide (Escande 2008, §6.4; acceptance test 001 A23): the
PRM of `humanoid_planner.contact.prm_guide` finds a guide from the seated witness to HRP-2
standing past the goal line, whose every configuration is in C_guide (collision-free, stable by
the cone LP), and the contact planner guided by it (the guide replacing the scene's hand-given key
postures) plans the stand-up, which the independent `check_plan` accepts. The sampling box, goal
and locations are benchmarks/prm_guide.py's (docs/contact_planner.md "Automatic guide"); seed 0."""

import numpy as np
import pytest

from humanoid_model.scene import load_scene
from humanoid_planner.contact import check_plan, scene_planning
from humanoid_planner.contact.prm_guide import PrmGuide
from humanoid_planner.planning.problem import placed

BOX = ([-0.2, -0.1, 0.35], [0.35, 2.4, 0.70])  # [m] the root's sampling box (benchmarks/prm_guide.py)
GOAL_XY = (0.05, 2.3)  # [m] standing there, facing +x (benchmarks/prm_guide.py)
LOCATIONS = ["l_sole", "r_sole", "l_thigh", "r_thigh", "l_hand", "r_hand"]  # (benchmarks/prm_guide.py)
SAMPLES = 400  # the PRM's sample bound (benchmarks/prm_guide.py's default)


@pytest.mark.slow
@pytest.mark.spec("001", "A23")
def test_the_automatic_guide_leads_the_chair_plan_to_the_goal():
    scene = load_scene("chair_table")
    sp = scene_planning(scene)
    feas, robot = sp.planner.feas, sp.robot
    start = feas.transition(sp.start.contacts, sp.start.contacts, sp.start_q).q
    prm = PrmGuide(robot, list(scene.surfaces), feas.obstacles, LOCATIONS, [start, robot.q()])
    guide = prm.plan(start, placed(robot.q(), *GOAL_XY, 0.0), BOX, seed=0, max_samples=SAMPLES).guide
    assert len(guide) >= 2 and all(prm.in_guide(q) for q in guide)
    assert np.allclose(guide[0], start) and guide[-1][1] > 2.0  # from the seat to past the goal line
    guided = scene_planning(scene, guide=np.array(guide[1:]))
    plan = guided.plan()
    assert plan.success, plan.reason
    assert check_plan(guided.planner, plan) == []
