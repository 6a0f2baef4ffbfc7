"""External wrenches (`humanoid_sim.stages.wrenches`; docs/simulator.md): a user wrench given a duration
acts for exactly that many steps (it ends at the first step starting at or after its end) and is
then gone; `PushSchedule` (the simulator node's push.* parameters) applies its push at the start
time and then every period."""

import numpy as np
import pytest

from humanoid_model.exceptions import ConfigError
from humanoid_sim.stages.wrenches import PushSchedule
from humanoid_sim.world import World

FLOATING = """
gravity: [0, 0, 0]
ground: null
free_bodies:
  - {name: box, shape: box, size: [0.1, 0.1, 0.1], mass: 2.0}
"""


def test_wrench_with_a_duration_acts_for_that_many_steps(tmp_path):
    """A 3 N force for 0.1 s on a floating 2 kg box (zero gravity): exactly 100 steps of 1 ms
    (it ends at the first step starting at its end time), so v = F·0.1/m = 0.15 m/s, and the
    wrench is gone from the world's user wrenches afterwards."""
    p = tmp_path / "floating.yaml"
    p.write_text(FLOATING)
    w = World.from_scene(p)
    w.step(3)
    w.apply_wrench("box", force=(3.0, 0, 0), duration=0.1)
    assert w.wrenches.until["box"] == pytest.approx(w.t + 0.1)
    w.step(99)
    assert "box" in w.user_wrenches
    w.step(1)
    assert "box" in w.user_wrenches  # still there after its 100th step, until the next one starts
    w.step(1)
    assert w.user_wrenches == {} and w.wrenches.until == {}
    w.step(50)
    np.testing.assert_allclose(w.state.bodies["box"].linear_velocity, [3.0 * 0.1 / 2.0, 0, 0], atol=1e-12)
    w.apply_wrench("box", force=(1.0, 0, 0))  # no duration: until changed or cleared
    w.step(200)
    assert "box" in w.user_wrenches and "box" not in w.wrenches.until
    with pytest.raises(ConfigError, match="'duration'"):
        w.apply_wrench("box", force=(1.0, 0, 0), duration=-0.1)


def test_push_schedule_applies_at_start_then_every_period(tmp_path):
    """`PushSchedule` (the node's push.* parameters): start 5 ms, duration 3 ms, period 10 ms at
    dt = 1 ms: the push acts on the steps starting at 5, 6, 7, 15, 16, 17 ms... (chosen numbers)."""
    p = tmp_path / "floating.yaml"
    p.write_text(FLOATING)
    w = World.from_scene(p)
    push = PushSchedule("box", [1.0, 0, 0], [0, 0, 0.5], start=0.005, duration=0.003, period=0.01)
    acting = []
    for k in range(30):
        push.apply_due(w)
        w.wrenches.expire(w.t, w.dt)  # as the step does first
        if "box" in w.user_wrenches:
            acting.append(k)
        w.step()
    assert acting == [5, 6, 7, 15, 16, 17, 25, 26, 27]
    once = PushSchedule("box", [1.0, 0, 0], [0, 0, 0], start=0.0, duration=0.001)
    assert once.apply_due(w) and not once.apply_due(w) and once.next == np.inf
