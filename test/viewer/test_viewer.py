"""Web viewer without a browser: markers, replay files, postures and sliders, scene, CLI.

The viewer's server runs on a free port (port 0) in-process; the checks read back what the viewer
sent to viser (scene-node handles) and the configuration it shows.
"""

import json
import math
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pinocchio as pin
import pytest
from support.planned_stances import plan_header

from humanoid_model.exceptions import HumanoidStackError
from humanoid_model.robot import load_robot
from humanoid_stack.commands.view import choose_robot
from humanoid_viewer import markers as mk
from humanoid_viewer.app import Viewer
from humanoid_viewer.exceptions import MarkerError, RecordingError, ViewerError
from humanoid_viewer.markers import Marker, MarkerStore, arrow_segment, marker_from_msg
from humanoid_viewer.replay import load_recording, parse_recording


# ---------------------------------------------------------------------- fixtures
@pytest.fixture(scope="session")
def hrp2():
    return load_robot("hrp2")


@pytest.fixture(scope="session")
def viewer(hrp2):
    """One HRP-2 viewer on the flat scene shared by the tests (each test restores what it changes)."""
    v = Viewer(hrp2, scene="flat", port=0, verbose=False)
    yield v
    v.close()


MESH_SCALE = 2.0
BALL_RADIUS = 0.1


@pytest.fixture(scope="session")
def mesh_robot(tmp_path_factory):
    """A 2-link robot whose visual geometry is a box, a scaled STL mesh and a cylinder."""
    import trimesh

    d = tmp_path_factory.mktemp("mesh_robot")
    trimesh.creation.icosphere(subdivisions=1, radius=BALL_RADIUS).export(d / "ball.stl")
    inertial = (
        '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
    )
    (d / "mini.urdf").write_text(f"""<robot name="mini">
<link name="base">{inertial}
 <visual><geometry><box size="0.2 0.3 0.4"/></geometry><material name="r"><color rgba="1 0 0 1"/></material></visual>
 <visual><origin xyz="0 0 0.3"/><geometry><mesh filename="ball.stl" scale="{MESH_SCALE} {MESH_SCALE} {MESH_SCALE}"/></geometry></visual>
 <collision><geometry><mesh filename="ball.stl"/></geometry></collision></link>
<joint name="j1" type="revolute"><parent link="base"/><child link="arm"/><origin xyz="0 0 -0.3"/>
 <axis xyz="0 1 0"/><limit lower="-1" upper="1.5" effort="10" velocity="1"/></joint>
<link name="arm">{inertial}<visual><origin xyz="0 0 -0.2"/><geometry><cylinder radius="0.05" length="0.4"/></geometry></visual></link>
</robot>""")
    (d / "mini.yaml").write_text("""postures:
  rest: {base: [0, 0, 0.8, 0, 0, 0, 1], joints: {j1: 0.0}}
  bent: {base: [0, 0, 0.8, 0, 0, 0, 1], joints: {j1: 1.2}}
default_posture: rest
contacts: {}
""")
    return load_robot(d / "mini.urdf")


def _ros_marker(**kw):
    """A visualization_msgs/Marker-like object (duck-typed, as the node receives)."""

    def xyz(x, y, z):
        return SimpleNamespace(x=x, y=y, z=z)

    return SimpleNamespace(
        ns=kw.get("ns", "forces"),
        id=kw.get("id", 3),
        type=kw.get("type", mk.ARROW),
        action=kw.get("action", mk.ADD),
        header=SimpleNamespace(frame_id=kw.get("frame_id", "world")),
        pose=SimpleNamespace(position=xyz(0.1, 0.2, 0.3), orientation=SimpleNamespace(x=0.0, y=0.0, z=0.0, w=1.0)),
        scale=xyz(0.01, 0.02, 0.03),
        color=SimpleNamespace(r=1.0, g=0.5, b=0.0, a=0.8),
        points=[xyz(0, 0, 0), xyz(0, 0, 1)],
        colors=[],
        text="",
    )


# ---------------------------------------------------------------------- markers (no viewer)
def test_marker_converts_from_a_real_visualization_msgs_message():
    from geometry_msgs.msg import Point
    from visualization_msgs.msg import Marker as MarkerMsg
    from visualization_msgs.msg import MarkerArray

    msg = MarkerMsg()
    msg.header.frame_id = "odom"
    msg.ns, msg.id, msg.type, msg.action = "contacts", 7, MarkerMsg.LINE_LIST, MarkerMsg.ADD
    msg.pose.position.x, msg.pose.orientation.z, msg.pose.orientation.w = 1.5, np.sin(0.25), np.cos(0.25)
    msg.scale.x = 0.02
    msg.color.r, msg.color.a = 1.0, 0.5
    msg.points = [Point(x=0.0, y=0.0, z=0.0), Point(x=0.0, y=0.0, z=2.0)]
    m = marker_from_msg(msg)
    assert (m.ns, m.id, m.type, m.action, m.frame_id) == ("contacts", 7, mk.LINE_LIST, mk.ADD, "odom")
    np.testing.assert_allclose(m.position, [1.5, 0, 0])
    np.testing.assert_allclose(m.orientation, [0, 0, np.sin(0.25), np.cos(0.25)])
    np.testing.assert_allclose(m.points, [[0, 0, 0], [0, 0, 2]])
    np.testing.assert_allclose(m.color, [1, 0, 0, 0.5])
    # The constants are the message's.
    for name in (
        "ARROW",
        "CUBE",
        "SPHERE",
        "CYLINDER",
        "LINE_STRIP",
        "LINE_LIST",
        "SPHERE_LIST",
        "POINTS",
        "TEXT_VIEW_FACING",
        "TRIANGLE_LIST",
        "DELETE",
        "DELETEALL",
    ):
        assert getattr(mk, name) == getattr(MarkerMsg, name), name
    arr = MarkerArray(markers=[msg, msg])
    assert len(mk.markers_from_array_msg(arr)) == 2


