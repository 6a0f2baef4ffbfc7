"""Actuators (`humanoid_sim.actuators`; spec ../shared/spec/000_chardonnet.md §2.17, eq. 5.8): the
PD law with reduction, joint friction and saturation, trajectory sampling, gain groups per
joint-name prefix, and bad commands raising a HumanoidStackError that names the field (never a
NumPy error; issue 3 acceptance audit): NaN/inf trajectory times, non-numeric or ragged points,
NaN velocities, a trajectory of the wrong width, a NaN start time, non-numeric position commands;
a rejected command keeps the previous one (it neither stops a running trajectory nor switches to
torque mode)."""

import numpy as np
import pytest

from humanoid_model.exceptions import ConfigError, HumanoidStackError
from humanoid_sim.actuators import JointTrajectory, PDActuator, apply_gain_groups


# ----------------------------------------------------------------------------- the PD law
def test_pd_torque_follows_eq_5_8_and_saturates_without_implicit_damping():
    a = PDActuator(
        ["j1", "j2"],
        kp=[100.0, 100.0],
        kv=[10.0, 10.0],
        effort_max=[50.0, 5.0],
        reduction=[2.0, 1.0],
        mu_v=[-0.1, 0.0],
        mu_d=[-0.5, 0.0],
    )
    a.set_position([0.1, 0.1], [0.0, 0.0])
    tau, damp = a.torque(0.0, np.array([0.0, 0.0]), np.array([0.2, 0.0]))
    # eq. 5.8: R (Kp (qd - q) + Kv (vd - v)) + mu_v v + mu_d sign(v)
    assert tau[0] == pytest.approx(2.0 * (100 * 0.1 + 10 * (-0.2)) - 0.1 * 0.2 - 0.5)
    assert tau[1] == pytest.approx(5.0) and damp[1] == 0.0  # saturated: no implicit damping
    assert damp[0] == pytest.approx(20.0)


def test_gain_groups_by_prefix_later_groups_win():
    """`apply_gain_groups` (the simulator node's gains.* parameters): every joint whose name
    starts with a group's prefix gets its (K_p, K_v), later groups win, other joints keep theirs;
    a prefix that matches no joint is refused, naming it, before anything changes."""
    names = ["RLEG_JOINT0", "RLEG_JOINT3", "LLEG_JOINT3", "HEAD_JOINT0"]
    a = PDActuator(names, kp=[1.0, 2.0, 3.0, 4.0], kv=[0.1, 0.2, 0.3, 0.4], effort_max=[10.0] * 4)
    apply_gain_groups(a, ["RLEG", "RLEG_JOINT3"], [100.0, 200.0], [10.0, 20.0])
    np.testing.assert_array_equal(a.kp, [100.0, 200.0, 3.0, 4.0])
    np.testing.assert_array_equal(a.kv, [10.0, 20.0, 0.3, 0.4])
    with pytest.raises(ConfigError, match="'ZZZ' matches no joint"):
        apply_gain_groups(a, ["HEAD", "ZZZ"], [1.0, 1.0], [1.0, 1.0], source="node 'simulator'")
    np.testing.assert_array_equal(a.kp, [100.0, 200.0, 3.0, 4.0])


# ----------------------------------------------------------------------------- trajectories
def test_trajectory_samples_linear_or_hermite_and_refuses_repeated_times():
    """Without velocities the trajectory is piecewise linear; with velocities, cubic Hermite
    (0 -> 1 in 1 s with zero end velocities: 0.5 at mid-time, slope 1.5); times must increase."""
    tr = JointTrajectory([0.0, 1.0, 3.0], [[0.0], [1.0], [0.0]])
    q, dq = tr.sample(0.5)
    assert q[0] == pytest.approx(0.5) and dq[0] == pytest.approx(1.0)
    q, dq = tr.sample(2.0)
    assert q[0] == pytest.approx(0.5) and dq[0] == pytest.approx(-0.5)
    trh = JointTrajectory([0.0, 1.0], [[0.0], [1.0]], velocities=[[0.0], [0.0]])
    q, dq = trh.sample(0.5)
    assert q[0] == pytest.approx(0.5) and dq[0] == pytest.approx(1.5)
    with pytest.raises(ConfigError):
        JointTrajectory([0.0, 0.0], [[0.0], [1.0]])


@pytest.mark.parametrize(
    "args, field",
    [
        (([0.0, np.nan], [[0.0], [1.0]]), "time_from_start"),
        (([0.0, np.inf], [[0.0], [1.0]]), "time_from_start"),
        (("ab", [[0.0]]), "time_from_start"),
        (([0.0, 1.0, 2.0], [[0.0], [1.0]]), "positions"),
        (([0.0, 1.0], [[0.0, 1.0], [1.0]]), "positions"),
        (([0.0, 1.0], [[0.0], [1.0]], [[np.nan], [0.0]]), "velocities"),
        (([0.0, 1.0], [[0.0], [1.0]], [[1.0, 2.0, 3.0]]), "velocities"),
    ],
)
def test_bad_trajectory_is_refused_naming_the_field(args, field):
    with pytest.raises(HumanoidStackError, match=field):
        JointTrajectory(*args)


# ----------------------------------------------------------------------------- commands
def test_bad_actuator_command_is_refused_and_the_previous_command_kept():
    a = PDActuator(["j1", "j2"], kp=1.0, kv=1.0, effort_max=[10.0, 10.0])
    with pytest.raises(HumanoidStackError, match="positions"):
        a.set_trajectory(JointTrajectory([0.0, 1.0], [[0.0], [1.0]]), 0.0)  # 1 of 2 joints
    with pytest.raises(HumanoidStackError, match="t_start"):
        a.set_trajectory(JointTrajectory([0.0, 1.0], np.zeros((2, 2))), float("nan"))
    with pytest.raises(HumanoidStackError, match="positions"):
        a.set_position("abc")
    # the previous command is kept after a rejection
    a.set_position([0.1, 0.2])
    with pytest.raises(HumanoidStackError):
        a.set_position([np.nan, 0.0])
    assert np.allclose(a.q_d, [0.1, 0.2])
    # a rejected command does not stop a running trajectory nor switch the mode
    tr = JointTrajectory([0.0, 1.0], [[0.0, 0.0], [1.0, 1.0]])
    a.set_trajectory(tr, 0.0)
    for bad in (
        lambda: a.set_position([np.nan, 0.0]),
        lambda: a.set_torque([np.inf, 0.0]),
        lambda: a.set_position([0.0, 0.0], tau_ff=[np.nan, 0.0]),
    ):
        with pytest.raises(HumanoidStackError):
            bad()
        assert a.trajectory is tr and a.mode == "pd"
    # a flat list of k*n values is still one row per point
    tr = JointTrajectory([0.0, 1.0, 3.0], [0.0, 1.0, 0.0])
    assert tr.p.shape == (3, 1) and tr.sample(0.5)[0][0] == pytest.approx(0.5)
