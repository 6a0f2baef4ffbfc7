"""The editable URDF (`humanoid_model.urdf_xml.UrdfTree`): a round trip keeps the robot, and each
edit gives the model an independent computation predicts."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model.exceptions import ModelError
from humanoid_model.urdf_description import read_urdf, resolve_robot_path
from humanoid_model.urdf_xml import UrdfTree


@pytest.mark.parametrize("robot", ["hrp2", "bip"])
def test_a_round_trip_keeps_every_link_joint_and_inertial(robot):
    path = resolve_robot_path(robot)
    before = read_urdf(path)
    after = read_urdf(UrdfTree.from_file(path).to_text())
    assert list(after.links) == list(before.links)
    assert [(j.name, j.type, j.parent, j.child) for j in after.joints] == [
        (j.name, j.type, j.parent, j.child) for j in before.joints
    ]
    for a, b in zip(after.joints, before.joints):
        np.testing.assert_array_equal(np.r_[a.xyz, a.rpy, a.axis], np.r_[b.xyz, b.rpy, b.axis])
        assert a.limits == b.limits
    for name, link in before.links.items():
        if link.inertial is not None:
            np.testing.assert_array_equal(after.links[name].inertial.inertia, link.inertial.inertia)
            assert after.links[name].inertial.mass == link.inertial.mass


def test_edits_read_back_through_the_urdf_reader():
    tree = UrdfTree.from_file(resolve_robot_path("bip"))
    root = tree.root_links[0]
    mass = tree.links[root].mass
    tree.links[root].mass = mass + 1.25
    tree.add_link("probe", mass=0.5, com=(0.1, 0, 0), inertia=(1e-3, 2e-3, 3e-3))
    tree.add_joint("probe_joint", "prismatic", root, "probe", xyz=(0, 0.2, 0), axis=(0, 0, 1), limit=(-0.1, 0.1, 5, 1))
    knee = next(j for j in tree.joints if "knee" in j.lower())
    tree.joints[knee].type = "fixed"
    desc = read_urdf(tree.to_text())
    assert desc.links[root].inertial.mass == pytest.approx(mass + 1.25, abs=1e-15)
    probe = next(j for j in desc.joints if j.name == "probe_joint")
    assert (probe.type, probe.parent, probe.child, probe.limits) == ("prismatic", root, "probe", (-0.1, 0.1))
    np.testing.assert_array_equal(probe.xyz, [0, 0.2, 0])
    np.testing.assert_array_equal(np.diag(desc.links["probe"].inertial.inertia), [1e-3, 2e-3, 3e-3])
    assert next(j for j in desc.joints if j.name == knee).type == "fixed"


def test_moving_a_geometry_and_re_rooting_keep_its_world_placement():
    """A box moved from a link to a child link at offset o, and a fixed joint re-parented with its
    origin shifted by -o, stay where they were (Pinocchio's placements before and after)."""
    text = (
        '<robot name="r"><link name="a"><collision name="box"><origin xyz="0.1 0.2 -0.3" rpy="0 0 0.5"/>'
        '<geometry><box size="0.1 0.1 0.1"/></geometry></collision></link><link name="tip"/>'
        '<joint name="t" type="fixed"><parent link="a"/><child link="tip"/><origin xyz="0 0 -0.4"/></joint></robot>'
    )
    tree = UrdfTree.from_text(text)
    offset = np.array([0.0, 0.05, -0.25])
    plate = tree.add_link("plate")
    tree.add_joint("fix", "fixed", "a", "plate", xyz=offset)
    a = tree.links["a"]
    a.move_geometry(a.geometry()[0], plate, offset=offset)
    tip = tree.joints["t"]
    tip.parent, tip.xyz = "plate", tip.xyz - offset

    def placements(urdf):
        model = pin.buildModelFromXML(urdf)
        geom = pin.buildGeomFromUrdfString(model, urdf, pin.GeometryType.COLLISION)
        data = model.createData()
        pin.framesForwardKinematics(model, data, pin.neutral(model))
        box = data.oMi[geom.geometryObjects[0].parentJoint] * geom.geometryObjects[0].placement  # (joint frame)
        return box.homogeneous, data.oMf[model.getFrameId("tip")].homogeneous

    for before, after in zip(placements(text), placements(tree.to_text())):
        np.testing.assert_allclose(after, before, atol=1e-15)
    assert [g.tag for g in tree.links["plate"].geometry()] == ["collision"] and not a.geometry()


def test_remove_joint_and_name_errors():
    tree = UrdfTree.from_file(resolve_robot_path("bip"))
    name = next(iter(tree.joints))
    child = tree.joints[name].child
    tree.remove_joint(name)
    assert name not in tree.joints and child in tree.root_links
    with pytest.raises(ModelError, match="no joint"):
        tree.joint(name)
    with pytest.raises(ModelError, match="exists already"):
        tree.add_link(child)
    with pytest.raises(ModelError, match="expected <robot>"):
        UrdfTree.from_text("<sdf/>")
