"""Robot files in xacro (`humanoid_model.xacro_file`): expanded with their arguments, loaded as a
URDF; errors in one line naming the file."""

import textwrap

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model.exceptions import ModelError, UnknownRobotError
from humanoid_model.robot import load_robot
from humanoid_model.scene import load_scene

# a two-link arm whose link length is an argument: link b's origin sits at z = length above a's
ARM = textwrap.dedent(
    """\
    <?xml version="1.0"?>
    <robot name="arm" xmlns:xacro="http://www.ros.org/wiki/xacro">
      <xacro:arg name="length" default="0.5"/>
      <xacro:property name="L" value="$(arg length)"/>
      <xacro:macro name="segment" params="name parent z">
        <link name="${name}">
          <inertial><origin xyz="0 0 ${L/2}"/><mass value="1"/>
            <inertia ixx="0.02" iyy="0.02" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
          <collision><origin xyz="0 0 ${L/2}"/><geometry><box size="0.05 0.05 ${L}"/></geometry></collision>
        </link>
        <joint name="${name}_joint" type="revolute">
          <parent link="${parent}"/><child link="${name}"/><origin xyz="0 0 ${z}"/>
          <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" velocity="1"/>
        </joint>
      </xacro:macro>
      <link name="base"/>
      <xacro:segment name="a" parent="base" z="0"/>
      <xacro:segment name="b" parent="a" z="${L}"/>
    </robot>
    """
)


@pytest.fixture
def arm(tmp_path):
    path = tmp_path / "arm.urdf.xacro"
    path.write_text(ARM)
    return path


def _b_height(robot):
    data = robot.model.createData()
    q = pin.neutral(robot.model)
    pin.forwardKinematics(robot.model, data, q)
    return data.oMi[robot.model.getJointId("b_joint")].translation[2]


def test_a_xacro_robot_loads_with_its_default_arguments(arm):
    robot = load_robot(arm)
    assert robot.name == "arm"
    assert robot.joint_names == ["a_joint", "b_joint"]
    assert _b_height(robot) == pytest.approx(0.5, abs=1e-12)  # the default length


@pytest.mark.parametrize("length", [0.3, 0.8])
def test_xacro_arguments_after_the_file_change_the_model(arm, length):
    robot = load_robot(f"{arm} length:={length}")
    assert _b_height(robot) == pytest.approx(length, abs=1e-12)
    # the link's COM is at L/2 in its frame: the property computed from the argument
    inertia = robot.model.inertias[robot.model.getJointId("b_joint")]
    np.testing.assert_allclose(inertia.lever, [0, 0, length / 2], atol=1e-12)


def test_a_scene_names_a_xacro_robot_with_its_arguments(arm, tmp_path):
    scene = tmp_path / "scene.yaml"
    scene.write_text(f"name: arm_scene\nrobot:\n  name: '{arm.name} length:=0.7'\n")
    spec = load_scene(scene).robot
    assert spec.urdf_path.xacro_args == (("length", "0.7"),)
    assert _b_height(load_robot(spec.urdf_path)) == pytest.approx(0.7, abs=1e-12)


def test_the_sidecar_of_a_xacro_file_is_name_yaml(arm):
    (arm.parent / "arm.yaml").write_text("postures:\n  bent:\n    joints: {a_joint: 0.25}\n")
    robot = load_robot(arm)
    assert robot.q("bent")[robot.joint_index_q("a_joint")] == 0.25


def test_a_broken_xacro_file_gives_one_line_naming_it(tmp_path):
    bad = tmp_path / "bad.urdf.xacro"
    bad.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="${nothing * 2}"/></robot>')
    with pytest.raises(ModelError) as err:
        load_robot(bad)
    msg = str(err.value)
    assert "\n" not in msg and str(bad) in msg and "nothing" in msg


def test_a_missing_include_is_a_one_line_error(tmp_path):
    bad = tmp_path / "inc.xacro"
    bad.write_text(
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:include filename="gone.xacro"/></robot>'
    )
    with pytest.raises(ModelError, match="inc.xacro: xacro cannot expand this file") as err:
        load_robot(bad)
    assert "\n" not in str(err.value)


def test_an_undeclared_argument_is_refused_not_ignored(arm):
    with pytest.raises(ModelError, match=r"unknown xacro argument\(s\) lenght \(the file declares: length\)"):
        load_robot(f"{arm} lenght:=0.7")


@pytest.mark.parametrize(
    "text, problem",
    [
        ("hrp2 length:=1", "follow a .xacro file"),
        ("{arm} length:=1 oops", "'oops' is not a xacro argument name:=value"),
    ],
)
def test_malformed_robot_arguments_are_refused(arm, text, problem):
    with pytest.raises(UnknownRobotError, match=problem):
        load_robot(text.format(arm=arm))
