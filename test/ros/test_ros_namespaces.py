"""Namespaces, /clock and measurement QoS with real rclpy nodes (a private context; conftest
isolates DDS): two simulators side by side in namespaces r1 and r2 without crosstalk (topics,
frames, commands), /clock at every step by default and thinned by clock_rate, and a best-effort
joint_states publisher reaching the state publisher and the robot bridge."""

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from builtin_interfaces.msg import Duration  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint  # noqa: E402

from humanoid_ros.common import seconds  # noqa: E402
from humanoid_ros.simulator import SimulatorNode  # noqa: E402

TIMEOUT = 120.0  # [s] wall bound: two simulators on a loaded 2-core machine (chosen)
HEAD = "HEAD_JOINT1"  # HRP-2's head: commanding it does not disturb the standing robot
FAST = [Parameter("real_time_factor", value=0.0), Parameter("publish_rate", value=100.0)]


@pytest.fixture
def harness(ros_harness):
    return ros_harness(timeout=TIMEOUT, period=0.02)


def test_two_simulators_in_two_namespaces_do_not_cross(harness):
    """r1's head follows a trajectory on /r1/joint_trajectory_controller/joint_trajectory; r2's,
    stepping as long, stays where it was. Each namespaced topic has its simulator as only
    publisher, nothing is left on the root names, and each robot's frames carry its prefix."""
    h = harness
    sims = {ns: h.add(SimulatorNode(context=h.context, namespace=ns, parameter_overrides=FAST)) for ns in ("r1", "r2")}
    client = h.add(rclpy.create_node("ns_listener", context=h.context))
    states = {ns: [] for ns in sims}
    odom = {ns: [] for ns in sims}
    for ns in sims:
        client.create_subscription(JointState, f"/{ns}/joint_states", states[ns].append, 50)
        client.create_subscription(Odometry, f"/{ns}/odom", odom[ns].append, 50)
    assert h.spin_until(lambda: all(states.values()) and all(odom.values()))
    for ns, sim in sims.items():
        assert sim.get_fully_qualified_name() == f"/{ns}/simulator" and sim.frame_prefix == f"{ns}/"
        assert client.count_publishers(f"/{ns}/joint_states") == client.count_publishers(f"/{ns}/odom") == 1
        assert client.count_subscribers(f"/{ns}/joint_trajectory_controller/joint_trajectory") == 1
        assert (odom[ns][-1].header.frame_id, odom[ns][-1].child_frame_id) == ("odom", f"{ns}/BODY")
    assert client.count_publishers("/joint_states") == 0 and client.count_publishers("/odom") == 0
    assert client.count_publishers("/clock") == 2  # global by convention

    head = sims["r1"].robot.joint_names.index(HEAD)
    start = {ns: states[ns][-1].position[head] for ns in sims}
    command = client.create_publisher(JointTrajectory, "/r1/joint_trajectory_controller/joint_trajectory", 10)
    target = start["r1"] + 0.4
    msg = JointTrajectory(
        joint_names=[HEAD],
        points=[JointTrajectoryPoint(positions=[target], time_from_start=Duration(nanosec=300_000_000))],
    )
    assert h.spin_until(lambda: client.count_subscribers("/r1/joint_trajectory_controller/joint_trajectory") == 1)
    command.publish(msg)
    assert h.spin_until(lambda: abs(states["r1"][-1].position[head] - target) < 0.02)
    t_done = seconds(states["r1"][-1].header.stamp)
    assert h.spin_until(lambda: seconds(states["r2"][-1].header.stamp) > t_done + 0.5)
    assert sims["r1"].accepted == 1 and sims["r2"].accepted == 0
    assert abs(states["r2"][-1].position[head] - start["r2"]) < 0.005  # the PD holds it still


@pytest.mark.parametrize(("clock_rate", "period"), [(0.0, 1e-3), (100.0, 1e-2)])
def test_clock_every_step_by_default_and_thinned_by_clock_rate(harness, clock_rate, period):
    """Over 0.2 s of simulated time, /clock carries every step's time (dt = 1 ms: 200 messages)
    by default, one every 10 ms with clock_rate 100 Hz (20 messages); paced at a quarter of real
    time with a deep reliable subscription, so that none is dropped."""
    h = harness
    sim = h.add(
        SimulatorNode(
            context=h.context,
            parameter_overrides=[Parameter("real_time_factor", value=0.25), Parameter("clock_rate", value=clock_rate)],
        )
    )
    client = h.add(rclpy.create_node("clock_listener", context=h.context))
    got = []
    deep = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
    client.create_subscription(Clock, "/clock", lambda msg: got.append(seconds(msg.clock)), deep)
    assert h.spin_until(lambda: got and got[-1] > 0.5)
    t0 = got[-1]
    assert h.spin_until(lambda: got[-1] >= t0 + 0.2 + 1e-9)
    window = [t for t in got if t0 < t <= t0 + 0.2 + 1e-9]
    assert len(window) == round(0.2 / period)
    np.testing.assert_allclose(np.diff(window), period, atol=1e-6)
    assert sim.p["clock_rate"] == clock_rate


def best_effort_joint_states(h, node_name):
    client = h.add(rclpy.create_node(node_name, context=h.context))
    qos = QoSProfile(depth=5, reliability=ReliabilityPolicy.BEST_EFFORT)
    return client, client.create_publisher(JointState, "/joint_states", qos)


def test_a_best_effort_joint_states_publisher_reaches_the_state_publisher_and_the_bridge(harness):
    """A driver publishing joint_states best effort (as many do) is heard: a reliable
    subscription would not match it."""
    from humanoid_ros.lifecycle import bring_to
    from humanoid_ros.robot_bridge import RobotBridgeNode
    from humanoid_ros.state_publisher import StatePublisherNode

    h = harness
    sp = h.add(StatePublisherNode(context=h.context, parameter_overrides=[Parameter("robot", value="hrp2")]))
    bridge = h.add(RobotBridgeNode(context=h.context, parameter_overrides=[Parameter("dry_run", value=True)]))
    bring_to(bridge, "inactive")  # configured: its subscriptions exist (a lifecycle node makes them at configure)
    client, pub = best_effort_joint_states(h, "best_effort_driver")
    assert h.spin_until(lambda: pub.get_subscription_count() == 2)
    msg = JointState(name=[HEAD], position=[0.25])
    assert h.spin_until(lambda: pub.publish(msg) or (sp._positions.get(HEAD) == 0.25 and HEAD in bridge.measured))
    assert bridge.measured[HEAD] == 0.25
