"""Step statistics of the simulator: per-stage wall time, step-time distribution, solver
iterations, unconverged solves, impacts, residual maxima and the deepest penetration, accumulated
since the last `StepStats.drain()` in bounded memory.

    stats = world.step_stats
    with stats.timers.collision:         # one stage: a perf_counter pair
        ...
    stats.record_stages(stamps)          # World.step: every stage from one reading at each start
    summary = stats.drain()              # StepSummary since the last drain, then reset
    world.stats()                        # the same summary as a dict, without resetting

Memory stays bounded over any run length: step times go into a log-spaced histogram
(``BINS_PER_DECADE`` bins per decade from ``HISTOGRAM_MIN`` to ``HISTOGRAM_MAX``; the median is
read from it, within half a bin: ±0.6 %, and clamped to the exact minimum and maximum); the
other numbers are running sums, maxima and counts. Per-step samples (step time and the time of
every stage) are kept only when asked for, in a buffer of a fixed capacity
(`StepStats.keep_samples`, used by the benchmarks).
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass
from time import perf_counter

import numpy as np

__all__ = ["STAGES", "StageTimer", "StepStats", "StepSummary", "RESIDUAL_KEYS"]

STAGES = ("kinematics", "actuators", "free", "collision", "contacts", "delassus", "solve", "integration")
RESIDUAL_KEYS = ("complementarity", "penetration", "cone", "dissipation", "slip_force", "natural_map")
BINS_PER_DECADE = 200  # step-time histogram resolution (chosen: bin ratio 10^(1/200) = 1.0116)
HISTOGRAM_MIN = 1e-7  # [s] lowest histogram edge (chosen: 0.1 µs, below any step)
HISTOGRAM_MAX = 1e3  # [s] highest histogram edge (chosen); times outside fall in the end bins
_LOG_MIN = math.log10(HISTOGRAM_MIN)
_BINS = int(round((math.log10(HISTOGRAM_MAX) - _LOG_MIN) * BINS_PER_DECADE))

StageTimers = namedtuple("StageTimers", STAGES)


class StageTimer:
    """Context manager that times one stage: a `perf_counter` pair; the time [s] goes to the
    stage's slot of the current step's row and is added to the stage's total."""

    __slots__ = ("row", "total", "index", "t0")

    def __init__(self, row: list, total: list, index: int):
        self.row, self.total, self.index, self.t0 = row, total, index, 0.0

    def __enter__(self):
        self.t0 = perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb):
        d = perf_counter() - self.t0
        self.row[self.index] = d
        self.total[self.index] += d
        return False


@dataclass(frozen=True)
class StepSummary:
    """Statistics of the steps since the last drain. Times in seconds; ``stage_time`` is the mean
    time per step of each stage; ``iterations_*`` are solver sweeps per step (summed over the
    collision groups); ``min_gap`` [m] the most negative contact gap (0 when none penetrated);
    ``samples`` (k, 1 + len(stages)) the recorded per-step rows (step time, then each stage), or
    None when none were asked for."""

    steps: int
    median_step_time: float
    max_step_time: float
    mean_step_time: float
    stage_time: dict
    iterations_total: int
    iterations_max: int
    unconverged_solves: int
    impacts: int
    max_residuals: dict
    min_gap: float
    samples: np.ndarray | None = None


