"""The simulator node's library, without ROS: `humanoid_sim.runtime.session.SimulationSession` (the world,
its output schedule, scripted push and command checks) and `humanoid_sim.runtime.diagnostics.PhysicsMonitor`."""

import numpy as np
import pytest

from humanoid_model.exceptions import ConfigError

HEAD = "HEAD_JOINT1"  # HRP-2 head joint: commanding it does not disturb the standing robot


def test_session_outputs_follow_the_publish_and_contacts_rates(session):
    """At dt = 1 ms, 50 Hz and 10 Hz: the state every 20 steps, the contact markers every 100,
    counted from the build; nothing before the first step; ``force`` gives both."""
    s = session(dt=1e-3, publish_rate=50.0, contacts_rate=10.0)
    assert s.outputs(force=True) == s.outputs() and s.outputs().state is None and s.outputs().contacts is None
    states, contacts = [], []
    for k in range(1, 201):
        s.step()
        out = s.outputs()
        assert out.t == s.world.t and s.steps == k
        if out.state is not None:
            states.append(k)
        if out.contacts is not None:
            contacts.append(k)
    assert states == list(range(20, 201, 20)) and contacts == [100, 200]
    s.step()
    out = s.outputs(force=True)
    robot = s.robot
    assert out.state.state.joint_names == robot.joint_names and out.state.base_velocity.shape == (6,)
    frames = {name: frame for name, (frame, force, torque) in out.state.force_torque.items()}
    assert set(frames) == {"r_ankle", "l_ankle", "r_wrist", "l_wrist"} and all(frames.values())
    assert out.state.imu is not None and out.state.imu_frame
    assert len(out.contacts.points) == s.world.last.batch.m > 0
    assert len(out.contacts.arrows) == s.world.last.batch.m  # every contact carries load
    np.testing.assert_allclose(out.contacts.arrows[:, 0], out.contacts.points)


@pytest.mark.parametrize(("clock_rate", "every"), [(0.0, 1), (250.0, 4), (50.0, 20)])
def test_session_clock_is_due_every_step_or_at_clock_rate(session, clock_rate, every):
    """The clock is due every step by default (clock_rate 0), else every round(1 / (rate · dt))
    steps, independent of the state's rate; ``force`` makes it due."""
    s = session(dt=1e-3, publish_rate=50.0, clock_rate=clock_rate)
    due = []
    for k in range(1, 41):
        s.step()
        if s.outputs().clock:
            due.append(k)
    assert due == [k for k in range(1, 41) if k % every == 0]
    assert s.outputs(force=True).clock


def test_session_reset_rebuilds_the_world_at_t0_with_the_same_settings(session):
    s = session(gains_groups=("RLEG",), gains_kp=(1000.0,), gains_kv=(10.0,))
    for _ in range(30):
        s.step()
    s.external_wrench("BODY", [10.0, 0, 0], [0, 0, 0], 1.0)
    old = s.world
    s.reset()
    assert s.world is not old and s.world.t == 0.0 and s.world.steps == 0 and s.steps == 0
    assert s.world.user_wrenches == {} and s.monitor.unconverged_total == 0
    i = s.robot.joint_names.index("RLEG_JOINT3")
    assert (s.world.actuator.kp[i], s.world.actuator.kv[i]) == (1000.0, 10.0)  # gain groups again
    np.testing.assert_array_equal(s.world.q0, old.q0)


def test_session_refuses_a_scene_without_robot_and_an_unknown_push_link(session):
    from humanoid_sim.runtime.session import SimulationSession

    with pytest.raises(ConfigError, match=r"^test: field 'robot' must be a robot name or URDF path"):
        SimulationSession.load("cube_stack", "", source="test")
    with pytest.raises(
        ConfigError,
        match=r"^test: field 'push.link' must be a link of robot 'hrp2' or a free body of the scene; value 'NOPE'$",
    ):
        session(push_link="NOPE")