def test_marker_store_add_replace_delete_deleteall():
    store = MarkerStore()
    a, b, c = (Marker(ns="n", id=i) for i in range(3))
    changed, removed = store.apply([a, b, Marker(ns="other", id=0)])
    assert set(changed) == {("n", 0), ("n", 1), ("other", 0)} and removed == []
    changed, removed = store.apply([Marker(ns="n", id=1, type=mk.SPHERE)])  # replace
    assert changed == [("n", 1)] and store.markers[("n", 1)].type == mk.SPHERE
    changed, removed = store.apply([Marker(ns="n", id=0, action=mk.DELETE)])
    assert removed == [("n", 0)] and ("n", 0) not in store and len(store) == 2
    # DELETEALL clears everything, then later markers of the same array are added.
    changed, removed = store.apply([Marker(action=mk.DELETEALL), c])
    assert set(removed) == {("n", 1), ("other", 0)} and changed == [("n", 2)]
    assert list(store.markers) == [("n", 2)]
    # Deleting an unknown key is a no-op.
    assert store.apply([Marker(ns="x", id=9, action=mk.DELETE)]) == ([], [])


def test_arrow_geometry_from_points_or_pose_and_scale():
    # Two points: scale = (shaft diameter, head diameter, head length).
    seg, shaft_r, head_r, head_l = arrow_segment(Marker(points=[[0, 0, 0], [0, 0, 2]], scale=[0.02, 0.05, 0.3]))
    np.testing.assert_allclose(seg, [[0, 0, 0], [0, 0, 2]])
    assert (shaft_r, head_r, head_l) == pytest.approx((0.01, 0.025, 0.3))
    # Head length 0: a fixed fraction of the length.
    _, _, _, head_l = arrow_segment(Marker(points=[[0, 0, 0], [0, 0, 2]], scale=[0.02, 0.05, 0.0]))
    assert head_l == pytest.approx((1 - mk.ARROW_SHAFT_FRACTION) * 2)
    # Pose form: along the marker x axis, scale = (length, shaft diameter, head diameter).
    seg, shaft_r, head_r, _ = arrow_segment(Marker(scale=[0.5, 0.04, 0.08]))
    np.testing.assert_allclose(seg, [[0, 0, 0], [0.5, 0, 0]])
    assert (shaft_r, head_r) == pytest.approx((0.02, 0.04))


def test_bad_markers_raise_clear_errors():
    with pytest.raises(MarkerError, match=r"ns='f', id=2.*'pose.position'.*NaN"):
        Marker(ns="f", id=2, position=[0, np.nan, 0])
    with pytest.raises(MarkerError, match="action 7"):
        Marker(action=7)
    with pytest.raises(MarkerError, match="'points'"):
        Marker(points=[[0, 0], [1, 1]])
    with pytest.raises(MarkerError, match="2 colors for 1 points"):
        Marker(points=[[0, 0, 0]], colors=[[1, 0, 0, 1]] * 2)
    assert issubclass(MarkerError, HumanoidStackError)
    # A default (all-zero) quaternion, as in a default-constructed message, means identity.
    np.testing.assert_allclose(Marker(orientation=[0, 0, 0, 0]).orientation, [0, 0, 0, 1])


