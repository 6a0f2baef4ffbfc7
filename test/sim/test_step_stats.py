"""Step statistics (`humanoid_sim.step_stats`; docs/simulator.md "Statistics"): `drain()` returns
the steps since the last drain and resets, reading does not; the memory is bounded whatever the
number of steps, per-step samples are opt-in and capped, the histogram median is within half a
bin of the exact one and max and mean are exact."""

import numpy as np
import pytest

from humanoid_sim.world import World


def test_step_stats_drain_returns_the_steps_since_the_last_drain_and_resets():
    w = World.from_scene("table_static")
    w.step(10)
    assert w.stats()["steps"] == 10 and w.step_stats.summary().steps == 10  # reading does not reset
    first = w.step_stats.drain()
    assert first.steps == 10 and first.iterations_total >= 9  # one solve per contact step
    w.step(5)
    second = w.step_stats.drain()
    assert second.steps == 5 and w.step_stats.summary().steps == 0 and w.stats()["steps"] == 0
    assert w.steps == 15  # the world's own step count is not statistics
    assert set(second.stage_time) == {"kinematics", "actuators", "free", "collision", "contacts"} | {
        "delassus",
        "solve",
        "integration",
    }
    # the stages tile the step: their times are differences of the same clock readings, so their sum
    # equals the step's time up to the rounding of the sums (measured: one unit in the last place)
    assert 0 < sum(second.stage_time.values()) <= second.mean_step_time * (1 + 1e-12)


def test_step_stats_memory_is_bounded_and_samples_are_opt_in():
    """Nothing in StepStats grows with the number of steps; per-step samples only when asked for,
    at most the requested number (the latest ones). The median read from the bounded histogram is
    within half a bin (0.6 %) of the exact median of the same steps; max and mean are exact."""
    w = World.from_scene("table_static")  # in contact from the first step: every residual is reported
    stats = w.step_stats

    def sizes():
        return {k: len(v) for k, v in vars(stats).items() if hasattr(v, "__len__") and not isinstance(v, str)}

    w.step(10)
    before = sizes()
    w.step(500)
    assert sizes() == before
    assert stats.drain().samples is None
    stats.keep_samples(200)
    w.step(300)
    s = stats.drain()
    assert s.samples.shape == (200, 9) and np.all(s.samples > 0)
    stats.keep_samples(1000)
    w.step(400)
    s = stats.drain()
    times = s.samples[:, 0]
    assert s.samples.shape == (400, 9)
    assert s.max_step_time == times.max() and s.mean_step_time == pytest.approx(times.mean(), rel=1e-12)
    assert s.median_step_time == pytest.approx(np.median(times), rel=0.012)
    # the stage columns add up to at most the step time
    assert np.all(s.samples[:, 1:].sum(1) <= times * (1 + 1e-9))
