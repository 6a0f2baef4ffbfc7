"""The bridge's whole-body mode (`humanoid_control.bridge.BridgeExecutor` with a whole-body
controller, `controller_type: whole_body`) without DDS: the whole motion is sent with a tag, the
monitor is timed by the controller's reported progress (a slowed motion is not a late one), the
motion succeeds when the controller says done and the goal is reached, a controller's safe hold or
refusal stops it, a silent controller is taken as absent, a bridge stop is the controller's hold;
and what this mode refuses: a bare joint trajectory, a motion the bridge would stretch, another
robot's motion."""

from types import SimpleNamespace

import numpy as np
from support.bridge_stand import Stand, followed, motion

from humanoid_control.bridge import BridgeSettings, sample
from humanoid_control.bridge.executor import WHOLE_BODY_START

DOC = {"format": "humanoid_stack.contact_plan/1", "robot": "two"}


def _stand(**settings):
    s = Stand("whole_body", **settings)
    s.ex.robot = SimpleNamespace(name="two")
    s.measure()
    return s


def test_the_whole_motion_is_sent_once_with_its_tag():
    s = _stand()
    ok, text = s.ex.submit(motion(), "~/motion", motion=DOC)
    ex = s.ex.execution
    assert ok and ex.mode == "whole_body" and ex.motion is DOC and ex.id == "~/motion#1"
    assert s.out.sent() == [("send", ex)]


def test_the_monitor_follows_the_controllers_progress_not_the_clock():
    s = _stand()
    traj = motion()
    s.ex.submit(traj, "~/motion", motion=DOC)
    ex = s.ex.execution
    s.advance(5.0, followed(traj, 0.0))  # long past the plan's 1 s: the controller slowed it
    s.ex.progress({"id": ex.id, "state": "tracking", "plan_time": 0.0})
    s.ex.tick()
    assert s.ex.state == "executing"  # no goal-time abort: the plan's time is the controller's
    s.advance(0.1, followed(traj, 0.5))
    s.ex.progress({"id": ex.id, "state": "tracking", "plan_time": 0.5})
    s.ex.tick()
    assert s.ex.state == "executing"
    # the robot 0.3 rad from the plan at the controller's time: the path tolerance (0.2 rad) aborts
    pos = followed(traj, 0.6)
    pos["a"] += 0.3
    s.advance(0.1, pos)
    s.ex.progress({"id": ex.id, "state": "tracking", "plan_time": 0.6})
    s.ex.tick()
    assert s.ex.state == "holding" and "path tolerance" in s.out.of("diagnose")[-1][1]


def _walked(s, traj, until, start=100.0, dt=0.02):
    """Stamped measurements of the robot following ``traj`` exactly, every ``dt`` [s] up to plan
    time ``until``, stamped from ``start`` on (the motion's clock)."""
    for k in range(round(until / dt) + 1):
        t = k * dt
        pos = followed(traj, t)
        s.ex.measure(list(pos), list(pos.values()), start + t)


def test_a_late_status_is_checked_against_the_state_of_its_own_instant():
    s = _stand()
    traj = motion(goal=(0.8, -0.5), duration=2.0)  # joint a at up to 0.6 rad/s
    s.ex.submit(traj, "~/motion", motion=DOC)
    ex = s.ex.execution
    _walked(s, traj, until=1.2)  # the robot is at plan time 1.2 s when the status of 0.4 s arrives
    gap = abs(followed(traj, 1.2)["a"] - followed(traj, 0.4)["a"])
    assert gap > 0.2  # beyond the path tolerance: the newest state would abort
    s.ex.progress({"id": ex.id, "state": "tracking", "plan_time": 0.4, "stamp": 100.4})
    s.ex.tick()
    assert s.ex.state == "executing"
    # without its stamp the status is compared with the newest state: the old way, an abort
    s.ex.progress({"id": ex.id, "state": "tracking", "plan_time": 0.4})
    s.ex.tick()
    assert s.ex.state == "holding" and "path tolerance" in s.out.of("diagnose")[-1][1]


