"""Piloting node (`pilot`): a frame of a kinematic structure follows a 6-DOF mouse, a joystick or
absolute pose targets; the solved joints go to the simulator's or a robot's controllers
(issue 10, "Piloting node"; docs/piloting.md).

    ros2 run humanoid_stack pilot --ros-args -p robot:=hrp2 -p frame:=r_hand
    ros2 topic pub -r 20 /pilot/twist geometry_msgs/msg/Twist "{linear: {x: 0.5}}"

Parameters: `PARAMETERS` below (docs/ros.md, "pilot").

Topics
    subscribes ~/twist (geometry_msgs/Twist: an incremental 6-DOF mouse, e.g. spacenav's
               /spacenav/twist), ~/joy (sensor_msgs/Joy: axes -> twist through `joy_axes`),
               ~/target (geometry_msgs/PoseStamped: absolute target, frame_id world/odom or ""),
               /joint_states (sensor_msgs/JointState: the measured robot; `start_from: measured`
               starts from it, /diagnostics reports the command's lead over it),
               `view_topic` (geometry_msgs/PoseStamped: the camera whose axes `command_frame: view`
               uses; the web viewer node publishes its browser's camera on /viewer/camera)
    publishes  ~/joint_states (sensor_msgs/JointState: the commanded configuration, the "phantom"
               robot: a second state publisher with `frame_prefix: phantom/` on it, docs/piloting.md),
               /<controller>/joint_trajectory (trajectory_msgs/JointTrajectory, one point at
               1/rate) or /<controller>/commands (std_msgs/Float64MultiArray, URDF joint order),
               ~/markers (visualization_msgs/MarkerArray: target axes, driven frame, dexterity
               text), /diagnostics (residual per level, target error, dexterity)
Services   ~/reset (std_srvs/Trigger: back to the structure's initial configuration and target, or
           to the measured one with `start_from: measured`)

Each cycle (`rate`): the latest twist (from ~/twist or ~/joy, younger than `command_timeout`)
times `sensitivity` times 1/rate is added to the ABSOLUTE target (`FrameTarget.move`, so
increments never drift), then one `humanoid_control.kinematics.prioritized.solve` with the
structure's closures (HRP-2: both feet welded), the CoM task (floating structures with closures),
the target and the posture task. Rotations pivot about the driven frame's origin, with world,
tool or camera ("view") axes (`command_frame`). NaN/inf inputs are refused (log and /diagnostics) and stop the held
twist; an unreachable target is not an error: the node keeps the closest pose and /diagnostics
says WARN with the residual.

This module is ROS glue only: the structure, the targets and the solver are
`humanoid_control.kinematics`'s. Its callbacks share the node's default (mutually exclusive)
callback group, so the state needs no lock.
"""

from __future__ import annotations

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

from humanoid_control.kinematics import FrameTarget, PostureTask, load_structure, prioritized
from humanoid_control.piloting import COMMAND_FRAMES, balance_tasks, command_axes, frame_gap, speed_spheres
from humanoid_model.exceptions import ConfigError, HumanoidStackError
from humanoid_model.validation import did_you_mean
from humanoid_ros.common import diagnostic_array, duration, run_node
from humanoid_ros.parameters import Parameter, ParameterTable

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

NODE_NAME = "pilot"

OUTPUTS = ("joint_trajectory", "forward_position", "none")
DEFAULT_CONTROLLERS = {
    "joint_trajectory": "joint_trajectory_controller",
    "forward_position": "forward_position_controller",
    "none": "",
}
"""Controller name used when the `controller` parameter is "" (the simulator's names, docs/ros.md)."""

WORLD_FRAMES = ("", "world", "odom")
"""Frame ids accepted for a ~/target: the structure's world, which is the stack's fixed frame
``odom`` (REP 105 name; the simulator's and the viewer's world)."""

