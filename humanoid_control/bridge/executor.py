"""The bridge's execution state machine, ROS-free: what a robot bridge does with a trajectory once
it arrives, and every control period while it runs (docs/bridge.md, "Execution").

    executor = BridgeExecutor(limits, outputs, clock=now, steady=time.monotonic, settings=ExecutorSettings())
    executor.measure(names, positions, stamp)    # each measured joint state (stamp [s]: optional)
    accepted, text = executor.submit(traj, "~/trajectory")
    executor.tick()                               # every control period (`Ticker`: its own thread)
    executor.stop("operator")                     # hold the commanded set-point now

States (``state``): ``idle`` (nothing sent yet, or the last motion succeeded), ``executing`` (a
motion runs: ``execution`` is set) and ``holding`` (a stop held a set-point). Apart from them the
executor is armed or not (``armed``, the robot bridge node's lifecycle: active or not): `disarm`
stops a motion in progress and holds its commanded set-point, then refuses every submission with
the reason it was given and sends nothing more (no hold, no stream) until `arm`.

* `submit` refuses a trajectory while one executes (unless ``preempt``: the valid new one replaces
  it, the old goal is cancelled), and one that `validate` refuses against the measured state;
  every measured joint must be younger than ``state_timeout``. In ``dry_run`` it validates and
  reports only. Otherwise it sends the validated trajectory (`BridgeOutputs.send`, or the first
  sample of the forward position stream) and starts an `ExecutionMonitor` on it. The joints the
  trajectory does not name stay at their set-point (``setpoint``), not at their measurement.
* `tick` (each control period, on the ``steady`` clock's schedule) stops and holds when a measured
  joint is older than ``state_timeout`` (the watchdog) or when the monitor aborts (path or goal
  tolerance); streams the positions at the motion's time to a forward position controller; ends
  the motion when the monitor says it succeeded. A whole-body controller's status times the
  monitor (its ``plan_time``); one stamped with its instant is checked against the measured state
  of that instant (`measure`'s ``stamp``), not a newer one.
* `stop` ends the motion and holds the last commanded set-point (`hold`): never the measured
  posture again, which a robot under gravity sags below (holding it at every stop would lower the
  robot stop after stop). When nothing was ever commanded it sends nothing.

The watchdog's input (`measure`): only finite positions of the robot's joints are kept, and each
joint has its own age (`joint_age`): an empty message, NaN positions or a message of joints the
robot does not have refresh nothing, and a joint no longer measured stops the motion.

Two clocks are passed in: ``clock`` [s] times the motion (the monitor's t since the start: a
simulator's clock when the robot is simulated), ``steady`` [s] ages the measured state (the
watchdog: a stalled simulated clock must not hide a stale state). Everything sent goes through
``outputs`` (`BridgeOutputs`: the node's publishers, or a recorder in a test), in the order the
state machine decides it: a hold is sent before `stop` returns. Thread-safe: one transition at a
time under a lock that is never held while a trajectory is validated, so `tick` runs on time in
its own thread beside any input.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
import threading
import time
from collections import deque
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
#: topic, a forward position controller's commands streamed each `tick`, or the whole motion
#: (its contact schedule too) to a whole-body controller, which reports its progress
SEND_MODES = ("follow_joint_trajectory", "joint_trajectory", "forward_position", "whole_body")
#: [s] (chosen) a whole-body controller that has not reported on a motion this long after it was
#: sent (building its reference takes a few seconds for a long plan) is taken as absent
WHOLE_BODY_START = 30.0
#: [s] (chosen: 10 periods of the simulator's 50 Hz /joint_states) watchdog: a measured state
#: older than this stops a motion and refuses a new one
STATE_TIMEOUT = 0.2
#: [s] (chosen) how far back the stamped measurements are kept: a whole-body controller's status
#: is compared with the measurement of its own instant (`BridgeExecutor.measure`), and a status
#: reaches the bridge up to a few hundred milliseconds after the state it describes in one busy process
MEASURED_SPAN = 2.0


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
        ``validation`` (the robot bridge node's parameters); ``command_period`` may be given as
        ``rate`` [Hz] instead (the node's control rate)."""
        own = {f.name: values[f.name] for f in dataclasses.fields(cls) if f.name != "validation"}
        values = dict(values)
        if "command_period" not in values:
            values["command_period"] = 1.0 / values["rate"]
        checks = {f.name: values[f.name] for f in dataclasses.fields(BridgeSettings)}
        return cls(validation=BridgeSettings(**checks), **own)


