"""The bridge's execution state machine (`humanoid_control.bridge.BridgeExecutor`) without DDS:
every transition (idle -> executing, refusals, preemption, success, monitor stops, the watchdog,
holds, stops while idle, dry run, the forward position stream), on a two-joint robot with fake
clocks and a recorder standing in for the node's publishers; then the holds (never the sagged
measurement again: no ratchet) and what refreshes the watchdog (finite values of the robot's
joints only, each joint its own age)."""

import math

import numpy as np
import pytest
from support.bridge_stand import NAMES, TIMEOUT, FakeClock, Recorder, Stand, followed, motion  # noqa: F401

from humanoid_control.bridge import (
    BridgeSettings,
    ExecutorSettings,
    Trajectory,
)
from humanoid_control.exceptions import BridgeError


def diagnostics(stand):
    return stand.out.of("diagnose")


# --------------------------------------------------------------------------------------------- idle -> executing
def test_a_valid_motion_goes_from_idle_to_executing_and_is_sent_once():
    s = Stand()
    s.measure()
    assert s.ex.state == "idle" and s.ex.execution is None
    ok, text = s.ex.submit(motion(), "~/trajectory", notes=["from a plan"])
    assert ok and text.startswith("~/trajectory: executing 1.000 s on jtc (joint_trajectory)")
    ex = s.ex.execution
    assert s.ex.state == "executing" and ex.source == "~/trajectory" and ex.mode == "joint_trajectory"
    assert ex.start == 100.0  # the motion clock at the submit
    assert s.out.sent() == [("send", ex)]
    level, message, values = diagnostics(s)[-1]
    assert level == "ok" and message == text and values["note_0"] == "from a plan"
    assert ("info", "~/trajectory: from a plan") in s.out.of("log")


def test_the_motion_succeeds_when_the_goal_is_reached():
    s = Stand()
    s.measure()
    traj = motion()
    s.ex.submit(traj, "~/trajectory")
    sent = s.ex.execution.trajectory
    for _ in range(10):  # following the command: still executing
        s.advance(0.1, followed(sent, s.clock.t - 100.0))
        s.ex.tick()
        assert s.ex.state == "executing"
    s.advance(0.05, followed(sent, sent.duration))
    s.ex.tick()
    assert s.ex.state == "idle" and s.ex.execution is None
    level, message, _ = diagnostics(s)[-1]
    assert level == "ok" and message.startswith("~/trajectory: succeeded (goal reached")
    assert [k for k, _ in s.out.sent()] == ["send"]  # nothing else reached the controller


def test_tick_while_idle_does_nothing():
    s = Stand()
    s.ex.tick()
    s.advance(10.0)
    s.ex.tick()  # no state at all, long ago: no motion, so no watchdog
    assert s.out.events == [] and s.ex.state == "idle"


# --------------------------------------------------------------------------------------------- refusals
def test_no_measured_state_refuses():
    s = Stand()
    ok, text = s.ex.submit(motion(), "~/trajectory")
    assert not ok and text == "no /joint_states received (state_timeout 0.2 s): the start state is unknown"
    assert s.ex.state == "idle" and s.out.sent() == []
    assert s.out.of("log") == [("error", f"refused: {text}")]
    assert diagnostics(s) == [("error", f"refused: {text}", {})]


def test_a_stale_measured_state_refuses():
    s = Stand()
    s.measure()
    s.steady.advance(0.3)
    ok, text = s.ex.submit(motion(), "~/trajectory")
    assert not ok and text.startswith("/joint_states is 0.300 s old (state_timeout 0.2 s)")
    assert s.ex.current() is None and s.out.sent() == []


def test_an_unsafe_motion_is_refused_with_the_check_in_the_values():
    s = Stand()
    s.measure()
    ok, text = s.ex.submit(motion(goal=(1.5, 0.0)), "~/trajectory")  # beyond the upper limit 1 rad
    assert not ok and "position_limits" in text and s.out.sent() == []
    level, message, values = diagnostics(s)[-1]
    assert level == "error" and message == f"refused: {text}"
    assert values["check"] == "position_limits" and values["joint"] == "a"
    assert s.ex.state == "idle" and s.ex.execution is None


def test_a_motion_arriving_while_one_executes_is_refused_without_preempt():
    s = Stand()
    s.measure()
    s.ex.submit(motion(), "first")
    first = s.ex.execution
    ok, text = s.ex.submit(motion(), "second")
    assert not ok and text == "second: a trajectory from first is executing (set preempt to replace it, or call ~/stop)"
    assert s.ex.execution is first and s.ex.state == "executing"
    assert s.out.sent() == [("send", first)]


