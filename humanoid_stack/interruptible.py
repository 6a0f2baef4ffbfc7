"""Waiting in the main thread so that Ctrl-C always ends the wait: the one way the commands
(`view`, `pilot`) and the node-set runner (`up`, `demo`) wait for a stop.

A single untimed `threading.Event.wait()` blocks in a lock acquire that only a signal delivered to
the main thread interrupts. With other threads running (viser's web server, rclpy's executor and
its DDS threads) the kernel may deliver a process's SIGINT to one of them: Python's C handler then
records the signal, but the main thread stays blocked and never runs the Python handler, so the
wait never returns (seen as rare timeouts of the Ctrl-C tests of `view` and of `up view`: 6 hangs
in 40 runs of `up view` stopped by SIGINT). A timed slice returns to the interpreter, which then
runs the pending handler.
"""

from __future__ import annotations

import time

__all__ = ["POLL", "wait_interruptibly"]

POLL = 0.2  #: [s] (chosen) the longest slice: short next to a human's Ctrl-C, negligible CPU


def wait_interruptibly(event, duration, poll: float = POLL) -> None:
    """Wait until ``event`` (a `threading.Event`) is set or ``duration`` [s] (None: forever) has
    passed, in slices of at most ``poll`` [s] (module docstring)."""
    deadline = None if duration is None else time.monotonic() + duration
    while not event.is_set():
        left = poll if deadline is None else min(poll, deadline - time.monotonic())
        if left <= 0:
            return
        event.wait(left)