# ---------------------------------------------------------------------- markers in the viewer
def test_markers_drawn_in_viewer(viewer):
    rot = pin.Quaternion(pin.utils.rpyToMatrix(0, 0, np.pi / 2)).coeffs()  # xyzw, 90 deg about z
    markers = [
        Marker(ns="f", id=0, type=mk.ARROW, points=[[0, 0, 0], [0, 0, 1]], scale=[0.02, 0.04, 0.1]),
        Marker(
            ns="f", id=1, type=mk.LINE_STRIP, points=[[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], scale=[0.01, 0, 0]
        ),
        Marker(ns="f", id=2, type=mk.LINE_LIST, points=[[0, 0, 0], [1, 0, 0], [0, 0, 1]], scale=[0.01, 0, 0]),
        Marker(ns="f", id=3, type=mk.TRIANGLE_LIST, points=np.eye(3).tolist() * 2 + [[0, 0, 0]], color=[0, 1, 0, 0.5]),
        Marker(ns="s", id=0, type=mk.SPHERE, position=[1, 2, 3], orientation=rot, scale=[0.1, 0.2, 0.3]),
        Marker(ns="s", id=1, type=mk.MESH_RESOURCE),  # stored, not drawn
    ]
    viewer.apply_markers(markers, group="t")
    try:
        h = viewer.marker_handles("t")
        assert set(h) == {("f", 0), ("f", 1), ("f", 2), ("f", 3), ("s", 0), ("s", 1)}
        np.testing.assert_allclose(h[("f", 0)][-1].points, [[[0, 0, 0], [0, 0, 1]]])
        assert h[("f", 0)][-1].shaft_radius == pytest.approx(0.01)
        assert np.asarray(h[("f", 1)][-1].points).shape == (3, 2, 3)  # strip of 4 points: 3 segments
        assert np.asarray(h[("f", 2)][-1].points).shape == (1, 2, 3)  # list: odd last point dropped
        assert np.asarray(h[("f", 3)][-1].faces).shape == (2, 3)  # 7 points: 2 triangles
        assert h[("f", 3)][-1].opacity == pytest.approx(0.5)
        pose_frame, sphere = h[("s", 0)][1], h[("s", 0)][-1]
        np.testing.assert_allclose(pose_frame.position, [1, 2, 3])
        np.testing.assert_allclose(pose_frame.wxyz, [rot[3], *rot[:3]], atol=1e-12)
        np.testing.assert_allclose(sphere.scale, [0.1, 0.2, 0.3])
        assert h[("s", 1)] == []
        # Replace, delete one, then DELETEALL of this group only.
        viewer.apply_markers([Marker(ns="keep", id=0, type=mk.SPHERE)], group="other")
        viewer.apply_markers(
            [
                Marker(ns="f", id=0, type=mk.ARROW, points=[[0, 0, 0], [2, 0, 0]]),
                Marker(ns="f", id=1, action=mk.DELETE),
            ],
            group="t",
        )
        h = viewer.marker_handles("t")
        np.testing.assert_allclose(h[("f", 0)][-1].points, [[[0, 0, 0], [2, 0, 0]]])
        assert ("f", 1) not in h
        viewer.clear_markers("t")
        assert viewer.marker_handles("t") == {} and viewer.markers("t") == {}
        assert list(viewer.markers("other")) == [("keep", 0)]
    finally:
        viewer.clear_markers("t")
        viewer.clear_markers("other")


def test_marker_in_robot_frame_follows_robot(viewer, hrp2):
    frame = "RLEG_LINK5" if hrp2.model.existFrame("RLEG_LINK5") else hrp2.model.frames[-1].name
    fid = hrp2.model.getFrameId(frame)
    viewer.apply_markers([Marker(ns="c", id=0, type=mk.SPHERE, frame_id=frame, scale=[0.05] * 3)], group="rf")
    q0 = viewer.q
    try:
        for q in (
            q0,
            pin.randomConfiguration(
                hrp2.model, hrp2.model.lowerPositionLimit.clip(-3, 3), hrp2.model.upperPositionLimit.clip(-3, 3)
            ),
        ):
            viewer.set_q(q)
            data = hrp2.model.createData()
            pin.framesForwardKinematics(hrp2.model, data, viewer.q)
            outer = viewer.marker_handles("rf")[("c", 0)][0]
            np.testing.assert_allclose(outer.position, data.oMf[fid].translation, atol=1e-6)
    finally:
        viewer.set_q(q0)
        viewer.clear_markers("rf")


# ---------------------------------------------------------------------- robot, postures, sliders
def test_posture_selector_sets_q(viewer, hrp2):
    assert set(viewer.posture_selector.options) == set(hrp2.postures)
    np.testing.assert_allclose(viewer.q, hrp2.q("half-sitting"))  # flat: robot at the posture's base pose
    viewer.posture_selector.value = "zero"  # as a click in the browser does
    np.testing.assert_allclose(viewer.q, hrp2.q("zero"))
    viewer.set_posture("half-sitting")
    np.testing.assert_allclose(viewer.q, hrp2.q("half-sitting"))
    assert viewer.posture_selector.value == "half-sitting"
    with pytest.raises(ViewerError, match="unknown posture 'crouch'"):
        viewer.set_posture("crouch")


def test_joint_sliders_follow_limits_and_set_q(viewer, hrp2):
    sliders = {s.label: (j, s) for j, s in viewer.joint_sliders}
    assert list(sliders) == hrp2.joint_names
    for k, name in enumerate(hrp2.joint_names):
        j, s = sliders[name]
        assert (s.min, s.max) == pytest.approx((hrp2.q_lower[k], hrp2.q_upper[k]))
    name = hrp2.joint_names[3]
    j, s = sliders[name]
    q0 = viewer.q
    target = 0.5 * (s.min + s.max) + 0.1
    try:
        s.value = target
        assert viewer.q[j.idx_q] == pytest.approx(target)
        np.testing.assert_allclose(np.delete(viewer.q, j.idx_q), np.delete(q0, j.idx_q))
        # set_q moves the sliders.
        q = q0.copy()
        q[j.idx_q] = s.min + 0.05
        viewer.set_q(q)
        assert s.value == pytest.approx(s.min + 0.05)
    finally:
        viewer.set_q(q0)


def test_robot_geometry_placed_by_pinocchio(viewer, hrp2):
    gm = hrp2.visual_model if hrp2.visual_model.ngeoms else hrp2.collision_model
    assert len(viewer.geometry_handles) == gm.ngeoms
    q = viewer.q
    data, gdata = hrp2.model.createData(), pin.GeometryData(gm)
    pin.updateGeometryPlacements(hrp2.model, data, gm, gdata, q)
    for i, h in viewer.geometry_handles:
        np.testing.assert_allclose(h.position, gdata.oMg[i].translation, atol=1e-6)
    # Bounding box from the geometry: HRP-2 stands on z = 0 with a height around 1.5 m.
    lo, hi = viewer.robot_bounds()
    assert abs(lo[2]) < 0.02 and 1.3 < hi[2] < 1.7


def test_show_robot_checkbox_hides_the_robot_geometry(viewer):
    assert viewer.show_robot
    viewer.show_robot = False
    try:
        assert not any(h.visible for _, h in viewer.geometry_handles)
    finally:
        viewer.show_robot = True
    assert all(h.visible for _, h in viewer.geometry_handles)


def test_set_q_rejects_bad_input(viewer, hrp2):
    with pytest.raises(
        ViewerError, match=rf"set_q \(robot 'hrp2'\): field 'q' must be {hrp2.nq} finite numbers.*value \[0, 0, 0\]"
    ):
        viewer.set_q([0, 0, 0])
    q = hrp2.q()
    q[10] = np.nan
    with pytest.raises(ViewerError, match=r"no NaN or inf.*\(index 10 is nan\)"):
        viewer.set_q(q)


def test_mesh_geometry_drawn(mesh_robot):
    """Mesh visual geometry (an STL, scaled in the URDF) is drawn with the mesh's triangles."""
    import trimesh

    ball = trimesh.creation.icosphere(subdivisions=1, radius=BALL_RADIUS)
    with Viewer(mesh_robot, port=0, verbose=False) as v:
        names = [g.name for g in mesh_robot.visual_model.geometryObjects]
        assert len(v.geometry_handles) == len(names) == 3
        meshes = {names[i]: h for i, h in v.geometry_handles}
        mesh_h = next(h for n, h in meshes.items() if len(h.faces) == len(ball.faces))
        np.testing.assert_allclose(np.abs(mesh_h.vertices).max(), MESH_SCALE * BALL_RADIUS, rtol=1e-5)
        box_h = meshes[names[0]]
        np.testing.assert_allclose(np.ptp(box_h.vertices, axis=0), [0.2, 0.3, 0.4], rtol=1e-6)
        assert tuple(box_h.color) == (255, 0, 0)  # URDF material colour
        # Posture 'bent' moves the arm cylinder: its centre goes from below the joint to forward.
        v.set_posture("bent")
        cyl = meshes[names[2]]
        data = mesh_robot.model.createData()
        pin.forwardKinematics(mesh_robot.model, data, mesh_robot.q("bent"))
        joint = data.oMi[mesh_robot.model.getJointId("j1")]
        expected = joint.act(np.array([0.0, 0.0, -0.2]))
        np.testing.assert_allclose(cyl.position, expected, atol=1e-6)
        assert expected[0] < -0.15  # rotated 1.2 rad about y: the arm swung (check is not vacuous)


# ---------------------------------------------------------------------- scene
def test_scene_drawn(hrp2):
    from humanoid_model.scene import load_scene

    scene = load_scene("table_can")
    with Viewer(hrp2, scene=scene, port=0, verbose=False) as v:
        handles = v.scene_handles
        assert set(handles.free_bodies) == {fb.name for fb in scene.free_bodies} == {"can"}
        can = scene.free_body("can")
        np.testing.assert_allclose(handles.free_bodies["can"].position, can.pose.xyz)
        assert len(handles.surfaces) == 2 * len(scene.surfaces)  # fill + outline each
        fill = handles.surfaces[0]
        s0 = scene.surfaces[0]
        np.testing.assert_allclose(np.asarray(fill.vertices), s0.vertices + 2e-3 * s0.normal, atol=1e-6)
        # Robot placed by the scene (on the 10 cm platform): q's base = the scene's base pose.
        np.testing.assert_allclose(v.q[:7], scene.robot.base_pose(hrp2.q("half-sitting")[:7]))
        assert v.q[2] > hrp2.q("half-sitting")[2] + 0.09
        # Replay moves free bodies by name.
        assert v.set_body_pose("can", [1, 2, 3], [0, 0, 0, 1])
        np.testing.assert_allclose(handles.free_bodies["can"].position, [1, 2, 3])
        assert not v.set_body_pose("no_such_body", [0, 0, 0], [0, 0, 0, 1])
        v.show_surfaces = False
        assert not any(h.visible for h in handles.surfaces)
        # A simulator recording moves the robot base and the free body 'can'.
        rec = parse_recording(
            {
                "t": [0, 1],
                "joints": {"names": [hrp2.joint_names[0]], "positions": [[0.1], [0.2]]},
                "bodies": {
                    "hrp2": {"position": [[0, 0, 0.7], [0.1, 0, 0.7]], "quaternion": [[0, 0, 0, 1]] * 2},
                    "can": {"position": [[1, 0, 0.8], [1.2, 0.1, 0.75]], "quaternion": [[0, 0, 0, 1], [1, 0, 0, 0]]},
                },
            },
            hrp2,
        )
        v.load_replay(rec)
        v.show_index(1)
        np.testing.assert_allclose(v.q[:3], [0.1, 0, 0.7])
        np.testing.assert_allclose(handles.free_bodies["can"].position, [1.2, 0.1, 0.75])
        np.testing.assert_allclose(handles.free_bodies["can"].wxyz, [0, 1, 0, 0])


# ---------------------------------------------------------------------- replay files
def _q_rows(robot, n=5):
    rows = np.tile(robot.q(), (n, 1))
    j = robot.joint_index_q(robot.joint_names[0])
    rows[:, j] = np.linspace(0.0, 0.3, n)
    rows[:, 0] = np.linspace(0.0, 0.4, n)
    return rows, j


def test_replay_of_full_configurations_loads_q_and_duration(tmp_path, hrp2):
    rows, j = _q_rows(hrp2)
    p = tmp_path / "q.json"
    p.write_text(json.dumps({"t": [0, 0.1, 0.2, 0.3, 0.4], "q": rows.tolist()}))
    rec = load_recording(p, hrp2)
    np.testing.assert_allclose(rec.q, rows)
    assert rec.contacts is None and rec.duration == pytest.approx(0.4)
    assert rec.index_at(0.25) == 2 and rec.index_at(-1) == 0 and rec.index_at(9) == 4
    # Joints only: the base stays at the default posture.
    rec = parse_recording({"t": [0, 1], "q": rows[:2, 7:].tolist()}, hrp2)
    np.testing.assert_allclose(rec.q[:, 7:], rows[:2, 7:])
    np.testing.assert_allclose(rec.q[:, :7], np.tile(hrp2.q()[:7], (2, 1)))
    # A subset of joints by name, with base: the other joints keep the default posture.
    names = hrp2.joint_names[:2]
    base = [0.5, 0, 0.7, 0, 0, np.sin(0.1), np.cos(0.1)]
    rec = parse_recording({"t": [0], "joint_names": names, "q": [base + [0.2, -0.1]]}, hrp2)
    np.testing.assert_allclose(rec.q[0, :7], base, atol=1e-12)
    assert rec.q[0, hrp2.joint_index_q(names[0])] == pytest.approx(0.2)
    assert rec.q[0, hrp2.joint_index_q(names[1])] == pytest.approx(-0.1)
    others = [hrp2.joint_index_q(n) for n in hrp2.joint_names[2:]]
    np.testing.assert_allclose(rec.q[0, others], hrp2.q()[others])


def test_replay_of_the_simulator_format_maps_joints_by_name(hrp2):
    n = 3
    names = list(reversed(hrp2.joint_names))  # any order
    positions = np.full((n, len(names)), 0.05)
    positions[:, 0] = [0.0, 0.1, 0.2]
    quat = [0, 0, np.sin(0.2), np.cos(0.2)]
    root = next(f.name for f in hrp2.model.frames if f.parentJoint == 1 and f.type == pin.FrameType.BODY)
    doc = {
        "t": [0.0, 0.01, 0.02],
        "joints": {"names": names, "positions": positions.tolist(), "velocities": positions.tolist()},
        "bodies": {
            root: {"position": [[0, 0, 0.6]] * n, "quaternion": [quat] * n},
            "box": {"position": [[1, 0, 0.1], [1, 0, 0.2], [1, 0, 0.3]], "quaternion": [[0, 0, 0, 2]] * n},
        },
        "contacts": [
            [],
            [
                {
                    "body_a": "box",
                    "body_b": "ground",
                    "point": [1, 0, 0],
                    "normal": [0, 0, 1],
                    "force": [1, 2, 30],
                    "gap": 0,
                }
            ],
            [{"point": [0, 0, 0], "normal": [0, 0, 2], "force": 40.0}],
        ],
        "stats": {},
    }
    rec = parse_recording(doc, hrp2)
    np.testing.assert_allclose(rec.q[:, :3], [[0, 0, 0.6]] * n)
    np.testing.assert_allclose(rec.q[:, 3:7], [quat] * n, atol=1e-12)
    assert rec.q[2, hrp2.joint_index_q(names[0])] == pytest.approx(0.2)
    assert rec.q[0, hrp2.joint_index_q(names[1])] == pytest.approx(0.05)
    assert list(rec.bodies) == ["box"]  # the base is not a free body
    np.testing.assert_allclose(rec.bodies["box"][1], [[0, 0, 0, 1]] * n)  # normalised
    assert len(rec.contacts[0]) == 0
    np.testing.assert_allclose(rec.contacts[1][0].force, [1, 2, 30])
    np.testing.assert_allclose(rec.contacts[2][0].force, [0, 0, 40])  # scalar: along the unit normal
    # Free bodies only (no robot): valid without a robot.
    rec = parse_recording(
        {"t": [0, 1], "bodies": {"ball": {"position": [[0, 0, 1], [0, 0, 0.5]], "quaternion": [[0, 0, 0, 1]] * 2}}}
    )
    assert rec.q is None and list(rec.bodies) == ["ball"]


def test_replay_of_gait_phases_concatenates_them(hrp2):
    names = hrp2.joint_names[:3]
    doc = {
        "joint_names": names,
        "total_energy": 1.0,
        "phases": [
            {"t": [0.0, 0.1, 0.2], "q": [[0.1, 0.2, 0.3]] * 3, "qd": [], "tau": []},
            {
                "t": [0.0, 0.1],
                "q": [[0.4, 0.5, 0.6]] * 2,  # local times: shifted by 0.2
                "base": {"position": [[0.3, 0, 0.6]] * 2, "quaternion": [[0, 0, 0, 1]] * 2},
            },
            {"t": [0.35, 0.4], "joint_names": names[::-1], "q": [[0.9, 0.8, 0.7]] * 2},  # global times
        ],
    }
    rec = parse_recording(doc, hrp2)
    np.testing.assert_allclose(rec.t, [0.0, 0.1, 0.2, 0.2, 0.3, 0.35, 0.4])
    iq = [hrp2.joint_index_q(n) for n in names]
    np.testing.assert_allclose(rec.q[0, iq], [0.1, 0.2, 0.3])
    np.testing.assert_allclose(rec.q[3, iq], [0.4, 0.5, 0.6])
    np.testing.assert_allclose(rec.q[3, :3], [0.3, 0, 0.6])
    np.testing.assert_allclose(rec.q[0, :3], hrp2.q()[:3])
    np.testing.assert_allclose(rec.q[6, iq], [0.7, 0.8, 0.9])


def test_replay_gait_trajectory_samples():
    """The gait writer's layout: phases in model coordinates + concatenated URDF samples."""
    bip = load_robot("bip")
    names = bip.joint_names[:4]
    base = [[0.0, 0, 0.9, 0, 0, 0, 1], [0.1, 0, 0.9, 0, np.sin(0.05), 0, np.cos(0.05)]]
    doc = {
        "robot": "bip",
        "joint_names": names,
        "phases": [{"t": [0, 1], "q": [[9.0] * 7] * 2, "coordinates": ["a"] * 7}],  # not URDF angles
        "trajectory": {
            "t": [0.0, 0.5],
            "joint_positions": [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]],
            "base_pose": base,
            "base_pose_format": "x y z qx qy qz qw",
        },
    }
    rec = parse_recording(doc, bip)
    assert rec.robot == "bip"
    np.testing.assert_allclose(rec.t, [0.0, 0.5])
    np.testing.assert_allclose(rec.q[:, :7], base, atol=1e-12)
    np.testing.assert_allclose(rec.q[1, [bip.joint_index_q(n) for n in names]], [0.5, 0.6, 0.7, 0.8])
    doc["trajectory"]["joint_positions"] = [[0.1, 0.2, 0.3]] * 2
    with pytest.raises(RecordingError, match=r"field 'trajectory.joint_positions' must be 2 rows of 4 finite numbers"):
        parse_recording(doc, bip)