def test_an_internal_error_while_submitting_is_a_refusal():
    s = Stand()
    s.measure()

    class Broken(Recorder):
        def send_mode(self):
            raise RuntimeError("boom")

    s.ex.outputs = s.out = Broken()
    ok, text = s.ex.submit(motion(), "~/trajectory")
    assert not ok and text == "~/trajectory: internal error RuntimeError('boom')"
    assert diagnostics(s)[-1][0] == "error"


# --------------------------------------------------------------------------------------------- preemption
def test_preempt_replaces_the_executing_motion_and_cancels_its_goal():
    s = Stand(preempt=True)
    s.measure()
    s.ex.submit(motion(duration=3.0), "first")
    first = s.ex.execution
    s.advance(0.5, followed(first.trajectory, 0.5))
    s.ex.tick()
    here = followed(first.trajectory, 0.5)
    ok, text = s.ex.submit(motion(start=(here["a"], here["b"]), goal=(0.0, 0.0)), "second")
    assert ok and text.startswith("second: executing")
    second = s.ex.execution
    assert second is not first and second.start == s.clock.t and s.ex.state == "executing"
    assert s.out.sent() == [("send", first), ("cancel", first), ("send", second)]
    assert ("warning", "second preempts the trajectory from first") in s.out.of("log")


def test_preempt_with_an_invalid_motion_leaves_the_running_one():
    s = Stand(preempt=True)
    s.measure()
    s.ex.submit(motion(duration=3.0), "first")
    first = s.ex.execution
    ok, text = s.ex.submit(motion(start=(0.3, 0.0)), "second")  # 0.3 rad from the measured start
    assert not ok and "start_state" in text
    assert s.ex.execution is first and s.out.sent() == [("send", first)]


# --------------------------------------------------------------------------------------------- stops
def test_the_monitor_stops_and_holds_on_a_path_tolerance_excess():
    s = Stand(path_tolerance=0.05)
    s.measure()
    s.ex.submit(motion(duration=2.0), "~/trajectory")
    ex = s.ex.execution
    s.advance(0.5, {"a": 0.0, "b": 0.0})  # blocked at the start: 0.031 rad behind, within 0.05
    s.ex.tick()
    assert s.ex.state == "executing"
    s.advance(0.5, {"a": 0.0, "b": 0.0})  # 0.1 rad behind
    s.ex.tick()
    assert s.ex.state == "holding" and s.ex.execution is None
    assert s.out.sent() == [("send", ex), ("cancel", ex), ("hold", {"a": 0.0, "b": 0.0})]
    level, message, values = diagnostics(s)[-1]
    assert level == "error" and message.startswith("stopped (~/trajectory executing): path tolerance: joint 'a'")
    assert message.endswith("; holding the measured position") and values["reason"].startswith("path tolerance")


def test_the_monitor_stops_when_the_goal_is_not_reached_in_the_goal_time():
    s = Stand(goal_time=0.5)
    s.measure()
    s.ex.submit(motion(duration=1.0), "~/trajectory")
    short = {"a": 0.1, "b": -0.05}  # stops half-way, within the path tolerance all along
    s.advance(1.2, short)
    s.ex.tick()
    assert s.ex.state == "executing"
    s.advance(0.4, short)  # 0.6 s after the last point
    s.ex.tick()
    assert s.ex.state == "holding" and s.out.of("hold") == [short]
    assert "goal tolerance: joint 'a'" in diagnostics(s)[-1][1]


def test_the_watchdog_stops_on_a_stale_state_and_holds_the_last_measurement():
    """/joint_states stops during a motion: the next tick after state_timeout on the steady clock
    stops and holds the last measured positions, whatever the motion clock does (a paused
    simulator stops it too)."""
    s = Stand()
    s.measure()
    s.ex.submit(motion(duration=2.0), "~/trajectory")
    ex = s.ex.execution
    last = followed(ex.trajectory, 0.5)
    s.advance(0.5, last)
    s.ex.tick()
    s.steady.advance(0.15)  # the motion clock stalls; 0.15 s without a state: still fresh
    s.ex.tick()
    assert s.ex.state == "executing"
    s.steady.advance(0.1)  # 0.25 s
    s.ex.tick()
    assert s.ex.state == "holding" and s.ex.execution is None
    assert s.out.sent()[-2:] == [("cancel", ex), ("hold", last)]
    level, message, values = diagnostics(s)[-1]
    assert level == "error" and "/joint_states is 0.250 s old (state_timeout 0.2 s)" in message
    s.steady.advance(5.0)
    s.ex.tick()  # holding: nothing more is sent
    assert len(s.out.sent()) == 3


