"""Piloting node (`pilot`): a frame of a kinematic structure follows a 6-DOF mouse, a joystick or
absolute pose targets; the solved joints go to the simulator's or a robot's controllers
(docs/piloting.md).

    ros2 run humanoid_stack pilot --ros-args -p robot:=hrp2 -p frame:=r_hand
    ros2 topic pub -r 20 /pilot/twist geometry_msgs/msg/Twist "{linear: {x: 0.5}}"
    .venv/bin/pilot --ros-args -p robot:=hrp2 -p frame:=r_hand         # the same on the default install
    humanoid-stack ros topic pub -r 20 /pilot/twist geometry_msgs/msg/Twist "{linear: {x: 0.5}}"

Parameters: `PARAMETERS` of `humanoid_ros.pilot_parameters` (docs/ros.md, "pilot").

Topics (relative names, moved by the node's namespace; /diagnostics is global)
    subscribes ~/twist (geometry_msgs/Twist: an incremental 6-DOF mouse, e.g. spacenav's
               /spacenav/twist), ~/joy (sensor_msgs/Joy: axes -> twist through `joy_axes`),
               ~/target (geometry_msgs/PoseStamped: absolute target, frame_id world/odom or ""),
               joint_states (sensor_msgs/JointState, best effort: the measured robot; `start_from: measured`
               starts from it, /diagnostics reports the command's lead over it),
               `view_topic` (geometry_msgs/PoseStamped: the camera whose axes `command_frame: view`
               uses; the web viewer node publishes its browser's camera on viewer/camera)
    publishes  ~/joint_states (sensor_msgs/JointState: the commanded configuration, the "phantom"
               robot: a second state publisher with `frame_prefix: phantom/` on it, docs/piloting.md),
               <controller>/joint_trajectory (trajectory_msgs/JointTrajectory, one point at
               1/rate) or <controller>/commands (std_msgs/Float64MultiArray, URDF joint order),
               ~/markers (visualization_msgs/MarkerArray: target axes, driven frame, dexterity
               text), /diagnostics (residual per level, target error, dexterity)
Services   ~/reset (std_srvs/Trigger: back to the structure's initial configuration and target, or
           to the measured one with `start_from: measured`, within the joint limits)

Each cycle (`rate`): the latest twist (from ~/twist or ~/joy, younger than `command_timeout`)
times `sensitivity` times 1/rate is added to the ABSOLUTE target (`PilotSession.move`, so
increments never drift), then one step of the `humanoid_control.piloting.PilotSession`: one
`humanoid_control.kinematics.prioritized.solve` (or `svd.solve`, parameter `solver`) with the
structure's closures (HRP-2: both feet welded), the CoM task (floating structures with closures),
the target and the posture task.
Rotations pivot about the driven frame's origin, with world, tool or camera ("view") axes
(`command_frame`). NaN/inf inputs are refused (log and /diagnostics) and stop the held twist; an
unreachable target is not an error: the node keeps the closest pose and /diagnostics says WARN
with the residual. Whatever the input, the command is bounded (`humanoid_control.pilot_limits`):
a goal farther than 5 m from the frame is pulled back (WARN "bounded: ..."), every step is within
the URDF joint speed limits and the 10 rad/s² acceleration limit (a ~/target is reached as fast as
those allow), a failed or non-finite solve holds the last command (ERROR), ~/reset travels back
within the same limits, and nothing a cycle raises reaches the executor.

This module is ROS glue only: the piloting (targets, solve, tracking state) is the session's, the
structure and the solver `humanoid_control.kinematics`'s. Its callbacks share the node's default
(mutually exclusive) callback group, so the state needs no lock.
"""

from __future__ import annotations

import contextlib
import math
import statistics
import sys
import time

import numpy as np
import pinocchio as pin
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import Point, PoseStamped, Twist
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from sensor_msgs.msg import JointState, Joy
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
from visualization_msgs.msg import Marker, MarkerArray

