"""The bridge's execution state machine, ROS-free: what a robot bridge does with a trajectory once
it arrives, and every control period while it runs (docs/bridge.md, "Execution").

    executor = BridgeExecutor(limits, outputs, clock=now, steady=time.monotonic, settings=ExecutorSettings())
    executor.measure(names, positions)           # each measured joint state
    accepted, text = executor.submit(traj, "~/trajectory")
    executor.tick()                               # every control period
    executor.stop("operator")                     # hold the measured position now

States (``state``): ``idle`` (nothing sent yet, or the last motion succeeded), ``executing`` (a
motion runs: ``execution`` is set) and ``holding`` (a stop held the measured position).

* `submit` refuses a trajectory while one executes (unless ``preempt``: the valid new one replaces
  it, the old goal is cancelled), and one that `validate` refuses against the measured state;
  the measured state must be younger than ``state_timeout``. In ``dry_run`` it validates and
  reports only. Otherwise it sends the validated trajectory (`BridgeOutputs.send`, or the first
  sample of the forward position stream) and starts an `ExecutionMonitor` on it.
* `tick` (each control period, on the ``steady`` clock's schedule) stops and holds when the newest
  measured state is older than ``state_timeout`` (the watchdog) or when the monitor aborts (path
  or goal tolerance); streams the positions at the motion's time to a forward position
  controller; ends the motion when the monitor says it succeeded.
* `stop` holds the measured position (joints never measured hold the motion's last sample) and
  ends the motion; it holds also when nothing executes.

Two clocks are passed in: ``clock`` [s] times the motion (the monitor's t since the start: a
simulator's clock when the robot is simulated), ``steady`` [s] ages the measured state (the
watchdog: a stalled simulated clock must not hide a stale state). Everything sent goes through
``outputs`` (`BridgeOutputs`: the node's publishers, or a recorder in a test), in the order the
state machine decides it: a hold is sent before `stop` returns.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from humanoid_control.bridge.limits import JointLimits
from humanoid_control.bridge.monitor import GOAL_TIME, GOAL_TOLERANCE, PATH_TOLERANCE, ExecutionMonitor
from humanoid_control.bridge.settings import BridgeSettings
from humanoid_control.bridge.trajectory import Trajectory, sample
from humanoid_control.bridge.validate import validate
from humanoid_control.exceptions import BridgeError
from humanoid_model.exceptions import HumanoidStackError
from humanoid_model.validation import finite_number, short

__all__ = [
    "BridgeExecutor",
    "BridgeOutputs",
    "Execution",
    "ExecutorSettings",
    "SEND_MODES",
    "STATE_TIMEOUT",
    "report_values",
]

#: how a motion goes to the controller: the FollowJointTrajectory action, the joint_trajectory
#: topic, or a forward position controller's commands streamed each `tick`
SEND_MODES = ("follow_joint_trajectory", "joint_trajectory", "forward_position")
#: [s] (chosen: 10 periods of the simulator's 50 Hz /joint_states) watchdog: a measured state
#: older than this stops a motion and refuses a new one
STATE_TIMEOUT = 0.2


@dataclass
class ExecutorSettings:
    """How the executor runs. ``validation``: the `BridgeSettings` of `validate`;
    ``state_timeout`` [s]: the watchdog (`STATE_TIMEOUT`); ``dry_run``: validate and report, never
    send; ``preempt``: a valid trajectory replaces the one executing (else it is refused);
    ``path_tolerance``, ``goal_tolerance`` [rad], ``goal_time`` [s]: the `ExecutionMonitor`'s."""

    validation: BridgeSettings = field(default_factory=BridgeSettings)
    state_timeout: float = STATE_TIMEOUT
    dry_run: bool = False
    preempt: bool = False
    path_tolerance: float = PATH_TOLERANCE
    goal_tolerance: float = GOAL_TOLERANCE
    goal_time: float = GOAL_TIME

    def __post_init__(self):
        src = "executor settings"
        for name in ("state_timeout", "path_tolerance", "goal_tolerance"):
            setattr(
                self, name, finite_number(getattr(self, name), src, name, minimum=0.0, strict=True, error=BridgeError)
            )
        self.goal_time = finite_number(self.goal_time, src, "goal_time", minimum=0.0, unit="[s]", error=BridgeError)
        self.dry_run, self.preempt = bool(self.dry_run), bool(self.preempt)

    @classmethod
    def from_values(cls, values: Mapping) -> ExecutorSettings:
        """The settings of a mapping that names every field, and every `BridgeSettings` field for
        ``validation`` (the robot bridge node's parameters)."""
        own = {f.name: values[f.name] for f in dataclasses.fields(cls) if f.name != "validation"}
        checks = {f.name: values[f.name] for f in dataclasses.fields(BridgeSettings)}
        return cls(validation=BridgeSettings(**checks), **own)