@dataclass
class Execution:
    """A motion being executed: the validated trajectory (every robot joint), its monitor, its
    start on the executor's ``clock`` [s], how it is sent (`SEND_MODES`), its source, the
    controller's goal handle (the outputs' to set and read; None without an action), the
    plan's notes and the last positions streamed (forward position controller); for a
    whole-body controller the motion document, its tag and the controller's last status."""

    trajectory: Trajectory
    monitor: ExecutionMonitor
    start: float
    mode: str
    source: str
    goal_handle: object = None
    notes: list = field(default_factory=list)
    streamed: dict | None = None  #: the last positions streamed to a forward position controller
    motion: dict | None = None  #: the motion document a whole-body controller executes
    id: str = ""  #: the motion's tag in the whole-body controller's status
    progress: dict | None = None  #: the whole-body controller's last status of this motion
    done_at: float | None = None  #: ``clock`` when the whole-body controller said it was done
    #: how it ended: ("succeeded" or "aborted", the reason); None while it executes
    outcome: tuple[str, str] | None = None


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


def _whole_body_problem(report, source, motion, settings, robot=None) -> str:
    """Why a whole-body controller cannot take this validated motion ("" when it can): it needs
    the motion document, made for this robot, and executes it as planned (no stretch, no speed
    scale)."""
    if motion is None:
        return (
            f"{source}: a whole-body controller needs the whole motion (its contact schedule): send a PLAN.json, "
            "WALK.json or GAIT.json on the motion topic or ~/execute_file, not a joint trajectory"
        )
    named = motion.get("robot") if isinstance(motion, dict) else None
    if robot is not None and isinstance(named, str) and named and named != robot.name:
        return f"{source}: field 'robot' must be {robot.name!r} (the robot this bridge drives); value {named!r}"
    if report.stretch > 1.0 + 1e-9 or settings.validation.speed_scale != 1.0:
        return (
            f"{source}: the motion would be sent {report.stretch:g} times slower (speed_scale "
            f"{settings.validation.speed_scale:g}) to meet the joint limits; a whole-body controller executes it as "
            "planned: replan it slower, or set speed_scale 1"
        )
    return ""


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
        armed: whether it sends (default True); else it refuses every motion with ``refusal``
            until `arm` (the robot bridge node starts disarmed: its lifecycle's inactive state).

    ``measured`` {joint: position} holds the newest finite measurement of each robot joint (other
    names are not kept), `joint_age` the age of each; ``setpoint`` {joint: position} the last
    set-point commanded when nothing executes (every robot joint; None before the first command).
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
        armed: bool = True,
        refusal: str = "not active: the executor is disarmed",
    ):
        self.limits, self.outputs, self.robot = limits, outputs, robot
        self.clock, self.steady = clock, steady
        self.settings = settings if settings is not None else ExecutorSettings()
        self.state_name, self.controller = state_name, controller
        self.measured: dict[str, float] = {}
        self._refreshed: dict[str, float] = {}  # joint -> steady time of its newest finite measurement
        self._stamped: deque[tuple[float, dict[str, float]]] = deque()  # (stamp, measured then), MEASURED_SPAN
        self.execution: Execution | None = None
        self.setpoint: dict[str, float] | None = None
        self.state = "idle"
        self._stops = 0  # stops so far: a submission validated across a stop is not sent
        self._motions = 0  # motions sent to a whole-body controller (their tags)
        self._lock = threading.RLock()  # one transition at a time, whichever thread calls
        self.refusal = None if armed else refusal  # why a motion is refused while disarmed (None: armed)

    # ------------------------------------------------------------------ arming
    @property
    def armed(self) -> bool:
        """Whether motions are accepted and anything is sent (`arm`, `disarm`)."""
        return self.refusal is None

    def arm(self) -> None:
        """Accept motions and send again (the node's lifecycle activation)."""
        with self._lock:
            self.refusal = None

    def disarm(self, reason: str, refusal: str = "not active: the executor is disarmed") -> str:
        """Stop the motion in progress, if any (`stop` with ``reason``: it holds the commanded
        set-point), then refuse every motion with ``refusal`` and send nothing until `arm` -> the
        stop's text ("" when nothing executed: nothing is sent then, the controller keeps its own
        last set-point). One transition under the lock: no motion starts in between."""
        with self._lock:
            text = self.stop(reason) if self.execution is not None else ""
            self.refusal = refusal
            return text

    # ------------------------------------------------------------------ measured state
    def measure(self, names, positions, stamp: float | None = None) -> None:
        """A measured joint state: ``names`` and their ``positions``. A message whose lengths differ
        is ignored; a name that is not a robot joint, or a non-finite position, is skipped; each
        joint given a finite position is refreshed (its age restarts), and no other. ``stamp``:
        the instant the state was measured [s] (the message's header, on ``clock``'s time base);
        while a whole-body motion executes, the states of the last `MEASURED_SPAN` are kept so that
        its controller's status stamped at an instant is checked against the state of that instant
        (`tick`)."""
        names, positions = list(names), list(positions)
        if len(names) != len(positions):
            return
        known = self.limits.index
        values = {}
        for n, x in zip(names, positions):
            if n in known:
                x = float(x)
                if math.isfinite(x):
                    values[n] = x
        if not values:
            return
        with self._lock:
            now = self.steady()
            self.measured.update(values)
            for n in values:
                self._refreshed[n] = now
            ex = self.execution  # kept only while a whole-body motion runs: its statuses are checked against them
            whole_body = ex is not None and ex.mode == "whole_body"
            if whole_body and stamp is not None and math.isfinite(stamp) and stamp > 0.0:
                stamped = self._stamped
                if stamped and stamp < stamped[-1][0]:  # time went back (a simulator reset): start again
                    stamped.clear()
                stamped.append((float(stamp), dict(self.measured)))
                while stamp - stamped[0][0] > MEASURED_SPAN:
                    stamped.popleft()

    @property
    def measured_at(self) -> float | None:
        """``steady`` time of the oldest refresh among the measured joints (None before one)."""
        with self._lock:
            return min(self._refreshed.values()) if self._refreshed else None

    def joint_age(self, name: str) -> float:
        """Age [s] of joint ``name``'s newest finite measurement on the ``steady`` clock (inf: never)."""
        with self._lock:
            t = self._refreshed.get(name)
            return math.inf if t is None else self.steady() - t

    def state_age(self) -> float:
        """Age [s] of the measured state: its stalest joint's, on the ``steady`` clock (inf before
        the first measurement). Joints never measured do not count here: `validate` refuses a
        motion that needs one (``held_joints``)."""
        with self._lock:
            at = self.measured_at
            return math.inf if at is None else self.steady() - at

    def _staleness(self) -> str:
        """Why the measured state is stale, "" when it is fresh (every measured joint younger than
        ``state_timeout``)."""
        timeout = self.settings.state_timeout
        age = self.state_age()
        if math.isinf(age):
            return f"no {self.state_name} received (state_timeout {timeout:g} s)"
        if age <= timeout:
            return ""
        stale = [n for n in self.limits.names if n in self._refreshed and self.joint_age(n) > timeout]
        if len(stale) == len(self._refreshed):
            return f"{self.state_name} is {age:.3f} s old (state_timeout {timeout:g} s)"
        oldest = max(stale, key=self.joint_age)
        more = f" and {len(stale) - 1} more" if len(stale) > 1 else ""
        return f"{self.state_name} is {age:.3f} s old for joint '{oldest}'{more} (state_timeout {timeout:g} s)"

    def current(self) -> dict[str, float] | None:
        """The measured positions, None when the measured state is missing or stale."""
        with self._lock:
            return None if self._staleness() else dict(self.measured)

    def check(self, traj: Trajectory):
        """`validate` against the measured state -> (report, message): message is "" when the
        report is ok, else the refusal text (report None when the state is unknown). The lock is
        held only to read the state, never while validating."""
        with self._lock:
            stale = self._staleness()
            current, settings, hold = dict(self.measured), self.settings, self._setpoint_now()
        if stale:
            return None, f"{stale}: the start state is unknown"
        return self._validate(traj, current, settings, hold)

    def _validate(self, traj, current, settings, hold):
        report = validate(traj, self.limits, current, settings.validation, robot=self.robot, hold=hold)
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

    def submit(self, traj: Trajectory, source: str, notes=(), motion: dict | None = None) -> tuple[bool, str]:
        """Validate ``traj`` and send it (unless ``dry_run``) -> (accepted, message). ``source``
        names it in messages; ``notes`` are the plan's (logged, in the diagnostics); ``motion``:
        the decoded motion document whose joint trajectory ``traj`` is, for a whole-body
        controller (which executes the document, as planned: a motion it would need stretched,
        or none, is refused in that mode). Never raises.
        Validation runs outside the lock (a long one delays no `tick`); the motion is sent only if
        no stop came meanwhile, the state is still fresh and (without ``preempt``) nothing else
        started."""
        try:
            notes = list(notes)
            with self._lock:
                busy = self._busy(source)
                if busy:
                    return False, self.refuse(busy)
                stops, settings = self._stops, self.settings
            report, problem = self.check(traj)
            if problem:
                return False, self.refuse(problem, report_values(report, notes))
            if self.outputs.send_mode() == "whole_body":
                problem = _whole_body_problem(report, source, motion, settings, self.robot)
                if problem:
                    return False, self.refuse(problem, report_values(report, notes))
            with self._lock:
                late = self._busy(source) or self._staleness()
                if self._stops != stops:
                    late = f"{source}: a stop came while it was validated: not sent"
                if late:
                    return False, self.refuse(late, report_values(report, notes))
                return self._start(report, source, notes, settings, motion)
        except Exception as exc:  # noqa: BLE001 - a refusal, never a crash
            text = str(exc) if isinstance(exc, HumanoidStackError) else f"{source}: internal error {exc!r}"
            return False, self.refuse(text)

    def _busy(self, source) -> str:
        if not self.armed:
            return f"{source}: {self.refusal}"
        if self.execution is not None and not self.settings.preempt:
            return (
                f"{source}: a trajectory from {self.execution.source} is executing (set preempt to replace it, "
                "or call ~/stop)"
            )
        return ""

    def _start(self, report, source, notes, settings, motion=None):
        if self.outputs.send_mode() == "whole_body":  # the whole motion goes, its base and contacts too
            notes = [n for n in notes if "only the joint part is sent" not in n]
        values = report_values(report, notes)
        for note in notes + list(report.notes):
            self.outputs.log("info", note if note.startswith(source) else f"{source}: {note}")
        if settings.dry_run:
            text = f"dry run: {source} would execute ({report.trajectory.duration:.3f} s, stretch {report.stretch:g})"
            self.outputs.log("info", f"{text}\n{report.summary()}")
            self.outputs.diagnose("ok", text, values)
            return True, text
        if self.execution is not None:  # preempt: the new one replaces it
            self.execution.outcome = ("aborted", f"preempted by {source}")
            self.outputs.cancel(self.execution)
            self.outputs.log("warning", f"{source} preempts the trajectory from {self.execution.source}")
        sent = report.trajectory
        monitor = ExecutionMonitor(sent, settings.path_tolerance, settings.goal_tolerance, settings.goal_time)
        mode = self.outputs.send_mode()
        self.execution = Execution(sent, monitor, self.clock(), mode, source, notes=notes, motion=motion)
        if mode == "whole_body":
            self._motions += 1
            self.execution.id = f"{source}#{self._motions}"
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
        ex = self.execution
        traj = ex.trajectory
        q = dict(zip(traj.joint_names, sample(traj, min(max(t, 0.0), traj.duration))))
        ex.streamed = q
        self.outputs.command(q)

    def _setpoint_now(self) -> dict[str, float] | None:
        """What the controller is commanded now: the executing motion's position at the motion's
        time (a forward position controller: the last command streamed), else ``setpoint``."""
        ex = self.execution
        if ex is None:
            return self.setpoint
        if ex.streamed is not None:
            return dict(ex.streamed)
        traj = ex.trajectory
        t = self._motion_time(ex) or 0.0
        t = min(max(t, 0.0), traj.duration)
        return dict(zip(traj.joint_names, sample(traj, t)))

    def hold(self, measured: bool = False) -> dict[str, float] | None:
        """Hold now -> the held positions (every robot joint), None when nothing is sent (dry run,
        or nothing ever commanded). During a motion: its set-point at this moment (`_setpoint_now`),
        or with ``measured`` (the monitor's abort: the robot is not where it was commanded) the
        measured positions, a joint never measured at that set-point; the goal is cancelled. With
        no motion: the last set-point again, so a second hold keeps the first."""
        with self._lock:
            if self.settings.dry_run or not self.armed:
                return None
            held = self._setpoint_now()
            if held is None:
                return None
            if measured:
                held = {n: self.measured.get(n, x) for n, x in held.items()}
            if self.execution is not None:
                self.outputs.cancel(self.execution)
            held = {n: float(held[n]) for n in self.limits.names}
            self.outputs.hold(held)
            self.setpoint = held
            return held

    def stop(self, reason: str, execution: Execution | None = None, measured: bool = False) -> str:
        """End the motion in progress (if any) and `hold`; log and diagnose (error) with the reason
        -> the text. ``execution``: stop only if that motion still executes (a late failure of a
        replaced motion's goal changes nothing). ``measured``: hold the measured positions (the
        monitor's aborts)."""
        with self._lock:
            if execution is not None and self.execution is not execution:
                text = f"ignored ({execution.source} no longer executes): {reason}"
                self.outputs.log("warning", text)
                return text
            source = self.execution.source if self.execution is not None else "nothing"
            if self.execution is not None:
                self.execution.outcome = ("aborted", reason)
            held = self.hold(measured)
            self._stops += 1
            if self.execution is not None or held is not None:
                self.state = "holding"
            self.execution = None
            what = "the measured position" if measured else "the commanded position"
            if source == "nothing":
                what = "the last commanded position"
            text = f"stopped ({source} executing): {reason}; holding {what}"
            if held is None:
                text = f"stopped ({source} executing): {reason}; nothing commanded yet: nothing sent"
            if self.settings.dry_run:
                text = f"stopped: {reason} (dry run: nothing published)"
            elif not self.armed:
                text = f"stopped: {reason} ({self.refusal}: nothing sent)"
            self.outputs.log("error", text)
            self.outputs.diagnose("error", text, {"reason": reason})
            return text

    def progress(self, status: dict) -> None:
        """A whole-body controller's status (`humanoid_execution.whole_body.WholeBodyMotion.status`:
        ``id``, ``state``, ``plan_time`` [s], ``reason``) for the motion it names: it times the
        monitor; "holding" (the controller's safe hold) or "refused" stops the motion."""
        with self._lock:
            ex = self.execution
            if ex is None or ex.mode != "whole_body" or not isinstance(status, dict) or status.get("id") != ex.id:
                return
            ex.progress = status
            state = status.get("state")
            if state in ("holding", "refused"):
                self.stop(f"the whole-body controller: {state}: {status.get('reason') or 'no reason given'}", ex)
            elif state == "done" and ex.done_at is None:
                ex.done_at = self.clock()

    def desired(self, ex: Execution) -> tuple[float, dict[str, float]]:
        """(the time along ``ex`` [s], its commanded positions at that time): what a
        FollowJointTrajectory server reports as desired (0 and the first point before a
        whole-body controller reports)."""
        with self._lock:
            t = self._motion_time(ex) or 0.0
            traj = ex.trajectory
            return t, dict(zip(traj.joint_names, sample(traj, min(max(t, 0.0), traj.duration))))

    def _measured_for(self, ex: Execution) -> dict[str, float]:
        """The measured state the monitor compares with the motion at `_motion_time`: a
        whole-body controller's status that gives its ``stamp`` [s] (the instant of its
        ``plan_time``) is compared with the stamped measurement nearest that instant, not with a
        newer one (in one busy process a status arrives late, and the robot has moved on since);
        otherwise, and after the controller said done, the newest."""
        at = ex.progress.get("stamp") if ex.progress is not None else None
        stamped = self._stamped
        usable = isinstance(at, (int, float)) and math.isfinite(at)
        if ex.mode != "whole_body" or ex.done_at is not None or not usable or not stamped:
            return dict(self.measured)
        i = bisect.bisect_left(stamped, at, key=lambda entry: entry[0])
        near = [stamped[k] for k in (i - 1, i) if 0 <= k < len(stamped)]
        return dict(min(near, key=lambda entry: abs(entry[0] - at))[1])

    def _motion_time(self, ex) -> float | None:
        """The time along the motion: the whole-body controller's (its ``plan_time``, then the time
        since it said done), else since the start; None while a whole-body controller has not
        reported yet."""
        if ex.mode != "whole_body":
            return self.clock() - ex.start
        if ex.progress is None:
            return None
        t = float(ex.progress.get("plan_time", 0.0))
        if ex.done_at is not None:
            t = max(t, ex.trajectory.duration) + (self.clock() - ex.done_at)
        return t

    def tick(self) -> None:
        """One control period: the watchdog, the monitor, the forward position stream, the end of
        the motion. Nothing to do while idle; an internal error stops and holds."""
        with self._lock:
            ex = self.execution
            if ex is None:
                return
            try:
                stale = self._staleness()
                if stale:
                    self.stop(stale)
                    return
                t = self._motion_time(ex)
                if t is None:
                    if self.clock() - ex.start > WHOLE_BODY_START:
                        self.stop(f"{self.controller} did not report on the motion within {WHOLE_BODY_START:g} s")
                    return
                status = ex.monitor.update(t, self._measured_for(ex))
                if status.state == "aborted":
                    self.stop(status.reason, measured=True)
                    return
                if ex.mode == "forward_position":
                    self._stream(t)
                if status.state == "succeeded":
                    traj = ex.trajectory
                    self.setpoint = dict(zip(traj.joint_names, (float(x) for x in traj.positions[-1])))
                    ex.outcome = ("succeeded", status.reason)
                    self.execution = None
                    self.state = "idle"
                    text = f"{ex.source}: succeeded ({status.reason})" if status.reason else f"{ex.source}: succeeded"
                    self.outputs.log("info", text)
                    self.outputs.diagnose("ok", text)
            except Exception as exc:  # noqa: BLE001 - stop safely
                self.stop(f"internal error during execution: {exc!r}")
