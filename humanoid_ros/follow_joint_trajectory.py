"""A `control_msgs/FollowJointTrajectory` action server over a trajectory backend: what the
simulator (as ros2_control's joint_trajectory_controller) and the robot bridge (its input) share.

    server = FollowJointTrajectoryServer(node, "joint_trajectory_controller/follow_joint_trajectory",
                                         backend, joint_names=robot.joint_names)

Every goal is accepted, so that a refusal reaches the client with its reason: the backend's
`start` raises a `HumanoidStackError`, and the result is INVALID_JOINTS (the message names
``joint_names``) or INVALID_GOAL with that reason as ``error_string``. Then, every ``period``:

* feedback: the desired, actual and error points of the goal's joints and the index of the
  point being executed;
* a path tolerance (goal ``path_tolerance``, position only; <= 0: not checked) exceeded aborts
  with PATH_TOLERANCE_VIOLATED naming the joint and the amount, and the backend holds;
* at the end (``elapsed >= duration``), with every goal tolerance met (goal ``goal_tolerance``,
  position; <= 0: not checked) the goal succeeds; otherwise it waits up to
  ``goal_time_tolerance`` and aborts with GOAL_TOLERANCE_VIOLATED;
* a backend that judges its execution itself (`verdict` not None: the robot bridge's execution
  monitor) ends the goal with its verdict instead of these tolerances: succeeded, or aborted
  with its reason (GOAL_TOLERANCE_VIOLATED when it names the goal tolerance, else
  PATH_TOLERANCE_VIOLATED: FollowJointTrajectory has no code for a watchdog's stop);
* a cancel holds (the backend's `stop`) and ends the goal as cancelled; a newer goal, or another
  command that replaced the trajectory, aborts the older goal ("preempted").

The coroutine awaits a future that a timer of the node completes, so a single-threaded executor
keeps serving the node's other callbacks while a goal runs; under a multi-threaded executor
(`humanoid-stack up`) the goal's own thread sleeps between checks instead (an awaited future is
polled there: `humanoid_ros.common.ThreadWork`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from control_msgs.action import FollowJointTrajectory
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.task import Future
from trajectory_msgs.msg import JointTrajectoryPoint

from humanoid_model.exceptions import HumanoidStackError

__all__ = ["FollowJointTrajectoryServer", "TrajectoryBackend", "TrajectoryVerdict", "goal_points"]

Result = FollowJointTrajectory.Result

PERIOD = 0.02
"""[s] feedback and check period (50 Hz; chosen: the rate of the nodes' state topics)."""


@dataclass(frozen=True)
class TrajectoryVerdict:
    """A backend that judges its own execution (the robot bridge's execution monitor): ``state``
    "running", "succeeded" or "aborted", with the ``reason``."""

    state: str
    reason: str = ""


class TrajectoryBackend(Protocol):
    """What executes a goal. ``start(goal)`` checks and starts it, returns a handle (raises a
    `HumanoidStackError` with the reason to refuse it); ``progress(handle)`` returns a
    `humanoid_sim.runtime.session.TrajectoryProgress`-like object (names, elapsed, duration,
    desired, desired_velocity, actual, actual_velocity, current) and may raise nothing;
    ``verdict(handle)`` a `TrajectoryVerdict`, or None to let the server judge by the goal's
    tolerances; ``stop(handle)`` holds."""

    def start(self, goal): ...

    def progress(self, handle): ...

    def verdict(self, handle) -> TrajectoryVerdict | None: ...

    def stop(self, handle) -> None: ...


def goal_points(trajectory) -> tuple[list, list]:
    """(joint names, points as (positions, velocities, time_from_start [s])) of a JointTrajectory
    message, with the time's nanoseconds checked (below 1e9, as the bridge checks them)."""
    points = []
    for k, p in enumerate(trajectory.points):
        if not 0 <= p.time_from_start.nanosec < 1_000_000_000:
            raise _GoalError(f"field 'points[{k}].time_from_start.nanosec' must be below 1000000000")
        t = p.time_from_start.sec + p.time_from_start.nanosec * 1e-9
        points.append((list(p.positions), list(p.velocities), t))
    return list(trajectory.joint_names), points


class _GoalError(HumanoidStackError):
    """A goal refused before it reaches the backend."""


def _tolerances(entries, names) -> np.ndarray:
    """Position tolerance per joint of ``names`` from a JointTolerance[] (absent or <= 0: inf)."""
    out = np.full(len(names), np.inf)
    index = {n: i for i, n in enumerate(names)}
    for entry in entries:
        if entry.name in index and entry.position > 0:
            out[index[entry.name]] = entry.position
    return out


def _point(positions, velocities) -> JointTrajectoryPoint:
    return JointTrajectoryPoint(positions=[float(x) for x in positions], velocities=[float(x) for x in velocities])


def _worst(error, tolerance, names) -> str:
    k = int(np.argmax(np.abs(error) - tolerance))
    return f"joint '{names[k]}' is {abs(error[k]):.4g} rad from its set-point (tolerance {tolerance[k]:.4g} rad)"


class FollowJointTrajectoryServer:
    """The action server (module docstring) on ``node`` under ``name``, executing with ``backend``."""

    def __init__(self, node, name: str, backend: TrajectoryBackend, what: str, period: float = PERIOD):
        self.node = node
        self.backend = backend
        self.what = what
        self.period = period
        self.active = None  # the goal handle being executed
        self._waiting: list[Future] = []
        group = ReentrantCallbackGroup()
        self._group = group
        self._timer = None  # made by the first goal under a single-threaded executor (`_tick`)
        self.server = ActionServer(
            node,
            FollowJointTrajectory,
            name,
            execute_callback=self._execute,
            goal_callback=lambda goal: GoalResponse.ACCEPT,
            cancel_callback=lambda handle: CancelResponse.ACCEPT,
            callback_group=group,
        )

    def destroy(self):
        self.server.destroy()
        if self._timer is not None:
            self.node.destroy_timer(self._timer)

    def _wake(self):
        waiting, self._waiting = self._waiting, []
        for future in waiting:
            if not future.done():
                future.set_result(None)

    async def _tick(self):
        if isinstance(self.node.executor, MultiThreadedExecutor):
            time.sleep(self.period)  # a thread of the executor's own: no polled await (`common.ThreadWork`)
            return
        if self._timer is None:
            self._timer = self.node.create_timer(self.period, self._wake, callback_group=self._group)
        future = Future()
        self._waiting.append(future)
        await future

    def _end(self, handle, code: int, text: str, how: str = "abort") -> Result:
        if how == "succeed":
            handle.succeed()
        elif how == "cancel":
            handle.canceled()
        else:
            handle.abort()
        if self.active is handle:
            self.active = None
        if code == Result.SUCCESSFUL:  # (rclpy refuses two severities from one call site)
            self.node.get_logger().info(f"{self.what} goal: {text}")
        else:
            self.node.get_logger().warning(f"{self.what} goal: {text}")
        return Result(error_code=code, error_string=text)

    async def _execute(self, handle):
        goal = handle.request
        self.active = handle  # an older goal's loop sees it is no longer the active one
        if goal.multi_dof_trajectory.joint_names or goal.multi_dof_trajectory.points:
            return self._end(handle, Result.INVALID_GOAL, f"refused: {self.what} takes no multi_dof_trajectory")
        try:
            run = self.backend.start(goal)
        except HumanoidStackError as exc:
            code = Result.INVALID_JOINTS if "joint_names" in str(exc) or "unknown" in str(exc) else Result.INVALID_GOAL
            return self._end(handle, code, f"refused: {exc}")
        names = list(goal.trajectory.joint_names)
        times = np.array([p.time_from_start.sec + p.time_from_start.nanosec * 1e-9 for p in goal.trajectory.points])
        path_tol = _tolerances(goal.path_tolerance, names)
        goal_tol = _tolerances(goal.goal_tolerance, names)
        grace = goal.goal_time_tolerance.sec + goal.goal_time_tolerance.nanosec * 1e-9
        while True:
            await self._tick()
            if self.active is not handle:
                return self._end(handle, Result.INVALID_GOAL, "preempted by a newer goal")
            if handle.is_cancel_requested:
                self.backend.stop(run)
                return self._end(handle, Result.SUCCESSFUL, "cancelled: holding the measured positions", "cancel")
            verdict = self.backend.verdict(run)
            if verdict is not None and verdict.state == "succeeded":
                return self._end(handle, Result.SUCCESSFUL, f"succeeded: {verdict.reason or 'goal reached'}", "succeed")
            if verdict is not None and verdict.state == "aborted":
                goal_side = "goal tolerance" in verdict.reason or "goal_tolerance" in verdict.reason
                code = Result.GOAL_TOLERANCE_VIOLATED if goal_side else Result.PATH_TOLERANCE_VIOLATED
                return self._end(handle, code, f"aborted: {verdict.reason}")
            p = self.backend.progress(run)
            if not p.current:
                return self._end(handle, Result.INVALID_GOAL, "preempted: another command replaced the trajectory")
            error = p.desired - p.actual
            handle.publish_feedback(
                FollowJointTrajectory.Feedback(
                    joint_names=names,
                    desired=_point(p.desired, p.desired_velocity),
                    actual=_point(p.actual, p.actual_velocity),
                    error=_point(error, p.desired_velocity - p.actual_velocity),
                    index=int(np.searchsorted(times, max(p.elapsed, 0.0), side="right")),
                )
            )
            if verdict is not None:
                continue  # the backend judges
            if p.elapsed < p.duration:
                if np.any(np.abs(error) > path_tol):
                    self.backend.stop(run)
                    text = "aborted: " + _worst(error, path_tol, names)
                    return self._end(handle, Result.PATH_TOLERANCE_VIOLATED, text)
                continue
            if np.all(np.abs(error) <= goal_tol):
                return self._end(handle, Result.SUCCESSFUL, f"reached the goal after {p.elapsed:.3f} s", "succeed")
            if p.elapsed > p.duration + grace:
                return self._end(handle, Result.GOAL_TOLERANCE_VIOLATED, "aborted: " + _worst(error, goal_tol, names))
