"""Arming the bridge's executor (`BridgeExecutor.arm`, `disarm`: the robot bridge node's lifecycle
activation and deactivation) without DDS, on the two-joint stand of test_bridge_executor.py: a
disarmed executor refuses with its reason and sends nothing; a disarm during a motion stops it and
holds the commanded set-point before it returns, then nothing more reaches the controller; arming
again accepts motions."""

import pytest
from support.bridge_stand import NAMES, TIMEOUT, Stand, followed, motion

from humanoid_control.bridge import BridgeExecutor, ExecutorSettings, JointLimits

REFUSAL = "not active: the robot bridge is inactive"


def disarmed_stand():
    s = Stand()
    limits = JointLimits(NAMES, [-1.0, -1.0], [1.0, 1.0], [1.0, 1.0], [10.0, 10.0])
    s.ex = BridgeExecutor(
        limits,
        s.out,
        clock=s.clock,
        steady=s.steady,
        settings=ExecutorSettings(state_timeout=TIMEOUT),
        armed=False,
        refusal=REFUSAL,
    )
    return s


def test_a_disarmed_executor_refuses_with_its_reason_and_sends_nothing_until_armed():
    s = disarmed_stand()
    s.measure()
    assert not s.ex.armed
    ok, text = s.ex.submit(motion(), "~/trajectory")
    assert not ok and text == f"~/trajectory: {REFUSAL}"
    assert s.out.of("diagnose")[-1][:2] == ("error", f"refused: ~/trajectory: {REFUSAL}")
    text = s.ex.stop("~/stop called")  # nothing was ever commanded, and nothing is sent while disarmed
    assert "nothing sent" in text
    s.ex.tick()
    assert s.out.sent() == [] and s.ex.execution is None
    s.ex.arm()
    ok, _ = s.ex.submit(motion(), "~/trajectory")
    assert ok and s.ex.armed and [k for k, _ in s.out.sent()] == ["send"]


def test_disarm_during_a_motion_stops_and_holds_the_commanded_set_point_then_sends_nothing():
    s = Stand()
    s.measure()
    s.ex.submit(motion(), "~/trajectory")
    ex = s.ex.execution
    s.advance(0.4, {"a": 0.03, "b": -0.01})  # the robot lags the command
    text = s.ex.disarm("deactivated", REFUSAL)
    held = s.out.of("hold")[-1]
    assert held == pytest.approx(followed(ex.trajectory, 0.4))  # the commanded set-point, not the measurement
    assert s.out.sent() == [("send", ex), ("cancel", ex), ("hold", held)]
    assert text.startswith("stopped (~/trajectory executing): deactivated; holding the commanded position")
    assert ex.outcome == ("aborted", "deactivated") and s.ex.state == "holding" and s.ex.execution is None
    n = len(s.out.sent())
    ok, refused = s.ex.submit(motion(start=(held["a"], held["b"])), "~/trajectory")
    s.ex.stop("~/stop called")
    s.ex.tick()
    assert not ok and refused == f"~/trajectory: {REFUSAL}" and len(s.out.sent()) == n
    s.ex.arm()  # armed again: the next motion starts from the held set-point
    s.measure(held["a"], held["b"])
    ok, _ = s.ex.submit(motion(start=(held["a"], held["b"]), goal=(0.0, 0.0)), "~/trajectory")
    assert ok and s.out.sent()[-1][0] == "send"


def test_disarm_while_idle_sends_nothing():
    """The controller keeps its own last set-point: an idle bridge re-sends none of its own (the
    robot may have been moved by another node since)."""
    s = Stand()
    s.measure()
    s.ex.submit(motion(), "~/trajectory")
    sent = s.ex.execution.trajectory
    s.advance(1.05, followed(sent, sent.duration))
    s.ex.tick()
    assert s.ex.state == "idle"
    n = len(s.out.sent())
    assert s.ex.disarm("deactivated", REFUSAL) == ""
    assert len(s.out.sent()) == n and not s.ex.armed