def test_session_scripted_push_acts_from_its_start_for_its_duration(session):
    s = session(push_link="BODY", push_force=(250.0, 0.0, 0.0), push_start=0.01, push_duration=0.005)
    while s.world.t < 0.0095:
        s.step()
        assert s.world.user_wrenches == {}
    s.step()
    assert "BODY" in s.world.user_wrenches
    np.testing.assert_array_equal(s.world.user_wrenches["BODY"][0], [250.0, 0.0, 0.0])
    while s.world.t < 0.0165:
        s.step()
    assert s.world.user_wrenches == {}  # ended, and once only (period 0)
    for _ in range(20):
        s.step()
    assert s.world.user_wrenches == {}


def test_session_commands_are_checked_before_they_replace_the_previous_one(session):
    from humanoid_sim.exceptions import CommandError

    s = session()
    act, robot = s.world.actuator, s.robot
    head = robot.joint_names.index(HEAD)
    goal = act.q_d.copy()
    goal[head] = 0.3
    s.command_positions(goal, "pos")
    assert act.mode == "pd" and act.q_d[head] == 0.3
    with pytest.raises(CommandError, match=r"^pos: field 'data' has \d+ values; expected"):
        s.command_positions(goal[:-1], "pos")
    with pytest.raises(CommandError, match=r"^eff: field 'data' value"):
        s.command_efforts(np.where(np.arange(len(goal)) == head, 1e6, 0.0), "eff")
    assert act.mode == "pd" and act.q_d[head] == 0.3  # the previous command continues

    from humanoid_sim.runtime.commands import TrajectoryPoint

    s.step()
    s.command_trajectory([HEAD], [TrajectoryPoint([0.0], 0.5)], 0.0, "trj")
    assert act.trajectory is not None and act.trajectory_start == s.world.t
    assert act.trajectory.sample(0.0)[0][head] == 0.3  # from the current set-point

    with pytest.raises(
        CommandError,
        match=r"^w: field 'header.frame_id' must be a link of robot 'hrp2' or a free body of the scene; value 'NOPE'$",
    ):
        s.external_wrench("NOPE", [1.0, 0, 0], [0, 0, 0], 0.1, "w")
    with pytest.raises(CommandError, match=r"^w: field 'wrench' must be 6 finite numbers .*\(index 0 is nan\)$"):
        s.external_wrench("BODY", [float("nan"), 0, 0], [0, 0, 0], 0.1, "w")
    assert s.world.user_wrenches == {}
    s.external_wrench("/BODY", [5.0, 0, 0], [0, 0, 1.0], 0.1, "w")  # a leading "/" is dropped
    assert s.world.wrenches.until["BODY"] == pytest.approx(s.world.t + 0.1)
    s.command_efforts(np.zeros(len(goal)), "eff")
    assert act.mode == "torque"


def test_physics_monitor_reports_once_per_period_and_totals_unconverged_solves(session):
    from humanoid_sim.runtime import diagnostics

    s = session(solver_max_iterations=1, diagnostics_period=1.0)
    m = s.monitor
    wall0 = m.anchor[0]
    assert not s.report_due(wall0 + 0.5) and s.report_due(wall0 + 1.0)
    for _ in range(50):
        s.step()
    first = s.report(wall0 + 2.0, controller="c")
    assert first.level == diagnostics.WARN and first.values["steps"] == "50"
    assert first.values["real_time_factor"] == f"{s.world.t / 2.0:.3f}" and first.values["controller"] == "c"
    n1 = int(first.values["unconverged_solves"])
    assert n1 > 0 and m.unconverged_total == n1 and m.anchor == (wall0 + 2.0, s.world.t)
    for _ in range(10):
        s.step()
    second = s.report(wall0 + 3.0)
    assert second.values["steps"] == "10"  # only the steps since the last report
    assert m.unconverged_total == n1 + int(second.values["unconverged_solves"])
    assert second.values["unconverged_solves_total"] == str(m.unconverged_total)