@pytest.mark.parametrize(
    "doc, message",
    [
        ({"q": [[0.0]]}, r"field 't': missing"),
        ({"t": [0, 1]}, r"field 'q': missing"),
        ({"t": [0, 1], "q": [[0.0] * 5] * 2}, r"field 'q': rows have 5 values.*nq = 37"),
        ({"t": [0, 1], "q": [[0.0] * 37]}, r"field 'q' must be 2 rows of .*; value \[\[0.0"),
        ({"t": [1, 0], "q": [[0.0] * 37] * 2}, r"field 't': times decrease at index 1"),
        ({"t": [0], "joints": {"positions": [[0.0]]}}, r"field 'joints.names': missing"),
        ({"t": [0], "joints": {"names": ["NOPE"], "positions": [[0.0]]}}, r"joint 'NOPE' is not a joint"),
        ({"t": [0], "bodies": {"box": {"position": [[0, 0, 0]]}}}, r"field 'bodies.box.quaternion': missing"),
        (
            {"t": [0], "q": [[0.0] * 30], "contacts": [[{"force": [0, 0, 1]}]]},
            r"field 'contacts\[0\]\[0\].point': missing",
        ),
        (
            {"t": [0, 1], "q": [[0.0] * 30] * 2, "contacts": [[]]},
            r"field 'contacts': expected one list .* \(2\), got 1",
        ),
        ({"phases": [{"t": [0], "q": [[0.0]]}]}, r"field 'phases\[0\].joint_names': missing"),
        ({"phases": [{"q": [[0.0]], "joint_names": ["A"]}]}, r"field 'phases\[0\].t': missing"),
        ([1, 2], r"expected a JSON object"),
    ],
)
def test_replay_malformed_files_name_the_field(tmp_path, hrp2, doc, message):
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(RecordingError, match=message) as info:
        load_recording(p, hrp2)
    assert str(p) in str(info.value)
    assert isinstance(info.value, HumanoidStackError)


