"""Simulator node (`simulator`): `humanoid_sim.World` as a ROS 2 node, answering to ros2_control's
controller topics (docs/ros.md, "simulator").

    humanoid-stack up sim                         # config/sim.yaml
    ros2 launch humanoid_stack sim.launch.py      # a system ROS 2; without one: humanoid-stack up sim
    ros2 run humanoid_stack simulator --ros-args -p scene:=flat -p real_time_factor:=0.0
    .venv/bin/simulator --ros-args -p scene:=flat -p real_time_factor:=0.0   # the same on the default install

Parameters: `PARAMETERS` of `humanoid_ros.simulator_parameters` (docs/ros.md, "simulator");
`real_time_factor`, `controller` and `external_wrench_duration` may change at run time, the
others are read at start only.

Topics (relative names, moved by the node's namespace; /clock, /tf, /tf_static and /diagnostics
are global by ROS convention, and the frames get the namespace as prefix: docs/ros.md
"Namespaces and remapping")
    publishes  /clock (rosgraph_msgs/Clock: every step, or at clock_rate), joint_states, odom (odom ->
               root link, twist in the root link frame), robot_description (transient local), /tf and
               /tf_static (with base_link and the contact frames), free_bodies (nav_msgs/Odometry, one message per
               free body of the scene: child_frame_id = its name, pose in odom, twist in its own frame; what the
               web viewer draws them from), /contacts (MarkerArray: ns "points", "forces", "cones", "soles"),
               <sensor>/wrench (WrenchStamped per F/T sensor, in the sensor frame), imu,
               /diagnostics (step time, real-time factor, solver iterations, residuals,
               penetration, rejected commands), ~/haptic_force (WrenchStamped, odom frame: the
               wrench the haptic device renders, at publish_rate while a body is coupled)
    subscribes joint_trajectory_controller/joint_trajectory (JointTrajectory, ros2_control
               semantics: `humanoid_sim.runtime.commands`), forward_position_controller/commands,
               forward_effort_controller/commands (Float64MultiArray, all joints in joint_states
               order), ~/external_wrench (WrenchStamped: frame_id = link, world-frame wrench at
               the link origin, for external_wrench_duration), ~/haptic_pointer (PoseStamped, odom
               frame: the haptic pointer)
Actions    joint_trajectory_controller/follow_joint_trajectory (control_msgs/FollowJointTrajectory, as
           joint_trajectory_controller: the goal's trajectory with the topic's semantics, feedback at
           50 Hz, path and goal tolerances, a cancel holds the measured positions, a refusal's reason
           in the result; `humanoid_ros.follow_joint_trajectory`)
Services   ~/reset (Trigger: rebuild the world at t = 0), ~/pause (SetBool), ~/step (Trigger: one
           step while paused), ~/haptic_attach, ~/haptic_touch (Trigger: couple the body of
           parameter haptic.body), ~/haptic_release (Trigger); docs/haptics.md

This module is ROS glue only. The work is the library's: `humanoid_sim.runtime.session.SimulationSession`
builds the world from the parameters (gain groups, scripted push), steps it, checks and applies
the commands (`humanoid_sim.runtime.commands`), decimates the outputs and keeps the physics statistics
(`humanoid_sim.runtime.diagnostics`); `humanoid_sim.runtime.realtime.RealTimeStepper` steps it in a dedicated
thread paced to `real_time_factor`, so the executor is never starved, and callbacks share the
session with it under the stepper's lock. A rejected command is logged and counted in
/diagnostics and the previous command continues; an exception inside a step pauses the
simulation and is reported as ERROR in /diagnostics.
"""

from __future__ import annotations

import json
import sys

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import Point, PoseStamped, WrenchStamped
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import ColorRGBA, Float64MultiArray, String
from std_srvs.srv import SetBool, Trigger
from trajectory_msgs.msg import JointTrajectory
from visualization_msgs.msg import Marker, MarkerArray