from humanoid_control.kinematics import load_structure
from humanoid_control.pilot_limits import finite_configuration
from humanoid_control.piloting import HeldTwist, PilotSession, speed_spheres
from humanoid_model.exceptions import ConfigError, HumanoidStackError
from humanoid_model.validation import did_you_mean
from humanoid_ros.common import SENSOR_QOS, diagnostic_array, duration, run_node
from humanoid_ros.pilot_parameters import DEFAULT_CONTROLLERS, NODE_NAME, OUTPUTS, PARAMETERS

__all__ = [
    "NODE_NAME",
    "PARAMETERS",
    "OUTPUTS",
    "DEFAULT_CONTROLLERS",
    "WORLD_FRAMES",
    "PilotNode",
    "parse_joy_axes",
    "joy_twist",
    "twist_vector",
    "pose_target",
    "main",
]

WORLD_FRAMES = ("", "world", "odom")
"""Frame ids accepted for a ~/target: the structure's world, which is the stack's fixed frame
``odom`` (REP 105 name; the simulator's and the viewer's world)."""

MARKER_FRAME = "odom"
AXIS_LENGTH = 0.1  # [m] (chosen) length of the target's axis arrows: a hand's size
MIN_SPHERE_RADIUS = 1e-4  # [m] (chosen) a joint-speed sphere smaller than this is deleted (RViz refuses scale 0)
SOLVE_TIME_WINDOW = 100  # cycles (chosen) whose solve times give /diagnostics' solve_time_median_ms
TWIST_FIELDS = ("linear.x", "linear.y", "linear.z", "angular.x", "angular.y", "angular.z")


# ---------------------------------------------------------------------------------------------
# Messages <-> library values (no node state: unit-tested without DDS)
def parse_joy_axes(entries) -> list[tuple[int, float] | None]:
    """``joy_axes`` -> per twist component (axis index, sign) or None (unused); `ConfigError`
    for a malformed entry."""
    out = []
    for k, entry in enumerate(entries):
        text = str(entry).strip()
        if text.lower() in ("none", ""):
            out.append(None)
            continue
        sign = -1.0 if text.startswith("-") else 1.0
        digits = text[1:] if text[:1] in "+-" else text
        if not digits.isdigit():
            raise ConfigError(
                f"node '{NODE_NAME}': parameter joy_axes must hold an axis index, -INDEX or none per twist "
                f"component; value {entry!r} ({TWIST_FIELDS[k]})"
            )
        out.append((int(digits), sign))
    return out


def twist_vector(msg: Twist) -> np.ndarray:
    """[vx vy vz wx wy wz] of a Twist (unchecked)."""
    a, w = msg.linear, msg.angular
    return np.array([a.x, a.y, a.z, w.x, w.y, w.z], dtype=float)


def joy_twist(axes, mapping, deadband: float) -> np.ndarray:
    """The unit twist (6,) of joystick ``axes`` through ``mapping`` (`parse_joy_axes`), axes
    below ``deadband`` counting as 0. `ValueError` naming the field when an axis is missing or
    not finite."""
    axes = list(axes)
    v = np.zeros(6)
    for k, m in enumerate(mapping):
        if m is None:
            continue
        index, sign = m
        if index >= len(axes):
            raise ValueError(f"~/joy: field 'axes[{index}]' missing ({len(axes)} axes) for {TWIST_FIELDS[k]}")
        x = float(axes[index])
        if not math.isfinite(x):
            raise ValueError(f"~/joy: field 'axes[{index}]' must be finite; value {x}")
        v[k] = 0.0 if abs(x) < deadband else sign * x
    return v