def test_replay_invalid_json_and_missing_file(tmp_path):
    p = tmp_path / "broken.json"
    p.write_text('{"t": [0, 1], ')
    with pytest.raises(RecordingError, match=r"broken.json: not valid JSON \(line 1"):
        load_recording(p)
    with pytest.raises(RecordingError, match="nothere.json: cannot read"):
        load_recording(tmp_path / "nothere.json")


def test_replay_in_viewer_moves_the_robot_and_draws_the_contacts(viewer, hrp2):
    rows, j = _q_rows(hrp2)
    contacts = [[{"point": [0, 0, 0], "normal": [0, 0, 1], "force": [0, 0, 100.0 * (k + 1)]}] for k in range(5)]
    rec = parse_recording({"t": [0, 0.1, 0.2, 0.3, 0.4], "q": rows.tolist(), "contacts": contacts}, hrp2)
    q0 = viewer.q
    try:
        viewer.load_replay(rec)
        assert viewer.replay_index == 0
        np.testing.assert_allclose(viewer.q, rows[0])
        viewer.replay.timeline.value = 0.3  # as dragging the timeline does
        assert viewer.replay_index == 3
        np.testing.assert_allclose(viewer.q, rows[3])
        seg = viewer.contact_segments()
        np.testing.assert_allclose(seg, [[[0, 0, 0], [0, 0, 400 * viewer.replay.force_scale]]])
        arrows = viewer.replay.contact_handles["forces"]
        np.testing.assert_allclose(arrows.points, seg, atol=1e-6)
        # Play at 4x: reaches the end (no loop) within a short real time.
        viewer.replay.speed, viewer.replay.loop = 4, False
        viewer.show_index(0)
        viewer.play()
        deadline = time.monotonic() + 10.0
        while viewer.playing and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not viewer.playing and viewer.replay_index == 4
        np.testing.assert_allclose(viewer.q, rows[4])
        # Loading another recording replaces the first (one timeline).
        viewer.load_replay(parse_recording({"t": [0, 1], "q": rows[:2].tolist()}, hrp2))
        assert viewer.replay.timeline.max == pytest.approx(1.0) and viewer.contact_segments().shape == (0, 2, 3)
    finally:
        viewer.pause()
        viewer.set_q(q0)


