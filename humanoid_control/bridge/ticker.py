"""`Ticker`: calls a function every period of the steady clock in a thread of its own, the
robot bridge's control loop and watchdog (`BridgeExecutor.tick`).

    ticker = Ticker(executor.tick, period=0.01)
    ticker.start()
    ...
    ticker.close()

Its own thread, not a timer of the node's executor: a timer shares the executor's thread with the
subscriptions and services, and a long callback there (a 100 000-point trajectory, a validation, a
plan file) would delay the watchdog by as long. Here a tick waits only for the interpreter lock,
which Python code hands over every `sys.getswitchinterval` (5 ms); a single C call that keeps it
(``json.loads`` of a whole plan file) delays a tick by its duration, which the bridge bounds by
the size of the plan files it reads (`humanoid_control.bridge.plan_files.PLAN_MAX_BYTES`).

The schedule is fixed on the steady clock (``next = start + k * period``); ticks missed while the
thread waited are not made up (the next one runs at once, then the schedule goes on from there).
A tick that raises is reported to ``on_error`` and the loop goes on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from humanoid_control.exceptions import BridgeError
from humanoid_model.validation import finite_number

__all__ = ["Ticker"]


class Ticker:
    """Calls ``tick()`` every ``period`` [s] of ``steady`` in a daemon thread named ``name``
    (module docstring); ``on_error(exc)`` gets what a tick raises (default: ignored)."""

    def __init__(
        self,
        tick: Callable[[], None],
        period: float,
        name: str = "bridge-ticker",
        on_error: Callable[[BaseException], None] | None = None,
        steady: Callable[[], float] = time.monotonic,
    ):
        self.tick, self.name, self.on_error, self.steady = tick, name, on_error, steady
        self.period = finite_number(period, "ticker", "period", minimum=0.0, strict=True, unit="[s]", error=BridgeError)
        self.ticks = 0  #: ticks run so far
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Ticker:
        """Start the thread (once) -> self."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
            self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def close(self, timeout: float = 1.0) -> None:
        """Stop the thread and wait for it (at most ``timeout`` [s]: a tick in progress ends first)."""
        self._closing.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        due = self.steady()
        while not self._closing.wait(max(0.0, due - self.steady())):
            try:
                self.tick()
            except Exception as exc:  # noqa: BLE001 - the loop outlives a failing tick
                if self.on_error is not None:
                    self.on_error(exc)
            self.ticks += 1
            due += self.period
            now = self.steady()
            if due < now:  # late: run the next tick now, and keep the period from here
                due = now