MARKER_FRAME = "odom"
AXIS_LENGTH = 0.1  # [m] (chosen) length of the target's axis arrows: a hand's size
MIN_SPHERE_RADIUS = 1e-4  # [m] (chosen) a joint-speed sphere smaller than this is deleted (RViz refuses scale 0)
TWIST_FIELDS = ("linear.x", "linear.y", "linear.z", "angular.x", "angular.y", "angular.z")

PARAMETERS = ParameterTable(
    NODE_NAME,
    [
        Parameter(
            "robot",
            "string",
            "hrp2",
            "kinematic structure: a shipped name (`urdf/kinematics/NAME.kin.yaml`: hrp2, hybrid_planar, macdac, "
            "cross_delta, redundant_6r) or a path to a NAME.kin.yaml sidecar (docs/kinematics.md)",
            non_empty=True,
        ),
        Parameter(
            "frame",
            "string",
            "r_hand",
            "the driven frame (a link, joint or sidecar frame of the structure; default: HRP-2's right hand "
            "of `urdf/kinematics/hrp2.kin.yaml`); an unknown name stops the start",
            non_empty=True,
        ),
        Parameter(
            "mode",
            "string",
            "pose",
            "what of the frame follows the target: the 6-D `pose`, its `position` or its `orientation`",
            choices=("pose", "position", "orientation"),
        ),
        Parameter(
            "command_frame",
            "string",
            "world",
            "axes of the twist and joystick commands: `world`, `tool` (the driven frame's axes) or `view` (the "
            "axes of the camera on `view_topic`: x right, y down, z into the screen; world axes until one "
            "arrives); rotations pivot about the driven frame's origin in all three "
            "(`../shared/spec/002_fluckiger.md:253`)",
            choices=COMMAND_FRAMES,
            dynamic=True,
        ),
        Parameter(
            "view_topic",
            "string",
            "/viewer/camera",
            "geometry_msgs/PoseStamped of the camera whose axes `command_frame: view` uses (frame world or "
            "odom): the web viewer node publishes its browser's camera there",
            non_empty=True,
        ),
        Parameter(
            "sensitivity",
            "double_array",
            [0.1, 0.5],
            "[linear m/s, angular rad/s] per unit of twist or joystick axis (chosen: 10 cm/s and about 29°/s "
            "at a unit deflection); the per-cycle increment is this times "
            "1/rate, so speed does not depend on the rate (`../shared/spec/002_fluckiger.md:254`)",
            length=2,
            minimum=0.0,
            dynamic=True,
        ),
        Parameter(
            "command_timeout",
            "double",
            0.1,
            "a twist or joystick command older than this stops moving the target (chosen: moveit_servo's "
            "`incoming_command_timeout`; joy_node repeats a held stick at 20 Hz)",
            unit="s",
            minimum=0.0,
            exclusive_minimum=True,
            dynamic=True,
        ),
        Parameter(
            "rate",
            "double",
            25.0,
            "solver cycle and command rate (the thesis's >= 25 Hz, `../shared/spec/002_fluckiger.md:506`)",
            unit="Hz",
            minimum=0.0,
            exclusive_minimum=True,
            maximum=1000.0,
        ),
        Parameter(
            "output",
            "string",
            "joint_trajectory",
            "`joint_trajectory`: one-point JointTrajectory on `/<controller>/joint_trajectory`; "
            "`forward_position`: Float64MultiArray on `/<controller>/commands` (URDF joint order); `none`",
            choices=OUTPUTS,
        ),
        Parameter(
            "controller",
            "string",
            "",
            'controller name (topic prefix); `""` = the simulator\'s name for the output: '
            "`joint_trajectory_controller`, or `forward_position_controller`",
        ),
        Parameter(
            "joy_axes",
            "string_array",
            ["0", "1", "2", "3", "4", "5"],
            "~/joy axis of each twist component (linear x, y, z, angular x, y, z): an index, `-INDEX` "
            "(inverted) or `none`. Default: a 6-axis joystick in twist order, as spacenav's /spacenav/joy",
            length=6,
        ),
        Parameter(
            "joy_deadband",
            "double",
            0.05,
            "|axis| below this counts as 0 (chosen)",
            minimum=0.0,
            maximum=1.0,
            exclusive_maximum=True,
            dynamic=True,
        ),
        Parameter(
            "tolerance",
            "double",
            0.001,
            "target reached when |position error| + length_scale·|rotation error| is below this; above it and no "
            "longer shrinking: out of reach, /diagnostics WARN (chosen: the issue's 1 mm hand tracking)",
            unit="m",
            minimum=0.0,
            exclusive_minimum=True,
            dynamic=True,
        ),
        Parameter(
            "start_from",
            "string",
            "initial",
            "`initial`: the structure's initial configuration; `measured`: wait for the first /joint_states "
            "and start from it (joints clipped to their limits, world closures such as HRP-2's feet "
            "re-anchored where they are, targets and posture taken there): use it with a real robot, so "
            "the first command does not pull it to the initial configuration",
            choices=("initial", "measured"),
        ),
        Parameter(
            "diagnostics_period",
            "double",
            1.0,
            "period of the /diagnostics status (chosen, as the simulator); refusals are reported at once",
            unit="s",
            minimum=0.0,
            exclusive_minimum=True,
        ),
    ],
)
"""The piloting node's parameters (docs/ros.md, "pilot")."""


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
    """The piloting node (see the module docstring). Attributes read by tests: ``structure``,
    ``q`` (the commanded configuration), ``target`` (the driven frame's `FrameTarget`),
    ``report`` (the last `SolveReport`), ``error`` (position [m], rotation [rad] after the last
    step), ``state`` (tracking, approaching, out_of_reach), ``cycles``, ``moving_cycles`` (cycles
    a twist moved the target), ``published``, ``refused``, ``camera`` (the rotation (3, 3) of the
    last camera pose on `view_topic`, None before one)."""

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.p = PARAMETERS.declare(self)
        try:
            self.structure = s = load_structure(self.p["robot"])
        except HumanoidStackError as exc:
            raise ConfigError(f"node '{NODE_NAME}': parameter robot: {exc}") from None
        frame = self.p["frame"]
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
        self.fid = s.model.getFrameId(frame)
        self.fk = s.model.createData()
        self.iq = np.array([s.joint_index(n)[0] for n in s.joint_names], dtype=int)
        self._build_tasks()
        # the first solve of a process costs ~1 s (lazy imports, LAPACK set-up; measured): pay it
        # here, not in the first cycle; its result is discarded
        prioritized.solve(s, self.q, *self.tasks)

        self.command = np.zeros(6)  # latest unit twist (from ~/twist or ~/joy)
        self.command_at: float | None = None  # time.monotonic() of that command
        self.cycles = self.moving_cycles = self.published = self.refused = 0
        self.last_refusal = ""
        self.report = None
        self.error = (0.0, 0.0)
        self.residual = 0.0
        self.state = "tracking"
        self.solve_ms: list[float] = []

        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.marker_pub = self.create_publisher(MarkerArray, "~/markers", 10)
        self.traj_pub = self.fwd_pub = None
        if self.output == "joint_trajectory":
            self.traj_pub = self.create_publisher(JointTrajectory, f"/{self.controller}/joint_trajectory", 10)
        elif self.output == "forward_position":
            self.fwd_pub = self.create_publisher(Float64MultiArray, f"/{self.controller}/commands", 10)
        self.create_subscription(Twist, "~/twist", self._on_twist, 10)
        self.create_subscription(Joy, "~/joy", self._on_joy, 10)
        self.create_subscription(PoseStamped, "~/target", self._on_target, 10)
        self.create_subscription(JointState, "/joint_states", self._on_measured, 10)
        self.camera = None
        self.create_subscription(PoseStamped, self.p["view_topic"], self._on_camera, 10)
        self.phantom_pub = self.create_publisher(JointState, "~/joint_states", 10)
        self.measured: dict[str, float] = {}  # latest /joint_states positions of the structure's joints
        self.measured_at: float | None = None
        self.waiting = self.p["start_from"] == "measured"  # no command before the first /joint_states
        self.create_service(Trigger, "~/reset", self._on_reset)
        self.add_on_set_parameters_callback(PARAMETERS.on_set_parameters(lambda: self.p, self.p.update))
        steady = Clock(clock_type=ClockType.STEADY_TIME)  # a stalled /clock must not stop the pilot
        self.timer = self.create_timer(self.dt, self._cycle, clock=steady)
        self.diag_timer = self.create_timer(self.p["diagnostics_period"], self._diagnose_state, clock=steady)
        topic = "commands" if self.fwd_pub else "joint_trajectory"
        where = f"/{self.controller}/{topic}" if self.controller else "none"
        self.get_logger().info(
            f"structure '{s.name}' ({len(s.joint_names)} joints, closures: {', '.join(s.closures) or 'none'}), "
            f"frame {frame} ({self.p['mode']}, {self.p['command_frame']} axes), {self.p['rate']:g} Hz, output {where}"
        )

    # ------------------------------------------------------------------ set-up
    def _build_tasks(self, q=None):
        """The solver's tasks at ``q`` (default: the structure's initial configuration): the
        target, the other driven frames of the sidecar held where they are, the CoM (a floating
        structure standing on closures: HRP-2's feet) and the posture. The world closures are
        anchored where their frames are at ``q``."""
        s = self.structure
        self.q = s.q0.copy() if q is None else np.array(q, float)
        for c in s.closures.values():
            if c.anchor is not None:
                c.anchor = s.placement(self.q, c.frame_a)
        self.target = FrameTarget(s, self.p["frame"], mode=self.p["mode"])
        self.target.target = s.placement(self.q, self.p["frame"])  # the full placement, for every mode
        held = [FrameTarget(s, f, target=s.placement(self.q, f)) for f in s.driven_frames() if f != self.p["frame"]]
        balance = balance_tasks(s)
        for t in balance:
            t.set_target(s.com(self.q)[:2])
        self.tasks = (*balance, self.target, *held, PostureTask(s, q_ref=self.q))
        pin.framesForwardKinematics(s.model, self.fk, self.q)

    # ------------------------------------------------------------------ helpers
    def _diagnose(self, level, message: str, values: dict | None = None):
        self.diag_pub.publish(
            diagnostic_array(
                self.get_clock().now().to_msg(), f"{NODE_NAME}: solver", level, message, self.structure.name, values
            )
        )

    def _refuse(self, text: str):
        """Log and report a refused input; the held twist stops (a refused command moves nothing)."""
        self.refused += 1
        self.last_refusal = text
        self.command[:] = 0.0
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
        self.command, self.command_at = v, time.monotonic()

    def _on_joy(self, msg):
        try:
            v = joy_twist(msg.axes, self.joy_map, self.p["joy_deadband"])
        except Exception as exc:  # noqa: BLE001
            self._refuse(str(exc) if isinstance(exc, ValueError) else f"~/joy: {exc!r}")
            return
        self.command, self.command_at = v, time.monotonic()

    def _on_target(self, msg):
        try:
            self.target.set_target(pose_target(msg))
        except Exception as exc:  # noqa: BLE001
            self._refuse(str(exc) if isinstance(exc, (ValueError, HumanoidStackError)) else f"~/target: {exc!r}")
            return
        self.command[:] = 0.0  # a new absolute target replaces what the twist was doing
        self.get_logger().info(f"~/target: {np.round(self.target.target.translation, 4).tolist()}")

    def _on_camera(self, msg):
        try:
            self.camera = pose_target(msg, self.p["view_topic"]).rotation
        except Exception as exc:  # noqa: BLE001
            self._refuse(str(exc) if isinstance(exc, ValueError) else f"{self.p['view_topic']}: {exc!r}")

    def _on_measured(self, msg):
        """The measured robot: its positions of the structure's joints (others ignored); the
        first one starts the node when `start_from` is measured."""
        s = self.structure
        if len(msg.position) != len(msg.name):
            self._refuse(f"/joint_states: {len(msg.name)} names but {len(msg.position)} positions")
            return
        got = {n: float(x) for n, x in zip(msg.name, msg.position) if n in s._joint and math.isfinite(x)}
        if not got:
            return
        self.measured.update(got)
        self.measured_at = time.monotonic()
        if self.waiting:
            self._build_tasks(self.measured_configuration())
            self.waiting = False
            n = f"{len(got)} of {len(s.joint_names)} joints"
            self.get_logger().info(f"starting from the measured configuration ({n})")

    def measured_configuration(self) -> np.ndarray:
        """The structure's initial configuration with the measured joints (clipped to limits)."""
        s = self.structure
        q = s.q0.copy()
        for n, x in self.measured.items():
            q[s.joint_index(n)[0]] = x
        q[s.lim_q] = np.clip(q[s.lim_q], s.lower, s.upper)
        return q

    def _on_reset(self, request, response):
        measured = self.p["start_from"] == "measured" and self.measured
        self._build_tasks(self.measured_configuration() if measured else None)
        self.command[:] = 0.0
        self.state, self.residual = "tracking", 0.0
        where = "the measured" if measured else "the structure's initial"
        response.success, response.message = True, f"reset to {where} configuration"
        return response

    # ------------------------------------------------------------------ cycle
    def _increment(self) -> np.ndarray | None:
        """The target increment of this cycle [m, rad] from the held twist, None when none."""
        if self.command_at is None or time.monotonic() - self.command_at > self.p["command_timeout"]:
            return None
        if not self.command.any():
            return None
        lin, ang = self.p["sensitivity"]
        return np.concatenate([lin * self.command[:3], ang * self.command[3:]]) * self.dt

    def _cycle(self):
        if self.waiting:
            self.get_logger().info("start_from measured: waiting for /joint_states", once=True)
            return
        try:
            inc = self._increment()
            if inc is not None:
                frame = self.p["command_frame"]
                if frame == "view":  # the camera's axes in the world, about the driven frame's origin
                    if self.camera is None:
                        self.get_logger().warning("command_frame view: no camera pose yet, world axes", once=True)
                    axes = command_axes(frame, None, self.camera)
                    inc, frame = np.concatenate([axes @ inc[:3], axes @ inc[3:]]), "world"
                self.target.move(inc, frame)
                self.moving_cycles += 1
            before = self._gap()[0]  # self.fk still holds the previous configuration
            t0 = time.perf_counter()
            q, report = prioritized.solve(self.structure, self.q, *self.tasks)
            self.solve_ms = (self.solve_ms + [1e3 * (time.perf_counter() - t0)])[-100:]
            self.q, self.report = q, report
            self.cycles += 1
            pin.framesForwardKinematics(self.structure.model, self.fk, self.q)
            self._classify(before)
            self._publish()
        except Exception as exc:  # noqa: BLE001 - report, keep the last pose, stay up
            text = str(exc) if isinstance(exc, HumanoidStackError) else f"internal error in the solver cycle: {exc!r}"
            self.get_logger().error(text, throttle_duration_sec=1.0)
            self._diagnose(DiagnosticStatus.ERROR, text, self._values())

    def _gap(self) -> tuple[float, float, float]:
        """(residual [m], position error [m], rotation error [rad]) of the driven frame at the
        configuration ``self.fk`` holds: the residual counts what `mode` drives, rotations times
        the structure's length_scale (the solver's units, docs/kinematics.md)."""
        return frame_gap(self.fk.oMf[self.fid], self.target.target, self.p["mode"], self.structure.length_scale)

    def _classify(self, before: float):
        """Tracking state after the step: reached (tracking: residual <= tolerance), closing the
        gap by more than the tolerance this cycle (approaching), or not getting closer
        (out_of_reach: the solver holds the closest pose it reached)."""
        self.residual, pos, rot = self._gap()
        self.error = (pos, rot)
        tol = self.p["tolerance"]
        if self.residual <= tol:
            state = "tracking"
        elif before - self.residual > tol:
            state = "approaching"
        else:
            state = "out_of_reach"
        if state == "out_of_reach" and self.state != "out_of_reach":
            self.get_logger().warning(
                f"target out of reach: residual {self.residual:.4g} m (position {pos:.4g} m, rotation {rot:.4g} rad); "
                "holding the closest pose"
            )
        self.state = state

    # ------------------------------------------------------------------ outputs
    def positions(self) -> list[float]:
        """The commanded joint positions, URDF joint order (the structure's 1-DOF joints)."""
        return [float(x) for x in self.q[self.iq]]

    def _publish(self):
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
        self.marker_pub.publish(self._markers())

    def measured_lead(self) -> float | None:
        """Largest |commanded - measured| over the joints /joint_states reported [rad] or [m]
        (None before any): how far the phantom is ahead of the robot."""
        if not self.measured:
            return None
        s = self.structure
        return max(abs(self.q[s.joint_index(n)[0]] - x) for n, x in self.measured.items())

    def _markers(self) -> MarkerArray:
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
        p = self.fk.oMf[self.fid].translation
        m = Marker(ns="frame", id=0, type=Marker.SPHERE, action=Marker.ADD)
        m.pose.position = Point(x=p[0], y=p[1], z=p[2])
        m.pose.orientation.w = 1.0
        m.scale.x = m.scale.y = m.scale.z = 0.03
        m.color.r, m.color.g, m.color.b, m.color.a = 1.0, 0.8, 0.1, 0.8
        out.append(m)
        dex = self.report.dexterity if self.report is not None else float("nan")
        text = f"dexterity {dex:.1f}"
        if self.state == "out_of_reach":
            text += f"\nout of reach: {1e3 * self.residual:.1f} mm"
        m = Marker(ns="dexterity", id=0, type=Marker.TEXT_VIEW_FACING, action=Marker.ADD, text=text)
        m.pose.position = Point(x=o[0], y=o[1], z=o[2] + 1.5 * AXIS_LENGTH)
        m.pose.orientation.w = 1.0
        m.scale.z = 0.04
        m.color.r = m.color.g = m.color.b = m.color.a = 1.0
        out.append(m)
        if self.report is not None:  # A20 (002_fluckiger.md:692): a sphere per joint, radius ∝ |q̇|
            speeds = self.report.joint_speeds(self.dt)
            for k, (_, c, radius) in enumerate(speed_spheres(self.structure, self.q, speeds, data=self.fk)):
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
        values = {"state": self.state, "frame": self.p["frame"], "command_frame": self.p["command_frame"]}
        if r is not None:
            for level, x in sorted(r.level_residual.items()):
                values[f"residual_level_{level}_m"] = f"{x:.6g}"
            values["dexterity"] = f"{r.dexterity:.4g}"
            values["saturated"] = ", ".join(r.saturated)
        values["target_residual_m"] = f"{self.residual:.6g}"
        values["target_position_error_m"] = f"{self.error[0]:.6g}"
        values["target_rotation_error_rad"] = f"{self.error[1]:.6g}"
        if self.solve_ms:
            values["solve_time_median_ms"] = f"{statistics.median(self.solve_ms):.3f}"
        lead = self.measured_lead()
        if lead is not None:
            values["measured_lead_max"] = f"{lead:.6g}"
            values["measured_age_s"] = f"{time.monotonic() - self.measured_at:.3f}"
        values["cycles"] = self.cycles
        values["refused_inputs"] = self.refused
        values["last_refusal"] = self.last_refusal
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
