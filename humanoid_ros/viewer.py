"""Viewer node (`viewer`): the web viewer as a ROS 2 node, in place of RViz2.

Parameters: `PARAMETERS` below (docs/ros.md, "viewer"), all read at start only.
`joint_state_source` true: the viewer's posture selector and sliders drive the robot and the node
PUBLISHES joint_states at 30 Hz (like joint_state_publisher_gui); false: the node FOLLOWS
joint_states, odom and free_bodies.

Topics (relative names, moved by the node's namespace)
    publishes  joint_states   sensor_msgs/JointState (joint_state_source true)
    subscribes joint_states   sensor_msgs/JointState (joint_state_source false): unknown names ignored
               odom           nav_msgs/Odometry (joint_state_source false): base pose
               free_bodies    nav_msgs/Odometry (joint_state_source false): the pose of the scene's
                              free body named by child_frame_id (the simulator's; unknown names ignored)
               marker_topics  visualization_msgs/MarkerArray (reliable: a lost message could drop a
                              planner's stances, published once)
               phantom_topic  sensor_msgs/JointState: the commanded robot (the pilot's
                              pilot/joint_states), drawn translucent over the measured one
               (the state topics are best effort, `humanoid_ros.common.SENSOR_QOS`: reliable and
               best-effort publishers both reach them)
    publishes  ~/camera       geometry_msgs/PoseStamped (odom): a browser's camera pose whenever it moves
                              (axes x right, y down, z into the screen): the pilot's `view` command axes
    haptic_device (a simulator node name, e.g. simulator): the page gets a draggable haptic pointer;
               publishes <haptic_device>/haptic_pointer (geometry_msgs/PoseStamped, odom) at 30 Hz,
               its attach / touch / release buttons call <haptic_device>/haptic_ACTION
               (std_srvs/Trigger); docs/haptics.md

Follow mode keeps the latest message and redraws at 30 Hz at most, so a 1 kHz simulator does not
flood the browser. A malformed marker is logged and skipped; the node keeps running.
The viewer itself is `humanoid_viewer.app.Viewer` (ROS-free); this module is ROS glue only.
"""

from __future__ import annotations

import sys
import threading

import numpy as np
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger
from visualization_msgs.msg import MarkerArray

from humanoid_model.exceptions import HumanoidStackError
from humanoid_ros.common import SENSOR_QOS, WarnOnce, run_node
from humanoid_ros.parameters import Parameter, ParameterTable

NODE_NAME = "viewer"
HAPTIC_ACTIONS = ("attach", "touch", "release")  # the simulator's ~/haptic_ACTION services
RATE = 30.0  # [Hz] /joint_states publishing (source mode) and redraw (follow mode): chosen, as
#              joint_state_publisher_gui's order of magnitude and a smooth browser frame rate.

PARAMETERS = ParameterTable(
    NODE_NAME,
    [
        Parameter("robot", "string", "hrp2", "shipped robot name or URDF path", non_empty=True),
        Parameter("scene", "string", "flat", 'scene name or file (`""` = ground grid only)'),
        Parameter("posture", "string", "", "initial posture (`\"\"` = the scene's, else the robot's default posture)"),
        Parameter("host", "string", "127.0.0.1", "address the web server listens on", non_empty=True),
        Parameter(
            "port",
            "int",
            8080,
            "web server port (0 = any free port; the URL is logged and printed). Chosen: the usual local web port",
            minimum=0,
            maximum=65535,
        ),
        Parameter(
            "allow_origins",
            "string_array",
            [],
            "origins (`scheme://host[:port]`) whose pages may also use the viewer, e.g. a reverse proxy's; "
            "requests from other pages, or whose Host is not this machine, get HTTP 403; `*` allows any (unsafe)",
        ),
        Parameter(
            "joint_state_source",
            "bool",
            False,
            "true: the viewer's posture selector and sliders publish joint_states (like "
            "`joint_state_publisher_gui`); false: the viewer follows joint_states and odom",
        ),
        Parameter(
            "marker_topics",
            "string_array",
            ["contacts", "contact_planner/stances"],
            "visualization_msgs/MarkerArray topics drawn in the viewer (each topic's markers are keyed by "
            '(ns, id) separately; `""` entries are skipped)',
        ),
        Parameter(
            "haptic_device",
            "string",
            "",
            'the simulator node whose haptic interface a draggable pointer in the page drives (`""` = no '
            "pointer; e.g. `simulator`): PoseStamped on `<name>/haptic_pointer` at 30 Hz, attach / touch / "
            "release buttons calling `<name>/haptic_attach` ... (docs/haptics.md)",
        ),
        Parameter(
            "haptic_start",
            "double_array",
            [0.6, 0.0, 0.4],
            "where the haptic pointer starts, world frame (chosen: in front of a robot at the origin)",
            unit="m",
            length=3,
        ),
        Parameter(
            "phantom_topic",
            "string",
            "pilot/joint_states",
            'sensor_msgs/JointState of a commanded robot, drawn as a translucent "phantom" over the '
            "measured one (the `pilot` node's commanded configuration; nothing is drawn until a message "
            'arrives; `""` = none)',
        ),
    ],
)
"""The viewer's parameters (docs/ros.md, "viewer")."""


