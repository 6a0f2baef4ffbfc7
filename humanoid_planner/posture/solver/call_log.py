"""Per-call statistics of the posture generator: every call's outcome code, time and iterations,
for the histogram of Escande 2008, Table 7.1 (§7.5.2).

Two ways to collect:

- pass ``log=CallLog()`` to `two_phase.solve` / `newton_projection.newton_project`: that call is recorded there;
- ``with recording(log):`` records every call made in the process (all threads) while the block
  runs, whoever makes it (the contact planner, motion generation), into ``log``.

A record is ``Call(label, outcome, time, phase1_iterations, iterations, max_violation,
cpu_time)`` (the wall and the process's CPU time of the call: on a loaded machine the CPU time is
the one to compare); the
``label`` says what the call is for ("transition", "addition", ...; "" when the caller gave
none). `CallLog.histogram()` gives the Table 7.1 rows: per outcome code the count, the mean and
the total time [s].
"""

from __future__ import annotations

import threading
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from .outcome import Outcome

__all__ = ["Call", "CallLog", "notify", "recording"]


@dataclass(frozen=True)
class Call:
    """One posture-generator call: what for, its outcome, wall time [s], iterations of both phases
    and the largest violation at its end [m or -]."""

    label: str
    outcome: Outcome
    time: float
    phase1_iterations: int
    iterations: int
    max_violation: float
    cpu_time: float = 0.0  #: [s] the process's CPU time of the call


class CallLog:
    """A thread-safe list of `Call` records."""

    def __init__(self):
        self.calls: list[Call] = []
        self._lock = threading.Lock()

    def record(self, result, label: str = "") -> None:
        """Append the record of a `PostureResult`."""
        call = Call(
            label,
            Outcome(result.outcome),
            float(result.time),
            int(result.phase1_iterations),
            int(result.iterations),
            float(result.max_violation),
            float(getattr(result, "cpu_time", 0.0)),
        )
        with self._lock:
            self.calls.append(call)

    def __len__(self) -> int:
        return len(self.calls)

    def times(self, outcome: Outcome | None = None, label: str | None = None, cpu: bool = False) -> np.ndarray:
        """Wall (or ``cpu``) times [s] of the calls with that outcome and label (None: any)."""
        return np.array(
            [
                c.cpu_time if cpu else c.time
                for c in self.calls
                if (outcome is None or c.outcome == outcome) and (label is None or c.label == label)
            ]
        )

    def histogram(self, label: str | None = None) -> list[tuple[Outcome, int, float, float]]:
        """Table 7.1 rows ``(outcome, count, mean time [s], total time [s])`` by increasing code."""
        groups = defaultdict(list)
        for c in self.calls:
            if label is None or c.label == label:
                groups[c.outcome].append(c.time)
        return [(o, len(t), float(np.mean(t)), float(np.sum(t))) for o, t in sorted(groups.items())]


_listeners: list[CallLog] = []
_listeners_lock = threading.Lock()


@contextmanager
def recording(log: CallLog):
    """Record every posture-generator call of the process into ``log`` inside the block."""
    with _listeners_lock:
        _listeners.append(log)
    try:
        yield log
    finally:
        with _listeners_lock:
            _listeners.remove(log)


def notify(result, label: str = "", log: CallLog | None = None) -> None:
    """Record ``result`` into ``log`` (if any) and into every log of an active `recording` block."""
    if log is not None:
        log.record(result, label)
    with _listeners_lock:
        active = list(_listeners)
    for other in active:
        if other is not log:
            other.record(result, label)
