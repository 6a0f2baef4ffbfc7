"""The scene robot's start configuration (`humanoid_model.start_posture`): the simulator, the walk
and scene planning problems and the viewer place the scene's robot alike; only the simulator lifts
a robot on FEM soles, by the thickest sole."""

import dataclasses

import numpy as np
import pytest

from humanoid_model.robot import load_robot
from humanoid_model.scene import load_scene
from humanoid_model.start_posture import scene_robot_q, sole_lift, spec_for_robot, start_posture_name
from humanoid_planner.contact.scene_problem import start_configuration
from humanoid_planner.planning.problem import scene_start_q
from humanoid_sim.world import World
from humanoid_viewer.app import Viewer


@pytest.fixture(scope="module")
def robots():
    return {}


def _robot(robots, spec):
    key = (str(spec.urdf_path), spec.ankle)
    if key not in robots:
        robots[key] = load_robot(spec.urdf_path, ankle=spec.ankle)
    return robots[key]


def _four(scene, robot, soles=None):
    """The start configuration of the simulator, the walk problem, the scene problem and the viewer."""
    world = World(scene, robot, soles=soles)
    with Viewer(robot, scene=scene, port=0, verbose=False) as v:
        viewer = v.q.copy()
    return {
        "simulator": world.q[: robot.nq],
        "walk problem": scene_start_q(scene, robot),
        "scene problem": start_configuration(scene, robot),
        "viewer": viewer,
    }


# glass: joint overrides (the right arm holding the glass); table_can: a placement off the origin
@pytest.mark.parametrize("name", ["flat", "stairs", "table_can", "glass"])
def test_the_simulator_planners_and_viewer_start_the_scene_robot_alike(name, robots):
    scene = load_scene(name)
    robot = _robot(robots, scene.robot)
    q = scene_robot_q(robot, scene.robot)
    for who, qw in _four(scene, robot).items():
        assert np.array_equal(qw, q), who
    assert q[:7] == pytest.approx(scene.robot.base_pose(robot.q(start_posture_name(robot, scene.robot))[:7]))
    for j, v in scene.robot.joints.items():
        assert q[robot.joint_index_q(j)] == v
    if name == "glass":
        assert scene.robot.joints and not np.array_equal(q, scene_robot_q(robot, scene.robot, joints={}))


def test_only_the_simulator_lifts_a_robot_on_fem_soles_by_the_thickest_sole(robots):
    scene = load_scene("flat")
    scene = dataclasses.replace(scene, robot=dataclasses.replace(scene.robot, soles="fem"))
    robot = _robot(robots, scene.robot)
    lift = sole_lift(robot.soles.values())
    assert lift == max(s.thickness for s in robot.soles.values()) > 0
    rigid = scene_robot_q(robot, scene.robot)
    four = _four(scene, robot)
    assert np.array_equal(four.pop("simulator"), scene_robot_q(robot, scene.robot, lift=lift))
    for who, qw in four.items():
        assert np.array_equal(qw, rigid), who
    lifted = rigid.copy()
    lifted[2] += lift
    assert np.array_equal(scene_robot_q(robot, scene.robot, lift=lift), lifted)
    # the same robot on rigid soles is not lifted
    assert np.array_equal(World(scene, robot, soles="rigid").q[: robot.nq], rigid)
    assert sole_lift(()) == 0.0


def test_a_robot_replacing_the_scenes_keeps_the_placement_and_what_it_knows(robots):
    scene = load_scene("glass")  # HRP-2 in 'half-sitting' with arm overrides
    bip = load_robot("bip")
    spec = spec_for_robot(scene.robot, bip)
    assert spec.posture is None and spec.joints == {} and spec.placement == scene.robot.placement
    assert spec_for_robot(scene.robot, _robot(robots, scene.robot)) is scene.robot
    q = scene_robot_q(bip, spec)
    assert np.array_equal(World.from_scene(scene, robot=bip).q[: bip.nq], q)
    assert np.array_equal(start_configuration(scene, bip), q)  # another robot: its default posture, placed
    with Viewer(bip, scene=scene, port=0, verbose=False) as v:  # the viewer does not place another robot
        assert np.array_equal(v.q, scene_robot_q(bip, None))
