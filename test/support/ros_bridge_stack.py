"""The robot bridge's test stand (test_ros_bridge*.py): the simulator standing in for the robot,
the bridge and a test client, real rclpy nodes on one private context (conftest isolates the DDS
domain). Not a test module: imported by the bridge's ROS tests."""

import json
import math

import rclpy
from builtin_interfaces.msg import Duration
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import SetBool, Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from humanoid_ros.lifecycle import bring_to
from humanoid_ros.robot_bridge import RobotBridgeNode
from humanoid_ros.simulator import SimulatorNode
from support.ros_harness import RosHarness

TIMEOUT = 30.0  # [s] wall bound of any wait (chosen: loaded 2-core machine)
RATE = 100.0  # [Hz] bridge control loop in these tests (the default)
STATE_TIMEOUT = 2.0  # [s] the bridge's watchdog in these tests (default 0.2 s; chosen: in a loaded fresh-clone
# suite the in-process simulator, starved by the other tests, can publish /joint_states 0.6-0.7 s apart, and the
# bridge would stop safely mid-motion; the watchdog itself is tested at 0.5 s in
# test_ros_bridge.py::test_stale_joint_states_stop_and_hold)
TOPIC = "/joint_trajectory_controller/joint_trajectory"
CONTROLLER_TYPE = "joint_trajectory"  # what the tests record on TOPIC (`auto` takes the simulator's action)

SPACE = """\
name: space
description: "the robot floating without gravity or ground (bridge tests, joints only, base free)"
gravity: [0, 0, 0]
ground: null
robot:
  name: {robot}
  joints: {joints}
"""


def active_bridge(harness, params=()) -> RobotBridgeNode:
    """A robot bridge on ``harness`` (its context and executor), configured and activated as
    `humanoid-stack up` does (`humanoid_ros.lifecycle.bring_to`: ConfigError when it fails)."""
    node = harness.add(RobotBridgeNode(context=harness.context, parameter_overrides=list(params)))
    bring_to(node, "active")
    return node


def _merged(defaults, overrides):
    """Parameters: ``defaults`` (name -> value) replaced by the ``overrides`` of the same name."""
    values = dict(defaults)
    values.update({p.name: p.value for p in overrides})
    return [Parameter(k, value=v) for k, v in values.items()]


class Stack(RosHarness):
    """Simulator + bridge + a test client on one private context and executor (conftest's
    `RosHarness`, on the session's domain + `domain_offset`). `joints`: start joint angles of the
    robot (scene overrides); `scene`: a shipped scene instead of the robot floating in `SPACE`;
    `topic`: the controller topic the client records into `commands` (a `/commands` topic carries
    Float64MultiArray). `states` keeps the simulator's /joint_states (every joint, finite: not
    what a test publishes there itself). `lifecycle`: the bridge's lifecycle state after the start
    (`humanoid_ros.lifecycle.STATES`; the tests of its motions need it active)."""

    def __init__(
        self,
        tmp,
        robot="hrp2",
        domain_offset=0,
        bridge_params=(),
        sim_params=(),
        joints=None,
        topic=TOPIC,
        scene=None,
        lifecycle="active",
    ):
        import os

        if scene is None:
            scene = tmp / f"space_{robot}.yaml"
            scene.write_text(SPACE.format(robot=robot, joints=json.dumps(joints or {})))
        super().__init__(TIMEOUT, 0.01, domain_id=int(os.environ.get("ROS_DOMAIN_ID", "0")) + domain_offset)
        sim = _merged(
            {"scene": str(scene), "real_time_factor": 1.0, "publish_rate": 100.0, "contacts_rate": 1.0}, sim_params
        )
        self.sim = self.add(SimulatorNode(context=self.context, parameter_overrides=sim))
        bridge = _merged(
            {
                "robot": robot,
                "use_sim_time": True,
                "state_timeout": STATE_TIMEOUT,
                "rate": RATE,
                "controller_type": CONTROLLER_TYPE,
            },
            bridge_params,
        )
        self.bridge = self.add(RobotBridgeNode(context=self.context, parameter_overrides=bridge))
        bring_to(self.bridge, lifecycle)
        self.client = self.add(rclpy.create_node("bridge_test_client", context=self.context))
        self.commands, self.states, self.diags = [], [], []
        command_type = Float64MultiArray if topic.endswith("/commands") else JointTrajectory
        self.client.create_subscription(command_type, topic, self.commands.append, 1000)
        n_joints = len(self.bridge.robot.joint_names)
        self.client.create_subscription(
            JointState,
            "/joint_states",
            lambda m: (
                self.states.append(m) if len(m.name) == n_joints and all(map(math.isfinite, m.position)) else None
            ),
            1000,
        )
        self.client.create_subscription(DiagnosticArray, "/diagnostics", self._on_diag, 100)
        self.pub = self.client.create_publisher(JointTrajectory, "/robot_bridge/trajectory", 10)
        self.services = {
            name: self.client.create_client(Trigger, f"/robot_bridge/{name}")
            for name in ("stop", "validate", "execute_file")
        }
        self.pause = self.client.create_client(SetBool, "/simulator/pause")
        assert self.spin_until(
            lambda: (
                self.states
                and self.pub.get_subscription_count()
                and self.bridge.measured
                and all(c.service_is_ready() for c in self.services.values())
            )
        )
        self.names = list(self.bridge.robot.joint_names)

    def _on_diag(self, msg):
        if msg.status[0].name.startswith("robot_bridge"):
            self.diags.append(msg.status[0])

    def spin(self, seconds):
        self.spin_until(lambda: False, timeout=seconds)

    def call(self, client, request=None):
        future = client.call_async(request or Trigger.Request())
        assert self.spin_until(future.done)
        return future.result()

    def joints(self) -> dict:
        """Latest measured joint positions by name."""
        msg = self.states[-1]
        return dict(zip(msg.name, msg.position))

    def send(self, names, points):
        """Publish on ~/trajectory: points = [(t [s], positions, velocities or None)]."""
        msg = JointTrajectory(joint_names=list(names))
        for t, pos, vel in points:
            sec = math.floor(t)
            pt = JointTrajectoryPoint(
                positions=[float(x) for x in pos],
                time_from_start=Duration(sec=int(sec), nanosec=int(round((t - sec) * 1e9))),
            )
            if vel is not None:
                pt.velocities = [float(x) for x in vel]
            msg.points.append(pt)
        self.pub.publish(msg)

    def wait_diag(self, n0, text) -> DiagnosticStatus:
        """The first bridge diagnostic after index n0 whose message contains `text`."""

        def found():
            return next((d for d in self.diags[n0:] if text in d.message), None)

        assert self.spin_until(lambda: found() is not None), [d.message for d in self.diags[n0:]]
        return found()

    def set(self, **params):
        results = self.bridge.set_parameters([Parameter(k, value=v) for k, v in params.items()])
        assert all(r.successful for r in results), [r.reason for r in results]


def settle(stack, threshold=1e-8, timeout=30.0):
    """Wait until the joints move less than `threshold` [rad] between two /joint_states 0.1 s apart
    (1e-8: with 1e-7 a joint still settling from the previous motion drifted 1.3e-6 rad over the
    0.5 s "does not move" watch, above its 1e-6). ``timeout`` [s] of wall time: 30 s, since a loaded
    machine once ran the stand-in 5 times slower than real time and 15 s did not settle it."""

    def still():
        before = stack.joints()
        stack.spin(0.1)
        after = stack.joints()
        return max(abs(after[n] - before[n]) for n in before) < threshold

    assert stack.spin_until(still, timeout=timeout)
