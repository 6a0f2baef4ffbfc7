"""Pacing of a simulation to the wall clock (the simulator node's ``real_time_factor``), ROS-free.

    pacer = Pacer()
    wait = pacer.delay(world.t, real_time_factor, time.monotonic())   # seconds to sleep, or 0

Simulated time t maps to the wall-clock target anchor_wall + (t − anchor_t)/rtf, the anchor
being where pacing (re)started. A run more than ``CATCH_UP`` behind its target drops the backlog
(re-anchors) instead of running flat out to catch up.
"""

from __future__ import annotations

__all__ = ["Pacer", "CATCH_UP", "MIN_WAIT"]

CATCH_UP = 0.25  # [s] wall: a paced run further behind than this drops the backlog (chosen)
MIN_WAIT = 1e-3  # [s] shorter waits are skipped (chosen: below the sleep granularity that matters)


class Pacer:
    """Wall-clock pacing of simulated time (module docstring)."""

    def __init__(self, catch_up: float = CATCH_UP):
        self.catch_up = float(catch_up)
        self.anchor: tuple[float, float] | None = None  # (wall time [s], simulated time [s])

    def reset(self):
        """Start pacing afresh at the next call (after a pause, a reset or a new factor)."""
        self.anchor = None

    def delay(self, t: float, real_time_factor: float, now: float) -> float:
        """Wall-clock seconds to wait before going on with simulated time t [s] at ``now`` [s]
        (a monotonic clock); 0 when none, and always 0 for a factor ≤ 0 (as fast as possible)."""
        if real_time_factor <= 0:
            return 0.0
        if self.anchor is None:
            self.anchor = (now, t)
        target = self.anchor[0] + (t - self.anchor[1]) / real_time_factor
        if target - now > MIN_WAIT:
            return target - now
        if now - target > self.catch_up:
            self.anchor = (now, t)
        return 0.0
