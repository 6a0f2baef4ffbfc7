"""The robot bridge as a lifecycle node, real rclpy nodes on loopback (`ros_bridge_stack.Stack`:
the simulator stands in for the robot, HRP-2 floating without gravity): inactive it refuses with
"not active" and sends nothing, and its watchdog thread does not run; activated through its
~/change_state service it executes; a deactivate during a motion stops it and holds the commanded
set-point, where the robot stays; activated again it executes. Then /robot_description as the
robot source of the bridge and the pilot (published by the simulator, by a state publisher), and
a missing /robot_description: a clear error after the timeout."""

import threading

import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from lifecycle_msgs.msg import Transition  # noqa: E402
from lifecycle_msgs.srv import ChangeState, GetState  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from support.ros_bridge_stack import Stack, settle  # noqa: E402
from support.ros_harness import RosHarness  # noqa: E402

from humanoid_control.bridge import JointLimits  # noqa: E402
from humanoid_control.kinematics import load_structure  # noqa: E402
from humanoid_model import load_robot  # noqa: E402
from humanoid_model.exceptions import ConfigError  # noqa: E402
from humanoid_ros.lifecycle import bring_to, state_of  # noqa: E402
from humanoid_ros.pilot import PilotNode  # noqa: E402
from humanoid_ros.robot_bridge import RobotBridgeNode  # noqa: E402
from humanoid_ros.state_publisher import StatePublisherNode  # noqa: E402

J0 = "RARM_JOINT0"  # shoulder pitch
QUIET = 0.5  # [s] watched for no command after a refusal (chosen)
HELD = 0.02  # [rad] the robot stays within this of the held set-point (chosen: PD settling of the arm)
WATCHDOG = "robot_bridge-watchdog"  # the Ticker thread's name


def watchdog_running() -> bool:
    return any(t.name == WATCHDOG and t.is_alive() for t in threading.enumerate())


def change(stack, transition_id) -> bool:
    client = stack.client.create_client(ChangeState, "/robot_bridge/change_state")
    assert stack.spin_until(client.service_is_ready)
    return stack.call(client, ChangeState.Request(transition=Transition(id=transition_id))).success


def lifecycle_state(stack) -> str:
    client = stack.client.create_client(GetState, "/robot_bridge/get_state")
    assert stack.spin_until(client.service_is_ready)
    return stack.call(client, GetState.Request()).current_state.label


def arm_motion(stack, delta, duration):
    """J0 from where it is by ``delta`` [rad] in ``duration`` [s], rest to rest."""
    q = stack.joints()[J0]
    stack.send([J0], [(0.0, [q], [0.0]), (duration, [q + delta], [0.0])])
    return q, q + delta


def test_lifecycle_transitions_arm_and_disarm_the_bridge(tmp_path):
    s = Stack(tmp_path, lifecycle="inactive")
    try:
        assert lifecycle_state(s) == "inactive" and s.bridge.ticker is None and not watchdog_running()
        settle(s)
        n0, c0 = len(s.diags), len(s.commands)
        arm_motion(s, -0.3, 2.0)
        refused = s.wait_diag(n0, "refused").message
        assert "not active" in refused, refused
        s.spin(QUIET)
        assert len(s.commands) == c0 and s.bridge.execution is None  # nothing reached the controller

        assert change(s, Transition.TRANSITION_ACTIVATE)
        assert lifecycle_state(s) == "active" and watchdog_running()
        n0, c0 = len(s.diags), len(s.commands)
        start, goal = arm_motion(s, -0.4, 4.0)
        s.wait_diag(n0, "executing")
        # a quarter of the way (0.1 rad), measured on the joint rather than waited in wall time: a slow machine
        # runs the simulator behind the wall clock
        assert s.spin_until(lambda: s.joints()[J0] < start - 0.1)
        assert change(s, Transition.TRANSITION_DEACTIVATE)
        stopped = s.wait_diag(n0, "deactivated").message
        assert "holding the commanded position" in stopped, stopped
        assert lifecycle_state(s) == "inactive" and not watchdog_running() and s.bridge.execution is None
        assert s.spin_until(lambda: len(s.commands) >= c0 + 2)  # the motion, then the hold
        hold = s.commands[-1]
        assert len(hold.points) == 1  # one point at t = 0: the controller holds it at once
        held = dict(zip(hold.joint_names, hold.points[0].positions))[J0]
        assert goal < held < start - 0.02, (start, held, goal)  # mid-way: the set-point at the deactivate
        settle(s)
        assert abs(s.joints()[J0] - held) < HELD and abs(s.joints()[J0] - goal) > 0.1  # stopped and held

        n0, c0 = len(s.diags), len(s.commands)
        arm_motion(s, 0.1, 1.0)
        assert "not active" in s.wait_diag(n0, "refused").message
        s.spin(QUIET)
        assert len(s.commands) == c0

        assert change(s, Transition.TRANSITION_ACTIVATE)  # re-activated: it executes again
        n0 = len(s.diags)
        _, goal = arm_motion(s, 0.2, 1.0)
        s.wait_diag(n0, "succeeded")
        assert abs(s.joints()[J0] - goal) < s.bridge.p["goal_tolerance"]
    finally:
        s.close()