@dataclass
class Execution:
    """A motion being executed: the validated trajectory (every robot joint), its monitor, its
    start on the executor's ``clock`` [s], how it is sent (`SEND_MODES`), its source, the
    controller's goal handle (the outputs' to set and read; None without an action) and the
    plan's notes."""

    trajectory: Trajectory
    monitor: ExecutionMonitor
    start: float
    mode: str
    source: str
    goal_handle: object = None
    notes: list = field(default_factory=list)


class BridgeOutputs(Protocol):
    """What the executor sends and reports; the node implements it with its publishers, a test
    with a recorder. Log levels: ``info``, ``warning``, ``error``; diagnostic levels: ``ok``,
    ``error``."""

    def send_mode(self) -> str:
        """How the next motion goes to the controller (one of `SEND_MODES`)."""

    def send(self, execution: Execution) -> None:
        """Hand a validated motion to the controller (action goal or joint_trajectory topic)."""

    def command(self, positions: dict[str, float]) -> None:
        """Positions [rad] for a forward position controller, now (every robot joint)."""

    def hold(self, positions: dict[str, float]) -> None:
        """Hold these positions [rad] now (every robot joint)."""

    def cancel(self, execution: Execution) -> None:
        """Cancel the controller's goal of ``execution``, if it has one."""

    def log(self, level: str, text: str) -> None:
        """A log line."""

    def diagnose(self, level: str, text: str, values: dict | None = None) -> None:
        """A diagnostic status (the node's /diagnostics)."""


def report_values(report, notes=()) -> dict:
    """Diagnostic values of a validation report: stretch, refusals (the first one's check, joint,
    point, value), then ``notes`` (e.g. "only the joint part is sent") and the report's ({} for
    None)."""
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


