"""`humanoid_model.robot.robot_from_urdf_text`: the robot of a ``/robot_description`` string, the
same as the robot of its file."""

import numpy as np
import pinocchio as pin
import pytest
import trimesh

from humanoid_model.exceptions import ModelError
from humanoid_model.files import read_text
from humanoid_model.robot import load_robot, robot_from_urdf_text
from humanoid_model.urdf_description import read_urdf, resolve_robot_path


def _same_model(a: pin.Model, b: pin.Model):
    assert list(a.names) == list(b.names) and (a.nq, a.nv) == (b.nq, b.nv)
    for x, y in zip(a.jointPlacements, b.jointPlacements):
        np.testing.assert_array_equal(x.homogeneous, y.homogeneous)
    for x, y in zip(a.inertias, b.inertias):
        np.testing.assert_array_equal(x.matrix(), y.matrix())
    np.testing.assert_array_equal(a.lowerPositionLimit, b.lowerPositionLimit)
    np.testing.assert_array_equal(a.armature, b.armature)


@pytest.mark.parametrize("name", ["hrp2", "bip"])
def test_a_shipped_robots_text_gives_the_model_of_its_file(name):
    path = resolve_robot_path(name)
    from_file = load_robot(name)
    bare = robot_from_urdf_text(read_text(path, "URDF", ModelError))
    assert bare.urdf_path is None and bare.name == read_urdf(path).name  # the URDF's <robot name>
    # without `like` no sidecar: the URDF's model (no armature), the zero posture only
    _same_model(bare.model, pin.buildModelFromXML(from_file.urdf_text, pin.JointModelFreeFlyer()))
    assert list(bare.postures) == ["zero"]
    like = robot_from_urdf_text(read_text(path, "URDF", ModelError), like=name)
    _same_model(like.model, from_file.model)
    assert like.postures.keys() == from_file.postures.keys()
    for k, q in from_file.postures.items():
        np.testing.assert_array_equal(like.postures[k], q)
    assert like.contact_locations.keys() == from_file.contact_locations.keys()
    assert like.collision_model.ngeoms == from_file.collision_model.ngeoms


def test_package_uris_resolve_through_ros_package_path(tmp_path, monkeypatch):
    meshes = tmp_path / "share" / "demo_description" / "meshes"
    meshes.mkdir(parents=True)
    trimesh.creation.box((0.1, 0.2, 0.3)).export(meshes / "box.stl")
    text = (
        '<robot name="demo"><link name="body"><inertial><mass value="1"/>'
        '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
        '<collision><geometry><mesh filename="package://demo_description/meshes/box.stl"/></geometry></collision>'
        "</link></robot>"
    )
    with pytest.raises(ModelError, match="package 'demo_description' not found"):
        robot_from_urdf_text(text)
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(tmp_path / "share"))
    robot = robot_from_urdf_text(text)
    assert robot.name == "demo"
    assert robot.collision_model.geometryObjects[0].meshPath == str((meshes / "box.stl").resolve())


def test_a_relative_mesh_needs_a_base_folder(tmp_path):
    trimesh.creation.box((0.1, 0.1, 0.1)).export(tmp_path / "box.stl")
    text = (
        '<robot name="rel"><link name="body"><inertial><mass value="1"/>'
        '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
        '<visual><geometry><mesh filename="box.stl"/></geometry></visual></link></robot>'
    )
    with pytest.raises(ModelError, match="mesh 'box.stl' is relative"):
        robot_from_urdf_text(text)
    robot = robot_from_urdf_text(text, base=tmp_path)
    assert robot.visual_model.geometryObjects[0].meshPath == str((tmp_path / "box.stl").resolve())


def test_a_name_is_not_urdf_text():
    with pytest.raises(ModelError, match="not URDF XML text"):
        robot_from_urdf_text("hrp2")


def test_talos_description_text_with_package_uris_gives_the_model_of_its_file(monkeypatch):
    """example-robot-data's Talos, as robot_state_publisher would publish it (package:// meshes)."""
    import importlib.metadata

    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    share = dist.locate_file("cmeel.prefix/share")
    path = share / "example-robot-data/robots/talos_data/robots/talos_reduced.urdf"
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(share))
    robot = robot_from_urdf_text(read_text(path, "URDF", ModelError), like=path)
    from_file = load_robot(path)
    _same_model(robot.model, from_file.model)
    assert [g.meshPath for g in robot.collision_model.geometryObjects] == [
        g.meshPath for g in from_file.collision_model.geometryObjects
    ]
    assert robot.collision.exclude == from_file.collision.exclude and "half-sitting" in robot.postures
