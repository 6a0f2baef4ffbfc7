"""State publisher kinematics (humanoid_model.tf_tree), without ROS: transforms against closed-form
values for a small URDF, and chain composition against Pinocchio for the shipped robots."""

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model.exceptions import ModelError
from humanoid_model.tf_tree import KinematicTree, description_with_uris

# A 3-link chain with a revolute joint (origin with a roll), a continuous joint (stored by
# Pinocchio as cos/sin) and a fixed sensor frame. All numbers are arbitrary test values.
URDF = """<robot name="chain">
 <link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
 <link name="l1"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
 <link name="l2"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
 <link name="sensor"/>
 <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><origin xyz="0 0.1 0" rpy="0.1 0 0"/>
  <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
 <joint name="j2" type="continuous"><parent link="l1"/><child link="l2"/><origin xyz="0 0 -0.3"/><axis xyz="1 0 0"/></joint>
 <joint name="fs" type="fixed"><parent link="l2"/><child link="sensor"/><origin xyz="0 0 -0.1" rpy="0 0.2 0"/></joint>
</robot>"""


def rot(axis, angle):
    return pin.AngleAxis(angle, np.asarray(axis, dtype=float)).toRotationMatrix()


@pytest.fixture(scope="module")
def chain():
    model = pin.buildModelFromXML(URDF, pin.JointModelFreeFlyer())
    return KinematicTree(model)


def by_child(transforms):
    return {t.child: t for t in transforms}


def test_edges_and_classification(chain):
    moving = by_child(chain.moving_transforms(pin.neutral(chain.model)))
    static = by_child(chain.static_transforms())
    assert chain.root_link == "base"
    assert {c: t.parent for c, t in moving.items()} == {"base": "odom", "l1": "base", "l2": "l1"}
    assert {c: t.parent for c, t in static.items()} == {"sensor": "l2"}
    assert chain.joint_names == ["j1", "j2"]


def test_transforms_match_closed_form(chain):
    theta, phi = 0.7, -2.5  # [rad], phi beyond pi/2 to exercise the (cos, sin) storage
    base = np.array([0.3, -0.2, 0.8, *pin.Quaternion(rot([0, 0, 1], 0.4)).coeffs()])
    q, skipped = chain.configuration(pin.neutral(chain.model), {"j1": theta, "j2": phi}, base)
    assert skipped == []
    tf = by_child(chain.moving_transforms(q))
    H = {c: t.homogeneous() for c, t in tf.items()}
    # joint transform = origin * rotation about the axis by the joint angle
    np.testing.assert_allclose(H["l1"][:3, 3], [0, 0.1, 0], atol=1e-12)
    np.testing.assert_allclose(H["l1"][:3, :3], rot([1, 0, 0], 0.1) @ rot([0, 1, 0], theta), atol=1e-12)
    np.testing.assert_allclose(H["l2"][:3, 3], [0, 0, -0.3], atol=1e-12)
    np.testing.assert_allclose(H["l2"][:3, :3], rot([1, 0, 0], phi), atol=1e-12)
    np.testing.assert_allclose(H["base"][:3, 3], base[:3], atol=1e-12)
    np.testing.assert_allclose(H["base"][:3, :3], rot([0, 0, 1], 0.4), atol=1e-12)
    Hs = by_child(chain.static_transforms())["sensor"].homogeneous()
    np.testing.assert_allclose(Hs[:3, 3], [0, 0, -0.1], atol=1e-12)
    np.testing.assert_allclose(Hs[:3, :3], rot([0, 1, 0], 0.2), atol=1e-12)
    # the sensor's world position, written out by hand
    R0 = rot([0, 0, 1], 0.4)
    R1 = rot([1, 0, 0], 0.1) @ rot([0, 1, 0], theta)
    expected = base[:3] + R0 @ (
        np.array([0, 0.1, 0]) + R1 @ (np.array([0, 0, -0.3]) + rot([1, 0, 0], phi) @ np.array([0, 0, -0.1]))
    )
    world = H["base"] @ H["l1"] @ H["l2"] @ Hs
    np.testing.assert_allclose(world[:3, 3], expected, atol=1e-12)
    for t in tf.values():
        assert abs(np.linalg.norm(t.rotation) - 1.0) < 1e-12


