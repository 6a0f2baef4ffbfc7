"""`PilotLoop`: a `humanoid_control.piloting.PilotSession` stepped in a thread at its rate (the
thesis's >= 25 Hz, Flückiger 1998, §5.1.1); `humanoid-stack pilot` runs one beside its viewer
(`humanoid_control.piloting` re-exports it)."""

from __future__ import annotations

import threading
import time

from humanoid_control.exceptions import KinematicsError

__all__ = ["PilotLoop"]


class PilotLoop:
    """Runs ``session.step`` every 1/``session.rate`` seconds in a daemon thread (deadlines on a
    monotonic clock: a slow cycle is not made up by a burst) and calls ``on_cycle(state)`` after
    each. An exception in a cycle is kept in ``last_error`` and counted in ``errors``; the loop
    goes on. `stop` ends it."""

    def __init__(self, session, on_cycle=None):
        self.session, self.on_cycle = session, on_cycle
        self.errors, self.last_error = 0, ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pilot-loop", daemon=True)

    def start(self) -> PilotLoop:
        self._thread.start()
        return self

    def _run(self):
        period = 1.0 / self.session.rate
        deadline = time.monotonic()
        while not self._stop.is_set():
            try:
                state = self.session.step()
                if self.on_cycle is not None:
                    self.on_cycle(state)
            except Exception as exc:  # noqa: BLE001 - a cycle's failure is reported, the loop stays up
                self.errors += 1
                self.last_error = str(exc) if isinstance(exc, KinematicsError) else repr(exc)
            deadline = max(deadline + period, time.monotonic())
            self._stop.wait(max(0.0, deadline - time.monotonic()))

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)