def test_the_bridge_and_the_pilot_take_the_robot_of_the_simulators_robot_description(tmp_path):
    """robot "": the bridge (at configure) and the pilot (at its start) read the simulator's latched
    /robot_description: HRP-2's joints and limits, its postures and the structure of hrp2.kin.yaml
    (both named by the description); the bridge executes a motion with it."""
    s = Stack(tmp_path, bridge_params=[Parameter("robot", value="")], domain_offset=1)
    try:
        hrp2 = load_robot("hrp2")
        robot = s.bridge.robot
        assert robot.urdf_path == hrp2.urdf_path  # the sidecar of the shipped robot of the description's name
        assert robot.joint_names == hrp2.joint_names and "half-sitting" in robot.postures
        a, b = JointLimits.from_robot(robot), JointLimits.from_robot(hrp2)
        assert (a.upper == b.upper).all() and (a.v_max == b.v_max).all()
        settle(s)
        n0 = len(s.diags)
        _, goal = arm_motion(s, -0.2, 1.0)
        s.wait_diag(n0, "succeeded")
        assert abs(s.joints()[J0] - goal) < s.bridge.p["goal_tolerance"]

        pilot = s.add(
            PilotNode(
                context=s.context,
                parameter_overrides=[Parameter("robot", value=""), Parameter("output", value="none")],
            )
        )
        expected = load_structure("hrp2")
        assert list(pilot.structure.closures) == ["r_foot", "l_foot"]
        assert pilot.structure.model.nq == expected.model.nq
        assert (abs(pilot.structure.q0 - expected.q0) < 1e-12).all()
    finally:
        s.close()


def test_the_bridge_takes_the_robot_of_a_state_publishers_robot_description(ros_harness):
    h = ros_harness(timeout=60.0)
    h.add(StatePublisherNode(context=h.context, parameter_overrides=[Parameter("robot", value="bip")]))
    bridge = h.add(
        RobotBridgeNode(
            context=h.context,
            parameter_overrides=[Parameter("robot", value=""), Parameter("robot_description_timeout", value=30.0)],
        )
    )
    assert state_of(bridge) == "unconfigured" and bridge.robot is None
    bring_to(bridge, "active")
    bip = load_robot("bip")
    assert bridge.robot.name == "bip" and bridge.robot.joint_names == bip.joint_names
    assert (JointLimits.from_robot(bridge.robot).v_max == JointLimits.from_robot(bip).v_max).all()
    assert state_of(bridge) == "active"
    assert bridge.trigger_deactivate() == bridge.trigger_cleanup()  # both succeed
    assert state_of(bridge) == "unconfigured" and bridge.robot is None and bridge.bridge_executor is None


def test_a_missing_robot_description_times_out_with_a_clear_error():
    import os

    h = RosHarness(30.0, 0.05, domain_id=int(os.environ.get("ROS_DOMAIN_ID", "0")) + 2)  # nobody publishes there
    try:
        params = [Parameter("robot", value=""), Parameter("robot_description_timeout", value=1.0)]
        bridge = h.add(RobotBridgeNode(context=h.context, parameter_overrides=params))
        with pytest.raises(ConfigError, match=r"no /robot_description message .* within 1 s") as caught:
            bring_to(bridge, "active")
        assert "robot_bridge" in str(caught.value) and "configure failed" in str(caught.value)
        assert state_of(bridge) == "unconfigured" and bridge.robot is None
        with pytest.raises(ConfigError, match=r"node 'pilot': .*no /robot_description message .* within 1 s"):
            PilotNode(context=h.context, parameter_overrides=params)
    finally:
        h.close()


def test_a_destroyed_bridge_leaves_no_lifecycle_service_behind(ros_harness):
    """rclpy's LifecycleNode keeps its state machine, which holds the node's handle, past
    destroy_node: a bridge destroyed in a process that goes on stayed in the graph with its
    ~/change_state, and a lifecycle client started later could send its request there and wait.
    After destroy_node the graph has neither the node nor its services."""
    h = ros_harness(timeout=20.0)
    h.add(StatePublisherNode(context=h.context, parameter_overrides=[Parameter("robot", value="bip")]))
    probe = h.add(rclpy.create_node("lifecycle_probe", context=h.context))
    bridge = RobotBridgeNode(context=h.context, parameter_overrides=[Parameter("robot", value="")])
    h.executor.add_node(bridge)
    bring_to(bridge, "active")

    lifecycle = ("change_state", "get_state", "get_available_states", "get_available_transitions")

    def bridge_services():
        return [n for n, _ in probe.get_service_names_and_types() if n.rsplit("/", 1)[-1] in lifecycle]

    assert h.spin_until(lambda: "/robot_bridge/change_state" in bridge_services())
    h.executor.remove_node(bridge)
    bridge.destroy_node()
    assert h.spin_until(lambda: not bridge_services() and "robot_bridge" not in probe.get_node_names()), (
        bridge_services(),
        probe.get_node_names(),
    )
