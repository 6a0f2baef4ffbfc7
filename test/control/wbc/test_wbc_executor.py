"""The motion executor (`humanoid_control.wbc.executor.MotionExecutor`) with the whole-body
controller on HRP-2 and a small reference built by hand: the robot stands at half-sitting while
the schedule lifts the right foot (its contact ends at 1 s) and puts it back (a phase over
[1.5 s, 2.5 s], loaded and unloaded over 0.25 s).

The measured state is the standing one at every cycle and the measured forces are given by the
test, so each cycle shows what the executor decides: a late contact stops the clock, an early
touch becomes a contact that carries nothing until its phase, the phase's contact is broken at its
end, a bad measured state or unsolved QPs give a safe hold. Times are binary fractions (steps of
0.125 s), so the clock lands exactly on the phases' times."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.exceptions import ControlError
from humanoid_control.wbc.controller import WholeBodyController
from humanoid_control.wbc.executor import ExecutionSettings, MotionExecutor
from humanoid_control.wbc.qp import QPResult
from humanoid_control.wbc.reference import ContactPhase, MotionReference
from humanoid_model.robot import load_robot

STEP = 0.125  # [s] between the executor's updates
LIFT, LAND, LEAVE, RAMP = 1.0, 1.5, 2.5, 0.25  # [s] the right foot's schedule
TOUCH = {"l_sole": 300.0, "r_sole": 50.0}  # [N] measured: both feet touch (above touch_force, 10 N)
LIFTED = {"l_sole": 550.0, "r_sole": 0.0}


@pytest.fixture(scope="module")
def robot():
    return load_robot("hrp2")


def _executor(robot, landing_drop=0.0, **settings):
    """(executor, controller, q, v): HRP-2 standing; the right foot's second phase planned
    ``landing_drop`` [m] below where the foot is (0: where it is)."""
    ctrl = WholeBodyController(robot)
    q, v = robot.q(), np.zeros(robot.model.nv)
    ctrl.dyn.update(q, v)
    fid = ctrl.locations["r_sole"][1]
    landing = ctrl.dyn.placement(fid).copy()
    landing.translation = landing.translation - landing.rotation[:, 2] * landing_drop
    phases = [
        ContactPhase("l_sole", -np.inf, np.inf),
        ContactPhase("r_sole", -np.inf, LIFT, 0.0, RAMP),
        ContactPhase("r_sole", LAND, LEAVE, RAMP, RAMP, placement=landing),
    ]
    frames = {name: fid for name, (_, fid) in ctrl.locations.items()}
    t = np.arange(0.0, 3.0 + STEP / 2, 0.5)
    ref = MotionReference(ctrl.model, t, np.tile(q, (len(t), 1)), phases, frames)
    ex = MotionExecutor(ctrl, ref, ExecutionSettings(**settings))
    return ex, ctrl, q, v


def _run(ex, q, v, t0, t1, forces):
    """Updates at t0, t0 + STEP, ..., t1 with the same measured forces; the commands."""
    return [ex.update(t, q, v, forces) for t in np.arange(t0, t1 + STEP / 2, STEP)]


def test_the_clock_follows_the_measured_time_while_tracking_and_ends_done(robot):
    ex, ctrl, q, v = _executor(robot)
    cmds = _run(ex, q, v, 0.0, 0.75, TOUCH)
    assert ex.clocks == [0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75] and ex.state == "tracking"
    assert all(c.solved for c in cmds) and set(ctrl.contacts) == {"l_sole", "r_sole"}
    _run(ex, q, v, 0.875, 1.25, LIFTED)
    assert set(ctrl.contacts) == {"l_sole"}  # the right foot's phase has ended: broken
    events = [(e.location, e.kind, e.clock) for e in ex.events]
    assert sorted(events[:2]) == [("l_sole", "made", 0.0), ("r_sole", "made", 0.0)]  # held from the start
    assert events[2:] == [("r_sole", "broken", 1.0)]
    _run(ex, q, v, 1.375, 3.25, TOUCH)
    assert ex.state == "done" and ex.clock == 3.25


def test_a_contacts_largest_force_follows_its_load_ramp_in_robot_weights(robot):
    ex, ctrl, q, v = _executor(robot)
    full = 2.0 * robot.mass * 9.81  # full_load: 2 weights
    _run(ex, q, v, 0.0, 0.75, TOUCH)
    assert ctrl.contacts["r_sole"].f_max == pytest.approx(full * 0.25 / RAMP, rel=1e-12)  # 0.25 s before LIFT
    _run(ex, q, v, 0.875, 0.875, TOUCH)
    assert ctrl.contacts["r_sole"].f_max == pytest.approx(full * 0.125 / RAMP, rel=1e-12)
    assert ctrl.contacts["l_sole"].f_max == pytest.approx(full, rel=1e-12)


def test_a_late_contact_stops_the_clock_and_its_location_approaches_along_its_normal(robot):
    ex, ctrl, q, v = _executor(robot, landing_drop=0.05)  # the step is 5 cm lower than planned
    landing = ex.ref.phases[2].placement
    _run(ex, q, v, 0.0, 1.375, LIFTED)
    cmds = _run(ex, q, v, 1.5, 1.875, LIFTED)  # the phase begins: no force, the foot 5 cm above
    assert all(c.solved for c in cmds)
    assert ex.state == "waiting" and ex.clocks[-4:] == [LAND] * 4
    assert "r_sole" not in ctrl.contacts
    waited = 4 * STEP
    task = ctrl.frame_tasks["r_sole"]
    down = -landing.rotation[:, 2]  # the inward normal's opposite: into the ground
    assert np.allclose(task.placement.translation, landing.translation + down * 0.05 * waited, rtol=0, atol=1e-12)
    assert np.allclose(task.velocity, np.r_[down * 0.05, 0, 0, 0], rtol=0, atol=1e-12)
    _run(ex, q, v, 2.0, 2.0, TOUCH)  # it touches: the contact is made where the foot is
    assert ex.late_contacts == [("r_sole", waited)]
    assert "r_sole" in ctrl.contacts and ex.events[-1].kind == "made" and ex.events[-1].clock == LAND
    _run(ex, q, v, 2.125, 2.25, TOUCH)
    assert ex.state == "tracking" and ex.clocks[-2:] == [LAND + STEP, LAND + 2 * STEP]  # the clock goes on


def test_a_late_contact_that_never_comes_ends_in_a_safe_hold(robot):
    ex, ctrl, q, v = _executor(robot, landing_drop=0.05, max_wait=0.5)
    _run(ex, q, v, 0.0, 1.375, LIFTED)
    _run(ex, q, v, 1.5, 1.875, LIFTED)
    assert ex.state == "waiting"  # 0.5 s waited
    _run(ex, q, v, 2.0, 2.0, LIFTED)
    assert ex.state == "holding" and ex.reason == "contact 'r_sole' not made 0.5 s after its planned time"


def test_an_early_touch_near_the_next_placement_is_a_contact_without_load_until_its_phase(robot):
    ex, ctrl, q, v = _executor(robot)
    _run(ex, q, v, 0.0, 1.125, LIFTED)
    assert "r_sole" not in ctrl.contacts
    cmds = _run(ex, q, v, 1.25, 1.375, TOUCH)  # touches 0.25 s before its phase, where it is planned
    assert ex.early_contacts == [("r_sole", LAND - 1.25)]
    assert ctrl.contacts["r_sole"].f_max == 0.0
    assert all(np.allclose(c.forces["r_sole"], 0.0, atol=1e-5) for c in cmds)  # it carries nothing yet
    assert ex.state == "tracking" and ex.clocks[-1] == 1.375  # no wait


def test_an_early_contact_becomes_the_planned_one_and_is_broken_at_its_phases_end(robot):
    ex, ctrl, q, v = _executor(robot)
    full = 2.0 * robot.mass * 9.81
    _run(ex, q, v, 0.0, 1.125, LIFTED)
    _run(ex, q, v, 1.25, 1.375, TOUCH)  # the early contact
    _run(ex, q, v, 1.5, 1.75, TOUCH)
    assert ctrl.contacts["r_sole"].f_max == pytest.approx(full, rel=1e-12)  # loaded by its phase's ramp
    _run(ex, q, v, 1.875, 2.375, TOUCH)
    assert ctrl.contacts["r_sole"].f_max == pytest.approx(full * 0.125 / RAMP, rel=1e-12)
    cmds = _run(ex, q, v, 2.5, 2.625, TOUCH)  # the phase is over: the foot must be free, touching or not
    assert "r_sole" not in ctrl.contacts and set(cmds[-1].forces) == {"l_sole"}
    assert [(e.kind, e.clock) for e in ex.events if e.location == "r_sole"] == [
        ("made", 0.0),
        ("broken", LIFT),
        ("made", 1.25),
        ("broken", LEAVE),
    ]


def test_a_non_finite_measured_state_starts_a_safe_hold(robot):
    ex, ctrl, q, v = _executor(robot)
    bad = q.copy()
    bad[10] = np.nan
    with pytest.raises(ControlError, match="finite"):  # nothing commanded yet: no torques to hold
        ex.update(0.0, bad, v, TOUCH)
    good = ex.update(0.0, q, v, TOUCH)
    cmd = ex.update(0.125, bad, v, TOUCH)
    assert ex.state == "holding" and "non-finite" in ex.reason
    assert not cmd.solved and cmd.status == "bad measured state" and np.array_equal(cmd.tau, good.tau)
    fast = v.copy()
    fast[3] = np.inf
    cmd = ex.update(0.25, q, fast, TOUCH)
    assert ex.state == "holding" and not cmd.solved


def test_repeated_unsolved_qps_start_a_safe_hold(robot, monkeypatch):
    ex, ctrl, q, v = _executor(robot, max_failures=3)
    _run(ex, q, v, 0.0, 0.25, TOUCH)
    n = ctrl.nv + sum(c.n_force for c in ctrl.contacts.values())
    unsolved = QPResult(np.zeros(n), False, "iteration_limit", 200)
    monkeypatch.setattr(ctrl.qp, "solve", lambda *args: unsolved)
    _run(ex, q, v, 0.375, 0.5, TOUCH)
    assert ex.state == "tracking"  # two failures
    _run(ex, q, v, 0.625, 0.625, TOUCH)
    assert ex.state == "holding" and ex.reason == "the QP was not solved for 3 cycles (iteration_limit)"


def test_a_safe_hold_keeps_the_contacts_and_puts_the_com_above_their_corners(robot):
    ex, ctrl, q, v = _executor(robot)
    _run(ex, q, v, 0.0, 0.25, TOUCH)
    ex.stop()
    cmd = ex.update(0.375, q, v, TOUCH)
    assert ex.state == "holding" and ex.reason == "stop requested" and cmd.solved
    assert set(ctrl.contacts) == {"l_sole", "r_sole"}
    full = 2.0 * robot.mass * 9.81
    assert all(c.f_max == pytest.approx(full, rel=1e-12) for c in ctrl.contacts.values())
    # the soles' corners (their hulls moved cop_margin inwards) in the world, by forward kinematics
    model = robot.model
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    m = ctrl.settings.cop_margin
    corners = []
    for foot in ("l_sole", "r_sole"):
        hull = np.asarray(robot.contact_locations[foot].hull)
        (x0, y0), (x1, y1) = hull[:, :2].min(axis=0) + m, hull[:, :2].max(axis=0) - m
        oMb = data.oMf[model.getFrameId(robot.contact_locations[foot].body)]
        corners += [oMb.act(np.array([x, y, hull[0, 2]])) for x in (x0, x1) for y in (y0, y1)]
    expected = np.mean(corners, axis=0)[:2]
    assert np.allclose(ctrl.com.position[:2], expected, rtol=0, atol=1e-12)
    assert ctrl.com.position[2] == pytest.approx(pin.centerOfMass(model, data, q)[2], abs=1e-12)
    assert np.array_equal(ctrl.posture.q, q)
    ex.update(0.5, q, v, TOUCH)
    assert ex.clocks[-1] == ex.clocks[-2]  # the reference's clock no longer moves