def pose_target(msg: PoseStamped, topic: str = "~/target") -> pin.SE3:
    """The ``pin.SE3`` of a PoseStamped in the structure's world; `ValueError` naming ``topic`` and
    the field for another frame, a non-finite value or a zero quaternion (others are normalised)."""
    frame = msg.header.frame_id.lstrip("/")
    if frame not in WORLD_FRAMES:
        raise ValueError(
            f"{topic}: field 'header.frame_id' must be world, odom or empty (the structure's world); value {frame!r}"
        )
    p, o = msg.pose.position, msg.pose.orientation
    xyz, quat = np.array([p.x, p.y, p.z], float), np.array([o.x, o.y, o.z, o.w], float)
    if not np.isfinite(xyz).all():
        raise ValueError(f"{topic}: field 'pose.position' must be finite; value {xyz.tolist()}")
    n = float(np.linalg.norm(quat))
    if not np.isfinite(quat).all() or n < 1e-9:
        raise ValueError(
            f"{topic}: field 'pose.orientation' must be a finite non-zero quaternion; value {quat.tolist()}"
        )
    quat /= n
    return pin.SE3(pin.Quaternion(quat[3], quat[0], quat[1], quat[2]).toRotationMatrix(), xyz)


# ---------------------------------------------------------------------------------------------
class PilotNode(Node):
    """The piloting node (see the module docstring): ROS glue around a
    `humanoid_control.piloting.PilotSession` (``session``). Attributes read by tests:
    ``structure``, ``q`` (the commanded configuration), ``target`` (the driven frame's
    `FrameTarget`), ``report`` (the last `SolveReport`), ``error`` (position [m], rotation [rad]
    after the last step), ``state`` (tracking, approaching, out_of_reach), ``cycles``,
    ``moving_cycles`` (cycles a twist moved the target), ``published``, ``refused``, ``camera``
    (the rotation (3, 3) of the last camera pose on `view_topic`, None before one)."""

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.p = PARAMETERS.declare(self)
        self.structure = s = self._read_structure()
        frame = self.frame = self.p["frame"]
        if not s.model.existFrame(frame):
            names = [f.name for f in s.model.frames]
            raise ConfigError(
                f"node '{NODE_NAME}': parameter frame names no frame of structure '{s.name}'; value {frame!r}"
                f"{did_you_mean(frame, names)}"
            )
        self.joy_map = parse_joy_axes(self.p["joy_axes"])
        self.output = self.p["output"]
        self.controller = self.p["controller"] or DEFAULT_CONTROLLERS[self.output]
        self.dt = 1.0 / self.p["rate"]
        self.fk = s.model.createData()
        self.iq = np.array([s.joint_index(n)[0] for n in s.joint_names], dtype=int)
        # the driven frame, the other frames whose source is active held where they are; one solve per
        # cycle, straight to the target (docs/piloting.md)
        self.session = PilotSession(
            s,
            frames=[frame],
            mode=self.p["mode"],
            solver=self.p["solver"],
            rate=self.p["rate"],
            held=[f for f in s.driven_frames() if f != frame],
            max_step=None,
            corrections=0,
            tolerance=self.p["tolerance"],
            jerk=self.p["max_jerk"] if self.p["jerk_filter"] else None,
        )
        self.session.warm_up()  # the process's first solve (~1 s) here, not in the first cycle

        self.command = HeldTwist()  # latest unit twist (from ~/twist or ~/joy)
        self.moving_cycles = self.published = self.reported_bounds = 0
        self.report = None
        self.error = (0.0, 0.0)
        self.residual = 0.0
        self.state = "tracking"

        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.marker_pub = self.create_publisher(MarkerArray, "~/markers", 10)
        self.traj_pub = self.fwd_pub = None
        if self.output == "joint_trajectory":
            self.traj_pub = self.create_publisher(JointTrajectory, f"{self.controller}/joint_trajectory", 10)
        elif self.output == "forward_position":
            self.fwd_pub = self.create_publisher(Float64MultiArray, f"{self.controller}/commands", 10)
        self.create_subscription(Twist, "~/twist", self._on_twist, 10)
        self.create_subscription(Joy, "~/joy", self._on_joy, 10)
        self.create_subscription(PoseStamped, "~/target", self._on_target, 10)
        self.create_subscription(JointState, "joint_states", self._on_measured, SENSOR_QOS)
        self.camera = None
        self.create_subscription(PoseStamped, self.p["view_topic"], self._on_camera, 10)
        self.phantom_pub = self.create_publisher(JointState, "~/joint_states", 10)
        self.measured: dict[str, float] = {}  # latest /joint_states positions of the structure's joints
        self.measured_at: float | None = None
        self.waiting = self.p["start_from"] == "measured"  # no command before the first /joint_states
        self.create_service(Trigger, "~/reset", self._on_reset)
        self.add_on_set_parameters_callback(PARAMETERS.on_set_parameters(lambda: self.p, self._apply))
        steady = Clock(clock_type=ClockType.STEADY_TIME)  # a stalled /clock must not stop the pilot
        self.timer = self.create_timer(self.dt, self._cycle, clock=steady)
        self.diag_timer = self.create_timer(self.p["diagnostics_period"], self._diagnose_state, clock=steady)
        topic = "commands" if self.fwd_pub else "joint_trajectory"
        where = self.resolve_topic_name(f"{self.controller}/{topic}") if self.controller else "none"
        self.get_logger().info(
            f"structure '{s.name}' ({len(s.joint_names)} joints, closures: {', '.join(s.closures) or 'none'}), "
            f"frame {frame} ({self.p['mode']}, {self.p['command_frame']} axes), {self.p['rate']:g} Hz, output {where}"
        )

    def _read_structure(self):
        """The kinematic structure of `robot`, or of the robot of /robot_description (`robot` "")
        with the sidecar of `robot_like` (`humanoid_ros.robot_description`)."""
        if self.p["robot"]:
            try:
                return load_structure(self.p["robot"])
            except HumanoidStackError as exc:
                raise ConfigError(f"node '{NODE_NAME}': parameter robot: {exc}") from None

        from humanoid_ros.robot_description import read_robot_description, structure_like

        text = read_robot_description(self, self.p["robot_description_timeout"])
        like = structure_like(text, self.p["robot_like"])
        try:
            return load_structure(like, urdf_text=text)
        except HumanoidStackError as exc:
            raise ConfigError(
                f"node '{NODE_NAME}': the robot of /robot_description with structure {like!r}: {exc}"
            ) from None

    # ------------------------------------------------------------------ the session's state
    @property
    def q(self) -> np.ndarray:
        """The commanded configuration (nq,)."""
        return self.session.q

    @property
    def target(self):
        """The driven frame's `FrameTarget`."""
        return self.session.targets[self.frame]

    @property
    def cycles(self) -> int:
        return self.session.cycles

    @property
    def refused(self) -> int:
        return self.session.refused

    # ------------------------------------------------------------------ helpers
    def _apply(self, updates: dict):
        """Dynamic parameters: the session's tolerance follows."""
        self.p.update(updates)
        self.session.tolerance = self.p["tolerance"]

    def _diagnose(self, level, message: str, values: dict | None = None):
        self.diag_pub.publish(
            diagnostic_array(
                self.get_clock().now().to_msg(), f"{NODE_NAME}: solver", level, message, self.structure.name, values
            )
        )

    def _warn(self, text: str):
        """Log (at most once a second) and report at once a command the session bounded."""
        self.get_logger().warning(text, throttle_duration_sec=1.0)
        self._diagnose(DiagnosticStatus.WARN, text, self._values())

    def _refuse(self, text: str, counted: bool = False):
        """Log and report a refused input (counted by the session); the held twist stops (a
        refused command moves nothing)."""
        if not counted:
            self.session.refuse(text)
        self.command.clear()
        self.get_logger().warning(f"refused: {text}", throttle_duration_sec=1.0)
        self._diagnose(DiagnosticStatus.WARN, f"refused: {text}", self._values())

    # ------------------------------------------------------------------ inputs
    def _on_twist(self, msg):
        try:
            v = twist_vector(msg)
        except Exception as exc:  # noqa: BLE001 - a malformed message must not stop the node
            self._refuse(f"~/twist: {exc!r}")
            return
        bad = [f for f, x in zip(TWIST_FIELDS, v) if not math.isfinite(x)]
        if bad:
            self._refuse(f"~/twist: field '{bad[0]}' must be finite; value {v[TWIST_FIELDS.index(bad[0])]}")
            return
        self.command.set(v, time.monotonic())

    def _on_joy(self, msg):
        try:
            v = joy_twist(msg.axes, self.joy_map, self.p["joy_deadband"])
        except Exception as exc:  # noqa: BLE001
            self._refuse(str(exc) if isinstance(exc, ValueError) else f"~/joy: {exc!r}")
            return
        self.command.set(v, time.monotonic())

    def _on_target(self, msg):
        try:
            pose = pose_target(msg)
        except Exception as exc:  # noqa: BLE001
            self._refuse(str(exc) if isinstance(exc, (ValueError, HumanoidStackError)) else f"~/target: {exc!r}")
            return
        if not self.session.set_target(self.frame, pose):
            self._refuse(self.session.last_refusal, counted=True)
            return
        self.command.clear()  # a new absolute target replaces what the twist was doing
        self.get_logger().info(f"~/target: {np.round(self.target.target.translation, 4).tolist()}")

    def _on_camera(self, msg):
        try:
            self.camera = pose_target(msg, self.p["view_topic"]).rotation
        except Exception as exc:  # noqa: BLE001
            self._refuse(str(exc) if isinstance(exc, ValueError) else f"{self.p['view_topic']}: {exc!r}")

    def _on_measured(self, msg):
        """The measured robot: its positions of the structure's joints (others ignored); the
        first one starts the node when `start_from` is measured."""
        if len(msg.position) != len(msg.name):
            self._refuse(f"joint_states: {len(msg.name)} names but {len(msg.position)} positions")
            return
        got = self.session.known_joints(msg.name, msg.position)
        if not got:
            return
        self.measured.update(got)
        self.measured_at = time.monotonic()
        if self.waiting:
            self.session.reset(self.session.configuration(self.measured))
            self.waiting = False
            n = f"{len(got)} of {len(self.structure.joint_names)} joints"
            self.get_logger().info(f"starting from the measured configuration ({n})")

    def _on_reset(self, request, response):
        measured = self.p["start_from"] == "measured" and self.measured
        # no jump: the command travels there within the joint limits
        self.session.reset(self.session.configuration(self.measured) if measured else None, travel=True)
        self.command.clear()
        self.state, self.residual = "tracking", 0.0
        where = "the measured" if measured else "the structure's initial"
        response.success, response.message = True, f"reset to {where} configuration"
        return response

    # ------------------------------------------------------------------ cycle
    def _cycle(self):
        if self.waiting:
            self.get_logger().info("start_from measured: waiting for joint_states", once=True)
            return
        try:
            p = self.p
            inc = self.command.increment(time.monotonic(), p["command_timeout"], p["sensitivity"], self.dt)
            if inc is not None:
                if p["command_frame"] == "view" and self.camera is None:
                    self.get_logger().warning("command_frame view: no camera pose yet, world axes", once=True)
                if not self.session.move(self.frame, inc, p["command_frame"], self.camera):
                    self._refuse(self.session.last_refusal, counted=True)
                else:
                    self.moving_cycles += 1
            state = self.session.step()
            self.report, self.residual = state.report, state.residual
            self.error = state.errors[self.frame]
            if self.session.bounded != self.reported_bounds:  # a goal bounded since the last cycle
                self.reported_bounds = self.session.bounded
                self._warn(f"bounded: {self.session.last_bound}")
            if state.fault:  # the session held the last command (finite) and dropped the goals
                self.get_logger().error(f"{state.fault}; holding the last command", throttle_duration_sec=1.0)
                self._diagnose(DiagnosticStatus.ERROR, f"{state.fault}; holding the last command", self._values())
            if state.tracking == "out_of_reach" and self.state != "out_of_reach":
                pos, rot = self.error
                self.get_logger().warning(
                    f"target out of reach: residual {self.residual:.4g} m (position {pos:.4g} m, rotation {rot:.4g} "
                    "rad); holding the closest pose"
                )
            self.state = state.tracking
            self._publish(state)
        except Exception as exc:  # noqa: BLE001 - report, keep the last pose, stay up
            self._cycle_error(exc)

    def _cycle_error(self, exc: Exception) -> None:
        """Report a cycle's exception (log, /diagnostics ERROR); never raises: a report that fails
        itself leaves one log line, and nothing escapes to the executor (it would end the process)."""
        try:
            text = str(exc) if isinstance(exc, HumanoidStackError) else f"internal error in the solver cycle: {exc!r}"
            self.get_logger().error(text, throttle_duration_sec=1.0)
            self._diagnose(DiagnosticStatus.ERROR, text, self._values())
        except Exception as again:  # noqa: BLE001
            with contextlib.suppress(Exception):
                self.get_logger().error(
                    f"internal error reporting a cycle's error: {again!r}", throttle_duration_sec=1.0
                )

    # ------------------------------------------------------------------ outputs
    def positions(self) -> list[float]:
        """The commanded joint positions, URDF joint order (the structure's 1-DOF joints): the jerk
        filter's when it is on (`jerk_filter`)."""
        state = self.session.state
        if state is not None and state.command is not None:
            return [float(x) for x in state.command]
        return [float(x) for x in self.q[self.iq]]

    def _publish(self, state):
        if not finite_configuration(state.q):  # the session holds a finite one: a last guard
            self.get_logger().error("non-finite command not sent", throttle_duration_sec=1.0)
            return
        if self.traj_pub is not None:
            msg = JointTrajectory()
            msg.joint_names = list(self.structure.joint_names)
            msg.points = [JointTrajectoryPoint(positions=self.positions(), time_from_start=duration(self.dt))]
            self.traj_pub.publish(msg)
            self.published += 1
        elif self.fwd_pub is not None:
            self.fwd_pub.publish(Float64MultiArray(data=self.positions()))
            self.published += 1
        phantom = JointState(name=list(self.structure.joint_names), position=self.positions())
        phantom.header.stamp = self.get_clock().now().to_msg()
        self.phantom_pub.publish(phantom)
        self.marker_pub.publish(self._markers(state))

    def _markers(self, state) -> MarkerArray:
        T = self.target.target
        stamp = self.get_clock().now().to_msg()
        out = []
        o = T.translation
        for k, color in enumerate(((1.0, 0.1, 0.1), (0.1, 0.8, 0.1), (0.1, 0.3, 1.0))):
            m = Marker(ns="target", id=k, type=Marker.ARROW, action=Marker.ADD)
            m.points = [Point(x=o[0], y=o[1], z=o[2]), Point(**dict(zip("xyz", o + AXIS_LENGTH * T.rotation[:, k])))]
            m.scale.x, m.scale.y, m.scale.z = 0.008, 0.016, 0.02
            m.color.r, m.color.g, m.color.b, m.color.a = (*color, 1.0)
            out.append(m)
        p = self.session.placement(self.frame).translation
        m = Marker(ns="frame", id=0, type=Marker.SPHERE, action=Marker.ADD)
        m.pose.position = Point(x=p[0], y=p[1], z=p[2])
        m.pose.orientation.w = 1.0
        m.scale.x = m.scale.y = m.scale.z = 0.03
        m.color.r, m.color.g, m.color.b, m.color.a = 1.0, 0.8, 0.1, 0.8
        out.append(m)
        text = f"dexterity {state.dexterity:.1f}"
        if self.state == "out_of_reach":
            text += f"\nout of reach: {1e3 * self.residual:.1f} mm"
        m = Marker(ns="dexterity", id=0, type=Marker.TEXT_VIEW_FACING, action=Marker.ADD, text=text)
        m.pose.position = Point(x=o[0], y=o[1], z=o[2] + 1.5 * AXIS_LENGTH)
        m.pose.orientation.w = 1.0
        m.scale.z = 0.04
        m.color.r = m.color.g = m.color.b = m.color.a = 1.0
        out.append(m)
        # a sphere per joint, radius ∝ |q̇| over the cycle (Flückiger 1998, §6.2.2, Fig. 6-9)
        for k, (_, c, radius) in enumerate(speed_spheres(self.structure, state.q, state.speeds, data=self.fk)):
            shown = radius >= MIN_SPHERE_RADIUS
            m = Marker(ns="joint_speed", id=k, type=Marker.SPHERE, action=Marker.ADD if shown else Marker.DELETE)
            m.pose.position = Point(x=c[0], y=c[1], z=c[2])
            m.pose.orientation.w = 1.0
            m.scale.x = m.scale.y = m.scale.z = 2.0 * radius if shown else 1.0
            m.color.r, m.color.g, m.color.b, m.color.a = 1.0, 0.55, 0.0, 0.7
            out.append(m)
        for m in out:
            m.header.frame_id, m.header.stamp = MARKER_FRAME, stamp
        return MarkerArray(markers=out)

    def _values(self) -> dict:
        r = self.report
        values = {"state": self.state, "frame": self.frame, "command_frame": self.p["command_frame"]}
        if r is not None:
            for level, x in sorted(r.level_residual.items()):
                values[f"residual_level_{level}_m"] = f"{x:.6g}"
            values["dexterity"] = f"{r.dexterity:.4g}"
            values["saturated"] = ", ".join(r.saturated)
        values["target_residual_m"] = f"{self.residual:.6g}"
        values["target_position_error_m"] = f"{self.error[0]:.6g}"
        values["target_rotation_error_rad"] = f"{self.error[1]:.6g}"
        solve_s = list(self.session.solve_times)[-SOLVE_TIME_WINDOW:]
        if solve_s:
            values["solve_time_median_ms"] = f"{1e3 * statistics.median(solve_s):.3f}"
        lead = self.session.lead(self.measured)
        if lead is not None:
            values["measured_lead_max"] = f"{lead:.6g}"
            values["measured_age_s"] = f"{time.monotonic() - self.measured_at:.3f}"
        values["cycles"] = self.cycles
        values["refused_inputs"] = self.refused
        values["last_refusal"] = self.session.last_refusal
        values["bounded_inputs"] = self.session.bounded
        values["last_bound"] = self.session.last_bound
        values["faults"] = self.session.faults
        values["last_fault"] = self.session.last_fault
        state = self.session.state
        values["step_scale"] = f"{state.scale:.4g}" if state is not None else "1"
        return values

    def _diagnose_state(self):
        try:
            if self.state == "out_of_reach":
                level = DiagnosticStatus.WARN
                text = f"target out of reach: residual {self.residual:.4g} m; holding the closest pose"
            else:
                level = DiagnosticStatus.OK
                text = f"{self.state}: residual {self.residual:.3g} m"
            self._diagnose(level, text, self._values())
        except Exception as exc:  # noqa: BLE001
            self.get_logger().error(f"/diagnostics: {exc!r}", throttle_duration_sec=1.0)


def main(args=None) -> int:
    """Entry point of the `pilot` executable (`ros2 run humanoid_stack pilot`)."""
    return run_node(PilotNode, NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