def _assert_stance_drawn(viewer, s):
    """The replay's markers are stance ``s``'s: its contact frames' axes (3 segments per contact
    from its world position) and its support polygon (closed, at the contacts' height), drawn."""
    markers = viewer.markers("replay/plan")
    axes, polygon = markers[("plan", 0)], markers[("plan", 1)]
    assert len(axes.points) == 6 * len(s.contacts)
    for j, c in enumerate(s.contacts):
        for a in range(3):
            np.testing.assert_allclose(axes.points[6 * j + 2 * a], c.position)
            np.testing.assert_allclose(axes.points[6 * j + 2 * a + 1] - c.position, 0.1 * c.rotation[:, a])
    np.testing.assert_allclose(polygon.points[0], polygon.points[-1])
    np.testing.assert_allclose(polygon.points[:-1, :2], s.support_polygon)
    assert viewer.marker_handles("replay/plan")[("plan", 0)] and viewer.marker_handles("replay/plan")[("plan", 1)]


def test_replay_of_a_contact_plan_shows_the_stances_and_their_witness_postures(viewer, hrp2, flat_walk_plan):
    """PLAN.json (`humanoid-stack plan`): the motion's configurations, and for the stance reached
    the contact frames' axes (3 segments per contact from its world position) and the support
    polygon (closed, at the contacts' height); choosing a stance shows its witness posture."""
    doc = flat_walk_plan["doc"]
    rec = parse_recording(doc, hrp2, "PLAN.json")
    assert len(rec.stances) == len(doc["stances"]) and rec.robot == "hrp2" and rec.scene == "flat"
    np.testing.assert_allclose(rec.q[:, :7], np.asarray(doc["trajectory"]["q"])[:, :7])
    q0 = viewer.q
    try:
        viewer.load_replay(rec)
        assert viewer.replay.stance_index == 0
        for k in (2, 1, len(rec.stances) - 1):
            viewer.replay.stance_selector.value = viewer.replay.stance_selector.options[k]
            s = rec.stances[k]
            assert viewer.replay.stance_index == k and viewer.replay_index == rec.index_at(s.t)
            np.testing.assert_allclose(viewer.q, s.witness_q, atol=1e-9)
            _assert_stance_drawn(viewer, s)
        # `humanoid-stack view --replay PLAN.json` without ROBOT shows the plan's robot
        assert choose_robot(None, {**doc, "robot": "bip"}, None) == "bip"
        assert choose_robot(None, {"t": [0.0], "bodies": {}}, None) == "none"
        failed = {
            **doc,
            "success": False,
            "reason": "time limit",
            "stances": [],
            "trajectory": {**doc["trajectory"], "t": [], "q": []},
        }
        with pytest.raises(RecordingError, match=r"field 'success': false: the planner found no motion to replay"):
            parse_recording(failed, hrp2, "FAILED.json")
    finally:
        viewer.pause()
        viewer.clear_markers("replay/plan")
        viewer.set_q(q0)


