"""The viewer node with real rclpy (Fast DDS on loopback, per-session ROS_DOMAIN_ID from conftest).

Source mode publishes /joint_states from the posture/sliders; follow mode shows /joint_states and
/odom; MarkerArray topics become viewer markers.
"""

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402

TIMEOUT = 20.0  # [s] generous bound for DDS discovery on a loaded 2-core machine


@pytest.fixture
def ros(ros_harness):
    h = ros_harness(timeout=TIMEOUT, period=0.05)
    return h.context, h.add, h.spin_until


def _viewer_node(ctx, **params):
    from humanoid_ros.viewer import ViewerNode

    overrides = [Parameter("port", value=0), *(Parameter(k, value=v) for k, v in params.items())]
    return ViewerNode(context=ctx, parameter_overrides=overrides)


def test_source_mode_publishes_joint_states(ros):
    from sensor_msgs.msg import JointState

    ctx, add, spin_until = ros
    node = add(_viewer_node(ctx, joint_state_source=True, posture="half-sitting"))
    robot = node.viewer.robot
    got = []
    listener = add(rclpy.create_node("js_listener", context=ctx))
    listener.create_subscription(JointState, "/joint_states", got.append, 10)
    assert spin_until(lambda: len(got) >= 2), "no /joint_states from the viewer node"
    msg = got[-1]
    assert list(msg.name) == robot.joint_names and len(robot.joint_names) == 30
    q = robot.q("half-sitting")
    np.testing.assert_allclose(msg.position, [q[robot.joint_index_q(n)] for n in msg.name])
    # Moving a slider changes what is published.
    j, s = node.viewer.joint_sliders[5]
    s.value = s.min + 0.1
    n0 = len(got)
    assert spin_until(lambda: len(got) > n0 and got[-1].position[5] == pytest.approx(s.min + 0.1))


def test_follow_mode_shows_joint_states_odom_and_markers(ros):
    from geometry_msgs.msg import Point
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import JointState
    from visualization_msgs.msg import Marker, MarkerArray

    ctx, add, spin_until = ros
    node = add(_viewer_node(ctx, joint_state_source=False, marker_topics=["/contacts"]))
    viewer = node.viewer
    robot = viewer.robot
    pub = add(rclpy.create_node("state_source", context=ctx))
    js_pub = pub.create_publisher(JointState, "/joint_states", 10)
    odom_pub = pub.create_publisher(Odometry, "/odom", 10)
    mk_pub = pub.create_publisher(MarkerArray, "/contacts", 10)

    name = robot.joint_names[2]
    iq = robot.joint_index_q(name)
    js = JointState(name=[name, "NOT_A_JOINT"], position=[0.321, 1.0])
    odom = Odometry()
    odom.pose.pose.position.x, odom.pose.pose.position.z = 0.7, 0.65
    odom.pose.pose.orientation.z, odom.pose.pose.orientation.w = np.sin(0.3), np.cos(0.3)

    def shown():
        js_pub.publish(js)
        odom_pub.publish(odom)
        q = viewer.q
        return abs(q[iq] - 0.321) < 1e-9 and abs(q[0] - 0.7) < 1e-9

    assert spin_until(shown), f"viewer did not follow: q[{iq}] = {viewer.q[iq]}, x = {viewer.q[0]}"
    np.testing.assert_allclose(viewer.q[3:7], [0, 0, np.sin(0.3), np.cos(0.3)], atol=1e-12)

    good = Marker(ns="force", id=1, type=Marker.ARROW, points=[Point(), Point(z=0.5)])
    good.header.frame_id = "odom"
    good.scale.x, good.scale.y = 0.01, 0.02
    bad = Marker(ns="bad", id=0, type=Marker.SPHERE)
    bad.pose.position.x = float("nan")

    def drawn():
        mk_pub.publish(MarkerArray(markers=[good, bad]))
        return ("force", 1) in viewer.markers("/contacts")

    assert spin_until(drawn)
    assert ("bad", 0) not in viewer.markers("/contacts")  # logged and skipped, node alive
    handles = viewer.marker_handles("/contacts")[("force", 1)]
    np.testing.assert_allclose(handles[-1].points, [[[0, 0, 0], [0, 0, 0.5]]])
    # DELETEALL on the topic clears it.
    mk_pub.publish(MarkerArray(markers=[Marker(action=Marker.DELETEALL)]))
    assert spin_until(lambda: not viewer.markers("/contacts"))


def test_phantom_topic_draws_the_commanded_robot_over_the_measured_one(ros):
    """The pilot's commanded configuration (/pilot/joint_states) is drawn as a translucent second
    robot: its meshes sit where forward kinematics puts them at the commanded joints (base and
    other joints the measured robot's), while the measured robot's meshes do not move."""
    import pinocchio as pin
    from sensor_msgs.msg import JointState

    from humanoid_viewer.robot_meshes import PHANTOM_OPACITY

    ctx, add, spin_until = ros
    node = add(_viewer_node(ctx, joint_state_source=False))
    viewer = node.viewer
    robot = viewer.robot
    measured = [tuple(h.position) for _, h in viewer.geometry_handles]
    pub = add(rclpy.create_node("pilot_standin", context=ctx)).create_publisher(JointState, "/pilot/joint_states", 10)
    name = "RARM_JOINT0"
    msg = JointState(name=[name, "NOT_A_JOINT"], position=[-1.2, 0.0])

    def drawn():
        pub.publish(msg)
        q = viewer.phantom_q
        return q is not None and abs(q[robot.joint_index_q(name)] + 1.2) < 1e-12

    assert spin_until(drawn), "the phantom was not drawn"
    handles = viewer.phantom_handles
    assert len(handles) == len(viewer.geometry_handles) > 0
    assert all(h.opacity == pytest.approx(PHANTOM_OPACITY) for _, h in handles)
    q = viewer.q.copy()
    q[robot.joint_index_q(name)] = -1.2
    gm, data = viewer._geometry_model, robot.model.createData()
    gdata = pin.GeometryData(gm)
    pin.forwardKinematics(robot.model, data, q)
    pin.updateGeometryPlacements(robot.model, data, gm, gdata)
    moved = 0
    for i, h in handles:
        np.testing.assert_allclose(h.position, gdata.oMg[i].translation, atol=1e-6)
        moved += "RARM" in gm.geometryObjects[i].name or "RHAND" in gm.geometryObjects[i].name
    assert moved > 0
    assert [tuple(h.position) for _, h in viewer.geometry_handles] == measured  # the measured robot stays