def test_a_stamped_status_aborts_when_the_state_of_its_instant_is_off_the_plan():
    s = _stand()
    traj = motion(goal=(0.8, -0.5), duration=2.0)
    s.ex.submit(traj, "~/motion", motion=DOC)
    ex = s.ex.execution
    for k in range(31):  # every 20 ms up to plan time 0.6 s, on the plan but at 0.4 s
        t = 0.02 * k
        pos = followed(traj, t)
        if k == 20:
            pos["b"] += 0.3  # 0.3 rad off the plan, past the 0.2 rad path tolerance
        s.ex.measure(list(pos), list(pos.values()), 100.0 + t)
    s.ex.progress({"id": ex.id, "state": "tracking", "plan_time": 0.4, "stamp": 100.4})
    s.ex.tick()  # (the newest state, at 0.6 s, is within 0.1 rad of the plan at 0.4 s: no abort)
    assert s.ex.state == "holding" and "path tolerance" in s.out.of("diagnose")[-1][1]


def test_the_motion_succeeds_when_the_controller_is_done_and_the_goal_reached():
    s = _stand()
    traj = motion()
    s.ex.submit(traj, "~/motion", motion=DOC)
    ex = s.ex.execution
    s.advance(0.1, followed(traj, traj.duration))
    s.ex.progress({"id": ex.id, "state": "done", "plan_time": traj.duration})
    s.advance(0.05, followed(traj, traj.duration))
    s.ex.tick()
    assert s.ex.state == "idle" and s.ex.execution is None
    assert "succeeded" in s.out.of("diagnose")[-1][1]


def test_another_motions_status_changes_nothing():
    s = _stand()
    s.ex.submit(motion(), "~/motion", motion=DOC)
    s.ex.progress({"id": "elsewhere#7", "state": "holding", "reason": "not ours"})
    assert s.ex.state == "executing"


def test_the_controllers_safe_hold_or_refusal_stops_the_motion_and_holds_through_the_controller():
    for state in ("holding", "refused"):
        s = _stand()
        s.ex.submit(motion(), "~/motion", motion=DOC)
        ex = s.ex.execution
        s.ex.progress({"id": ex.id, "state": state, "reason": "a contact not made"})
        assert s.ex.state == "holding" and s.ex.execution is None
        assert "a contact not made" in s.out.of("diagnose")[-1][1]
        assert [k for k, _ in s.out.sent()] == ["send", "cancel", "hold"]  # the hold: the controller's stop


def test_a_controller_that_never_reports_is_taken_as_absent():
    s = _stand()
    traj = motion()
    s.ex.submit(traj, "~/motion", motion=DOC)
    s.advance(WHOLE_BODY_START - 1.0, followed(traj, 0.0))
    s.ex.tick()
    assert s.ex.state == "executing"
    s.advance(2.0, followed(traj, 0.0))
    s.ex.tick()
    assert s.ex.state == "holding" and "did not report" in s.out.of("diagnose")[-1][1]


def test_what_the_whole_body_mode_refuses():
    s = _stand()
    ok, text = s.ex.submit(motion(), "~/trajectory")  # no document: no contact schedule
    assert not ok and "needs the whole motion" in text
    ok, text = s.ex.submit(motion(), "~/motion", motion={**DOC, "robot": "bip"})
    assert not ok and "field 'robot' must be 'two'" in text
    slow = _stand(validation=BridgeSettings(speed_scale=0.5))
    ok, text = slow.ex.submit(motion(), "~/motion", motion=DOC)
    assert not ok and "as planned" in text
    fast = Stand("whole_body", validation=BridgeSettings(policy="retime"))
    fast.measure()
    quick = motion(duration=0.2)  # 7.5 rad/s^2 > the 10 rad/s^2 limit? 0.2 rad in 0.2 s: 30 rad/s^2, stretched
    ok, text = fast.ex.submit(quick, "~/motion", motion=DOC)
    assert not ok and "slower" in text
    assert s.out.sent() == [] and slow.out.sent() == [] and fast.out.sent() == []
    assert np.isfinite(sample(quick, 0.1)).all()
