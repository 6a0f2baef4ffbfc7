"""State publisher node (`state_publisher`): a `robot_state_publisher` for installs without it.

Parameters
    robot (string, default "hrp2"): shipped robot name or path to a URDF file.
    posture (string, default ""): posture used for joints no /joint_states message has set yet
        and for the base pose until /odom arrives ("" = the robot's default posture).
    publish_robot_description (bool, default true): publish the URDF on /robot_description.
        Exactly one node may do that: set it false when the simulator runs.
    publish_frequency (double, default 20.0) [Hz]: rate of /tf messages; the same default as
        ROS's robot_state_publisher (a choice, not a thesis number).

Topics
    publishes  /robot_description  std_msgs/String, reliable + transient local (late subscribers
                                   get it), URDF text with mesh paths as file:// URIs
               /tf                 tf2_msgs/TFMessage (only when tf2_msgs imports): odom -> root link
                                   and every movable joint, from Pinocchio forward kinematics
               /tf_static          tf2_msgs/TFMessage, transient local: every fixed joint
    subscribes /joint_states       sensor_msgs/JointState: unknown names are logged once and ignored
               /odom               nav_msgs/Odometry: base pose (else the posture's base pose)

This is the only module of `humanoid_model` that imports rclpy; the kinematics are in
`humanoid_model.tf_tree`.
"""
from __future__ import annotations

import sys

import numpy as np
import rclpy
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from humanoid_model.exceptions import ConfigError, HumanoidStackError
from humanoid_model.tf_tree import KinematicTree, Transform, description_with_uris

from geometry_msgs.msg import TransformStamped

try:  # tf2_msgs is not among the PyPI ROS 2 wheels; a system ROS 2 has it.
    from tf2_msgs.msg import TFMessage
except ImportError:  # pragma: no cover - depends on the install
    TFMessage = None

NODE_NAME = "state_publisher"

LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
"""QoS of /robot_description and /tf_static (same as robot_state_publisher's)."""


class StatePublisherNode(Node):
    """Publishes the robot description and, when tf2_msgs is available, the link transforms."""

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        robot_name = self.declare_parameter("robot", "hrp2").value
        posture = self.declare_parameter("posture", "").value
        publish_description = bool(self.declare_parameter("publish_robot_description", True).value)
        frequency = self.declare_parameter("publish_frequency", 20.0,
                                           ParameterDescriptor(dynamic_typing=True)).value  # 20 or 20.0
        try:
            frequency = float(frequency)
        except (TypeError, ValueError):
            raise ConfigError(f"parameter publish_frequency must be a number [Hz], "
                              f"got {frequency!r}") from None
        if not frequency > 0.0:
            raise ConfigError(f"parameter publish_frequency must be > 0 [Hz], got {frequency}")

        from humanoid_model.robot import load_robot  # heavy import (pinocchio) after rclpy set-up

        self.robot = load_robot(robot_name)
        self.tree = KinematicTree(self.robot.model)
        self._q_default = self.robot.q(posture or None)
        self._positions: dict[str, float] = {}
        self._base_pose: np.ndarray | None = None
        self._reported: set[str] = set()

        self.description_publisher = None
        if publish_description:
            self.description_publisher = self.create_publisher(String, "/robot_description", LATCHED)
            self.description_publisher.publish(String(data=description_with_uris(self.robot.urdf_text)))

        self.create_subscription(JointState, "/joint_states", self._on_joint_states, 10)
        self.create_subscription(Odometry, "/odom", self._on_odom, 10)

        self.tf_publisher = None
        if TFMessage is not None:
            self.tf_publisher = self.create_publisher(TFMessage, "/tf", 10)
            static = self.create_publisher(TFMessage, "/tf_static", LATCHED)
            static.publish(TFMessage(transforms=self._stamped(self.tree.static_transforms())))
            self.create_timer(1.0 / frequency, self._publish_tf)
        else:
            self.get_logger().info("tf2_msgs is not installed: /tf and /tf_static are not published "
                                   "(the web viewer follows /joint_states and /odom directly)")
        self.get_logger().info(
            f"robot '{self.robot.name}' ({len(self.robot.joint_names)} joints, posture "
            f"'{posture or self.robot.default_posture}'), root link '{self.tree.root_link}'"
            + (", publishing /robot_description" if publish_description else ""))

    # ------------------------------------------------------------------ inputs
    def _report_once(self, key: str, message: str) -> None:
        if key not in self._reported:
            self._reported.add(key)
            self.get_logger().warning(message)

    def _on_joint_states(self, msg: JointState) -> None:
        names, positions = list(msg.name), list(msg.position)
        if len(positions) != len(names):
            self._report_once("length", f"/joint_states: {len(names)} names but {len(positions)} positions; "
                                        "messages like this are ignored")
            return
        _, skipped = self.tree.configuration(self._q_default, dict(zip(names, positions)))
        for name in skipped:
            self._report_once(f"joint:{name}", f"/joint_states: ignoring joint '{name}' "
                                               f"(not a 1-DoF joint of robot '{self.robot.name}', or not finite)")
        skipped = set(skipped)
        self._positions.update({n: float(p) for n, p in zip(names, positions) if n not in skipped})

    def _on_odom(self, msg: Odometry) -> None:
        p, o = msg.pose.pose.position, msg.pose.pose.orientation
        pose = np.array([p.x, p.y, p.z, o.x, o.y, o.z, o.w], dtype=float)
        if not np.all(np.isfinite(pose)) or np.linalg.norm(pose[3:]) < 1e-9:
            self._report_once("odom", f"/odom: ignoring an invalid pose {pose.tolist()}")
            return
        self._base_pose = pose

    # ------------------------------------------------------------------ outputs
    def configuration(self) -> np.ndarray:
        """Current full configuration q (nq,) from the latest /joint_states and /odom."""
        q, _ = self.tree.configuration(self._q_default, self._positions, self._base_pose)
        return q

    def current_transforms(self) -> list[Transform]:
        """odom -> root link and every movable joint's transform at the current configuration."""
        return self.tree.moving_transforms(self.configuration())

    def _stamped(self, transforms: list[Transform]) -> list:
        return transform_stamped_list(transforms, self.get_clock().now().to_msg())

    def _publish_tf(self) -> None:
        self.tf_publisher.publish(TFMessage(transforms=self._stamped(self.current_transforms())))


