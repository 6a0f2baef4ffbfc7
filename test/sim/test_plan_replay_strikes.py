"""The strike measures of `humanoid_sim.runtime.plan_replay` on a record made by hand: a left sole that
lifts and comes back down, the torso jolted at a known time after it lands."""

import numpy as np
import pytest

from humanoid_sim.runtime.plan_replay import ReplayRecord, strike_peak_times, strike_peaks

DT = 1e-3
T_LAND = 0.6  # [s] the left sole is back on the ground
T_JOLT = 0.63  # [s] the torso's velocity steps (its acceleration peaks there)


def _record() -> ReplayRecord:
    t = np.arange(1, 1001) * DT
    low = np.zeros((t.size, 2))
    # left: lifted to 5 cm from 0.2 s, down at 0.3 m/s to the ground at T_LAND
    low[:, 1] = np.minimum(np.clip(0.5 * (t - 0.2), 0.0, 0.05), np.clip(0.3 * (T_LAND - t), 0.0, None))
    vz = np.where(t >= T_JOLT, -0.01, 0.0)  # a 1 cm/s step: 10 m/s² over one step
    vz += 1e-4 * np.sin(40 * t)  # a smaller motion everywhere
    z = np.zeros(t.size)
    return ReplayRecord(t, z + 0.6, z + 0.7, vz, np.zeros((t.size, 2, 6)), low, z, DT)


def test_the_peak_is_found_at_the_jolt_after_the_strike_and_none_without_a_strike():
    rec = _record()
    strikes, peaks = strike_peaks(rec, [0.2], 0.4, ["l"])
    assert strikes[0] == pytest.approx(T_LAND - 1e-3 / 0.3, abs=DT)  # within STRIKE_HEIGHT (1 mm) of rest
    assert peaks[0] == pytest.approx(0.01 / DT, rel=0.01)
    times = strike_peak_times(rec, [strikes[0], np.nan])
    assert times[0] == pytest.approx(T_JOLT, abs=DT)
    assert np.isnan(times[1])