class ViewerNode(Node):
    """Web viewer node; `self.viewer` is the ROS-free `humanoid_viewer.app.Viewer`."""

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        p = PARAMETERS.declare(self)
        self.joint_state_source = p["joint_state_source"]
        topics = [t for t in p["marker_topics"] if t]

        from humanoid_viewer.app import Viewer  # heavy imports (viser, pinocchio) after rclpy set-up
        from humanoid_viewer.serving import exposure_warning

        exposure = exposure_warning(p["host"], p["allow_origins"])
        if exposure:
            self.get_logger().warning(exposure)

        self.viewer = Viewer(
            p["robot"],
            p["scene"] or None,
            posture=p["posture"] or None,
            host=p["host"],
            port=p["port"],
            follow=not self.joint_state_source,
            verbose=False,
            allow_origins=p["allow_origins"],
        )
        self.get_logger().info(f"web viewer at {self.viewer.url}")
        print(f"viewer: {self.viewer.url}", flush=True)

        self._lock = threading.Lock()
        self._pending_joints = None  # (names, positions) from /joint_states
        self._pending_base = None  # (x, y, z, qx, qy, qz, qw) from /odom
        self._pending_phantom = None  # (names, positions) from phantom_topic
        self._pending_bodies = {}  # free body name -> (position, quaternion xyzw) from /free_bodies
        self.warn_once = WarnOnce(self.get_logger())
        """Logs each bad-input warning once; `warn_once.keys` are the reported keys."""
        reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        if self.joint_state_source:
            self.joint_state_pub = self.create_publisher(JointState, "joint_states", reliable)
            self.create_timer(1.0 / RATE, self._publish_joint_states)
        else:
            self.create_subscription(JointState, "joint_states", self._on_joint_states, SENSOR_QOS)
            self.create_subscription(Odometry, "odom", self._on_odom, SENSOR_QOS)
            self.create_subscription(Odometry, "free_bodies", self._on_free_body, SENSOR_QOS)
        if p["phantom_topic"]:
            self.create_subscription(JointState, p["phantom_topic"], self._on_phantom, SENSOR_QOS)
        if not self.joint_state_source or p["phantom_topic"]:
            self.create_timer(1.0 / RATE, self._redraw)
        self.camera_pub = self.create_publisher(PoseStamped, "~/camera", 10)
        self.viewer.add_camera_listener(self._on_camera)
        self.pointer_pose = None  # (position (3,), quaternion xyzw (4,)) of the haptic pointer
        if p["haptic_device"]:
            self._init_haptic(p["haptic_device"].rstrip("/"), p["haptic_start"])
        self.marker_subscriptions = [
            self.create_subscription(
                MarkerArray, topic, lambda msg, topic=topic: self._on_markers(topic, msg), reliable
            )
            for topic in topics
        ]

    # ------------------------------------------------------------------ source mode
    def joint_state_msg(self) -> JointState:
        """The /joint_states message of the current slider configuration."""
        positions = self.viewer.robot.joint_positions(self.viewer.q)
        msg = JointState()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.name = list(positions)
        msg.position = list(positions.values())
        return msg

    def _publish_joint_states(self):
        if self.viewer.robot is not None:
            self.joint_state_pub.publish(self.joint_state_msg())

    # ------------------------------------------------------------------ follow mode
    def _on_joint_states(self, msg: JointState):
        if len(msg.position) != len(msg.name):
            self.warn_once(
                "js-len", f"joint_states: {len(msg.name)} names but {len(msg.position)} positions; message ignored"
            )
            return
        with self._lock:
            self._pending_joints = (list(msg.name), list(msg.position))

    def _on_phantom(self, msg: JointState):
        if len(msg.position) != len(msg.name):
            self.warn_once("phantom-len", f"phantom: {len(msg.name)} names but {len(msg.position)} positions; ignored")
            return
        with self._lock:
            self._pending_phantom = (list(msg.name), list(msg.position))

    def _on_odom(self, msg: Odometry):
        p, o = msg.pose.pose.position, msg.pose.pose.orientation
        with self._lock:
            self._pending_base = (p.x, p.y, p.z, o.x, o.y, o.z, o.w)

    def _on_free_body(self, msg: Odometry):
        p, o = msg.pose.pose.position, msg.pose.pose.orientation
        with self._lock:
            self._pending_bodies[msg.child_frame_id] = ((p.x, p.y, p.z), (o.x, o.y, o.z, o.w))

    def _redraw(self):
        with self._lock:
            joints, base, phantom = self._pending_joints, self._pending_base, self._pending_phantom
            self._pending_joints = self._pending_base = self._pending_phantom = None
            bodies, self._pending_bodies = self._pending_bodies, {}
        for name, (position, quaternion) in bodies.items():
            if not self.viewer.set_body_pose(name, position, quaternion):
                self.warn_once(f"body-{name}", f"free_bodies: the scene drawn has no free body {name!r}; ignored")
        if self.viewer.robot is None:
            return
        if phantom is not None:
            try:
                self.viewer.set_phantom_joint_positions(*phantom)
            except HumanoidStackError as exc:
                self.warn_once("phantom", f"cannot show the phantom: {exc}")
        if joints is None and base is None:
            return
        try:
            names, positions = joints if joints is not None else ([], [])
            self.viewer.set_joint_positions(names, positions, base=base)
        except HumanoidStackError as exc:
            self.warn_once("state", f"cannot show the received state: {exc}")

    # ------------------------------------------------------------------ haptic pointer
    def _init_haptic(self, device: str, start):
        self.pointer_pub = self.create_publisher(PoseStamped, f"{device}/haptic_pointer", 10)
        self.haptic_clients = {a: self.create_client(Trigger, f"{device}/haptic_{a}") for a in HAPTIC_ACTIONS}
        self.haptic_results: list[tuple[str, bool, str]] = []  # (action, success, message) as answered
        self.pointer_pose = (np.asarray(start, float), np.array([0.0, 0.0, 0.0, 1.0]))
        self.viewer.add_pointer(start, self._on_pointer, HAPTIC_ACTIONS, self.haptic_action)
        self.create_timer(1.0 / RATE, self._publish_pointer)

    def _on_pointer(self, position, quaternion_xyzw):
        with self._lock:
            self.pointer_pose = (position, quaternion_xyzw)

    def _publish_pointer(self):
        with self._lock:
            p, o = self.pointer_pose
        msg = PoseStamped()
        msg.header.stamp, msg.header.frame_id = self.get_clock().now().to_msg(), "odom"
        msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = map(float, p)
        q = msg.pose.orientation
        q.x, q.y, q.z, q.w = map(float, o)
        self.pointer_pub.publish(msg)

    def haptic_action(self, action: str) -> None:
        """What the page's attach / touch / release button does: call the simulator's service
        (asynchronously); the answer is logged, shown in the page and kept in `haptic_results`."""
        client = self.haptic_clients[action]
        if not client.service_is_ready():
            text = f"haptic {action}: the simulator's {client.srv_name} is not available"
            self.get_logger().warning(text)
            self.viewer.set_pointer_status(text)
            self.haptic_results.append((action, False, text))
            return

        def answered(future):
            r = future.result()
            text = f"{action}: {r.message}" if r.success else f"{action} refused: {r.message}"
            self.haptic_results.append((action, bool(r.success), r.message))
            self.viewer.set_pointer_status(text)
            (self.get_logger().info if r.success else self.get_logger().warning)(text)

        client.call_async(Trigger.Request()).add_done_callback(answered)

    # ------------------------------------------------------------------ browser camera
    def _on_camera(self, position, rotation):
        """A browser's camera moved (viser's thread): publish its pose on ~/camera."""
        import pinocchio as pin

        msg = PoseStamped()
        msg.header.stamp, msg.header.frame_id = self.get_clock().now().to_msg(), "odom"
        msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = map(float, position)
        q = pin.Quaternion(rotation)
        o = msg.pose.orientation
        o.x, o.y, o.z, o.w = float(q.x), float(q.y), float(q.z), float(q.w)
        try:
            self.camera_pub.publish(msg)
        except Exception as exc:  # noqa: BLE001 - the node may be shutting down; the viewer keeps serving
            self.warn_once("camera", f"~/camera: not published ({exc!r})")

    # ------------------------------------------------------------------ markers
    def _on_markers(self, topic: str, msg: MarkerArray):
        from humanoid_viewer.markers import marker_from_msg

        markers = []
        for m in msg.markers:
            try:
                markers.append(marker_from_msg(m))
            except HumanoidStackError as exc:  # a MarkerError, or a shared validation error
                self.warn_once(f"marker-{topic}-{m.ns}", f"{topic}: {exc}; marker skipped")
        self.viewer.apply_markers(markers, group=topic)

    def close(self):
        """Stop the web server (called by the runner and by main)."""
        self.viewer.close()


def main(args=None):
    """Entry point of the `viewer` executable (`ros2 run humanoid_stack viewer`)."""
    return run_node(ViewerNode, NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