from humanoid_control.exceptions import ControlError
from humanoid_execution.whole_body import WholeBodyMotion
from humanoid_model.documents import parse_message
from humanoid_model.exceptions import HumanoidStackError
from humanoid_model.tf_tree import KinematicTree, description_with_uris, static_frames
from humanoid_ros.common import (
    LATCHED,
    TFMessage,
    WarnOnce,
    destroy_actions,
    diagnostic_array,
    namespace_frame_prefix,
    odometry,
    prefix_frames,
    run_node,
    seconds,
    stamp,
    transform_stamped_list,
)
from humanoid_ros.follow_joint_trajectory import FollowJointTrajectoryServer, goal_points
from humanoid_ros.simulator_parameters import CONTROLLERS, NODE_NAME, PARAMETERS, TOPICS
from humanoid_sim.runtime import diagnostics
from humanoid_sim.runtime.commands import TrajectoryPoint
from humanoid_sim.runtime.realtime import RealTimeStepper
from humanoid_sim.runtime.session import SessionSettings, SimulationSession
from humanoid_sim.stages.haptics import HapticSettings

__all__ = ["SimulatorNode", "main", "NODE_NAME", "PARAMETERS", "CONTROLLERS", "TOPICS"]

FOLLOW_JOINT_TRAJECTORY = "joint_trajectory_controller/follow_joint_trajectory"  # the controller's action
WBC_STATUS = "whole_body_controller/status"  # std_msgs/String, JSON: `WholeBodyMotion.status`
WBC_STOP = "whole_body_controller/stop"  # std_msgs/String: a safe hold, with its reason
WBC_STATUS_RATE = 10.0  # [Hz] (chosen) the whole-body controller's status, wall clock
MOTION_MAX_BYTES = 16 * 1024 * 1024  # (chosen) a motion message's size: twice the robot bridge's plan file bound

# /contacts marker styles: (scale x, y, z [m]; colour r, g, b, a), chosen for legibility
POINT_STYLE = ((0.015, 0.015, 0.015), (1.0, 0.9, 0.1, 1.0))  # spheres of 1.5 cm, yellow
ARROW_STYLE = ((0.01, 0.02, 0.0), (0.9, 0.1, 0.1, 1.0))  # shaft 1 cm, head 2 cm, red
CONE_STYLE = ((1.0, 1.0, 1.0), (0.2, 0.5, 1.0, 0.4))  # triangles in world units, translucent blue
SOLE_STYLE = ((1.0, 1.0, 1.0), (0.35, 0.35, 0.35, 1.0))  # FEM soles' deformed surface, dark grey


class _ActionTrajectories:
    """The FollowJointTrajectory backend of the simulator: the goal is a joint_trajectory_controller
    command (`SimulationSession.command_trajectory`), its progress the session's, a cancel holds."""

    def __init__(self, node):
        self.node = node

    def start(self, goal):
        node, c = self.node, "joint_trajectory_controller"
        if node.p["controller"] != c:
            raise HumanoidStackError(f"the active controller is {node.p['controller']} (parameter controller), not {c}")
        names, points = goal_points(goal.trajectory)
        points = [TrajectoryPoint(q, t, v) for q, v, t in points]
        with node.stepper.lock:
            try:
                source = node.resolve_topic_name(FOLLOW_JOINT_TRAJECTORY)
                trajectory = node.session.command_trajectory(
                    names, points, seconds(goal.trajectory.header.stamp), source
                )
            except HumanoidStackError as exc:
                node._reject(exc)
                raise
        node.accepted += 1
        node.last_command_time = node.session.world.t
        return trajectory, names

    def progress(self, run):
        with self.node.stepper.lock:
            return self.node.session.trajectory_progress(*run)

    def verdict(self, run):
        return None

    def stop(self, run):
        with self.node.stepper.lock:
            self.node.session.hold()


