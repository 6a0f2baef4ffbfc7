"""Robot bridge node (`robot_bridge`): sends the project's motions to a robot's ros2_control
controllers, after checking them (issue 11, "The node"; docs/real_robot.md).

    humanoid-stack up bridge_sim                    # config/bridge_sim.yaml: the simulator stands in
    ros2 launch humanoid_stack bridge.launch.py     # config/bridge.yaml: a real robot
    ros2 run humanoid_stack robot_bridge --ros-args -p robot:=hrp2 -p dry_run:=true

Parameters: `PARAMETERS` below (docs/ros.md, "robot_bridge").

Topics
    subscribes ~/trajectory (trajectory_msgs/JointTrajectory, URDF joint names): validate, then
               execute; /joint_states (the robot's measured joints; `joint_map` renames them)
    publishes  <controller>/joint_trajectory (JointTrajectory) or <controller>/commands
               (std_msgs/Float64MultiArray, streamed at `rate` with the bridge interpolating),
               /diagnostics (every refusal, stop and end of motion, with the reason)
    action     <controller>/follow_joint_trajectory (control_msgs/FollowJointTrajectory), when
               control_msgs imports (a system ROS 2; not among the PyPI wheels)
Services   ~/stop (Trigger: hold the current measured position now), ~/validate (Trigger: dry run
           on the last received trajectory, report to the log and /diagnostics), ~/execute_file
           (Trigger: load the plan file named by the `execute_file` parameter, then as ~/trajectory)

Safety (docs/real_robot.md): every trajectory goes through `humanoid_control.bridge.validate`
(names, NaN, times, position / velocity / acceleration limits along the controller's
interpolation, start state, optional self-collision); during execution the
`humanoid_control.bridge.ExecutionMonitor` compares /joint_states with the commanded motion (path
and goal tolerances), and a watchdog stops and holds when /joint_states is older than
`state_timeout`. `dry_run` validates and reports but never publishes; a trajectory arriving while
one executes is refused unless `preempt`. Bad input (a malformed message, a bad file) is refused
with the reason; the node keeps running.

This module is ROS glue only: the checks, the interpolation and the plan files are the library's
(`humanoid_control.bridge`).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from dataclasses import dataclass, field

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from humanoid_control.bridge import (
    A_MAX_DEFAULT,
    GOAL_TIME,
    GOAL_TOLERANCE,
    PATH_TOLERANCE,
    BridgeSettings,
    ExecutionMonitor,
    JointLimits,
    Trajectory,
    load_plan,
    sample,
    validate,
)
from humanoid_control.exceptions import BridgeError
from humanoid_model.exceptions import ConfigError, HumanoidStackError
from humanoid_model.validation import short
from humanoid_ros.common import diagnostic_array, duration, run_node, seconds
from humanoid_ros.parameters import Parameter, ParameterTable

try:  # control_msgs is not among the PyPI ROS 2 wheels; a system ROS 2 has it.
    from control_msgs.action import FollowJointTrajectory
    from control_msgs.msg import JointTolerance
    from rclpy.action import ActionClient
except ImportError:  # pragma: no cover - depends on the install
    FollowJointTrajectory = JointTolerance = ActionClient = None

__all__ = [
    "NODE_NAME",
    "PARAMETERS",
    "CONTROLLER_TYPES",
    "DEFAULT_CONTROLLERS",
    "RobotBridgeNode",
    "trajectory_from_msg",
    "trajectory_msg",
    "follow_joint_trajectory_goal",
    "parse_joint_map",
    "action_available",
    "main",
]

NODE_NAME = "robot_bridge"

CONTROLLER_TYPES = ("auto", "follow_joint_trajectory", "joint_trajectory", "forward_position")
"""How the bridge talks to the controller: ``auto`` = the FollowJointTrajectory action when
control_msgs imports and the controller's action server answers, else the joint_trajectory topic;
``follow_joint_trajectory`` = the action only; ``joint_trajectory`` = the topic of
joint_trajectory_controller; ``forward_position`` = a forward position controller's commands,
streamed at `rate` with the bridge interpolating."""

DEFAULT_CONTROLLERS = {
    "auto": "joint_trajectory_controller",
    "follow_joint_trajectory": "joint_trajectory_controller",
    "joint_trajectory": "joint_trajectory_controller",
    "forward_position": "forward_position_controller",
}
"""Controller name used when the `controller` parameter is "" (the simulator's names, docs/ros.md)."""

_S = BridgeSettings()  # the library's documented defaults are the table's


def _positive(name, default, unit, description, **kw):
    return Parameter(name, "double", default, description, unit=unit, minimum=0.0, exclusive_minimum=True, **kw)


PARAMETERS = ParameterTable(
    NODE_NAME,
    [
        Parameter("robot", "string", "hrp2", "shipped robot name or URDF path: joint names and limits", non_empty=True),
        Parameter(
            "controller_type",
            "string",
            "auto",
            "`auto`: FollowJointTrajectory action when control_msgs imports and the server answers, else the "
            "`joint_trajectory` topic; `forward_position`: stream `<controller>/commands` at `rate`",
            choices=CONTROLLER_TYPES,
        ),
        Parameter(
            "controller",
            "string",
            "",
            'controller name (topic prefix); `""` = the simulator\'s name for the type: '
            "`joint_trajectory_controller`, or `forward_position_controller`",
        ),
        Parameter(
            "controller_joints",
            "string_array",
            [],
            "joint order of a forward position controller's `commands` (its `joints` parameter, robot-side "
            "names); `[]` = the URDF joint order",
        ),
        Parameter(
            "joint_map",
            "string_array",
            [],
            "joint renaming, `URDF_NAME=ROBOT_NAME` entries: outgoing commands use ROBOT_NAME, /joint_states "
            "is read back to URDF names; unlisted joints keep their name",
        ),
        _positive(
            "rate",
            100.0,
            "Hz",
            "control loop: execution monitor, watchdog and the forward controller's stream (chosen: "
            "ros2_control's usual controller rate)",
        ),
        Parameter(
            "policy",
            "string",
            _S.policy,
            "a trajectory beyond a velocity or acceleration limit: `refuse` it, or `retime` it (time "
            "stretched until every limit holds; the factor is reported)",
            choices=("refuse", "retime"),
            dynamic=True,
        ),
        Parameter(
            "position_margin",
            "double",
            _S.position_margin,
            "positions must stay this far inside the URDF limits (chosen; `humanoid_control.bridge.BridgeSettings`)",
            unit="rad",
            minimum=0.0,
            dynamic=True,
        ),
        _positive(
            "start_tolerance",
            _S.start_tolerance,
            "rad",
            "largest |first point - measured position| (MoveIt's `allowed_start_tolerance` default)",
            dynamic=True,
        ),
        Parameter(
            "approach",
            "bool",
            _S.approach,
            "when the start is farther than `start_tolerance`, prepend an approach segment from the measured "
            "position instead of refusing",
            dynamic=True,
        ),
        _positive(
            "approach_speed",
            _S.approach_speed,
            "rad/s",
            "peak joint speed of the approach segment (chosen)",
            dynamic=True,
        ),
        Parameter(
            "self_collision",
            "bool",
            _S.self_collision,
            "check every point against the robot's collision model",
            dynamic=True,
        ),
        Parameter(
            "speed_scale",
            "double",
            _S.speed_scale,
            "time is stretched by 1 / speed_scale before any check (a first run at reduced speed)",
            minimum=0.0,
            exclusive_minimum=True,
            maximum=1.0,
            dynamic=True,
        ),
        _positive(
            "max_acceleration",
            A_MAX_DEFAULT,
            "rad/s²",
            "acceleration limit of every joint (a URDF has none; chosen, `humanoid_control/bridge/limits.py`: "
            "give the robot's datasheet value)",
        ),
        _positive(
            "path_tolerance",
            PATH_TOLERANCE,
            "rad",
            "abort and hold when a measured joint is farther than this from the commanded motion (chosen: "
            "`humanoid_control.bridge.PATH_TOLERANCE`)",
            dynamic=True,
        ),
        _positive(
            "goal_tolerance",
            GOAL_TOLERANCE,
            "rad",
            "success when every joint is this close to the last point (chosen: "
            "`humanoid_control.bridge.GOAL_TOLERANCE`)",
            dynamic=True,
        ),
        _positive(
            "goal_time",
            GOAL_TIME,
            "s",
            "time after the last point within which the goal tolerance must be met (chosen: "
            "`humanoid_control.bridge.GOAL_TIME`)",
            dynamic=True,
        ),
        _positive(
            "state_timeout",
            0.2,
            "s",
            "watchdog: stop and hold when the newest /joint_states is older than this during execution, "
            "wall clock (chosen: 10 periods of the simulator's 50 Hz)",
            dynamic=True,
        ),
        Parameter("dry_run", "bool", False, "validate and report, never publish a command", dynamic=True),
        Parameter("preempt", "bool", False, "a valid new trajectory replaces the one executing", dynamic=True),
        Parameter(
            "execute_file",
            "string",
            "",
            "plan file that ~/execute_file sends: GAIT.json, a simulator recording, PLAN.json",
            dynamic=True,
        ),
        Parameter(
            "allow_unclear_motion",
            "bool",
            False,
            "~/execute_file sends a PLAN.json whose motion has segments projected without collision rows "
            "(trajectory.unclear_segments: they may pass through an obstacle or the robot); false: refused",
            dynamic=True,
        ),
    ],
)
"""The robot bridge's parameters (docs/ros.md, "robot_bridge")."""


# ---------------------------------------------------------------------------------------------
# Messages <-> library values (no node state: unit-tested without DDS)
def parse_joint_map(entries) -> dict[str, str]:
    """``["URDF=ROBOT", ...]`` -> {URDF name: robot name}; `ConfigError` for a malformed or
    repeated entry."""
    out: dict[str, str] = {}
    for entry in entries:
        ours, sep, theirs = str(entry).partition("=")
        ours, theirs = ours.strip(), theirs.strip()
        if not sep or not ours or not theirs:
            raise ConfigError(
                f"node '{NODE_NAME}': parameter joint_map must hold URDF_NAME=ROBOT_NAME entries; value {entry!r}"
            )
        if ours in out or theirs in out.values():
            raise ConfigError(f"node '{NODE_NAME}': parameter joint_map renames a joint twice; value {entry!r}")
        out[ours] = theirs
    return out


def _rows(points, attribute: str, n: int, source: str):
    """(N, n) array of one field of every point, None when no point has it; `BridgeError` when
    some points have it and others not, or a row has the wrong length."""
    rows = [list(getattr(p, attribute)) for p in points]
    given = [len(r) > 0 for r in rows]
    if not any(given):
        return None
    for k, r in enumerate(rows):
        if len(r) != n:
            what = "for some points only" if not all(given) else f"with {len(r)} values"
            raise BridgeError(
                f"{source}: field 'points[{k}].{attribute}' given {what}; expected {n} values "
                "(one per joint name) at every point, or none"
            )
    return np.array(rows, dtype=float)


def trajectory_from_msg(msg, source: str = "~/trajectory") -> Trajectory:
    """`humanoid_control.bridge.Trajectory` of a JointTrajectory message (URDF joint names).
    Shapes are checked here (`BridgeError`); names, NaN, times and limits by `validate`."""
    names = list(msg.joint_names)
    points = list(msg.points)
    if not points:
        raise BridgeError(f"{source}: field 'points' is empty")
    positions = _rows(points, "positions", len(names), source)
    if positions is None:
        raise BridgeError(f"{source}: field 'points[].positions' is empty")
    return Trajectory(
        joint_names=names,
        times=np.array([seconds(p.time_from_start) for p in points]),
        positions=positions,
        velocities=_rows(points, "velocities", len(names), source),
        accelerations=_rows(points, "accelerations", len(names), source),
        source=source,
    )


def trajectory_msg(traj: Trajectory, rename: dict[str, str] | None = None) -> JointTrajectory:
    """JointTrajectory of `traj` for the controller (robot-side names through `rename`);
    header.stamp zero: the controller starts it on receipt."""
    rename = rename or {}
    msg = JointTrajectory()
    msg.joint_names = [rename.get(n, n) for n in traj.joint_names]
    for k, t in enumerate(traj.times):
        pt = JointTrajectoryPoint()
        pt.positions = [float(x) for x in traj.positions[k]]
        if traj.velocities is not None:
            pt.velocities = [float(x) for x in traj.velocities[k]]
        if traj.accelerations is not None:
            pt.accelerations = [float(x) for x in traj.accelerations[k]]
        pt.time_from_start = duration(float(t))
        msg.points.append(pt)
    return msg


def follow_joint_trajectory_goal(
    action, tolerance_type, trajectory: JointTrajectory, path_tolerance: float, goal_tolerance: float, goal_time: float
):
    """A ``FollowJointTrajectory.Goal`` (``action`` is the action type, ``tolerance_type``
    control_msgs/JointTolerance; both passed in so that a stand-in tests this without
    control_msgs): the trajectory, one path and one goal tolerance per joint [rad] and the goal
    time tolerance [s] (the same numbers as the bridge's own monitor)."""
    goal = action.Goal()
    goal.trajectory = trajectory
    goal.path_tolerance = [tolerance_type(name=n, position=float(path_tolerance)) for n in trajectory.joint_names]
    goal.goal_tolerance = [tolerance_type(name=n, position=float(goal_tolerance)) for n in trajectory.joint_names]
    goal.goal_time_tolerance = duration(goal_time)
    return goal


def action_available() -> bool:
    """Whether control_msgs imports (the FollowJointTrajectory action client can exist)."""
    return FollowJointTrajectory is not None


# ---------------------------------------------------------------------------------------------
@dataclass
class Execution:
    """A motion being executed: the validated trajectory (every robot joint, URDF names), its
    monitor, its start on the node clock [s], how it is sent and its source."""

    trajectory: Trajectory
    monitor: object
    start: float
    mode: str
    source: str
    goal_handle: object = None
    notes: list = field(default_factory=list)


class RobotBridgeNode(Node):
    """The robot bridge node (see the module docstring). `limits` are the robot's
    `JointLimits`, `measured` the latest /joint_states positions by URDF name, `execution` the
    motion in progress (None when idle), `last_received` the last trajectory received,
    `published` the number of commands published (tests read it)."""

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.p = PARAMETERS.declare(self)
        from humanoid_model import load_robot

        try:
            self.robot = load_robot(self.p["robot"])
        except HumanoidStackError as exc:
            raise ConfigError(f"node '{NODE_NAME}': parameter robot: {exc}") from None
        self.limits = JointLimits.from_robot(self.robot, a_max_default=self.p["max_acceleration"])
        names = self.robot.joint_names
        self.rename = parse_joint_map(self.p["joint_map"])
        unknown = [n for n in self.rename if n not in names]
        if unknown:
            raise ConfigError(
                f"node '{NODE_NAME}': parameter joint_map names '{unknown[0]}', not a joint of robot "
                f"'{self.robot.name}'"
            )
        self.unrename = {v: k for k, v in self.rename.items()}
        order = self.p["controller_joints"] or [self.rename.get(n, n) for n in names]
        wrong = [n for n in order if self.unrename.get(n, n) not in names]
        if wrong or len(set(order)) != len(order) or len(order) != len(names):
            raise ConfigError(
                f"node '{NODE_NAME}': parameter controller_joints must name each of the {len(names)} joints of "
                f"robot '{self.robot.name}' once (robot-side names); value {self.p['controller_joints']!r}"
            )
        self.command_order = [self.unrename.get(n, n) for n in order]  # URDF names, controller order
        self.mode = self.p["controller_type"]
        self.controller = self.p["controller"] or DEFAULT_CONTROLLERS[self.mode]
        if self.mode == "follow_joint_trajectory" and not action_available():
            raise ConfigError(
                f"node '{NODE_NAME}': parameter controller_type follow_joint_trajectory needs control_msgs "
                "(a system ROS 2); use joint_trajectory or auto"
            )

        self.measured: dict[str, float] = {}
        self.measured_at = None  # time.monotonic() of the newest /joint_states
        self.execution: Execution | None = None
        self.last_received: Trajectory | None = None
        self.published = 0
        self.state = "idle"

        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.traj_pub = self.fwd_pub = self.action_client = None
        if self.mode == "forward_position":
            self.fwd_pub = self.create_publisher(Float64MultiArray, f"/{self.controller}/commands", 10)
        else:
            self.traj_pub = self.create_publisher(JointTrajectory, f"/{self.controller}/joint_trajectory", 10)
            if action_available():
                self.action_client = ActionClient(
                    self, FollowJointTrajectory, f"/{self.controller}/follow_joint_trajectory"
                )
        self.create_subscription(JointState, "/joint_states", self._on_joint_states, 10)
        self.create_subscription(JointTrajectory, "~/trajectory", self._on_trajectory, 10)
        self.create_service(Trigger, "~/stop", self._on_stop)
        self.create_service(Trigger, "~/validate", self._on_validate)
        self.create_service(Trigger, "~/execute_file", self._on_execute_file)
        self.add_on_set_parameters_callback(PARAMETERS.on_set_parameters(lambda: self.p, self.p.update))
        # the loop and the watchdog run on the steady clock: a stalled /clock must not stop them
        self.timer = self.create_timer(1.0 / self.p["rate"], self._tick, clock=Clock(clock_type=ClockType.STEADY_TIME))
        self.get_logger().info(
            f"robot '{self.robot.name}' ({len(names)} joints), controller {self.controller} ({self.mode}"
            f"{', action client' if self.action_client else ''}), policy {self.p['policy']}, speed_scale "
            f"{self.p['speed_scale']:g}{', DRY RUN' if self.p['dry_run'] else ''}"
        )

    # ------------------------------------------------------------------ helpers
    def _now(self) -> float:
        """Node clock [s] (ROS time: the simulator's /clock with use_sim_time)."""
        return self.get_clock().now().nanoseconds * 1e-9

    def _settings(self) -> BridgeSettings:
        """The validation settings: every `BridgeSettings` field is the parameter of that name."""
        return BridgeSettings(**{f.name: self.p[f.name] for f in dataclasses.fields(BridgeSettings)})

    def state_age(self) -> float:
        """Wall-clock age [s] of the newest /joint_states (inf before the first)."""
        return math.inf if self.measured_at is None else time.monotonic() - self.measured_at

    def _diagnose(self, level, message: str, values: dict | None = None):
        self.diag_pub.publish(
            diagnostic_array(
                self.get_clock().now().to_msg(), f"{NODE_NAME}: execution", level, message, self.robot.name, values
            )
        )

    def _refuse(self, message: str, values: dict | None = None) -> str:
        """Log and diagnose (ERROR) a refused motion; returns the message."""
        self.get_logger().error(f"refused: {message}")
        self._diagnose(DiagnosticStatus.ERROR, f"refused: {message}", values)
        return message

    # ------------------------------------------------------------------ inputs
    def _on_joint_states(self, msg):
        try:
            names, pos = list(msg.name), list(msg.position)
            if len(names) != len(pos):
                return
            for n, x in zip(names, pos):
                x = float(x)
                if math.isfinite(x):
                    self.measured[self.unrename.get(n, n)] = x
            self.measured_at = time.monotonic()
        except Exception as exc:  # noqa: BLE001 - a malformed message must not stop the node
            self.get_logger().warning(f"/joint_states: message ignored: {exc!r}")

    def _on_trajectory(self, msg):
        try:
            traj = trajectory_from_msg(msg)
        except Exception as exc:  # noqa: BLE001 - bad input is refused, the node stays up
            self._refuse(str(exc) if isinstance(exc, HumanoidStackError) else f"~/trajectory: {exc!r}")
            return
        self.last_received = traj
        self.execute(traj, "~/trajectory")

    def _current(self) -> dict[str, float] | None:
        """Measured positions of the robot's joints (URDF names), None when /joint_states is
        missing or stale."""
        if self.state_age() > self.p["state_timeout"]:
            return None
        return dict(self.measured)

    def check(self, traj: Trajectory):
        """`humanoid_control.bridge.validate` against the measured state -> (report, message):
        message is "" when the report is ok, else the refusal text."""
        current = self._current()
        if current is None:
            age = self.state_age()
            what = "no /joint_states received" if math.isinf(age) else f"/joint_states is {age:.3f} s old"
            return None, f"{what} (state_timeout {self.p['state_timeout']:g} s): the start state is unknown"
        report = validate(traj, self.limits, current, self._settings(), robot=self.robot)
        if report.ok:
            return report, ""
        first = report.refusals[0]
        more = f" (and {len(report.refusals) - 1} more)" if len(report.refusals) > 1 else ""
        return report, first.message + more

    @staticmethod
    def _report_values(report, notes=()) -> dict:
        """/diagnostics values of a validation report: stretch, refusals (the first one's check,
        joint, point, value), then the plan's `notes` (e.g. "only the joint part is sent") and
        the report's."""
        values = {}
        if report is None:
            return values
        values["stretch"] = f"{report.stretch:g}"
        for i, r in enumerate(report.refusals):
            values[f"refusal_{i}"] = r.message
        if report.refusals:
            r = report.refusals[0]
            joint = "" if r.joint is None else short(r.joint).strip("'")  # shortened as in the message
            values.update(check=r.check, joint=joint, point="" if r.point is None else r.point)
            values["value"] = "" if r.value is None else f"{r.value:g}"
        for i, note in enumerate(list(notes) + list(report.notes)):
            values[f"note_{i}"] = note
        return values

    def execute(self, traj: Trajectory, source: str, notes=()) -> tuple[bool, str]:
        """Validate `traj` and send it (unless `dry_run`) -> (accepted, message). Never raises."""
        try:
            return self._execute(traj, source, list(notes))
        except Exception as exc:  # noqa: BLE001 - the node must stay up
            text = str(exc) if isinstance(exc, HumanoidStackError) else f"{source}: internal error {exc!r}"
            return False, self._refuse(text)

    def _execute(self, traj, source, notes):
        if self.execution is not None and not self.p["preempt"]:
            return False, self._refuse(
                f"{source}: a trajectory from {self.execution.source} is executing (set preempt to replace it, "
                "or call ~/stop)"
            )
        report, problem = self.check(traj)
        if problem:
            return False, self._refuse(problem, self._report_values(report, notes))
        values = self._report_values(report, notes)
        summary = report.summary()
        for note in notes + list(report.notes):
            self.get_logger().info(note if note.startswith(source) else f"{source}: {note}")
        if self.p["dry_run"]:
            text = f"dry run: {source} would execute ({report.trajectory.duration:.3f} s, stretch {report.stretch:g})"
            self.get_logger().info(f"{text}\n{summary}")
            self._diagnose(DiagnosticStatus.OK, text, values)
            return True, text
        if self.execution is not None:  # preempt: the new one replaces it
            self._cancel_goal()
            self.get_logger().warning(f"{source} preempts the trajectory from {self.execution.source}")
        sent = report.trajectory
        p = self.p
        monitor = ExecutionMonitor(sent, p["path_tolerance"], p["goal_tolerance"], p["goal_time"])
        mode = self._send_mode()
        self.execution = Execution(sent, monitor, self._now(), mode, source, notes=notes)
        self.state = "executing"
        if mode == "follow_joint_trajectory":
            self._send_goal(sent)
        elif mode == "joint_trajectory":
            self._publish_trajectory(trajectory_msg(sent, self.rename))
        else:
            self._stream(0.0)
        text = f"{source}: executing {sent.duration:.3f} s on {self.controller} ({mode}), stretch {report.stretch:g}"
        self.get_logger().info(text)
        self._diagnose(DiagnosticStatus.OK, text, values)
        return True, text

    def _send_mode(self) -> str:
        if self.mode == "auto":
            ready = self.action_client is not None and self.action_client.server_is_ready()
            return "follow_joint_trajectory" if ready else "joint_trajectory"
        return self.mode

    # ------------------------------------------------------------------ outputs
    def _publish_trajectory(self, msg):
        if self.p["dry_run"]:
            return
        self.traj_pub.publish(msg)
        self.published += 1

    def _publish_positions(self, positions: dict[str, float]):
        if self.p["dry_run"]:
            return
        self.fwd_pub.publish(Float64MultiArray(data=[float(positions[n]) for n in self.command_order]))
        self.published += 1

    def _stream(self, t: float):
        """Forward position controller: the positions of the executing trajectory at `t` [s]."""
        ex = self.execution
        q = sample(ex.trajectory, min(max(t, 0.0), ex.trajectory.duration))
        self._publish_positions(dict(zip(ex.trajectory.joint_names, q)))

    def _send_goal(self, traj: Trajectory):
        p = self.p
        goal = follow_joint_trajectory_goal(
            FollowJointTrajectory,
            JointTolerance,
            trajectory_msg(traj, self.rename),
            p["path_tolerance"],
            p["goal_tolerance"],
            p["goal_time"],
        )
        execution = self.execution
        future = self.action_client.send_goal_async(goal, feedback_callback=self._on_feedback)
        self.published += 1

        def accepted(fut):
            try:
                handle = fut.result()
            except Exception as exc:  # noqa: BLE001
                self.stop(f"FollowJointTrajectory goal failed: {exc!r}")
                return
            if not handle.accepted:
                if self.execution is execution:
                    self.stop("the controller rejected the FollowJointTrajectory goal")
                return
            execution.goal_handle = handle
            handle.get_result_async().add_done_callback(lambda f: self._on_result(f, execution))

        future.add_done_callback(accepted)

    def _on_feedback(self, feedback):
        self.get_logger().debug(f"FollowJointTrajectory feedback: {feedback.feedback.error.positions}")

    def _on_result(self, future, execution):
        try:
            result = future.result().result
            code, text = result.error_code, result.error_string
        except Exception as exc:  # noqa: BLE001
            code, text = -1, repr(exc)
        if code != 0 and self.execution is execution:
            self.stop(f"FollowJointTrajectory result error_code {code}: {text}")

    def _cancel_goal(self):
        ex = self.execution
        if ex is not None and ex.goal_handle is not None:
            ex.goal_handle.cancel_goal_async()

    def hold(self) -> dict[str, float] | None:
        """Command the current measured position now (every robot joint; the last sample of the
        motion for a joint /joint_states has not given) -> the held positions, None in dry run."""
        if self.p["dry_run"]:
            return None
        names = self.robot.joint_names
        held = dict(self.measured)
        if self.execution is not None:
            ex = self.execution
            planned = dict(zip(ex.trajectory.joint_names, sample(ex.trajectory, ex.trajectory.duration)))
            for n in names:
                held.setdefault(n, planned[n])
        if any(n not in held for n in names):
            self.get_logger().error("hold: /joint_states has not given every joint; nothing sent")
            return None
        self._cancel_goal()
        if self.fwd_pub is not None:
            self._publish_positions(held)
        else:
            msg = JointTrajectory()
            msg.joint_names = [self.rename.get(n, n) for n in names]
            # one point at time 0: the controller's set-point becomes the measured position at once
            msg.points = [JointTrajectoryPoint(positions=[float(held[n]) for n in names], time_from_start=duration(0))]
            self._publish_trajectory(msg)
        return {n: held[n] for n in names}

    def stop(self, reason: str) -> str:
        """End the motion in progress (if any) and hold the measured position; /diagnostics
        (ERROR) with the reason."""
        source = self.execution.source if self.execution is not None else "nothing"
        self.hold()
        self.execution = None
        self.state = "holding"
        text = f"stopped ({source} executing): {reason}; holding the measured position"
        if self.p["dry_run"]:
            text = f"stopped: {reason} (dry run: nothing published)"
        self.get_logger().error(text)
        self._diagnose(DiagnosticStatus.ERROR, text, {"reason": reason})
        return text

    # ------------------------------------------------------------------ control loop
    def _tick(self):
        ex = self.execution
        if ex is None:
            return
        try:
            age = self.state_age()
            if age > self.p["state_timeout"]:
                self.stop(f"/joint_states is {age:.3f} s old (state_timeout {self.p['state_timeout']:g} s)")
                return
            t = self._now() - ex.start
            status = ex.monitor.update(t, dict(self.measured))
            if status.state == "aborted":
                self.stop(status.reason)
                return
            if ex.mode == "forward_position":
                self._stream(t)
            if status.state == "succeeded":
                self.execution = None
                self.state = "idle"
                text = f"{ex.source}: succeeded ({status.reason})" if status.reason else f"{ex.source}: succeeded"
                self.get_logger().info(text)
                self._diagnose(DiagnosticStatus.OK, text)
        except Exception as exc:  # noqa: BLE001 - stop safely, stay up
            self.stop(f"internal error during execution: {exc!r}")

    # ------------------------------------------------------------------ services
    def _on_stop(self, request, response):
        response.success = True
        response.message = self.stop("~/stop called")
        return response

    def _on_validate(self, request, response):
        if self.last_received is None:
            response.success, response.message = False, "no trajectory received yet on ~/trajectory"
            return response
        try:
            report, problem = self.check(self.last_received)
        except Exception as exc:  # noqa: BLE001
            report, problem = None, str(exc) if isinstance(exc, HumanoidStackError) else repr(exc)
        text = report.summary() if report is not None else problem
        level = DiagnosticStatus.OK if not problem else DiagnosticStatus.ERROR
        self.get_logger().info(f"~/validate (dry run): {text}")
        self._diagnose(level, f"validate: {problem or 'ok'}", self._report_values(report))
        response.success, response.message = not problem, text
        return response

    def _on_execute_file(self, request, response):
        path = self.p["execute_file"]
        if not path:
            response.success, response.message = False, "parameter execute_file is empty: set it to a plan file"
            return response
        try:
            traj, notes = load_plan(path, self.robot, allow_unclear=self.p["allow_unclear_motion"])
        except Exception as exc:  # noqa: BLE001 - a bad file is refused, the node stays up
            text = str(exc) if isinstance(exc, HumanoidStackError) else f"{path}: {exc!r}"
            response.success, response.message = False, self._refuse(text)
            return response
        self.last_received = traj
        response.success, response.message = self.execute(traj, path, notes)
        return response


def main(args=None) -> int:
    """Entry point of the `robot_bridge` executable (`ros2 run humanoid_stack robot_bridge`)."""
    return run_node(RobotBridgeNode, NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
