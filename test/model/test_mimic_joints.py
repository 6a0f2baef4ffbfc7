"""Mimic joints (``<mimic joint multiplier offset>``): Pinocchio 4.1's mimic joints in the robot
model, checked against forward kinematics computed by hand; refused in one line where the stack
cannot run them."""

import math

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model.exceptions import ModelError
from humanoid_model.robot import load_robot
from humanoid_model.urdf_description import read_urdf

INERTIAL = '<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>'
LIMIT = '<limit lower="-2" upper="2" effort="1" velocity="1"/>'
MULTIPLIER, OFFSET, ARM = -1.5, 0.2, 0.4  # [-], [rad], [m]
# a base, a driven joint j1 about z and, 0.4 m along a's x, the mimic joint j2 about z following j1
URDF = f"""<robot name="pincer">
  <link name="base">{INERTIAL}</link><link name="a">{INERTIAL}</link><link name="b">{INERTIAL}</link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>{LIMIT}</joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/><origin xyz="{ARM} 0 0"/>
    <axis xyz="0 0 1"/>{LIMIT}<mimic joint="j1" multiplier="{MULTIPLIER}" offset="{OFFSET}"/></joint>
</robot>"""


@pytest.fixture
def robot(tmp_path):
    path = tmp_path / "pincer.urdf"
    path.write_text(URDF)
    return load_robot(path)


def _rz(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@pytest.mark.parametrize("q1", [0.0, 0.3, -1.1])
def test_the_mimic_joint_follows_multiplier_q_plus_offset(robot, q1):
    """b's placement by hand: Rz(q1), then 0.4 m along a's x, then Rz(m q1 + o)."""
    model = robot.model
    q = robot.with_angles(robot.q("zero"), {"j1": q1})
    q[:7] = [0, 0, 0, 0, 0, 0, 1]
    data = model.createData()
    pin.forwardKinematics(model, data, q)
    b = data.oMi[model.getJointId("j2")]
    np.testing.assert_allclose(b.rotation, _rz(q1) @ _rz(MULTIPLIER * q1 + OFFSET), atol=1e-12)
    np.testing.assert_allclose(b.translation, _rz(q1) @ [ARM, 0, 0], atol=1e-12)


def test_a_mimic_joint_has_no_coordinate_of_its_own(robot):
    assert robot.mimic == {"j2": ("j1", MULTIPLIER, OFFSET)}
    assert robot.joint_names == ["j1"] and robot.dof_names == ["j1"]
    assert (robot.nq, robot.nv) == (8, 7)  # the free flyer and j1
    assert robot.q_lower.shape == robot.v_max.shape == (1,)


def test_the_urdf_reader_reports_the_mimic_relation():
    desc = read_urdf(URDF)
    assert desc.mimic_joints == {"j2": ("j1", MULTIPLIER, OFFSET)}
    with pytest.raises(ModelError, match="<mimic joint='nope'>: no such joint"):
        read_urdf(URDF.replace('mimic joint="j1"', 'mimic joint="nope"'))


def test_a_fixed_joint_with_a_mimic_element_moves_nothing(tmp_path):
    path = tmp_path / "fixed.urdf"
    path.write_text(URDF.replace('name="j2" type="revolute"', 'name="j2" type="fixed"'))
    robot = load_robot(path)
    assert robot.mimic == {} and robot.joint_names == ["j1"]


def test_a_posture_cannot_set_a_mimic_joint(tmp_path):
    path = tmp_path / "pincer.urdf"
    path.write_text(URDF)
    (tmp_path / "pincer.yaml").write_text("postures:\n  open:\n    joints: {j2: 0.5}\n")
    with pytest.raises(ModelError, match="j2: a mimic joint follows the joint it mimics"):
        load_robot(path)


def test_the_simulator_and_the_controller_refuse_mimic_joints_in_one_line(robot):
    from humanoid_control.wbc.controller import WholeBodyController
    from humanoid_sim.world import World

    for start, user in (
        (lambda: World.from_scene("flat", robot=robot), "the simulator"),
        (lambda: WholeBodyController(robot), "the whole-body controller"),
    ):
        with pytest.raises(ModelError) as err:
            start()
        assert f"{user} does not support mimic joints (j2 follows j1)" in str(err.value)
