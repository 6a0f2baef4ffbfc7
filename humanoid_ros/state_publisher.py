"""State publisher node (`state_publisher`): a `robot_state_publisher` for installs without it.

Parameters: `PARAMETERS` below (docs/ros.md, "state_publisher"), all read at start only.

Topics (relative names: a namespace moves them; /tf and /tf_static are global, docs/ros.md
"Namespaces and remapping")
    publishes  robot_description   std_msgs/String, reliable + transient local (late subscribers
                                   get it), URDF text with mesh paths as file:// URIs
               /tf                 tf2_msgs/TFMessage: odom -> root link and every movable joint, from
                                   Pinocchio forward kinematics (`make` builds tf2_msgs when no ROS 2
                                   is sourced)
               /tf_static          tf2_msgs/TFMessage, transient local: every fixed joint, `base_link` on
                                   the root link and one frame per contact location (REP 120 `r_sole`,
                                   `l_sole`, ...; `humanoid_model.tf_tree.robot_frames`)
    subscribes joint_states        sensor_msgs/JointState: unknown names are logged once and ignored
               odom                nav_msgs/Odometry: base pose (else the posture's base pose)
               (both best effort, `humanoid_ros.common.SENSOR_QOS`: reliable publishers reach them too)

The kinematics are in `humanoid_model.tf_tree` (ROS-free); this module is ROS glue only.
"""

from __future__ import annotations

import sys

import numpy as np
from nav_msgs.msg import Odometry
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from humanoid_model.tf_tree import KinematicTree, Transform, description_with_uris, static_frames
from humanoid_ros.common import (
    LATCHED,
    SENSOR_QOS,
    TFMessage,
    WarnOnce,
    namespace_frame_prefix,
    prefix_frames,
    run_node,
    transform_stamped_list,
)
from humanoid_ros.parameters import Parameter, ParameterTable

NODE_NAME = "state_publisher"

PARAMETERS = ParameterTable(
    NODE_NAME,
    [
        Parameter("robot", "string", "hrp2", "shipped robot name or path to a URDF", non_empty=True),
        Parameter(
            "posture",
            "string",
            "",
            "posture for joints no joint_states message has set yet and for the base until odom arrives "
            '(`""` = the robot\'s default posture)',
        ),
        Parameter(
            "publish_robot_description",
            "bool",
            True,
            "publish robot_description. **Exactly one node publishes it**: the simulator when it runs "
            "(its parameter files set this `false`), otherwise the state publisher",
        ),
        Parameter(
            "publish_frequency",
            "double",
            20.0,
            "/tf rate (the default of ROS's `robot_state_publisher`; chosen)",
            unit="Hz",
            minimum=0.0,
            exclusive_minimum=True,
        ),
        Parameter(
            "frame_prefix",
            "string",
            "",
            "prepended to every URDF frame name in /tf and /tf_static (`odom` stays as is), as ROS's "
            "`robot_state_publisher`: a second state publisher with `frame_prefix: phantom/` and "
            "`-r joint_states:=pilot/joint_states` shows the pilot's commanded robot beside the "
            'measured one (RViz RobotModel display, TF prefix `phantom`; docs/piloting.md). `""` = the '
            'node\'s namespace (`/r1` -> `r1/`; none in the root namespace: docs/ros.md "Namespaces and remapping")',
        ),
    ],
)
"""The state publisher's parameters (docs/ros.md, "state_publisher")."""


class StatePublisherNode(Node):
    """Publishes the robot description and, when tf2_msgs is available, the link transforms."""

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        p = PARAMETERS.declare(self)
        posture = p["posture"]
        self.frame_prefix = namespace_frame_prefix(self.get_namespace(), p["frame_prefix"])
        """The prefix of the URDF frames on /tf and /tf_static (parameter frame_prefix, or the namespace's)."""

        from humanoid_model.robot import load_robot  # heavy import (pinocchio) after rclpy set-up

        self.robot = load_robot(p["robot"])
        self.tree = KinematicTree(self.robot.model)
        self._q_default = self.robot.q(posture or None)
        self._positions: dict[str, float] = {}
        self._base_pose: np.ndarray | None = None
        self.warn_once = WarnOnce(self.get_logger())
        """Logs each bad-input warning once; `warn_once.keys` are the reported keys."""

        self.description_publisher = None
        if p["publish_robot_description"]:
            self.description_publisher = self.create_publisher(String, "robot_description", LATCHED)
            self.description_publisher.publish(String(data=description_with_uris(self.robot.urdf_text)))

        self.create_subscription(JointState, "joint_states", self._on_joint_states, SENSOR_QOS)
        self.create_subscription(Odometry, "odom", self._on_odom, SENSOR_QOS)

        self.tf_publisher = None
        if TFMessage is not None:
            self.tf_publisher = self.create_publisher(TFMessage, "/tf", 10)
            static = self.create_publisher(TFMessage, "/tf_static", LATCHED)
            frames = static_frames(self.tree, self.robot.contact_locations)
            static.publish(TFMessage(transforms=self.stamped_transforms(frames)))
            self.create_timer(1.0 / p["publish_frequency"], self._publish_tf)
        else:
            self.get_logger().info(
                "tf2_msgs is not installed: /tf and /tf_static are not published "
                "(the web viewer follows /joint_states and /odom directly)"
            )
        self.get_logger().info(
            f"robot '{self.robot.name}' ({len(self.robot.joint_names)} joints, posture "
            f"'{posture or self.robot.default_posture}'), root link '{self.tree.root_link}'"
            + (f", frames prefixed '{self.frame_prefix}'" if self.frame_prefix else "")
            + (f", publishing {self.resolve_topic_name('robot_description')}" if p["publish_robot_description"] else "")
        )

    # ------------------------------------------------------------------ inputs
    def _on_joint_states(self, msg: JointState) -> None:
        names, positions = list(msg.name), list(msg.position)
        if len(positions) != len(names):
            self.warn_once(
                "length",
                f"joint_states: {len(names)} names but {len(positions)} positions; messages like this are ignored",
            )
            return
        _, skipped = self.tree.configuration(self._q_default, dict(zip(names, positions)))
        for name in skipped:
            self.warn_once(
                f"joint:{name}",
                f"joint_states: ignoring joint '{name}' "
                f"(not a 1-DoF joint of robot '{self.robot.name}', or not finite)",
            )
        skipped = set(skipped)
        self._positions.update({n: float(p) for n, p in zip(names, positions) if n not in skipped})

    def _on_odom(self, msg: Odometry) -> None:
        p, o = msg.pose.pose.position, msg.pose.pose.orientation
        pose = np.array([p.x, p.y, p.z, o.x, o.y, o.z, o.w], dtype=float)
        if not np.all(np.isfinite(pose)) or np.linalg.norm(pose[3:]) < 1e-9:
            self.warn_once("odom", f"odom: ignoring an invalid pose {pose.tolist()}")
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

    def stamped_transforms(self, transforms: list[Transform]) -> list:
        """The TransformStamped list a /tf (or /tf_static) message carries for `transforms`,
        stamped with the node's clock now, URDF frames prefixed with `frame_prefix`."""
        transforms = prefix_frames(transforms, self.frame_prefix, self.tree.odom_frame)
        return transform_stamped_list(transforms, self.get_clock().now().to_msg())

    def _publish_tf(self) -> None:
        self.tf_publisher.publish(TFMessage(transforms=self.stamped_transforms(self.current_transforms())))


def main(args=None) -> int:
    """Entry point of the `state_publisher` executable (`ros2 run humanoid_stack state_publisher`)."""
    return run_node(StatePublisherNode, NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
