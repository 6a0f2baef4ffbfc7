"""The bridge's control loop in its own thread (`humanoid_control.bridge.Ticker`), and the
watchdog it runs firing on time while another thread validates a long trajectory (the executor's
lock is never held across a validation). Real threads and the real steady clock: the deadline
checked is the product's promise (state_timeout + one period + a thread's scheduling delay), with
the margin below."""

import threading
import time

import numpy as np
import pytest

from humanoid_control.bridge import BridgeExecutor, ExecutorSettings, JointLimits, Ticker, Trajectory
from humanoid_control.bridge import executor as executor_module
from humanoid_control.exceptions import BridgeError

PERIOD = 0.01  # [s] the node's default control period (100 Hz)
TIMEOUT = 0.2  # [s] the watchdog (the node's default)
# [s] (chosen) a thread's scheduling delay allowed on the loaded 2-core test machine (measured: under
# 20 ms); the validation below lasts 1.5 s, so a watchdog waiting for it would miss this by far
MARGIN = 0.3
BUSY = 1.5  # [s] how long the slow validation keeps the interpreter busy


class Outputs:
    """The executor's outputs, recorded (thread-safe enough for appends)."""

    def __init__(self):
        self.events = []

    def send_mode(self):
        return "joint_trajectory"

    def send(self, execution):
        self.events.append(("send", None))

    def command(self, positions):
        self.events.append(("command", positions))

    def hold(self, positions):
        self.events.append(("hold", positions))

    def cancel(self, execution):
        self.events.append(("cancel", None))

    def log(self, level, text):
        self.events.append(("log", text))

    def diagnose(self, level, text, values=None):
        self.events.append(("diagnose", (time.monotonic(), text)))


def test_the_ticker_ticks_until_closed():
    ticks = []
    ticker = Ticker(lambda: ticks.append(time.monotonic()), PERIOD).start()
    deadline = time.monotonic() + 10.0
    while len(ticks) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    ticker.close()
    assert len(ticks) >= 5 and not ticker.running
    n = len(ticks)
    time.sleep(0.05)
    assert len(ticks) == n  # closed: no more ticks
    assert all(b > a for a, b in zip(ticks, ticks[1:]))


def test_a_failing_tick_is_reported_and_the_loop_goes_on():
    errors = []

    def tick():
        raise RuntimeError("boom")

    ticker = Ticker(tick, PERIOD, on_error=errors.append).start()
    deadline = time.monotonic() + 10.0
    while len(errors) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    ticker.close()
    assert len(errors) >= 3 and all(isinstance(e, RuntimeError) for e in errors)
    with pytest.raises(BridgeError, match="period"):
        Ticker(tick, 0.0)


def test_the_watchdog_fires_on_time_while_another_thread_validates_a_long_trajectory(monkeypatch):
    """A motion runs; /joint_states stops; another thread submits a trajectory whose validation
    keeps the interpreter busy for 1.5 s (preempt on, so it is validated). The ticker's watchdog
    still stops the motion within state_timeout + one period + MARGIN of the last state."""
    names = ["a", "b"]
    out = Outputs()
    ex = BridgeExecutor(
        JointLimits(names, [-1.0, -1.0], [1.0, 1.0], [1.0, 1.0], [10.0, 10.0]),
        out,
        clock=time.monotonic,
        settings=ExecutorSettings(state_timeout=TIMEOUT, preempt=True),
    )
    real_validate = executor_module.validate

    def slow_validate(*args, **kwargs):
        end = time.monotonic() + BUSY
        while time.monotonic() < end:  # Python work, as the checks of a huge trajectory are
            sum(range(1000))
        return real_validate(*args, **kwargs)

    ex.measure(names, [0.0, 0.0])
    traj = Trajectory(names, [0.0, 5.0], [[0.0, 0.0], [0.2, 0.1]], velocities=np.zeros((2, 2)))
    assert ex.submit(traj, "first")[0]
    ticker = Ticker(ex.tick, PERIOD).start()
    try:
        last_state = time.monotonic()
        ex.measure(names, [0.0, 0.0])  # the last state: nothing after it
        monkeypatch.setattr(executor_module, "validate", slow_validate)
        second = threading.Thread(target=ex.submit, args=(traj, "second"))
        second.start()
        second.join(10.0)
    finally:
        ticker.close()
    stops = [(t, text) for kind, p in out.events if kind == "diagnose" for t, text in [p] if "stopped" in text]
    assert stops, [p for k, p in out.events if k == "diagnose"]
    t_stop, text = stops[0]
    assert "s old (state_timeout 0.2 s)" in text
    assert t_stop - last_state <= TIMEOUT + PERIOD + MARGIN, (t_stop - last_state, text)
    # the trajectory validated across that stop is not sent
    assert [k for k, _ in out.events].count("send") == 1 and ex.execution is None
    assert any("second: a stop came while it was validated: not sent" in str(p) for _, p in out.events)