def test_replay_of_an_executed_plans_recording_draws_the_stance_of_the_replay_time(viewer, hrp2, tmp_path):
    """A simulator recording with the header's ``plan`` (`humanoid-stack execute` of a PLAN.json):
    the stance whose time the replay passed last is drawn as a plan's (contact frames' axes,
    support polygon), and the stance selector shows the run at a stance's time."""
    from humanoid_model.formats.recording import RecordingWriter

    rows, _ = _q_rows(hrp2)
    path = tmp_path / "RUN.jsonl"
    with RecordingWriter(path) as out:
        out.write_header(
            scene="flat",
            scene_name="flat",
            robot="hrp2",
            dt=0.001,
            record_every=100,
            contacts=False,
            joint_names=hrp2.joint_names,
            plan=plan_header(times=(0.0, 0.15, 0.3)),
        )
        for k, q in enumerate(rows):
            zero = np.zeros(len(q) - 7)
            out.write_frame(0.1 * k, {"hrp2": (q[:3], q[3:7], np.zeros(3), np.zeros(3))}, joints=(q[7:], zero, zero))
        out.write_end({})
    rec = load_recording(path, hrp2)
    assert [s.t for s in rec.stances] == [0.0, 0.15, 0.3]
    q0 = viewer.q
    try:
        viewer.load_replay(rec)
        for time_s, k in ((0.0, 0), (0.2, 1), (0.1, 0), (0.4, 2)):
            viewer.show_time(time_s)
            np.testing.assert_allclose(viewer.q, rows[rec.index_at(time_s)], atol=1e-9)
            assert viewer.replay.stance_index == k
            assert viewer.replay.stance_selector.value == viewer.replay.stance_selector.options[k]
            _assert_stance_drawn(viewer, rec.stances[k])
        assert len(viewer.markers("replay/plan")[("plan", 0)].points) == 6 * 2  # both feet's frames
        viewer.replay.stance_selector.value = viewer.replay.stance_selector.options[1]
        assert viewer.replay.stance_index == 1 and viewer.replay_index == 2  # t = 0.2 s: the first frame in it
        assert "released r_sole (l_sole)" in viewer.replay.stance_selector.value
    finally:
        viewer.pause()
        viewer.clear_markers("replay/plan")
        viewer.set_q(q0)