def test_an_internal_error_during_execution_stops_and_holds():
    s = Stand()
    s.measure()
    s.ex.submit(motion(), "~/trajectory")

    def broken(t, measured):
        raise RuntimeError("monitor")

    s.ex.execution.monitor.update = broken
    sent = s.ex.execution.trajectory
    s.advance(0.1, {"a": 0.0, "b": 0.0})
    s.ex.tick()
    assert s.ex.state == "holding" and s.out.of("hold") == [pytest.approx(followed(sent, 0.1))]  # the set-point
    assert "internal error during execution: RuntimeError('monitor')" in diagnostics(s)[-1][1]


def test_a_holding_executor_accepts_a_new_motion():
    s = Stand()
    s.measure()
    s.ex.stop("~/stop called")
    ok, _ = s.ex.submit(motion(), "~/trajectory")
    assert ok and s.ex.state == "executing"


def test_measurements_of_another_length_are_ignored_and_non_finite_positions_skipped():
    s = Stand()
    s.ex.measure(NAMES, [0.1])
    assert s.ex.measured == {} and s.ex.measured_at is None and math.isinf(s.ex.state_age())
    s.ex.measure(NAMES, [0.1, float("nan")])
    assert s.ex.measured == {"a": 0.1} and s.ex.state_age() == 0.0
    with pytest.raises(ValueError):
        s.ex.measure(["a"], ["not a number"])  # the node logs it and keeps running


# --------------------------------------------------------------------------------------------- dry run, stream
def test_dry_run_validates_reports_and_never_sends():
    s = Stand(dry_run=True)
    s.measure()
    ok, text = s.ex.submit(motion(), "~/trajectory")
    assert ok and text == "dry run: ~/trajectory would execute (1.000 s, stretch 1)"
    assert s.ex.execution is None and s.ex.state == "idle" and s.out.sent() == []
    assert diagnostics(s)[-1][:2] == ("ok", text)
    text = s.ex.stop("~/stop called")
    assert text == "stopped: ~/stop called (dry run: nothing published)" and s.out.sent() == []


def test_the_forward_position_stream_samples_the_motion_each_tick():
    s = Stand(mode="forward_position")
    s.measure()
    s.ex.submit(motion(duration=1.0), "~/trajectory")
    sent = s.ex.execution.trajectory
    assert s.ex.execution.mode == "forward_position"
    assert s.out.sent() == [("command", followed(sent, 0.0))]  # the first sample, at once
    for _ in range(11):
        s.advance(0.1, followed(sent, s.clock.t - 100.0))
        s.ex.tick()
    commands = s.out.of("command")
    assert len(commands) == 12 and s.ex.state == "idle"
    for k, c in enumerate(commands):
        want = followed(sent, min(0.1 * k, sent.duration))
        assert c == pytest.approx(want, abs=1e-12)


# --------------------------------------------------------------------------------------------- settings
def test_settings_from_the_node_parameters_and_their_checks():
    values = {
        "state_timeout": 0.5,
        "dry_run": True,
        "preempt": False,
        "path_tolerance": 0.1,
        "goal_tolerance": 0.02,
        "goal_time": 1.0,
        "policy": "retime",
        "position_margin": 0.0,
        "start_tolerance": 0.02,
        "approach": True,
        "approach_speed": 0.1,
        "approach_profile": "jerk_limited",
        "approach_jerk": 50.0,
        "self_collision": False,
        "speed_scale": 0.5,
        "rate": 50.0,
        "robot": "ignored",
    }
    st = ExecutorSettings.from_values(values)
    assert st.state_timeout == 0.5 and st.dry_run and st.goal_time == 1.0
    assert st.validation == BridgeSettings(
        position_margin=0.0,
        policy="retime",
        start_tolerance=0.02,
        approach=True,
        approach_speed=0.1,
        approach_profile="jerk_limited",
        approach_jerk=50.0,
        command_period=0.02,
        self_collision=False,
        speed_scale=0.5,
    )
    for field, bad in (("state_timeout", 0.0), ("path_tolerance", float("nan")), ("goal_time", -1.0)):
        with pytest.raises(BridgeError, match=field):
            ExecutorSettings(**{field: bad})


def test_changed_settings_apply_to_the_next_motion():
    s = Stand()
    s.measure()
    s.ex.submit(motion(duration=3.0), "first")
    s.ex.settings = ExecutorSettings(state_timeout=TIMEOUT, preempt=True)
    ok, _ = s.ex.submit(motion(), "second")
    assert ok and s.ex.execution.source == "second"


