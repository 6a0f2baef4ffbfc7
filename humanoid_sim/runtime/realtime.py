"""A simulation stepped in its own thread, paced to a real-time factor, ROS-free.

    stepper = RealTimeStepper(session, real_time_factor=1.0, publish=on_outputs, report=on_report)
    stepper.start()                  # steps session (humanoid_sim.runtime.session) until close()
    with stepper.lock:               # every other use of the session holds the lock
        session.command_positions(q, topic)
    stepper.pause(True); stepper.step_paused(); stepper.reset(); stepper.close()

The thread steps the session, hands each step's due `Outputs` to ``publish(outputs)`` and, once
per ``diagnostics_period`` of wall clock, a physics report to ``report(t, report)``; both
callbacks run in the thread, outside the lock. Simulated time is paced to the wall clock by
`humanoid_sim.runtime.pacing.Pacer` (factor 0: as fast as possible). While paused the thread waits
(polling every ``PAUSED_POLL``) and keeps reporting. An exception inside a cycle (a step, a
sensor, a callback) pauses the simulation, is kept in ``error`` (reported as ERROR) and passed to
``on_error(text)``; the thread itself never dies while the stepper lives, and `reset` recovers.

The simulator node (`humanoid_ros.simulator`) is this plus messages: it runs the world in a
thread of its own so the ROS executor is never starved.

GIL hand-over. A step releases the GIL at each BLAS product and QP solve (numpy's matmul, DAQP)
and must get it back from whichever thread took it: by default a thread keeps it up to
`sys.getswitchinterval` (5 ms) while another waits. Beside a busy thread (the ROS executor of
`humanoid-stack up`) the whole-body controller's 0.5 ms update then took 17 ms, and in
`up execute_sim` single steps took up to 2 s and /joint_states paused for seconds (measured). While
a stepper runs, the process's switch interval is lowered to `SWITCH_INTERVAL` (restored when the
last stepper closes).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping

from humanoid_sim.runtime.pacing import Pacer

__all__ = ["RealTimeStepper", "PAUSED_POLL", "CLOSE_TIMEOUT", "SWITCH_INTERVAL"]

PAUSED_POLL = 0.05  # [s] wall: how often a paused stepper looks at the clock for reports (chosen)
CLOSE_TIMEOUT = 5.0  # [s] wall: longest wait for the thread to end in `close` (chosen)
# [s] (chosen, measured) the GIL switch interval while a stepper runs (module docstring). In
# `up execute_sim`'s flat walk: 5e-4 s kept every step under 0.1 s and /joint_states gaps under
# 0.25 s (5 ms: 1-4 s gaps); 1e-4 s slowed the other nodes' start enough that the planner had no
# /joint_states yet when asked
SWITCH_INTERVAL = 5e-4

_switch_lock = threading.Lock()
_switch_users = 0
_switch_saved = None


def _lower_switch_interval() -> None:
    global _switch_users, _switch_saved
    with _switch_lock:
        if _switch_users == 0:
            _switch_saved = sys.getswitchinterval()
            sys.setswitchinterval(min(_switch_saved, SWITCH_INTERVAL))
        _switch_users += 1


def _restore_switch_interval() -> None:
    global _switch_users
    with _switch_lock:
        _switch_users -= 1
        if _switch_users == 0:
            sys.setswitchinterval(_switch_saved)


class RealTimeStepper:
    """Steps a `humanoid_sim.runtime.session.SimulationSession` in a thread (module docstring).

    publish(outputs): the `Outputs` of each step (and of `step_paused`); report(t, report): a
    `PhysicsReport` at simulated time t [s]; on_error(text): a failed cycle (the stepper is
    paused); context(): extra keyword arguments of the report (controller, rejected_commands,
    last_rejection, accepted_commands, last_command_time), read under the lock. `lock`
    (re-entrant) guards the session; `paused`, `error` and `real_time_factor` are read by the
    report.
    """

    def __init__(
        self,
        session,
        real_time_factor: float = 1.0,
        *,
        publish: Callable,
        report: Callable | None = None,
        on_error: Callable[[str], None] | None = None,
        context: Callable[[], Mapping] | None = None,
        name: str = "simulation-step",
    ):
        self.session = session
        self.real_time_factor = float(real_time_factor)
        self.lock = threading.RLock()
        self.paused = False
        self.error = ""
        self._publish, self._report, self._on_error = publish, report, on_error
        self._context = context or dict
        self._pacer = Pacer()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._started = False

    # ------------------------------------------------------------------ control
    def start(self):
        """Start the stepping thread (and lower the GIL switch interval: module docstring)."""
        _lower_switch_interval()
        self._started = True
        self._thread.start()

    @property
    def alive(self) -> bool:
        """Whether the stepping thread runs (it survives failing steps; `close` ends it)."""
        return self._thread.is_alive()

    def close(self, timeout: float = CLOSE_TIMEOUT):
        """Stop the stepping thread and wait for it (at most ``timeout`` [s])."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=timeout)
        if self._started:
            self._started = False
            _restore_switch_interval()

    def set_real_time_factor(self, real_time_factor: float):
        """Pace to a new factor from now on (0 = as fast as possible)."""
        with self.lock:
            self.real_time_factor = float(real_time_factor)
            self._pacer.reset()

    def pause(self, paused: bool):
        """Pause (True) or run (False) the simulation."""
        with self.lock:
            self.paused = bool(paused)
            self._pacer.reset()
        self._wake.set()

    def reset(self):
        """Rebuild the world at t = 0 (`SimulationSession.reset`), clear the error and run. A
        `HumanoidStackError` of the rebuild propagates and changes nothing."""
        with self.lock:
            self.session.reset()
            self._pacer.reset()
            self.error = ""
            self.paused = False
        self._wake.set()

    def step_paused(self):
        """One step while paused: its `Outputs` (all of them, also handed to ``publish``), or None
        when the simulation is running (refused). A failing step sets `error` and re-raises."""
        with self.lock:
            if not self.paused:
                return None
            try:
                self.session.step()
                out = self.session.outputs(force=True)
            except Exception as exc:
                self.error = f"step failed: {type(exc).__name__}: {exc}"
                raise
        self._publish(out)
        return out

    # ------------------------------------------------------------------ thread
    def _run(self):
        while not self._stop.is_set():
            try:
                self._cycle()
            except Exception as exc:  # noqa: BLE001 - reported (error, on_error), the thread keeps running
                if self._stop.is_set():
                    break
                with self.lock:
                    self.paused = True
                    self.error = f"step at t = {self.session.world.t:.4f} s failed: {type(exc).__name__}: {exc}"
                if self._on_error is not None:
                    self._on_error(self.error)

    def _cycle(self):
        if self.paused:
            self._pacer.reset()
            self._wake.wait(PAUSED_POLL)
            self._wake.clear()
            self._maybe_report()
            return
        with self.lock:
            if self.paused:  # paused while this thread waited for the lock
                return
            self.session.step()
            out = self.session.outputs()
            rtf = self.real_time_factor
        self._publish(out)
        self._maybe_report()
        wait = self._pacer.delay(out.t, rtf, time.monotonic())
        if wait > 0:
            self._stop.wait(wait)
        else:
            # running flat out: hand the GIL over once per step. Without it a thread that blocks
            # on I/O (the executor importing a message module, DDS callbacks) waits a whole
            # switch interval (5 ms) for the GIL after every system call: the first ROS test of a
            # process took 90-120 s instead of 2 s (measured)
            time.sleep(0)

    def _maybe_report(self):
        if self._report is None:
            return
        now = time.monotonic()
        if not self.session.report_due(now):
            return
        with self.lock:
            report = self.session.report(
                now,
                paused=self.paused,
                error=self.error,
                real_time_factor_target=self.real_time_factor,
                **self._context(),
            )
            t = self.session.world.t
        self._report(t, report)
