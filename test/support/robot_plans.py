"""The checks shared by the plan tests of the example-robot-data humanoids (test_talos_plans.py,
test_g1_plans.py): a short walk on ``flat`` with its motion, and the ``stairs`` scene's plan, each
made once per test module and checked by the planner's own independent checks (`check_plan`,
`motion_problems`) and by where the feet end."""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_model.robot import load_robot
from humanoid_model.scene import load_scene

WALK_GOAL = (0.2, 0.0)  # [m] a short walk: two to four steps (the flat problem's default is 0.4 m)


def walk(path):
    """The `planning.run` result of ``flat`` to `WALK_GOAL` for the robot of ``path`` (motion with
    the plan command's defaults)."""
    from humanoid_planner.planning import problem_for, run

    return run(problem_for(load_scene("flat"), load_robot(path), goal=WALK_GOAL))


def stairs(path):
    """(`ScenePlanning`, `Plan`) of the ``stairs`` scene's planning section for the robot of ``path``."""
    from humanoid_planner.contact import scene_planning

    sp = scene_planning(load_scene("stairs"), load_robot(path))
    return sp, sp.plan()


def sole_points(planner, q) -> dict:
    """World position of each sole's point at ``q``."""
    model = planner.feas.model
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    out = {}
    for name in ("l_sole", "r_sole"):
        loc = planner.robot.contact_locations[name]
        out[name] = data.oMf[model.getFrameId(loc.body)].act(np.asarray(loc.point, float))
    return out


def check_walk(result) -> None:
    """The walk planned, its plan and motion hold (`check_plan`; `motion_problems` only in the
    segments the motion itself reports unclear), and it ended with the CoM at the goal."""
    from humanoid_planner.contact import check_plan, motion_problems

    assert result.success, result.reason
    assert check_plan(result.planner, result.plan) == []
    m = result.motion
    found = motion_problems(result.planner, m, stride=10)
    assert {int(f.split()[1]) for f in found} <= set(m.unclear), found[:3]
    com = pin.centerOfMass(result.planner.feas.model, result.planner.feas.model.createData(), result.plan.goal_q)
    assert np.hypot(com[0] - WALK_GOAL[0], com[1] - WALK_GOAL[1]) <= 0.1 * np.sqrt(2) + 1e-6
    assert len(result.plan.nodes) >= 3  # at least one step: a release and an addition


def check_stairs(sp, plan) -> None:
    """The stairs plan holds (`check_plan`) and ends with both soles on the top step's tread."""
    from humanoid_planner.contact import check_plan

    assert plan.success, plan.reason
    assert check_plan(sp.planner, plan) == []
    last = plan.nodes[-1].stance
    assert {(c.location, c.surface) for c in last} == {("l_sole", "step5_top"), ("r_sole", "step5_top")}
    top = sp.scene.surface("step5_top")
    z_top = float(np.asarray(top.vertices)[:, 2].max())
    for p in sole_points(sp.planner, plan.goal_q).values():
        assert abs(p[2] - z_top) < 1e-4  # standing on the tread, computed from the kinematics