# --------------------------------------------------------------------------------------------- holds never ratchet
SAGGED = {"a": 0.17, "b": -0.13}  # a held robot sagging under gravity, away from its set-point


def succeeded(s, traj=None):
    """Run ``traj`` (default `motion()`) to its success; -> the set-point it ends on."""
    s.measure()
    s.ex.submit(traj or motion(), "~/trajectory")
    sent = s.ex.execution.trajectory
    s.advance(sent.duration + 0.05, followed(sent, sent.duration))
    s.ex.tick()
    assert s.ex.state == "idle"
    return followed(sent, sent.duration)


def test_a_second_hold_keeps_the_first_held_posture():
    """A stop cuts a motion and holds its set-point; the held robot sags; a second stop holds the
    same set-point again, not the sagged measurement (no ratchet)."""
    s = Stand()
    s.measure()
    s.ex.submit(motion(), "~/trajectory")
    sent = s.ex.execution.trajectory
    s.advance(0.3, {"a": 0.05, "b": -0.02})
    first = s.ex.stop("~/stop called")
    assert first
    s.advance(0.5, {"a": 0.03, "b": -0.04})  # the held robot sags under gravity
    s.ex.stop("~/stop called")
    first, second = s.out.of("hold")
    assert first == pytest.approx(followed(sent, 0.3)) and second == first


def test_stop_while_idle_with_nothing_commanded_sends_nothing():
    """Nothing was ever commanded: a stop leaves the controller's own set-point alone (as
    joint_trajectory_controller does with no active goal) instead of commanding the sagged
    measurement; again and again."""
    s = Stand()
    s.measure(0.1, 0.2)
    for _ in range(3):
        text = s.ex.stop("~/stop called")
        s.advance(0.5, SAGGED)
    assert text == "stopped (nothing executing): ~/stop called; nothing commanded yet: nothing sent"
    assert s.out.sent() == [] and s.ex.state == "idle" and s.ex.setpoint is None


def test_sixteen_stops_of_a_sagging_robot_hold_one_set_point():
    """After a motion succeeded, 16 stops (one every 2 s) while the measured robot sags further each time:
    every hold is the motion's last point, the set-point the controller already holds."""
    s = Stand()
    goal = succeeded(s)
    sag = 0.0
    for _ in range(16):
        text = s.ex.stop("~/stop called")
        sag += 0.01
        s.advance(2.0, {"a": goal["a"] - sag, "b": goal["b"] - sag})
    assert text == "stopped (nothing executing): ~/stop called; holding the last commanded position"
    assert s.out.of("hold") == [goal] * 16 and s.ex.setpoint == goal and s.ex.state == "holding"


def test_stop_during_a_motion_holds_the_commanded_set_point_before_it_returns():
    """The hold is where the motion commands the robot at the stop (its sample at the motion's
    time), not the measurement that lags or sags below it."""
    s = Stand()
    s.measure()
    s.ex.submit(motion(), "~/trajectory")
    ex = s.ex.execution
    s.advance(0.3, {"a": 0.05, "b": -0.02})
    text = s.ex.stop("~/stop called")
    assert text == "stopped (~/trajectory executing): ~/stop called; holding the commanded position"
    held = s.out.of("hold")[-1]
    assert held == pytest.approx(followed(ex.trajectory, 0.3))  # not the measured {a: 0.05, b: -0.02}
    assert s.out.sent() == [("send", ex), ("cancel", ex), ("hold", held)]
    assert s.ex.state == "holding" and s.ex.execution is None and s.ex.setpoint == held
    assert diagnostics(s)[-1] == ("error", text, {"reason": "~/stop called"})


def test_a_forward_position_stop_holds_the_last_streamed_command():
    s = Stand(mode="forward_position")
    s.measure()
    s.ex.submit(motion(), "~/trajectory")
    for _ in range(3):
        s.advance(0.1, {"a": 0.0, "b": 0.0})
        s.ex.tick()
    last = s.out.of("command")[-1]
    s.advance(0.05, SAGGED)  # between two periods: the controller holds the last command
    s.ex.stop("~/stop called")
    assert s.out.of("hold") == [last] and s.ex.setpoint == last


def test_a_measured_hold_fills_unmeasured_joints_with_the_commanded_set_point():
    """A monitor abort holds the measured positions (the robot is not where it was commanded:
    blocked, or hitting something); a joint not measured holds the motion's set-point at the stop."""
    s = Stand(path_tolerance=0.05)
    s.measure()
    s.ex.submit(motion(duration=2.0), "~/trajectory")
    sent = s.ex.execution.trajectory
    s.ex._refreshed.pop("b")  # as if 'b' had never been measured
    s.ex.measured.pop("b")
    s.advance(1.0, {"a": 0.0})
    assert s.ex.hold(measured=True) == pytest.approx({"a": 0.0, "b": followed(sent, 1.0)["b"]})


