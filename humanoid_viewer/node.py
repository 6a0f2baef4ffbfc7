"""Viewer node (`viewer`): the web viewer as a ROS 2 node, in place of RViz2.

Parameters
    robot (string, default "hrp2"): shipped robot name or URDF path.
    scene (string, default "flat"): scene name or file ("" = ground grid only).
    posture (string, default ""): initial posture ("" = the scene's, else the robot's default).
    port (int, default 8080), host (string, default "127.0.0.1"): where the viewer serves; the
        URL is logged.
    joint_state_source (bool, default false): true = the viewer's posture selector and sliders
        drive the robot and the node PUBLISHES /joint_states at 30 Hz (like
        joint_state_publisher_gui); false = the node FOLLOWS /joint_states and /odom.
    marker_topics (string array, default ["/contacts", "/stances"]): visualization_msgs/MarkerArray
        topics drawn in the viewer (each topic's markers are keyed by (ns, id) separately).

Topics
    publishes  /joint_states  sensor_msgs/JointState (joint_state_source true)
    subscribes /joint_states  sensor_msgs/JointState (joint_state_source false): unknown names ignored
               /odom          nav_msgs/Odometry (joint_state_source false): base pose
               marker_topics  visualization_msgs/MarkerArray

Follow mode keeps the latest message and redraws at 30 Hz at most, so a 1 kHz simulator does not
flood the browser. A malformed marker is logged and skipped; the node keeps running.
This is the only module of `humanoid_viewer` that imports rclpy.
"""
from __future__ import annotations

import sys
import threading

import numpy as np
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from visualization_msgs.msg import MarkerArray

from humanoid_model.exceptions import ConfigError, HumanoidStackError

NODE_NAME = "viewer"
RATE = 30.0  # [Hz] /joint_states publishing (source mode) and redraw (follow mode): chosen, as
#              joint_state_publisher_gui's order of magnitude and a smooth browser frame rate.


class ViewerNode(Node):
    """Web viewer node; `self.viewer` is the ROS-free `humanoid_viewer.app.Viewer`."""

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        robot = self.declare_parameter("robot", "hrp2").value
        scene = self.declare_parameter("scene", "flat").value
        posture = self.declare_parameter("posture", "").value
        port = self.declare_parameter("port", 8080).value
        host = self.declare_parameter("host", "127.0.0.1").value
        self.joint_state_source = bool(self.declare_parameter("joint_state_source", False).value)
        topics = self.declare_parameter("marker_topics", ["/contacts", "/stances"]).value
        if not 0 <= int(port) < 65536:
            raise ConfigError(f"node '{NODE_NAME}': parameter port must be in 0..65535, got {port}")
        topics = [t for t in (topics or []) if t]

        from humanoid_viewer.app import Viewer  # heavy imports (viser, pinocchio) after rclpy set-up

        self.viewer = Viewer(robot, scene or None, posture=posture or None, host=host, port=int(port),
                             follow=not self.joint_state_source, verbose=False)
        self.get_logger().info(f"web viewer at {self.viewer.url}")
        print(f"viewer: {self.viewer.url}", flush=True)

        self._lock = threading.Lock()
        self._pending_joints = None   # (names, positions) from /joint_states
        self._pending_base = None     # (x, y, z, qx, qy, qz, qw) from /odom
        self._warned = set()
        reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        if self.joint_state_source:
            self.joint_state_pub = self.create_publisher(JointState, "/joint_states", reliable)
            self.create_timer(1.0 / RATE, self._publish_joint_states)
        else:
            self.create_subscription(JointState, "/joint_states", self._on_joint_states, reliable)
            self.create_subscription(Odometry, "/odom", self._on_odom, reliable)
            self.create_timer(1.0 / RATE, self._redraw)
        self.marker_subscriptions = [
            self.create_subscription(MarkerArray, topic, lambda msg, topic=topic: self._on_markers(topic, msg),
                                     reliable)
            for topic in topics]

    # ------------------------------------------------------------------ source mode
    def joint_state_msg(self) -> JointState:
        """The /joint_states message of the current slider configuration."""
        robot = self.viewer.robot
        q = self.viewer.q
        msg = JointState()
        msg.header.stamp = self.get_clock().now().to_msg()
        model = robot.model
        for name in robot.joint_names:
            j = model.joints[model.getJointId(name)]
            if j.nv != 1:
                continue
            value = np.arctan2(q[j.idx_q + 1], q[j.idx_q]) if j.nq == 2 else q[j.idx_q]
            msg.name.append(name)
            msg.position.append(float(value))
        return msg

    def _publish_joint_states(self):
        if self.viewer.robot is not None:
            self.joint_state_pub.publish(self.joint_state_msg())

    # ------------------------------------------------------------------ follow mode
    def _on_joint_states(self, msg: JointState):
        if len(msg.position) != len(msg.name):
            self._warn_once("js-len", f"/joint_states: {len(msg.name)} names but {len(msg.position)} "
                                      "positions; message ignored")
            return
        with self._lock:
            self._pending_joints = (list(msg.name), list(msg.position))

    def _on_odom(self, msg: Odometry):
        p, o = msg.pose.pose.position, msg.pose.pose.orientation
        with self._lock:
            self._pending_base = (p.x, p.y, p.z, o.x, o.y, o.z, o.w)

    def _redraw(self):
        with self._lock:
            joints, base = self._pending_joints, self._pending_base
            self._pending_joints = self._pending_base = None
        if (joints is None and base is None) or self.viewer.robot is None:
            return
        try:
            names, positions = joints if joints is not None else ([], [])
            self.viewer.set_joint_positions(names, positions, base=base)
        except HumanoidStackError as exc:
            self._warn_once("state", f"cannot show the received state: {exc}")

    # ------------------------------------------------------------------ markers
    def _on_markers(self, topic: str, msg: MarkerArray):
        from humanoid_viewer.markers import MarkerError, marker_from_msg

        markers = []
        for m in msg.markers:
            try:
                markers.append(marker_from_msg(m))
            except MarkerError as exc:
                self._warn_once(f"marker-{topic}-{m.ns}", f"{topic}: {exc}; marker skipped")
        self.viewer.apply_markers(markers, group=topic)

    def _warn_once(self, key, text):
        if key not in self._warned:
            self._warned.add(key)
            self.get_logger().warning(text)

    def close(self):
        """Stop the web server (called by the runner and by main)."""
        self.viewer.close()


def main(args=None):
    """Entry point of the `viewer` executable (`ros2 run humanoid_stack viewer`)."""
    from humanoid_model.node import run_node

    return run_node(ViewerNode, "viewer", args)


if __name__ == "__main__":
    sys.exit(main())