# ---------------------------------------------------------------------- command line
def _start_view(venv_bin, repo_root, *args):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # A terminal's Ctrl-C reaches a process whose SIGINT is at its default; in the full suite the
    # pytest process's SIGINT can be left at SIG_IGN by another test, which a child would inherit.
    # Reset it in the child before exec.
    return subprocess.Popen(
        [str(venv_bin / "humanoid-stack"), "view", *args],
        cwd=repo_root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _wait_url(proc, timeout=60.0):
    import re
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    lines = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not sel.select(timeout=0.5):
            if proc.poll() is not None:
                break
            continue
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(r"humanoid-stack view: (http://\S+)", line)
        if m:
            return m.group(1), lines
    raise AssertionError("no URL printed:\n" + "".join(lines))


def test_cli_view_serves_and_ctrl_c_exits_0(venv_bin, repo_root):
    proc = _start_view(venv_bin, repo_root, "hrp2", "--scene", "flat", "--posture", "half-sitting", "--port", "0")
    try:
        url, _ = _wait_url(proc)
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url, timeout=10) as r:
            assert r.status == 200 and b"<html" in r.read().lower()
        proc.send_signal(signal.SIGINT)
        try:
            rc = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:  # say why: an inherited blocked/ignored SIGINT (bit 1) or a hang
            status = Path(f"/proc/{proc.pid}/status").read_text() if os.path.exists(f"/proc/{proc.pid}") else ""
            sig = [line for line in status.splitlines() if line.startswith(("SigBlk", "SigIgn", "SigCgt"))]
            raise AssertionError(
                f"view did not stop on SIGINT within 20 s; child {sig}; test process "
                f"SIGINT handler {signal.getsignal(signal.SIGINT)}, "
                f"blocked {signal.pthread_sigmask(signal.SIG_BLOCK, [])}"
            ) from None
        assert rc == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_cli_view_replay_with_duration(tmp_path, venv_bin, repo_root, hrp2):
    rows, _ = _q_rows(hrp2)
    p = tmp_path / "run.json"
    p.write_text(json.dumps({"t": [0, 0.1, 0.2, 0.3, 0.4], "q": rows.tolist()}))
    proc = _start_view(venv_bin, repo_root, "hrp2", "--replay", str(p), "--port", "0", "--duration", "1")
    url, _ = _wait_url(proc)
    assert proc.wait(timeout=30) == 0
    # A malformed replay: exit 2 and a message naming the file and field, no traceback.
    p.write_text(json.dumps({"t": [0, 0.1]}))
    out = subprocess.run(
        [str(venv_bin / "humanoid-stack"), "view", "hrp2", "--replay", str(p), "--port", "0", "--duration", "1"],
        cwd=repo_root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert f"{p}: field 'q': missing" in out.stderr and "Traceback" not in out.stderr


def test_scene_robot_entry_applies_to_its_robot_only():
    """flat's robot entry (HRP-2, half-sitting) does not apply to BIP, which keeps its default."""
    bip = load_robot("bip")
    with Viewer(bip, scene="flat", port=0, verbose=False) as v:
        np.testing.assert_allclose(v.q, bip.q())
    with pytest.raises(ViewerError, match="unknown posture 'nope'"):
        Viewer(bip, scene="flat", posture="nope", port=0, verbose=False)


def test_viewer_without_robot_shows_markers_and_replays_bodies():
    """A scene of free bodies alone: no robot, markers and body replay still work."""
    rec = parse_recording(
        {"t": [0, 1], "bodies": {"can": {"position": [[1, 0, 0.8], [1, 0, 0.5]], "quaternion": [[0, 0, 0, 1]] * 2}}}
    )
    with Viewer(None, scene="table_can", port=0, verbose=False) as v:
        assert v.q is None and not v.show_robot and v.robot_bounds() is None
        with pytest.raises(ViewerError, match="no robot"):
            v.set_q(np.zeros(7))
        v.apply_markers([Marker(ns="a", id=0, type=mk.SPHERE)])
        assert ("a", 0) in v.markers()
        v.load_replay(rec)
        v.show_index(1)
        np.testing.assert_allclose(v.scene_handles.free_bodies["can"].position, [1, 0, 0.5])
        # The camera looks at the scene's bodies (the table), not at the origin.
        assert np.asarray(v.server.initial_camera.look_at)[0] > 0.3


def test_cli_view_set_overrides_the_scene(monkeypatch, capsys):
    """`view --scene incline --set incline.angle_deg=25` shows the tilted plane (scene
    numbers are overridable from the command line); a misspelt path exits 2 with a hint.
    The Viewer is replaced by a stand-in that records what it is given (no server is started)."""
    import humanoid_viewer.app
    from humanoid_stack.cli import main

    shown = []

    class FakeViewer:
        url = "http://127.0.0.1:0/"

        def __init__(self, robot, scene, **kwargs):
            shown.append(scene)

        def close(self):
            pass

    monkeypatch.setattr(humanoid_viewer.app, "Viewer", FakeViewer)
    argv = ["view", "none", "--scene", "incline", "--duration", "0.01"]
    assert main(argv + ["--set", "incline.angle_deg=25"]) == 0
    slope = shown[-1].body("slope")
    normal = slope.pose.rotation @ np.array([0.0, 0.0, 1.0])  # the plane's outward normal
    assert math.degrees(math.acos(normal[2])) == pytest.approx(25.0, abs=1e-9)
    assert main(argv) == 0
    assert math.degrees(math.acos((shown[-1].body("slope").pose.rotation @ [0, 0, 1.0])[2])) == pytest.approx(20.0)
    capsys.readouterr()
    assert main(argv + ["--set", "incline.angel_deg=25"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'incline.angle_deg'" in err and "Traceback" not in err


def test_view_exit_does_not_hang_on_a_stuck_web_server():
    """If the web server does not stop (a client still attached on a loaded machine), `view` still
    exits 0 after CLOSE_TIMEOUT instead of hanging on the server's threads."""
    code = (
        "import time\n"
        "from humanoid_stack.commands.view import close_within\n"
        "class Stuck:\n"
        "    def close(self):\n"
        "        time.sleep(60)\n"
        "close_within(Stuck(), 0.5)\n"
        "raise SystemExit(3)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and "did not stop within 0.5 s" in r.stderr