class BridgeExecutor:
    """The execution state machine of one robot (module docstring).

    Args:
        limits: the robot's `JointLimits` (its ``names`` are the robot's joints, in order).
        outputs: a `BridgeOutputs`.
        clock: () -> [s], the motion's time base.
        steady: () -> [s], the measured state's age (default ``time.monotonic``).
        settings: `ExecutorSettings` (replace ``settings`` to change them).
        robot: the `humanoid_model.robot.Robot`, for ``validation.self_collision``.
        state_name: how messages name the measured state (the node: "/joint_states").
        controller: how messages name the controller (the node: its controller's name).

    ``measured`` {joint: position} holds the newest finite measurement of each joint,
    ``measured_at`` the ``steady`` time of the newest measurement (None before one). Thread-safe:
    one transition at a time, so `tick` may run in its own thread beside the inputs.
    """

    def __init__(
        self,
        limits: JointLimits,
        outputs: BridgeOutputs,
        clock: Callable[[], float],
        steady: Callable[[], float] = time.monotonic,
        settings: ExecutorSettings | None = None,
        robot=None,
        state_name: str = "the joint states",
        controller: str = "the controller",
    ):
        self.limits, self.outputs, self.robot = limits, outputs, robot
        self.clock, self.steady = clock, steady
        self.settings = settings if settings is not None else ExecutorSettings()
        self.state_name, self.controller = state_name, controller
        self.measured: dict[str, float] = {}
        self.measured_at: float | None = None
        self.execution: Execution | None = None
        self.state = "idle"
        self._lock = threading.RLock()  # one transition at a time, whichever thread calls

    # ------------------------------------------------------------------ measured state
    def measure(self, names, positions) -> None:
        """A measured joint state: ``names`` (robot joint names) and their ``positions``. A message
        whose lengths differ is ignored; non-finite positions are skipped; the state's time is
        refreshed otherwise."""
        with self._lock:
            names, positions = list(names), list(positions)
            if len(names) != len(positions):
                return
            for n, x in zip(names, positions):
                x = float(x)
                if math.isfinite(x):
                    self.measured[n] = x
            self.measured_at = self.steady()

    def state_age(self) -> float:
        """Age [s] of the newest measured state on the ``steady`` clock (inf before the first)."""
        with self._lock:
            return math.inf if self.measured_at is None else self.steady() - self.measured_at

    def current(self) -> dict[str, float] | None:
        """The measured positions, None when the measured state is missing or stale."""
        with self._lock:
            if self.state_age() > self.settings.state_timeout:
                return None
            return dict(self.measured)

    def check(self, traj: Trajectory):
        """`validate` against the measured state -> (report, message): message is "" when the
        report is ok, else the refusal text (report None when the state is unknown)."""
        with self._lock:
            current = self.current()
            if current is None:
                age = self.state_age()
                what = f"no {self.state_name} received" if math.isinf(age) else f"{self.state_name} is {age:.3f} s old"
                return None, f"{what} (state_timeout {self.settings.state_timeout:g} s): the start state is unknown"
            report = validate(traj, self.limits, current, self.settings.validation, robot=self.robot)
            if report.ok:
                return report, ""
            first = report.refusals[0]
            more = f" (and {len(report.refusals) - 1} more)" if len(report.refusals) > 1 else ""
            return report, first.message + more

    # ------------------------------------------------------------------ motions
    def refuse(self, message: str, values: dict | None = None) -> str:
        """Log and diagnose (error) a refused motion; returns the message."""
        with self._lock:
            self.outputs.log("error", f"refused: {message}")
            self.outputs.diagnose("error", f"refused: {message}", values)
            return message

    def submit(self, traj: Trajectory, source: str, notes=()) -> tuple[bool, str]:
        """Validate ``traj`` and send it (unless ``dry_run``) -> (accepted, message). ``source``
        names it in messages; ``notes`` are the plan's (logged, in the diagnostics). Never raises."""
        with self._lock:
            try:
                return self._submit(traj, source, list(notes))
            except Exception as exc:  # noqa: BLE001 - a refusal, never a crash
                text = str(exc) if isinstance(exc, HumanoidStackError) else f"{source}: internal error {exc!r}"
                return False, self.refuse(text)

    def _submit(self, traj, source, notes):
        settings = self.settings
        if self.execution is not None and not settings.preempt:
            return False, self.refuse(
                f"{source}: a trajectory from {self.execution.source} is executing (set preempt to replace it, "
                "or call ~/stop)"
            )
        report, problem = self.check(traj)
        if problem:
            return False, self.refuse(problem, report_values(report, notes))
        values = report_values(report, notes)
        for note in notes + list(report.notes):
            self.outputs.log("info", note if note.startswith(source) else f"{source}: {note}")
        if settings.dry_run:
            text = f"dry run: {source} would execute ({report.trajectory.duration:.3f} s, stretch {report.stretch:g})"
            self.outputs.log("info", f"{text}\n{report.summary()}")
            self.outputs.diagnose("ok", text, values)
            return True, text
        if self.execution is not None:  # preempt: the new one replaces it
            self.outputs.cancel(self.execution)
            self.outputs.log("warning", f"{source} preempts the trajectory from {self.execution.source}")
        sent = report.trajectory
        monitor = ExecutionMonitor(sent, settings.path_tolerance, settings.goal_tolerance, settings.goal_time)
        mode = self.outputs.send_mode()
        self.execution = Execution(sent, monitor, self.clock(), mode, source, notes=notes)
        self.state = "executing"
        if mode == "forward_position":
            self._stream(0.0)
        else:
            self.outputs.send(self.execution)
        text = f"{source}: executing {sent.duration:.3f} s on {self.controller} ({mode}), stretch {report.stretch:g}"
        self.outputs.log("info", text)
        self.outputs.diagnose("ok", text, values)
        return True, text

    def _stream(self, t: float):
        """Forward position controller: the positions of the executing motion at ``t`` [s]."""
        if self.settings.dry_run:
            return
        traj = self.execution.trajectory
        q = sample(traj, min(max(t, 0.0), traj.duration))
        self.outputs.command(dict(zip(traj.joint_names, q)))

    def hold(self) -> dict[str, float] | None:
        """Command the measured position now (every robot joint; the last sample of the motion for
        a joint never measured) -> the held positions; None in dry run or when a joint is unknown
        (nothing sent)."""
        with self._lock:
            if self.settings.dry_run:
                return None
            names = self.limits.names
            held = dict(self.measured)
            ex = self.execution
            if ex is not None:
                planned = dict(zip(ex.trajectory.joint_names, sample(ex.trajectory, ex.trajectory.duration)))
                for n in names:
                    held.setdefault(n, planned[n])
            if any(n not in held for n in names):
                self.outputs.log("error", f"hold: {self.state_name} has not given every joint; nothing sent")
                return None
            if ex is not None:
                self.outputs.cancel(ex)
            held = {n: held[n] for n in names}
            self.outputs.hold(held)
            return held

    def stop(self, reason: str) -> str:
        """End the motion in progress (if any) and hold the measured position; log and diagnose
        (error) with the reason -> the text."""
        with self._lock:
            source = self.execution.source if self.execution is not None else "nothing"
            self.hold()
            self.execution = None
            self.state = "holding"
            text = f"stopped ({source} executing): {reason}; holding the measured position"
            if self.settings.dry_run:
                text = f"stopped: {reason} (dry run: nothing published)"
            self.outputs.log("error", text)
            self.outputs.diagnose("error", text, {"reason": reason})
            return text

    def tick(self) -> None:
        """One control period: the watchdog, the monitor, the forward position stream, the end of
        the motion. Nothing to do while idle; an internal error stops and holds."""
        with self._lock:
            ex = self.execution
            if ex is None:
                return
            try:
                age = self.state_age()
                timeout = self.settings.state_timeout
                if age > timeout:
                    self.stop(f"{self.state_name} is {age:.3f} s old (state_timeout {timeout:g} s)")
                    return
                t = self.clock() - ex.start
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
                    self.outputs.log("info", text)
                    self.outputs.diagnose("ok", text)
            except Exception as exc:  # noqa: BLE001 - stop safely
                self.stop(f"internal error during execution: {exc!r}")
