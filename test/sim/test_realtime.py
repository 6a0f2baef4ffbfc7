"""`humanoid_sim.runtime.realtime.RealTimeStepper`, the simulator node's stepping thread, without ROS:
stepping in its thread, pause and single step, a failing step paused and reported, reset."""

import time

import pytest

TIMEOUT = 90.0  # [s] wall bound for a few simulated seconds on a loaded 2-core machine (chosen)


def until(cond, timeout=TIMEOUT) -> bool:
    """Poll ``cond`` every 10 ms until it holds (True) or ``timeout`` [s] of wall clock passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.01)
    return False


def stepper_for(sess, **callbacks):
    from humanoid_sim.runtime.realtime import RealTimeStepper

    published = []
    stepper = RealTimeStepper(sess, 0.0, publish=published.append, **callbacks)
    return stepper, published


def test_stepper_steps_in_its_thread_pauses_and_steps_once_while_paused(session):
    s = session()
    stepper, published = stepper_for(s)
    stepper.start()
    try:
        assert until(lambda: s.world.t > 0.05) and stepper.alive
        assert any(out.state is not None for out in published)
        assert stepper.step_paused() is None  # running: refused
        stepper.pause(True)
        with stepper.lock:
            t0 = s.world.t
        time.sleep(0.1)
        assert s.world.t == t0 and stepper.paused
        n = len(published)
        out = stepper.step_paused()
        assert out.t == pytest.approx(t0 + s.world.dt, abs=1e-12) and s.world.t == out.t
        assert out.state is not None and out.contacts is not None and published[n:] == [out]
        stepper.pause(False)
        assert until(lambda: s.world.t > t0 + 0.05)
    finally:
        stepper.close()
    assert not stepper.alive


def test_stepper_pauses_on_a_failing_step_reports_the_error_and_reset_recovers(session):
    from humanoid_sim.runtime import diagnostics

    s = session(diagnostics_period=0.05)
    errors, reports = [], []
    stepper, published = stepper_for(
        s,
        on_error=errors.append,
        report=lambda t, r: reports.append(r),
        context=lambda: {"rejected_commands": 3},
    )
    stepper.start()
    try:
        assert until(lambda: s.world.t > 0.02 and reports)
        assert reports[-1].level == diagnostics.OK and reports[-1].values["rejected_commands"] == "3"

        def boom():
            raise RuntimeError("injected failure")

        broken = s.world
        broken.step = boom  # the session steps through World.step
        assert until(lambda: stepper.paused and errors)
        assert stepper.error.startswith("step at t = ") and "RuntimeError: injected failure" in stepper.error
        assert errors == [stepper.error]  # once: the stepper stays paused
        assert until(lambda: reports[-1].level == diagnostics.ERROR) and reports[-1].message == stepper.error
        with pytest.raises(RuntimeError, match="injected failure"):
            stepper.step_paused()
        assert stepper.error == "step failed: RuntimeError: injected failure"
        stepper.reset()
        assert not stepper.paused and stepper.error == "" and s.world is not broken
        assert until(lambda: s.world.t > 0.02) and stepper.alive
    finally:
        stepper.close()


def test_a_running_stepper_lowers_the_gil_switch_interval_until_the_last_one_closes(session):
    import sys

    from humanoid_sim.runtime.realtime import SWITCH_INTERVAL

    before = sys.getswitchinterval()
    assert before > SWITCH_INTERVAL  # Python's default, 5 ms
    first, _ = stepper_for(session())
    second, _ = stepper_for(session())
    first.start()
    second.start()
    try:
        assert sys.getswitchinterval() == SWITCH_INTERVAL
        first.close()
        assert sys.getswitchinterval() == SWITCH_INTERVAL  # the second still runs
        first.close()  # a second close changes nothing
        assert sys.getswitchinterval() == SWITCH_INTERVAL
    finally:
        first.close()
        second.close()
    assert sys.getswitchinterval() == before