class SimulatorNode(Node):
    """The simulator node (see the module docstring). `session` is the ROS-free
    `humanoid_sim.runtime.session.SimulationSession`, `world` its current `humanoid_sim.World`,
    `stepper` the `humanoid_sim.runtime.realtime.RealTimeStepper` that runs it."""

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.p = PARAMETERS.declare(self)
        self.session = SimulationSession.load(
            self.p["scene"], self.p["robot"], SessionSettings.from_parameters(self.p), source=f"node '{NODE_NAME}'"
        )
        self.robot = self.session.robot
        self.warn_once = WarnOnce(self.get_logger())
        """Logs each warning once (an inactive controller's topic); `warn_once.keys` are the keys."""
        self.rejected = 0
        """Commands rejected since the start (reported in /diagnostics)."""
        self.last_rejection = ""
        """The reason of the last rejected command."""
        self.accepted = 0
        """Commands accepted since the start (reported in /diagnostics, with the simulated time of
        the last one: a controller that is not fed, or a command lost on the way, shows there)."""
        self.last_command_time = None
        self.stepper = RealTimeStepper(
            self.session,
            self.p["real_time_factor"],
            publish=self._while_up(self._publish),
            report=self._while_up(self._publish_diagnostics),
            on_error=lambda text: self.get_logger().error(text + "; simulation paused (call ~/reset)"),
            context=lambda: dict(
                controller=self.p["controller"],
                rejected_commands=self.rejected,
                last_rejection=self.last_rejection,
                accepted_commands=self.accepted,
                last_command_time=self.last_command_time,
            ),
            name="simulator-step",
        )

        self.tree = KinematicTree(self.robot.model)
        self.frame_prefix = namespace_frame_prefix(self.get_namespace(), self.p["frame_prefix"])
        """The prefix of the robot's frames (parameter frame_prefix, or the namespace's)."""
        self.description_pub = self.create_publisher(String, "robot_description", LATCHED)
        self.description_pub.publish(String(data=description_with_uris(self.robot.urdf_text)))
        self.clock_pub = self.create_publisher(Clock, "/clock", 10)
        self.joint_pub = self.create_publisher(JointState, "joint_states", 10)
        self.odom_pub = self.create_publisher(Odometry, "odom", 10)
        self.free_bodies_pub = self.create_publisher(Odometry, "free_bodies", 10)
        self.contacts_pub = self.create_publisher(MarkerArray, "contacts", 10)
        self.imu_pub = self.create_publisher(Imu, "imu", 10)
        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.ft_pubs = {
            name: self.create_publisher(WrenchStamped, f"{name}/wrench", 10) for name in self.session.sensors.ft
        }
        self.tf_pub = None
        if TFMessage is not None:
            self.tf_pub = self.create_publisher(TFMessage, "/tf", 10)
            static = self.create_publisher(TFMessage, "/tf_static", LATCHED)
            frames = static_frames(self.tree, self.robot.contact_locations)
            static.publish(TFMessage(transforms=self.tf_messages(frames, 0.0)))

        self.topics = {c: self.resolve_topic_name(topic) for c, topic in TOPICS.items()}
        """Each controller's command topic, resolved in the node's namespace (the sources of refusals)."""
        self.create_subscription(JointTrajectory, TOPICS["joint_trajectory_controller"], self._on_trajectory, 10)
        self.trajectory_action = FollowJointTrajectoryServer(
            self, FOLLOW_JOINT_TRAJECTORY, _ActionTrajectories(self), "follow_joint_trajectory"
        )
        self.create_subscription(Float64MultiArray, TOPICS["forward_position_controller"], self._on_position, 10)
        self.create_subscription(Float64MultiArray, TOPICS["forward_effort_controller"], self._on_effort, 10)
        # the whole-body controller: motions in, its status out, a stop (docs/execution.md)
        self.motion = None  # the `humanoid_execution.whole_body.WholeBodyMotion` attached, if any
        self._last_motion_state = None
        self.create_subscription(String, TOPICS["whole_body_controller"], self._on_motion, 1)
        self.create_subscription(String, WBC_STOP, self._on_motion_stop, 10)
        self.wbc_status_pub = self.create_publisher(String, WBC_STATUS, 10)
        self.create_timer(1.0 / WBC_STATUS_RATE, self._publish_motion_status)
        self.create_subscription(WrenchStamped, "~/external_wrench", self._on_external_wrench, 10)
        self.haptic_pub = self.create_publisher(WrenchStamped, "~/haptic_force", 10)
        self.create_subscription(PoseStamped, "~/haptic_pointer", self._on_haptic_pointer, 10)
        self.create_service(Trigger, "~/haptic_attach", self._on_haptic("attach"))
        self.create_service(Trigger, "~/haptic_touch", self._on_haptic("touch"))
        self.create_service(Trigger, "~/haptic_release", self._on_haptic("release"))
        self.create_service(Trigger, "~/reset", self._on_reset)
        self.create_service(SetBool, "~/pause", self._on_pause)
        self.create_service(Trigger, "~/step", self._on_step)
        self.add_on_set_parameters_callback(PARAMETERS.on_set_parameters(lambda: self.p, self._apply_parameters))

        self.stepper.start()
        world = self.world
        self.get_logger().info(
            f"robot '{self.robot.name}' on scene '{self.session.scene.name}', dt {world.dt * 1e3:g} ms, solver "
            f"{world.solver.name}, controller {self.p['controller']}, real-time factor "
            f"{self.p['real_time_factor']:g}, publishing {self.resolve_topic_name('robot_description')}"
            + (f", frames prefixed '{self.frame_prefix}'" if self.frame_prefix else "")
        )

    # ------------------------------------------------------------------ state
    @property
    def world(self):
        """The current `humanoid_sim.World` (a new one after ~/reset)."""
        return self.session.world

    @property
    def paused(self) -> bool:
        """Whether the simulation is paused (~/pause, or a failed step)."""
        return self.stepper.paused

    @property
    def error(self) -> str:
        """The last step failure ("" when none since the last reset)."""
        return self.stepper.error

    @property
    def stepper_alive(self) -> bool:
        """Whether the stepping thread runs (it survives failing steps; `close` ends it)."""
        stepper = getattr(self, "stepper", None)
        return stepper is not None and stepper.alive

    def _apply_parameters(self, updates: dict):
        """Run-time parameter changes, already checked by the table."""
        with self.stepper.lock:
            self.p.update(updates)
            self.stepper.set_real_time_factor(self.p["real_time_factor"])
            if self.p["controller"] != "whole_body_controller":  # a switch away: the PD holds the posture
                self.session.detach_controller()
                self.motion = None
        for name, val in updates.items():
            self.get_logger().info(f"parameter {name} = {val}")

    # ------------------------------------------------------------------ outputs
    def _while_up(self, publish):
        """``publish`` for the stepping thread, silent once the context is shut down: rclpy's
        SIGINT/SIGTERM handler shuts the context before the runner calls `close`, and a step
        publishing in between would otherwise fail ('publisher's context is invalid'), pause the
        simulation and log it."""

        def guarded(*args):
            if not self.context.ok():
                return
            try:
                publish(*args)
            except Exception:
                if self.context.ok():
                    raise

        return guarded

    def _publish(self, out):
        """Messages of the session's `Outputs` (called by the stepper, outside its lock)."""
        if out.clock:
            self.clock_pub.publish(Clock(clock=stamp(out.t)))
        if out.state is not None:
            self._publish_state(out.t, out.state)
        if out.contacts is not None:
            self._publish_contacts(out.t, out.contacts)
        if out.haptic is not None:
            msg = WrenchStamped()
            msg.header.stamp = stamp(out.t)
            msg.header.frame_id = self.tree.odom_frame
            msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z = map(float, out.haptic[:3])
            msg.wrench.torque.x, msg.wrench.torque.y, msg.wrench.torque.z = map(float, out.haptic[3:])
            self.haptic_pub.publish(msg)

    def _publish_state(self, t, out):
        st, now, prefix = out.state, stamp(t), self.frame_prefix
        js = JointState()
        js.header.stamp = now
        names, position, velocity, effort = out.joint_state
        js.name = list(names)
        js.position = np.asarray(position, float).tolist()
        js.velocity = np.asarray(velocity, float).tolist()
        js.effort = np.asarray(effort, float).tolist()
        self.joint_pub.publish(js)
        base, odom = st.bodies[self.robot.name], self.tree.odom_frame
        root = self.tree.root_link  # the free-flyer velocity is in the root link frame
        self.odom_pub.publish(odometry(now, odom, prefix + root, base.position, base.quaternion, out.base_velocity))
        for name, (position, quaternion, twist) in out.free_bodies.items():
            self.free_bodies_pub.publish(odometry(now, odom, name, position, quaternion, twist))
        if self.tf_pub is not None:
            q = st.q[: self.robot.model.nq]
            self.tf_pub.publish(TFMessage(transforms=self.tf_messages(self.tree.moving_transforms(q), t)))
        for name, (frame, force, torque) in out.force_torque.items():
            msg = WrenchStamped()
            msg.header.stamp = now
            msg.header.frame_id = prefix + frame
            msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z = map(float, force)
            msg.wrench.torque.x, msg.wrench.torque.y, msg.wrench.torque.z = map(float, torque)
            self.ft_pubs[name].publish(msg)
        if out.imu is not None:
            imu = out.imu
            msg = Imu()
            msg.header.stamp = now
            msg.header.frame_id = prefix + out.imu_frame
            o = msg.orientation
            o.x, o.y, o.z, o.w = map(float, imu["orientation"])
            a, g = msg.angular_velocity, msg.linear_acceleration
            a.x, a.y, a.z = map(float, imu["angular_velocity"])
            g.x, g.y, g.z = map(float, imu["linear_acceleration"])
            self.imu_pub.publish(msg)

    def tf_messages(self, transforms, t: float) -> list:
        """TransformStamped messages of ``transforms`` (`humanoid_model.tf_tree` transforms) at
        simulated time t [s], as the node publishes them on /tf and /tf_static (frames prefixed
        with `frame_prefix`, odom kept)."""
        return transform_stamped_list(prefix_frames(transforms, self.frame_prefix, self.tree.odom_frame), stamp(t))

    def _publish_contacts(self, t, cm):
        """contacts: DELETEALL, then the points, force arrows and friction cones of
        `humanoid_sim.runtime.markers.ContactMarkers` ``cm``, in the odom frame."""
        now, frame = stamp(t), self.tree.odom_frame

        def marker(ns, mid, mtype, points, style):
            (sx, sy, sz), (r, g, b, a) = style
            m = Marker()
            m.header.stamp = now
            m.header.frame_id = frame
            m.ns, m.id, m.type, m.action = ns, mid, mtype, Marker.ADD
            m.pose.orientation.w = 1.0
            m.scale.x, m.scale.y, m.scale.z = sx, sy, sz
            m.color = ColorRGBA(r=r, g=g, b=b, a=a)
            m.points = [Point(x=float(x), y=float(y), z=float(z)) for x, y, z in points]
            return m

        arr = MarkerArray()
        clear = Marker()
        clear.action = Marker.DELETEALL
        arr.markers.append(clear)
        if len(cm.points):
            arr.markers.append(marker("points", 0, Marker.SPHERE_LIST, cm.points, POINT_STYLE))
        for i, seg in enumerate(cm.arrows):
            arr.markers.append(marker("forces", i, Marker.ARROW, seg, ARROW_STYLE))
        if len(cm.cones):
            arr.markers.append(marker("cones", 0, Marker.TRIANGLE_LIST, cm.cones, CONE_STYLE))
        if len(cm.soles):  # FEM soles: their deformed surfaces (docs/soles.md)
            arr.markers.append(marker("soles", 0, Marker.TRIANGLE_LIST, cm.soles, SOLE_STYLE))
        self.contacts_pub.publish(arr)

    def _publish_diagnostics(self, t, report):
        """/diagnostics of a `humanoid_sim.runtime.diagnostics.PhysicsReport` at simulated time t [s]."""
        levels = {diagnostics.OK: DiagnosticStatus.OK, diagnostics.WARN: DiagnosticStatus.WARN}
        level = levels.get(report.level, DiagnosticStatus.ERROR)
        self.diag_pub.publish(
            diagnostic_array(stamp(t), f"{NODE_NAME}: physics", level, report.message, self.robot.name, report.values)
        )

    # ------------------------------------------------------------------ inputs
    def _reject(self, exc):
        self.rejected += 1
        self.last_rejection = str(exc)
        self.get_logger().warning(f"command rejected, the previous command continues: {exc}")

    def _active(self, controller):
        if self.p["controller"] == controller:
            return True
        self.warn_once(
            f"inactive-{controller}",
            f"{self.topics[controller]}: ignored, the active controller is {self.p['controller']} "
            "(parameter controller)",
        )
        return False

    def _command(self, apply, controller=None):
        """Run ``apply()`` (a session command) under the stepper's lock; a bad command is
        rejected and the previous one continues. ``controller``: the topic's controller, ignored
        unless it is the active one."""
        if controller is not None and not self._active(controller):
            return
        with self.stepper.lock:
            try:
                apply()
            except HumanoidStackError as exc:
                self._reject(exc)
            else:
                self.accepted += 1
                self.last_command_time = self.session.world.t

    def _on_trajectory(self, msg):
        c = "joint_trajectory_controller"
        points = [TrajectoryPoint(p.positions, seconds(p.time_from_start), p.velocities) for p in msg.points]
        stamp = seconds(msg.header.stamp)
        self._command(lambda: self.session.command_trajectory(msg.joint_names, points, stamp, self.topics[c]), c)

    def _on_position(self, msg):
        c = "forward_position_controller"
        self._command(lambda: self.session.command_positions(msg.data, self.topics[c]), c)

    def _on_effort(self, msg):
        c = "forward_effort_controller"
        self._command(lambda: self.session.command_efforts(msg.data, self.topics[c]), c)

    def _on_motion(self, msg):
        """A motion for the whole-body controller (std_msgs/String: JSON ``{"id", "source",
        "motion"}`` or a bare PLAN.json / WALK.json / GAIT.json document): built for the robot
        where it stands, then run from the next step; refused in one line (status "refused")."""
        c = "whole_body_controller"
        if not self._active(c):
            return
        ident, source = "", self.topics[c]
        try:
            doc = parse_message(msg.data, source, "motion", ControlError, MOTION_MAX_BYTES)
            if isinstance(doc, dict) and isinstance(doc.get("motion"), dict):
                ident, source = str(doc.get("id", "")), str(doc.get("source") or source)
                doc = doc["motion"]
            if not isinstance(doc, dict):
                raise ControlError(f"{source}: a motion is a JSON object (PLAN.json, WALK.json or GAIT.json)")
            motion = WholeBodyMotion(self.session.world, doc, source, id=ident)
        except HumanoidStackError as exc:
            self._reject(exc)
            self.wbc_status_pub.publish(String(data=json.dumps({"id": ident, "state": "refused", "reason": str(exc)})))
            return
        with self.stepper.lock:
            self.session.attach_controller(motion, motion.locations)
            self.motion = motion
            self.accepted += 1
            self.last_command_time = self.session.world.t
        ref = motion.reference
        self.get_logger().info(
            f"whole_body_controller: executing {source} ({ref.duration:.2f} s, {ref.nominal_duration:.2f} s as planned)"
        )
        self._publish_motion_status()

    def _on_motion_stop(self, msg):
        """A safe hold of the running motion (std_msgs/String: the reason)."""
        motion = self.motion
        if motion is not None:
            motion.stop(msg.data or "stop requested")
            self.get_logger().warning(f"whole_body_controller: stop: {msg.data or 'stop requested'}")

    def _publish_motion_status(self):
        """whole_body_controller/status: the running motion's `WholeBodyMotion.status` (JSON); a
        change of its state is logged (the motion's stages in the node's log)."""
        motion = self.motion
        if motion is None or not self.context.ok():
            return
        status = motion.status()
        self.wbc_status_pub.publish(String(data=json.dumps(status)))
        key = (status["id"], status["state"])
        if key != self._last_motion_state:
            self._last_motion_state = key
            text = f"whole_body_controller: {status['source']}: {status['state']} at {status['time']:.2f} s"
            if status["state"] == "holding":
                self.get_logger().warning(f"{text}: {status['reason']}")
            elif status["state"] == "done":
                self.get_logger().info(f"{text} of {status['duration']:.2f} s: the motion is done")
            else:
                self.get_logger().info(text)

    def _on_external_wrench(self, msg):
        f, tq = msg.wrench.force, msg.wrench.torque
        topic = self.resolve_topic_name("~/external_wrench")
        duration = self.p["external_wrench_duration"]
        self._command(
            lambda: self.session.external_wrench(
                msg.header.frame_id, [f.x, f.y, f.z], [tq.x, tq.y, tq.z], duration, topic
            )
        )

    def _on_haptic_pointer(self, msg):
        p, o = msg.pose.position, msg.pose.orientation
        t = seconds(msg.header.stamp)
        self._command(lambda: self.session.haptic_pointer([p.x, p.y, p.z], [o.x, o.y, o.z, o.w], t or None))

    def _on_haptic(self, action):
        """The service callback of ~/haptic_ACTION (Trigger): the library call, refused with its text."""

        def settings():
            p = self.p
            return HapticSettings(
                p["haptic.stiffness"], p["haptic.angular_stiffness"], p["haptic.radius"], p["haptic.weight"]
            )

        calls = {
            "attach": lambda: self.session.haptic_attach(
                self.p["haptic.body"], self.p["haptic.point"], settings(), self.p["haptic.admittance"]
            ),
            "touch": lambda: self.session.haptic_touch(self.p["haptic.body"], settings()),
            "release": self.session.haptic_release,
        }

        def serve(request, response):
            with self.stepper.lock:
                try:
                    calls[action]()
                except HumanoidStackError as exc:
                    response.success, response.message = False, str(exc)
                    return response
            response.success = True
            response.message = f"haptic {action}" + ("" if action == "release" else f" '{self.p['haptic.body']}'")
            return response

        return serve

    def _on_reset(self, request, response):
        try:
            self.stepper.reset()
        except HumanoidStackError as exc:
            response.success, response.message = False, str(exc)
            return response
        response.success, response.message = True, "world reset to t = 0"
        return response

    def _on_pause(self, request, response):
        self.stepper.pause(request.data)
        response.success = True
        response.message = "paused" if request.data else "running"
        return response

    def _on_step(self, request, response):
        try:
            out = self.stepper.step_paused()
        except Exception:  # noqa: BLE001 - stepper.error says what failed; the node keeps running
            response.success, response.message = False, self.stepper.error
            return response
        if out is None:
            response.success, response.message = False, "the simulation is running; pause it first (~/pause)"
            return response
        response.success, response.message = True, f"t = {out.t:.6f} s"
        return response

    # ------------------------------------------------------------------ shutdown
    def close(self):
        """Stop the stepping thread (the runner calls this before destroying the node)."""
        # a constructor that raised (bad parameter, scene or robot) leaves a half-built node that
        # rclpy may still destroy at context shutdown: only stop what exists
        stepper = getattr(self, "stepper", None)
        if stepper is not None:
            stepper.close()

    def destroy_node(self):
        self.close()
        destroy_actions(self)
        return super().destroy_node()


def main(args=None) -> int:
    """Entry point of the `simulator` executable (`ros2 run humanoid_stack simulator`)."""
    return run_node(SimulatorNode, NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
