"""Generic robot loading: any URDF, mesh paths, default contacts, clear errors.

The shipped HRP-2 and BIP models have their own tests (test_hrp2_model.py, test_bip_model.py).
"""

import textwrap
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model.exceptions import ModelError, UnknownRobotError
from humanoid_model.robot import available_robots, load_robot


def _biped_urdf(mesh_filename: str) -> str:
    """A small biped: box pelvis, two legs whose feet use a mesh (collision) and a box (visual)."""
    legs = ""
    for side, y in (("l", 0.1), ("r", -0.1)):
        legs += f"""
  <joint name="{side}_hip" type="revolute"><parent link="pelvis"/><child link="{side}_thigh"/>
    <origin xyz="0 {y} -0.05"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="50" velocity="5"/></joint>
  <link name="{side}_thigh"><inertial><mass value="2"/><inertia ixx="0.02" iyy="0.02" izz="0.005" ixy="0" ixz="0" iyz="0"/>
    <origin xyz="0 0 -0.2"/></inertial>
    <collision><origin xyz="0 0 -0.2"/><geometry><cylinder radius="0.04" length="0.3"/></geometry></collision></link>
  <joint name="{side}_ankle" type="revolute"><parent link="{side}_thigh"/><child link="{side}_foot"/>
    <origin xyz="0 0 -0.4"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="50" velocity="5"/></joint>
  <link name="{side}_foot"><inertial><mass value="1"/><inertia ixx="0.002" iyy="0.004" izz="0.004" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><box size="0.2 0.1 0.02"/></geometry></visual>
    <collision><origin xyz="0.02 0 -0.05"/><geometry><mesh filename="{mesh_filename}"/></geometry></collision></link>"""
    return textwrap.dedent(f"""<?xml version="1.0"?>
<robot name="tiny_biped">
  <link name="pelvis"><inertial><mass value="5"/><inertia ixx="0.05" iyy="0.05" izz="0.05" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.2 0.3 0.1"/></geometry></collision></link>{legs}
</robot>""")


@pytest.fixture(scope="module")
def mesh_package(tmp_path_factory):
    """A fake ROS package `tiny_description` holding an STL foot mesh (0.2 x 0.1 x 0.02 m box)."""
    import trimesh

    root = tmp_path_factory.mktemp("ws")
    pkg = root / "tiny_description"
    (pkg / "meshes").mkdir(parents=True)
    (pkg / "urdf").mkdir()
    trimesh.creation.box(extents=(0.2, 0.1, 0.02)).export(pkg / "meshes" / "foot.stl")
    return pkg


@pytest.mark.parametrize("mesh_ref", ["package://tiny_description/meshes/foot.stl", "../meshes/foot.stl"])
def test_mesh_paths_resolve_without_ament(mesh_package, mesh_ref):
    urdf = mesh_package / "urdf" / "tiny.urdf"
    urdf.write_text(_biped_urdf(mesh_ref))
    robot = load_robot(urdf)
    assert robot.model.nq == 7 + 4 and robot.joint_names == ["l_hip", "l_ankle", "r_hip", "r_ankle"]
    foot = [g for g in robot.collision_model.geometryObjects if g.name.startswith("l_foot")][0]
    assert Path(foot.meshPath) == (mesh_package / "meshes" / "foot.stl").resolve()
    assert robot.mass == pytest.approx(5 + 2 * (2 + 1))


def test_default_sole_contacts_from_foot_collision_mesh(mesh_package):
    urdf = mesh_package / "urdf" / "tiny.urdf"
    urdf.write_text(_biped_urdf("package://tiny_description/meshes/foot.stl"))
    robot = load_robot(urdf)
    assert set(robot.contact_locations) == {"l_sole", "r_sole"}
    sole = robot.contact_locations["l_sole"]
    assert sole.body == "l_foot" and sole.kind == "sole"
    # bottom face of the 0.2 x 0.1 x 0.02 box placed at (0.02, 0, -0.05) in the foot frame
    np.testing.assert_allclose(sole.hull.min(axis=0), [0.02 - 0.1, -0.05, -0.06], atol=1e-9)
    np.testing.assert_allclose(sole.hull.max(axis=0), [0.02 + 0.1, 0.05, -0.06], atol=1e-9)
    # the zero posture puts the lowest collision point (the soles) on z = 0
    data = robot.model.createData()
    q = robot.q("zero")
    pin.framesForwardKinematics(robot.model, data, q)
    oMf = data.oMf[robot.frame_id("l_foot")]
    world_hull = (oMf.rotation @ sole.hull.T).T + oMf.translation
    np.testing.assert_allclose(world_hull[:, 2], 0.0, atol=1e-9)


def test_robot_without_feet_loads_without_contacts(tmp_path):
    """A robot without feet is a valid robot (docs/robots.md, "Any URDF"): no sole contacts, no error. That it
    simulates is test_any_urdf.py's."""
    urdf = tmp_path / "stick.urdf"
    urdf.write_text(
        '<robot name="stick"><link name="a"><inertial><mass value="1"/>'
        '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link></robot>'
    )
    robot = load_robot(urdf)
    assert robot.contact_locations == {} and robot.mass == 1.0