class StepStats:
    """Accumulates the statistics of `World.step` (module docstring). The World calls
    `record_stages` (or the stage timers), `record_solve`, `record_impact` and `end_step`; readers
    call `summary` or `drain`."""

    def __init__(self, stages=STAGES):
        self.stages = tuple(stages)
        n = len(self.stages)
        self._row = [0.0] * n
        self._total = [0.0] * n
        timers = [StageTimer(self._row, self._total, i) for i in range(n)]
        self.timers = StageTimers(*timers) if self.stages == STAGES else tuple(timers)
        self._samples = None
        self._reset()

    def _reset(self):
        for i in range(len(self._total)):
            self._total[i] = 0.0  # in place: the timers hold this list
        self.steps = 0
        self._hist = [0] * _BINS
        self._time_sum = 0.0
        self._time_min = math.inf
        self._time_max = 0.0
        self._iterations_total = 0
        self._iterations_max = 0
        self._unconverged = 0
        self._impacts = 0
        self._max_residuals: dict[str, float] = {}
        self._min_gap = 0.0
        self._n_samples = 0

    # ------------------------------------------------------------------ recording
    def keep_samples(self, capacity: int | None):
        """Keep the per-step rows (step time, then each stage [s]) of the next steps, at most
        ``capacity`` of them (the latest ones); None or 0 stops keeping them."""
        self._samples = np.zeros((int(capacity), 1 + len(self.stages))) if capacity else None
        self._n_samples = 0

    def record_stages(self, stamps):
        """The stage times of one step from ``stamps``: the `perf_counter` reading [s] at the start of
        each stage, then one at the end of the last (what the stage timers record, without their
        context-manager calls: `World._step` uses this)."""
        row, total = self._row, self._total
        for i in range(len(row)):
            d = stamps[i + 1] - stamps[i]
            row[i] = d
            total[i] += d

    def record_solve(self, result):
        """One contact solve (a `SolverResult`): convergence and the residual maxima."""
        if not result.converged:
            self._unconverged += 1
        mr, rr = self._max_residuals, result.residuals
        for k in RESIDUAL_KEYS:
            if k in rr and rr[k] >= mr.get(k, 0.0):
                mr[k] = float(rr[k])

    def record_impact(self):
        """One impact LCP solve."""
        self._impacts += 1

    def end_step(self, step_time: float, iterations: int, min_gap: float):
        """Close a step: its wall time [s] (the stage timers have filled the row), its solver
        iterations and its most negative contact gap [m] (0 when none)."""
        self.steps += 1
        self._time_sum += step_time
        if step_time > self._time_max:
            self._time_max = step_time
        if step_time < self._time_min:
            self._time_min = step_time
        k = int((math.log10(step_time) - _LOG_MIN) * BINS_PER_DECADE) if step_time > 0 else 0
        self._hist[min(max(k, 0), _BINS - 1)] += 1
        self._iterations_total += iterations
        if iterations > self._iterations_max:
            self._iterations_max = iterations
        if min_gap < self._min_gap:
            self._min_gap = min_gap
        if self._samples is not None:
            buf = self._samples
            r = self._n_samples % buf.shape[0]
            buf[r, 0] = step_time
            buf[r, 1:] = self._row
            self._n_samples += 1

    # ------------------------------------------------------------------ reading
    def _median(self) -> float:
        n = self.steps
        if n == 0:
            return 0.0
        c = np.cumsum(self._hist)
        k = np.searchsorted(c, [(n + 1) // 2, n // 2 + 1])  # bins of the two middle ranks
        mid = 10.0 ** (_LOG_MIN + (k + 0.5) / BINS_PER_DECADE)
        return float(min(max(0.5 * (mid[0] + mid[1]), self._time_min), self._time_max))

    def summary(self) -> StepSummary:
        """The statistics since the last drain (nothing is reset)."""
        n = self.steps
        samples = None
        if self._samples is not None:
            buf, k = self._samples, self._n_samples
            samples = buf[:k].copy() if k <= buf.shape[0] else np.roll(buf, -(k % buf.shape[0]), axis=0)
        return StepSummary(
            steps=n,
            median_step_time=self._median(),
            max_step_time=self._time_max,
            mean_step_time=self._time_sum / n if n else 0.0,
            stage_time={s: t / max(n, 1) for s, t in zip(self.stages, self._total)},
            iterations_total=self._iterations_total,
            iterations_max=self._iterations_max,
            unconverged_solves=self._unconverged,
            impacts=self._impacts,
            max_residuals=dict(self._max_residuals),
            min_gap=self._min_gap,
            samples=samples,
        )

    def drain(self) -> StepSummary:
        """The statistics since the last drain, then reset them (a sample buffer stays on)."""
        out = self.summary()
        self._reset()
        return out
