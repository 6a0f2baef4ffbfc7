"""Robot bridge node (`robot_bridge`): sends the project's motions to a robot's ros2_control
controllers, after checking them (docs/real_robot.md).

    humanoid-stack up bridge_sim                    # config/bridge_sim.yaml: the simulator stands in
    ros2 launch humanoid_stack bridge.launch.py     # config/bridge.yaml: a real robot (humanoid-stack up bridge)
    ros2 run humanoid_stack robot_bridge --ros-args -p robot:=hrp2 -p dry_run:=true
    .venv/bin/robot_bridge --ros-args -p robot:=hrp2 -p dry_run:=true   # the same on the default install
    humanoid-stack lifecycle robot_bridge configure     # then activate: it sends nothing before

Lifecycle (a managed node, `rclpy.lifecycle`; `humanoid-stack up` configures and activates it):
`configure` loads the robot (`robot`, or the latched /robot_description when `robot` is "") and its
limits and creates the executor and the topics, services and actions below; `activate` arms the
executor and starts the control loop and watchdog thread; before it, and after `deactivate`, every
trajectory, motion, file and goal is refused with the reason "not active" and nothing is sent.
`deactivate` during a motion stops it and holds its commanded set-point (an idle bridge sends
nothing: the controller keeps its own last set-point), then disarms and ends the thread; `cleanup`
and `shutdown` release the robot, the executor and the topics.

Parameters: `PARAMETERS` of `humanoid_ros.robot_bridge_parameters` (docs/ros.md, "robot_bridge").

Actions    ~/follow_joint_trajectory (control_msgs/FollowJointTrajectory, server): a goal as ~/trajectory;
           the validator's refusal or the execution monitor's verdict is the result
           (`humanoid_ros.robot_bridge_action`); a cancel stops and holds
Topics (relative names, moved by the node's namespace; /diagnostics is global)
    subscribes ~/trajectory (trajectory_msgs/JointTrajectory, URDF joint names): validate, then
               execute; joint_states (the robot's measured joints, best effort: reliable and
               best-effort publishers both reach it; `joint_map` renames them)
    publishes  <controller>/joint_trajectory (JointTrajectory) or <controller>/commands
               (std_msgs/Float64MultiArray, streamed at `rate` with the bridge interpolating),
               /diagnostics (every refusal, stop and end of motion, with the reason)
    action     <controller>/follow_joint_trajectory (control_msgs/FollowJointTrajectory, client; `make`
               builds control_msgs when no ROS 2 is sourced)
Services   ~/stop (Trigger: end the motion and hold the last commanded set-point now; nothing is
           sent when nothing was ever commanded), ~/validate (Trigger: dry run on the last received
           trajectory, report to the log and /diagnostics), ~/execute_file (Trigger: load the plan
           file named by the `execute_file` parameter, then as ~/trajectory)

Safety (docs/real_robot.md): the execution is a `humanoid_control.bridge.BridgeExecutor`. Every
trajectory goes through `humanoid_control.bridge.validate` (names, NaN, times, position /
velocity / acceleration limits along the controller's interpolation, start state, optional
self-collision); during execution the `humanoid_control.bridge.ExecutionMonitor` compares
/joint_states with the commanded motion (path and goal tolerances), and a watchdog stops and holds
when a joint's newest finite /joint_states value is older than `state_timeout`. `dry_run`
validates and reports but never publishes; a trajectory arriving while one executes is refused
unless `preempt`. Bad input (a malformed message, a bad file) is refused with the reason; the node
keeps running.

This module is ROS glue only: the execution state machine, the checks, the interpolation and the
plan files are the library's (`humanoid_control.bridge`); the node converts messages, runs the
executor's `tick` at `rate` on the steady clock in a thread of its own (`humanoid_control.bridge.Ticker`:
no callback of the node's executor can delay the watchdog), and sends what the executor decides
(`_NodeOutputs`). /joint_states and ~/stop have callback groups of their own, so that a
multi-threaded executor (`humanoid-stack up`) runs them beside a long request.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.lifecycle import LifecycleNode
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from humanoid_control.bridge import (
    BridgeExecutor,
    Execution,
    ExecutorSettings,
    JointLimits,
    Ticker,
    Trajectory,
    plan_trajectory,
    read_plan,
    report_values,
)
from humanoid_control.bridge.plan_files import PLAN_MAX_BYTES
from humanoid_control.exceptions import BridgeError
from humanoid_model.documents import parse_message
from humanoid_model.exceptions import ConfigError, HumanoidStackError
from humanoid_ros.common import SENSOR_QOS, destroy_actions, diagnostic_array, duration, run_node, seconds
from humanoid_ros.lifecycle import Created, transition
from humanoid_ros.robot_bridge_parameters import CONTROLLER_TYPES, DEFAULT_CONTROLLERS, NODE_NAME, PARAMETERS

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


NANOSEC = 1_000_000_000  # a builtin_interfaces/Duration's nanosec is below this (else the Duration is invalid)


def trajectory_from_msg(msg, source: str = "~/trajectory") -> Trajectory:
    """`humanoid_control.bridge.Trajectory` of a JointTrajectory message (URDF joint names).
    Shapes and Durations are checked here (`BridgeError`: a ``time_from_start.nanosec`` of 1e9 or
    more is no valid Duration); names, NaN, times and limits by `validate`."""
    names = list(msg.joint_names)
    points = list(msg.points)
    if not points:
        raise BridgeError(f"{source}: field 'points' is empty")
    for k, p in enumerate(points):
        if not 0 <= p.time_from_start.nanosec < NANOSEC:
            raise BridgeError(
                f"{source}: field 'points[{k}].time_from_start.nanosec' must be below {NANOSEC} (a Duration's "
                f"nanoseconds); value {p.time_from_start.nanosec}"
            )
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
_LEVELS = {"ok": DiagnosticStatus.OK, "error": DiagnosticStatus.ERROR}


class _NodeOutputs:
    """The executor's outputs (`humanoid_control.bridge.BridgeOutputs`) on the node's publishers,
    action client, logger and /diagnostics."""

    def __init__(self, node: RobotBridgeNode):
        self.node = node

    def send_mode(self) -> str:
        return self.node._send_mode()

    def send(self, execution: Execution) -> None:
        node = self.node
        if execution.mode == "follow_joint_trajectory":
            node._send_goal(execution)
        elif execution.mode == "whole_body":
            text = json.dumps({"id": execution.id, "source": execution.source, "motion": execution.motion})
            node._publish(node.motion_pub, String(data=text))
        else:
            node._publish(node.traj_pub, trajectory_msg(execution.trajectory, node.rename))

    def command(self, positions: dict[str, float]) -> None:
        node = self.node
        node._publish(node.fwd_pub, Float64MultiArray(data=[float(positions[n]) for n in node.command_order]))

    def hold(self, positions: dict[str, float]) -> None:
        node = self.node
        if node.mode == "whole_body":  # a torque controller holds balance itself: its safe hold
            node._publish(node.wbc_stop_pub, String(data="robot bridge: hold"))
            return
        if node.fwd_pub is not None:
            self.command(positions)
            return
        msg = JointTrajectory()
        msg.joint_names = [node.rename.get(n, n) for n in positions]
        # one point at time 0: the controller's set-point becomes the held one at once
        msg.points = [
            JointTrajectoryPoint(positions=[float(x) for x in positions.values()], time_from_start=duration(0))
        ]
        node._publish(node.traj_pub, msg)

    def cancel(self, execution: Execution) -> None:
        if execution.goal_handle is not None:
            execution.goal_handle.cancel_goal_async()

    def log(self, level: str, text: str) -> None:
        logger = self.node.get_logger()  # rclpy: one severity per call site, hence one call per level
        if level == "error":
            logger.error(text)
        elif level == "warning":
            logger.warning(text)
        else:
            logger.info(text)

    def diagnose(self, level: str, text: str, values: dict | None = None) -> None:
        self.node._diagnose(_LEVELS[level], text, values)


NOT_ACTIVE = "not active: the robot bridge is inactive (activate it: humanoid-stack lifecycle robot_bridge activate)"
"""Why a motion is refused before `activate` and after `deactivate`."""


class RobotBridgeNode(LifecycleNode):
    """The robot bridge node (see the module docstring): ROS glue around a
    `humanoid_control.bridge.BridgeExecutor` (``bridge_executor``, None until configured). `limits`
    are the robot's `JointLimits`, `last_received` the last trajectory received, `published` the
    number of commands published; `measured`, `execution` and `state` are the executor's (tests read
    them); ``transition_error`` the reason of the last failed transition."""

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.p = PARAMETERS.declare(self)
        self.robot = self.bridge_executor = self.ticker = self._created = None
        self.transition_error = ""
        self.add_on_set_parameters_callback(PARAMETERS.on_set_parameters(lambda: self.p, self._apply))
        self.get_logger().info("unconfigured: configure and activate it to execute motions")

    # ------------------------------------------------------------------ lifecycle
    def on_configure(self, state):
        created = Created(self)
        result = transition(self, "configure", self._configure)
        if self.transition_error:
            created.release()
            self.robot = self.bridge_executor = None
            return result
        self._created = created
        return super().on_configure(state)

    def on_activate(self, state):
        self.bridge_executor.arm()
        # the loop and the watchdog, while active only: the steady clock (a stalled /clock must not
        # stop them), and a thread of their own (no callback of the node's executor can delay them)
        self.ticker = Ticker(
            self.bridge_executor.tick, 1.0 / self.p["rate"], name=f"{NODE_NAME}-watchdog", on_error=self._on_tick_error
        ).start()
        self.get_logger().info("active: motions are checked and sent")
        return super().on_activate(state)

    def on_deactivate(self, state):
        self._disarm("deactivated")
        return super().on_deactivate(state)

    def on_cleanup(self, state):
        self._release()
        return super().on_cleanup(state)

    def on_shutdown(self, state):
        self._disarm("shut down")
        self._release()
        return super().on_shutdown(state)

    def _disarm(self, reason: str):
        """Stop and hold a motion in progress, refuse what comes next, end the control loop."""
        if self.bridge_executor is not None and self.bridge_executor.armed:
            text = self.bridge_executor.disarm(reason, NOT_ACTIVE)
            self.get_logger().info(f"inactive: {text or 'nothing executing'}; motions are refused")
        if self.ticker is not None:
            self.ticker.close()
            self.ticker = None

    def _release(self):
        if self._created is not None:
            self._created.release()
        self.robot = self.bridge_executor = self._created = None

    def _configure(self):
        """The robot, its limits, the executor (disarmed) and the node's inputs and outputs."""
        if not self.p["robot"]:
            from humanoid_ros.robot_description import robot_from_description

            self.robot = robot_from_description(self, self.p["robot_description_timeout"], self.p["robot_like"])
        else:
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

        # the watchdog ages /joint_states on the steady clock: a stalled /clock must not hide a stale state
        self.bridge_executor = BridgeExecutor(
            self.limits,
            _NodeOutputs(self),
            clock=self._now,
            steady=time.monotonic,
            settings=ExecutorSettings.from_values(self.p),
            robot=self.robot,
            state_name=self.resolve_topic_name("joint_states"),
            controller=self.controller,
            armed=False,
            refusal=NOT_ACTIVE,
        )
        self.last_received: Trajectory | None = None
        self.published = 0

        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.traj_pub = self.fwd_pub = self.action_client = self.motion_pub = self.wbc_stop_pub = None
        if self.mode == "forward_position":
            self.fwd_pub = self.create_publisher(Float64MultiArray, f"{self.controller}/commands", 10)
        elif self.mode == "whole_body":
            self.motion_pub = self.create_publisher(String, f"{self.controller}/motion", 1)
            self.wbc_stop_pub = self.create_publisher(String, f"{self.controller}/stop", 10)
        else:
            self.traj_pub = self.create_publisher(JointTrajectory, f"{self.controller}/joint_trajectory", 10)
            if action_available():
                self.action_client = ActionClient(
                    self, FollowJointTrajectory, f"{self.controller}/follow_joint_trajectory"
                )
        # the measured state and ~/stop beside the requests (with a multi-threaded executor): a long
        # request delays neither; the watchdog needs no callback group at all (its own thread, below)
        states, stop, requests = (MutuallyExclusiveCallbackGroup() for _ in range(3))
        self.create_subscription(JointState, "joint_states", self._on_joint_states, SENSOR_QOS, callback_group=states)
        self.create_subscription(JointTrajectory, "~/trajectory", self._on_trajectory, 10, callback_group=requests)
        self.create_subscription(String, self.p["motion_topic"], self._on_motion, 1, callback_group=requests)
        if self.mode == "whole_body":
            self.create_subscription(String, f"{self.controller}/status", self._on_status, 10, callback_group=states)
        self.create_service(Trigger, "~/stop", self._on_stop, callback_group=stop)
        self.trajectory_action = None
        if action_available():
            from humanoid_ros.follow_joint_trajectory import FollowJointTrajectoryServer
            from humanoid_ros.robot_bridge_action import SOURCE, BridgeTrajectories

            backend = BridgeTrajectories(self.bridge_executor, trajectory_from_msg)
            self.trajectory_action = FollowJointTrajectoryServer(self, SOURCE, backend, "robot bridge")
        self.create_service(Trigger, "~/validate", self._on_validate, callback_group=requests)
        self.create_service(Trigger, "~/execute_file", self._on_execute_file, callback_group=requests)
        self.get_logger().info(
            f"robot '{self.robot.name}' ({len(names)} joints), controller {self.controller} ({self.mode}"
            f"{', action client' if self.action_client else ''}), policy {self.p['policy']}, speed_scale "
            f"{self.p['speed_scale']:g}{', DRY RUN' if self.p['dry_run'] else ''}"
        )

    def close(self):
        """Stop and hold a motion in progress and stop the control loop's thread (`run_node` and
        `humanoid-stack up` call this before destroying the node; `up` deactivates it first)."""
        try:
            self._disarm("the node is closing")
        except Exception as exc:  # noqa: BLE001 - the context may be shut down already (Ctrl-C)
            self.get_logger().warning(f"close: the hold was not sent: {exc!r}")
        finally:
            if self.ticker is not None:
                self.ticker.close()

    def destroy_node(self):
        self.close()
        destroy_actions(self)
        out = super().destroy_node()
        # rclpy's LifecycleNode leaves its state machine, which holds the node's handle: the node,
        # with its lifecycle services, would stay in the graph of a process that goes on
        self._state_machine.destroy_when_not_in_use()
        return out

    def _on_tick_error(self, exc):
        self.get_logger().error(f"control loop: {exc!r}")

    # ------------------------------------------------------------------ the executor's state
    @property
    def measured(self) -> dict[str, float]:
        """The latest /joint_states positions by URDF name ({} until configured)."""
        return self.bridge_executor.measured if self.bridge_executor is not None else {}

    @property
    def execution(self) -> Execution | None:
        """The motion in progress (None when idle)."""
        return self.bridge_executor.execution if self.bridge_executor is not None else None

    @property
    def state(self) -> str:
        """idle, executing or holding (unconfigured before configure)."""
        return self.bridge_executor.state if self.bridge_executor is not None else "unconfigured"

    # ------------------------------------------------------------------ helpers
    def _apply(self, updates: dict):
        """Dynamic parameters: the executor's settings follow."""
        self.p.update(updates)
        if self.bridge_executor is not None:
            self.bridge_executor.settings = ExecutorSettings.from_values(self.p)

    def _now(self) -> float:
        """Node clock [s] (ROS time: the simulator's /clock with use_sim_time)."""
        return self.get_clock().now().nanoseconds * 1e-9

    def _diagnose(self, level, message: str, values: dict | None = None):
        self.diag_pub.publish(
            diagnostic_array(
                self.get_clock().now().to_msg(), f"{NODE_NAME}: execution", level, message, self.robot.name, values
            )
        )

    _report_values = staticmethod(report_values)

    # ------------------------------------------------------------------ inputs
    def _on_joint_states(self, msg):
        try:
            stamp = msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec  # 0: unstamped, not kept
            self.bridge_executor.measure([self.unrename.get(n, n) for n in msg.name], list(msg.position), stamp)
        except Exception as exc:  # noqa: BLE001 - a malformed message must not stop the node
            self.get_logger().warning(f"{self.bridge_executor.state_name}: message ignored: {exc!r}")

    def _on_trajectory(self, msg):
        try:
            traj = trajectory_from_msg(msg)
        except Exception as exc:  # noqa: BLE001 - bad input is refused, the node stays up
            self.bridge_executor.refuse(str(exc) if isinstance(exc, HumanoidStackError) else f"~/trajectory: {exc!r}")
            return
        self.last_received = traj
        self.bridge_executor.submit(traj, "~/trajectory")

    def _on_motion(self, msg):
        """A motion document (std_msgs/String, JSON): checked as a plan file, then executed."""
        source = self.resolve_topic_name(self.p["motion_topic"])
        try:
            doc = parse_message(msg.data, source, "plan file", BridgeError, PLAN_MAX_BYTES)
            traj, notes = plan_trajectory(
                doc,
                source,
                self.robot,
                allow_unclear=self.p["allow_unclear_motion"],
                allow_unconverged=self.p["allow_unconverged_gait"],
            )
        except Exception as exc:  # noqa: BLE001 - bad input is refused, the node stays up
            self.bridge_executor.refuse(str(exc) if isinstance(exc, HumanoidStackError) else f"{source}: {exc!r}")
            return
        self.last_received = traj
        self.bridge_executor.submit(traj, source, notes, motion=doc)

    def _on_status(self, msg):
        """The whole-body controller's status (JSON) of the motion it executes."""
        try:
            status = json.loads(msg.data)
        except ValueError:
            self.get_logger().warning(f"{self.resolve_topic_name(self.controller + '/status')}: not JSON, ignored")
            return
        self.bridge_executor.progress(status)

    def _send_mode(self) -> str:
        if self.mode == "auto":
            ready = self.action_client is not None and self.action_client.server_is_ready()
            return "follow_joint_trajectory" if ready else "joint_trajectory"
        return self.mode

    # ------------------------------------------------------------------ outputs
    def _publish(self, publisher, msg):
        publisher.publish(msg)
        self.published += 1

    def _send_goal(self, execution: Execution):
        p = self.p
        goal = follow_joint_trajectory_goal(
            FollowJointTrajectory,
            JointTolerance,
            trajectory_msg(execution.trajectory, self.rename),
            p["path_tolerance"],
            p["goal_tolerance"],
            p["goal_time"],
        )
        future = self.action_client.send_goal_async(goal, feedback_callback=self._on_feedback)
        self.published += 1

        def accepted(fut):
            try:
                handle = fut.result()
            except Exception as exc:  # noqa: BLE001
                self.bridge_executor.stop(f"FollowJointTrajectory goal failed: {exc!r}", execution)
                return
            if not handle.accepted:  # (a replaced motion's late answer changes nothing)
                self.bridge_executor.stop("the controller rejected the FollowJointTrajectory goal", execution)
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
        if code != 0:
            self.bridge_executor.stop(f"FollowJointTrajectory result error_code {code}: {text}", execution)

    # ------------------------------------------------------------------ services
    def _on_stop(self, request, response):
        response.success = True
        response.message = self.bridge_executor.stop("~/stop called")
        return response

    def _on_validate(self, request, response):
        if self.last_received is None:
            response.success, response.message = False, "no trajectory received yet on ~/trajectory"
            return response
        try:
            report, problem = self.bridge_executor.check(self.last_received)
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
            doc, stream = read_plan(path)
            traj, notes = plan_trajectory(
                doc,
                path,
                self.robot,
                allow_unclear=self.p["allow_unclear_motion"],
                allow_unconverged=self.p["allow_unconverged_gait"],
                stream=stream,
            )
        except Exception as exc:  # noqa: BLE001 - a bad file is refused, the node stays up
            text = str(exc) if isinstance(exc, HumanoidStackError) else f"{path}: {exc!r}"
            response.success, response.message = False, self.bridge_executor.refuse(text)
            return response
        self.last_received = traj
        motion = doc if stream is None and isinstance(doc, dict) else None
        response.success, response.message = self.bridge_executor.submit(traj, path, notes, motion=motion)
        return response


def main(args=None) -> int:
    """Entry point of the `robot_bridge` executable (`ros2 run humanoid_stack robot_bridge`)."""
    return run_node(RobotBridgeNode, NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