def test_unknown_and_nonfinite_joints_are_skipped(chain):
    q0 = pin.neutral(chain.model)
    q, skipped = chain.configuration(q0, {"j1": 0.2, "nope": 1.0, "j2": float("nan"), "fs": 0.3}, base_pose=np.zeros(7))
    assert sorted(skipped) == ["base_pose", "fs", "j2", "nope"]
    expected = q0.copy()
    expected[7] = 0.2
    np.testing.assert_array_equal(q, expected)


def test_bad_configuration_raises(chain):
    with pytest.raises(ModelError, match="configuration"):
        chain.moving_transforms(np.zeros(3))
    with pytest.raises(ModelError, match="free-flyer"):
        KinematicTree(pin.buildModelFromXML(URDF))


@pytest.mark.parametrize("name", ["hrp2", "bip"])
def test_shipped_robot_chains_compose_to_pinocchio(name):
    from humanoid_model.paths import urdf_dir
    from humanoid_model.robot import load_robot

    if not (urdf_dir() / f"{name}.urdf").is_file():
        pytest.skip(f"urdf/{name}.urdf is not in this checkout yet")
    robot = load_robot(name)
    tree = KinematicTree(robot.model)
    rng = np.random.default_rng(0)
    positions = {
        j: rng.uniform(lo, hi)
        for j, lo, hi in zip(robot.joint_names, robot.q_lower, robot.q_upper)
        if np.isfinite(lo) and np.isfinite(hi)
    }
    q, skipped = tree.configuration(robot.q(), positions)
    assert skipped == []
    edges = {t.child: t for t in tree.moving_transforms(q) + tree.static_transforms()}
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    links = [f.name for f in robot.model.frames if f.type == pin.FrameType.BODY]
    assert set(edges) == set(links)  # every URDF link appears exactly once as a child

    def world(link):
        if link == "odom":
            return np.eye(4)
        t = edges[link]
        return world(t.parent) @ t.homogeneous()

    for link in links:
        np.testing.assert_allclose(world(link), data.oMf[robot.model.getFrameId(link)].homogeneous, atol=1e-10)


def test_description_uses_file_uris(tmp_path):
    mesh = tmp_path / "a b.stl"
    text = (
        f'<robot><link name="x"><visual><geometry><mesh filename="{mesh}" scale="1 1 1"/></geometry></visual>'
        '<collision><geometry><mesh filename="package://p/m.dae"/></geometry></collision></link></robot>'
    )
    out = description_with_uris(text)
    assert f'filename="{Path(mesh).as_uri()}"' in out and "a%20b.stl" in out
    assert 'filename="package://p/m.dae"' in out


def test_rep120_frames_sit_on_their_contact_locations():
    """base_link is the root link's frame; each contact location's frame has its origin at the
    location's point and its z axis along the inward normal, x along the tangent (world check by
    Pinocchio forward kinematics at a non-trivial posture)."""
    from humanoid_model.robot import load_robot
    from humanoid_model.tf_tree import BASE_LINK, robot_frames

    robot = load_robot("hrp2")
    tree = KinematicTree(robot.model)
    links = [f.name for f in robot.model.frames if f.type == pin.FrameType.BODY]
    extra = {t.child: t for t in robot_frames(tree.root_link, robot.contact_locations, links)}
    assert set(extra) == {BASE_LINK, *robot.contact_locations}
    assert extra[BASE_LINK].parent == tree.root_link
    np.testing.assert_allclose(extra[BASE_LINK].homogeneous(), np.eye(4))
    q = robot.q()
    q[robot.joint_index_q("RLEG_JOINT3")] += 0.4
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    for name in ("r_sole", "l_hand"):
        loc = robot.contact_locations[name]
        body = data.oMf[robot.model.getFrameId(loc.body)].homogeneous
        world = body @ extra[name].homogeneous()
        np.testing.assert_allclose(world[:3, 3], body[:3, :3] @ loc.point + body[:3, 3], atol=1e-12)
        np.testing.assert_allclose(world[:3, 2], body[:3, :3] @ loc.normal, atol=1e-12)
        np.testing.assert_allclose(world[:3, 0], body[:3, :3] @ loc.tangent, atol=1e-12)


def test_a_urdf_base_link_is_not_published_twice():
    from humanoid_model.tf_tree import robot_frames

    assert robot_frames("base_link", {}, ["base_link", "l1"]) == []