def transform_stamped_list(transforms: list[Transform], stamp) -> list:
    """TransformStamped messages (the content of a /tf or /tf_static message) for `tf_tree`
    Transform records, all with header stamp `stamp` (builtin_interfaces/Time)."""
    out = []
    for tf in transforms:
        msg = TransformStamped()
        msg.header.stamp = stamp
        msg.header.frame_id = tf.parent
        msg.child_frame_id = tf.child
        tr, r = msg.transform.translation, msg.transform.rotation
        tr.x, tr.y, tr.z = map(float, tf.translation)
        r.x, r.y, r.z, r.w = map(float, tf.rotation)
        out.append(msg)
    return out


def run_node(node_factory, name: str, args=None) -> int:
    """Shared entry point of the node executables: init, spin, clean exit.

    Returns 0 on Ctrl-C / shutdown, 2 (with a one-line message) when the node rejects its
    parameters with a `HumanoidStackError`. Calls the node's ``close()`` (if any) before
    destroying it.
    """
    from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor

    rclpy.init(args=args)
    node = None
    # The executor exists before the node, so that a Ctrl-C during start-up fails an rcl call of
    # the node's constructor (handled below) rather than half-building rclpy.spin's executor.
    executor = SingleThreadedExecutor()
    try:
        node = node_factory()
        executor.add_node(node)
        executor.spin()
    except HumanoidStackError as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception:
        # Ctrl-C during start-up: rclpy's SIGINT handler shuts the context down, and the next
        # rcl call (e.g. creating a publisher) raises RCLError "context is not valid". That is
        # a requested stop, not a crash; any other error is re-raised.
        if rclpy.ok():
            raise
    finally:
        if node is not None:
            if hasattr(node, "close"):
                node.close()
            executor.remove_node(node)
            node.destroy_node()
        executor.shutdown()
        rclpy.try_shutdown()
    return 0


def main(args=None) -> int:
    """Entry point of the `state_publisher` executable (`ros2 run humanoid_stack state_publisher`)."""
    return run_node(StatePublisherNode, NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