HAPTIC_SCENE = """
name: haptic_box
description: HRP-2 standing, a 1 kg box 1 m in front of it (test_ros_viewer.py).
gravity: [0, 0, -9.81]
ground: {height: 0.0, friction: 0.4, restitution: 0.0}
free_bodies:
  - name: box
    shape: box
    size: [0.1, 0.1, 0.1]
    mass: 1.0
    pose: {xyz: [1.0, 0.0, 0.05]}
robot:
  name: hrp2
  posture: half-sitting
"""


def test_haptic_pointer_in_the_page_grabs_and_pulls_a_box(ros, tmp_path):
    """Haptics from a browser: the viewer node with `haptic_device` /simulator. What the
    page sends is sent here as the browser sends it, over the viewer's websocket: the pointer
    gizmo dragged onto the box, the "attach" button clicked, the gizmo dragged 15 cm along -y.
    The simulator's box follows the pointer (the attach spring, docs/haptics.md) and the page's
    status says attached."""
    from support.browser import camera_message, send_client_message
    from viser._messages import GuiUpdateMessage, TransformControlsUpdateMessage

    from humanoid_ros.simulator import SimulatorNode

    ctx, add, spin_until = ros
    scene = tmp_path / "haptic_box.yaml"
    scene.write_text(HAPTIC_SCENE)
    sim_params = [Parameter("scene", value=str(scene)), Parameter("haptic.body", value="box")]
    sim = add(SimulatorNode(context=ctx, parameter_overrides=[Parameter("real_time_factor", value=0.0), *sim_params]))
    node = add(_viewer_node(ctx, joint_state_source=False, haptic_device="/simulator", scene=str(scene)))
    viewer = node.viewer
    box0 = np.array(sim.world.body_state("box").position)

    def drag(p):
        msg = TransformControlsUpdateMessage(name=viewer.pointer.name, wxyz=(1.0, 0, 0, 0), position=tuple(p))
        send_client_message(viewer.url, msg)

    drag(box0)
    assert np.allclose(node.pointer_pose[0], box0)  # the gizmo callback ran
    assert spin_until(lambda: sim.world.haptics is not None and sim.world.haptics.position is not None)
    assert spin_until(lambda: np.allclose(sim.world.haptics.position, box0, atol=1e-9))
    click = GuiUpdateMessage(viewer.pointer_buttons["attach"]._impl.uuid, {"value": True})
    send_client_message(viewer.url, [camera_message(), click])  # a page is a client once it sent its camera
    assert spin_until(lambda: node.haptic_results), "the attach button did not call the simulator"
    assert node.haptic_results[-1][:2] == ("attach", True), node.haptic_results[-1]
    assert "attach" in viewer.pointer_status.content
    goal = box0 + [0.0, -0.15, 0.0]
    drag(goal)
    # the box is pulled to within the friction deadband mu m g / k_p = 7.8 mm (+2 mm) of the pointer
    assert spin_until(lambda: np.linalg.norm(np.array(sim.world.body_state("box").position)[:2] - goal[:2]) < 0.0098)

    # and the page draws it there: the viewer follows the simulator's /free_bodies (1 mm: the box
    # creeps in its deadband between a message and the check)
    def box():
        return np.array(sim.world.body_state("box").position)

    assert spin_until(lambda: np.linalg.norm(viewer.body_position("box") - box()) < 1e-3)
    assert np.linalg.norm(viewer.body_position("box") - box0) > 0.13


def test_browser_camera_is_published_for_the_pilots_view_axes(ros):
    """A browser's camera, as the page sends it over the viewer's websocket, is published on
    /viewer/camera (PoseStamped in odom): the pilot's `command_frame: view` axes (docs/piloting.md)."""
    import pinocchio as pin
    from geometry_msgs.msg import PoseStamped
    from support.browser import camera_message, send_client_message

    ctx, add, spin_until = ros
    node = add(_viewer_node(ctx, joint_state_source=False))
    got = []
    listener = add(rclpy.create_node("camera_listener", context=ctx))
    listener.create_subscription(PoseStamped, "/viewer/camera", got.append, 10)
    R = pin.exp3(np.array([0.3, -1.0, 0.5]))
    msg = camera_message()
    quat = pin.Quaternion(R)
    msg.wxyz, msg.position = (quat.w, quat.x, quat.y, quat.z), (2.0, -1.0, 1.2)
    assert spin_until(lambda: listener.count_publishers("/viewer/camera") > 0)
    send_client_message(node.viewer.url, msg)
    assert spin_until(lambda: got), "no /viewer/camera after the page's camera moved"
    m = got[-1]
    p, o = m.pose.position, m.pose.orientation
    assert m.header.frame_id == "odom"
    np.testing.assert_allclose([p.x, p.y, p.z], [2.0, -1.0, 1.2], atol=1e-6)
    shown = pin.Quaternion(o.w, o.x, o.y, o.z).toRotationMatrix()
    np.testing.assert_allclose(shown, R, atol=1e-6)
