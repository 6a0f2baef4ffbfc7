"""Pacing to the wall clock (`humanoid_sim.runtime.pacing`, the simulator node's real_time_factor, ROS-free):
the delay to wait for simulated time to catch up with the wall clock at a given factor, none
below MIN_WAIT or at factor 0, and a backlog larger than CATCH_UP dropped by re-anchoring."""

import pytest

from humanoid_sim.runtime.pacing import CATCH_UP, Pacer


def test_pacer_waits_for_the_wall_clock_and_drops_a_backlog():
    pacer = Pacer()
    assert pacer.delay(0.0, 1.0, now=100.0) == 0.0  # anchors
    assert pacer.delay(0.01, 1.0, now=100.0) == pytest.approx(0.01)  # 10 ms of simulated time ahead
    assert pacer.delay(0.01, 2.0, now=100.0) == pytest.approx(0.005)  # twice real time
    assert pacer.delay(0.0105, 1.0, now=100.01) == 0.0  # 0.5 ms ahead: below MIN_WAIT, no wait
    assert pacer.delay(5.0, 0.0, now=100.0) == 0.0  # factor 0: as fast as possible
    assert pacer.delay(0.02, 1.0, now=100.02 + CATCH_UP + 0.1) == 0.0  # far behind: re-anchored
    assert pacer.anchor == (100.02 + CATCH_UP + 0.1, 0.02)
    pacer.reset()
    assert pacer.anchor is None
