"""A robot's SRDF (`humanoid_model.srdf`): its group states become postures (``half_sitting`` ->
``half-sitting``), its ``<disable_collisions>`` pairs collision exclusions."""

import importlib.metadata

import numpy as np
import pytest

from humanoid_model.collision_geometry import geometry_z_range
from humanoid_model.exceptions import ModelError
from humanoid_model.robot import load_robot
from humanoid_model.urdf_description import posture_names, world_collision_rules


def _link(name, z):
    return (
        f'<link name="{name}"><inertial><mass value="1"/>'
        '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
        f'<collision><origin xyz="0 0 {z}"/><geometry><box size="0.1 0.1 0.2"/></geometry></collision></link>'
    )


def _joint(name, parent, child, z):
    return (
        f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="0 0 {z}"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>'
    )


# a chain torso -> thigh -> shank, each a 0.2 m box hanging below its joint, plus a fixed camera
URDF = (
    '<robot name="walker">'
    + _link("torso", 0.1)
    + _link("thigh", -0.1)
    + _link("shank", -0.1)
    + '<link name="camera"/>'
    + _joint("hip", "torso", "thigh", 0.0)
    + _joint("knee", "thigh", "shank", -0.2)
    + '<joint name="cam" type="fixed"><parent link="torso"/><child link="camera"/></joint></robot>'
)
SRDF = """<robot name="walker">
  <group_state name="half_sitting" group="all">
    <joint name="root_joint" value="0.1 0 0.9 0 0 0 1"/>
    <joint name="hip" value="-0.4"/><joint name="knee" value="0.8"/><joint name="cam" value="0"/>
  </group_state>
  <group_state name="knee_bent" group="legs"><joint name="knee" value="1.2"/></group_state>
  <disable_collisions link1="torso" link2="shank" reason="Never"/>
  <disable_collisions link1="thigh" link2="gripper" reason="Never"/>
</robot>"""


@pytest.fixture
def walker(tmp_path):
    """The example-robot-data layout: robots/walker_small.urdf, srdf/walker.srdf (matched by robot name)."""
    (tmp_path / "robots").mkdir()
    (tmp_path / "srdf").mkdir()
    (tmp_path / "srdf" / "walker.srdf").write_text(SRDF)
    path = tmp_path / "robots" / "walker_small.urdf"
    path.write_text(URDF)
    return path


def test_group_states_become_hyphenated_postures(walker):
    robot = load_robot(walker)
    assert set(robot.postures) == {"half-sitting", "knee-bent", "zero"}
    assert robot.default_posture == "half-sitting"  # without a sidecar: the SRDF's first group state
    q = robot.q("half-sitting")
    np.testing.assert_array_equal(q[:7], [0.1, 0, 0.9, 0, 0, 0, 1])  # root_joint: the base pose
    assert q[robot.joint_index_q("hip")] == -0.4 and q[robot.joint_index_q("knee")] == 0.8
    assert posture_names(walker) == ["half-sitting", "knee-bent", "zero"]


def test_a_group_state_without_a_base_pose_stands_on_the_ground(walker):
    robot = load_robot(walker)
    q = robot.q("knee-bent")
    assert q[robot.joint_index_q("knee")] == 1.2 and q[robot.joint_index_q("hip")] == 0.0
    lowest, _ = geometry_z_range(robot.model, robot.collision_model, q)
    assert lowest == pytest.approx(0.0, abs=1e-12)


def test_disable_collisions_become_exclusions(walker):
    robot = load_robot(walker)
    pair = frozenset(("torso", "shank"))
    assert robot.collision.exclude == {pair}  # the pair naming a link the URDF lacks is left out
    assert world_collision_rules(robot).verdict("shank", "torso") is False


def test_the_sidecar_wins_over_the_srdf(walker):
    (walker.parent / "walker_small.yaml").write_text(
        "postures:\n  half-sitting:\n    joints: {hip: 0.1}\ndefault_posture: half-sitting\n"
        "collision:\n  include: [[torso, shank]]\n  exclude: [[torso, thigh]]\n"
    )
    robot = load_robot(walker)
    assert robot.q("half-sitting")[robot.joint_index_q("hip")] == 0.1
    assert "knee-bent" in robot.postures
    assert robot.collision.exclude == {frozenset(("torso", "shank")), frozenset(("torso", "thigh"))}


def test_a_group_state_naming_an_unknown_joint_is_an_error(walker):
    (walker.parent.parent / "srdf" / "walker.srdf").write_text(
        SRDF.replace('name="knee" value="1.2"', 'name="ankle" value="1"')
    )
    with pytest.raises(ModelError, match=r"<group_state name='knee_bent'>: <joint name='ankle'> is not a joint"):
        load_robot(walker)


def _talos():
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return None
    path = dist.locate_file("cmeel.prefix/share/example-robot-data/robots/talos_data/robots/talos_reduced.urdf")
    return path if path.is_file() else None


@pytest.mark.skipif(_talos() is None, reason="example-robot-data is not installed")
def test_talos_half_sitting_from_its_srdf_starts_the_flat_scene():
    """``plan flat --robot talos_reduced.urdf`` asked for 'half-sitting', which talos.srdf has."""
    from humanoid_model.scene import load_scene
    from humanoid_planner.planning.problem import scene_start_q

    robot = load_robot(_talos())
    q = scene_start_q(load_scene("flat"), robot)
    assert q[2] == pytest.approx(1.01927)  # talos.srdf's root_joint height
    assert q[robot.joint_index_q("leg_left_4_joint")] == pytest.approx(0.859395)
    assert len(robot.collision.exclude) > 100  # talos.srdf disables hundreds of pairs