def test_a_motion_holds_the_joints_it_does_not_name_at_their_set_point():
    """The robot held at a set-point sags; a motion of joint 'a' only keeps 'b' at its set-point,
    not at the sagged measurement (else each motion would ratchet the joints it does not move)."""
    s = Stand()
    goal = succeeded(s)
    s.advance(1.0, {"a": goal["a"], "b": goal["b"] - 0.03})  # 'b' sags 0.03 rad below its set-point
    traj = Trajectory(["a"], [0.0, 1.0], [[goal["a"]], [0.0]], velocities=np.zeros((2, 1)), source="test")
    ok, text = s.ex.submit(traj, "~/trajectory")
    assert ok, text
    sent = s.ex.execution.trajectory
    np.testing.assert_array_equal(sent.positions[:, 1], goal["b"])


def test_a_stop_for_a_motion_no_longer_executing_changes_nothing():
    """A late failure of an old motion's goal (its stop names that motion) leaves the motion that
    replaced it running."""
    s = Stand(preempt=True)
    s.measure()
    s.ex.submit(motion(duration=3.0), "first")
    first = s.ex.execution
    s.ex.submit(motion(duration=3.0), "second")
    second = s.ex.execution
    events = len(s.out.events)
    text = s.ex.stop("the controller rejected the FollowJointTrajectory goal", execution=first)
    assert s.ex.execution is second and s.ex.state == "executing" and s.out.sent()[events:] == []
    assert text.startswith("ignored (first no longer executes): the controller rejected")
    s.ex.stop("FollowJointTrajectory result error_code -1", execution=second)
    assert s.ex.execution is None and s.ex.state == "holding"


# --------------------------------------------------------------------------------------------- the watchdog's input
def test_an_empty_joint_state_does_not_refresh_the_watchdog():
    s = Stand()
    s.measure()
    s.ex.submit(motion(duration=2.0), "~/trajectory")
    for _ in range(5):
        s.advance(0.1)
        s.ex.measure([], [])
        s.ex.tick()
    assert s.ex.state == "holding"


def test_a_nan_joint_state_does_not_refresh_the_watchdog():
    s = Stand()
    s.measure()
    s.ex.submit(motion(duration=2.0), "~/trajectory")
    for _ in range(5):
        s.advance(0.1)
        s.ex.measure(NAMES, [float("nan")] * 2)
        s.ex.tick()
    assert s.ex.state == "holding"


def test_a_joint_state_of_unknown_joints_does_not_refresh_the_watchdog():
    """A second driver publishing only joints the robot does not have: they are not kept, and the
    robot's joints age on."""
    s = Stand()
    s.measure()
    s.ex.submit(motion(duration=2.0), "~/trajectory")
    for _ in range(5):
        s.advance(0.1)
        s.ex.measure(["OTHER_JOINT"], [0.0])
        s.ex.tick()
    assert s.ex.state == "holding" and "OTHER_JOINT" not in s.ex.measured
    assert "/joint_states is 0.300 s old (state_timeout 0.2 s)" in diagnostics(s)[-1][1]


def test_each_joint_has_its_own_age_and_a_stale_one_stops_the_motion():
    """Per-joint ages: a message refreshes the joints it gives finite values for; 'b' no longer
    measured (or measured NaN) stops the motion after state_timeout, naming it."""
    s = Stand()
    s.measure()
    s.ex.submit(motion(duration=2.0), "~/trajectory")
    sent = s.ex.execution.trajectory
    for k in range(1, 3):
        s.advance(0.1, {"a": followed(sent, 0.1 * k)["a"]})
        s.ex.measure(NAMES, [followed(sent, 0.1 * k)["a"], float("nan")])
        s.ex.tick()
    assert s.ex.state == "executing" and s.ex.joint_age("a") == 0.0 and s.ex.joint_age("b") == pytest.approx(0.2)
    s.advance(0.05, {"a": followed(sent, 0.25)["a"]})
    s.ex.tick()
    assert s.ex.state == "holding"
    message = diagnostics(s)[-1][1]
    assert "/joint_states is 0.250 s old for joint 'b' (state_timeout 0.2 s)" in message, message
    ok, text = s.ex.submit(motion(), "~/trajectory")
    assert not ok and text.startswith("/joint_states is 0.250 s old for joint 'b' (state_timeout 0.2 s)")