def test_yaml_next_to_urdf_is_used_and_validated(mesh_package, tmp_path):
    urdf = tmp_path / "tiny.urdf"
    urdf.write_text(_biped_urdf(str(mesh_package / "meshes" / "foot.stl")))
    (tmp_path / "tiny.yaml").write_text(
        textwrap.dedent("""
        postures:
          crouch: {base: [0, 0, 0.5, 0, 0, 0, 1], joints: {l_hip: -0.3, r_hip: -0.3}}
        default_posture: crouch
        contacts:
          l_sole: {body: l_foot, kind: sole, point: [0, 0, -0.06], normal: [0, 0, 1], tangent: [1, 0, 0],
                   hull: [[-0.08, -0.05, -0.06], [0.12, -0.05, -0.06], [0.12, 0.05, -0.06], [-0.08, 0.05, -0.06]]}
    """)
    )
    robot = load_robot(urdf)
    assert robot.default_posture == "crouch"
    assert robot.q()[robot.joint_index_q("l_hip")] == pytest.approx(-0.3)
    assert list(robot.contact_locations) == ["l_sole"]
    (tmp_path / "tiny.yaml").write_text("postures:\n  p: {joints: {knee_of_nobody: 1.0}}\n")
    with pytest.raises(ModelError, match=r"tiny.yaml: postures.p.joints: unknown joint 'knee_of_nobody'"):
        load_robot(urdf)
    (tmp_path / "tiny.yaml").write_text(
        "contacts:\n  c: {body: l_foot, point: [0,0,0], normal: [0,0,1], tangent: [0,0,1], hull: [[0,0,0]]}\n"
    )
    with pytest.raises(ModelError, match="not orthogonal"):
        load_robot(urdf)


def test_unknown_robot_and_bad_files_are_clear_errors(tmp_path):
    with pytest.raises(UnknownRobotError, match="unknown robot 'asimo'"):
        load_robot("asimo")
    with pytest.raises(UnknownRobotError, match="not found"):
        load_robot(tmp_path / "missing.urdf")
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='x'><link name='a'></robot>")
    with pytest.raises(ModelError, match="not well-formed XML"):
        load_robot(bad)
    nomesh = tmp_path / "nomesh.urdf"
    nomesh.write_text(_biped_urdf("meshes/nothing_here.stl"))
    with pytest.raises(ModelError, match="mesh file not found: 'meshes/nothing_here.stl'"):
        load_robot(nomesh)
    nopkg = tmp_path / "nopkg.urdf"
    nopkg.write_text(_biped_urdf("package://no_such_pkg/foot.stl"))
    with pytest.raises(ModelError, match="package 'no_such_pkg' not found"):
        load_robot(nopkg)


def test_unknown_posture_is_a_clear_error(mesh_package):
    urdf = mesh_package / "urdf" / "tiny.urdf"
    urdf.write_text(_biped_urdf("../meshes/foot.stl"))
    with pytest.raises(ModelError, match="unknown posture 'moonwalk'"):
        load_robot(urdf).q("moonwalk")


def test_shipped_robots_are_listed():
    assert {"hrp2", "bip"} <= set(available_robots())


def _erd_robots_dir():
    """example-robot-data's robots folder (the optional ``robots`` extra, found on sys.path as
    test_collision_mesh does), or None."""
    import sys

    for p in sys.path:
        d = Path(p) / "cmeel.prefix" / "share" / "example-robot-data" / "robots"
        if d.is_dir():
            return d
    return None


@pytest.mark.skipif(
    _erd_robots_dir() is None, reason="optional extra example-robot-data not installed (pip install '.[robots]')"
)
@pytest.mark.parametrize(
    "rel, n_joints, sole_len",
    [
        ("talos_data/robots/talos_reduced.urdf", 32, None),  # mesh feet
        ("talos_data/robots/talos_reduced_box.urdf", 32, 0.21),  # box feet: sole 0.21 x 0.13 m (peers README)
        ("g1_description/urdf/g1_29dof_rev_1_0.urdf", 29, None),
    ],
)
def test_example_robot_data_humanoids_load_with_sole_contacts(rel, n_joints, sole_len):
    robot = load_robot(_erd_robots_dir() / rel)
    assert len(robot.joint_names) == n_joints
    assert set(robot.contact_locations) == {"l_sole", "r_sole", "l_hand", "r_hand"}  # hands: their hand frames
    for c in (robot.contact_locations["l_sole"], robot.contact_locations["r_sole"]):
        extent = c.hull.max(axis=0) - c.hull.min(axis=0)
        assert extent[0] > 0.1 and extent[1] > 0.03
        if sole_len:
            assert extent[0] == pytest.approx(sole_len, abs=0.01)
    assert np.all(np.isfinite(robot.q_lower)) and np.all(robot.effort_max > 0)


def test_joint_positions_read_revolute_and_continuous_joints_by_name(tmp_path):
    """`Robot.joint_positions` (the /joint_states of a configuration): a revolute joint's angle as
    stored, a continuous joint's angle from its (cos, sin) pair, in `joint_names` order."""
    import numpy as np

    from humanoid_model.robot import set_joint_angle

    inertia = '<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>'
    urdf = tmp_path / "two.urdf"
    urdf.write_text(
        f"""<robot name="two"><link name="base">{inertia}</link><link name="a">{inertia}</link>
        <link name="b">{inertia}</link>
        <joint name="rev" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>
          <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
        <joint name="cont" type="continuous"><parent link="a"/><child link="b"/><origin xyz="0 0 -0.3"/>
          <axis xyz="0 1 0"/></joint></robot>"""
    )
    (tmp_path / "two.yaml").write_text("contacts: {}\n")  # no feet: the sidecar says so
    robot = load_robot(urdf)
    q = robot.q()
    m = robot.model
    assert set_joint_angle(q, m.joints[m.getJointId("rev")], 0.7)
    assert set_joint_angle(q, m.joints[m.getJointId("cont")], -2.5)
    assert q[m.joints[m.getJointId("cont")].idx_q] == np.cos(-2.5)  # stored as (cos, sin)
    positions = robot.joint_positions(q)
    assert list(positions) == robot.joint_names == ["rev", "cont"]
    assert positions["rev"] == 0.7
    assert abs(positions["cont"] - (-2.5)) < 1e-15
