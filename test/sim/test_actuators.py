"""Actuators (`humanoid_sim.stages.actuators`; Chardonnet 2009, §5.1.2.3, eq. (5.8)): the
PD law with reduction, joint friction and saturation, trajectory sampling, gain groups per
joint-name prefix, and bad commands raising a HumanoidStackError that names the field (never a
NumPy error): NaN/inf trajectory times, non-numeric or ragged points,
NaN velocities, a trajectory of the wrong width, a NaN start time, non-numeric position commands;
a rejected command keeps the previous one (it neither stops a running trajectory nor switches to
torque mode)."""

import numpy as np
import pytest

from humanoid_model.exceptions import ConfigError, HumanoidStackError
from humanoid_sim.stages.actuators import JointTrajectory, PDActuator, apply_gain_groups
from humanoid_sim.world import World


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


# ----------------------------------------------------------------------------- implicit PD (World(implicit_pd=True))
HOP_M1, HOP_M2, HOP_R, HOP_LEG = 10.0, 2.0, 0.05, 0.3  # [kg] base, foot; [m] foot sphere radius, hip-foot offset
ZERO_G_SCENE = "gravity: [0, 0, 0]\nground: null\n"


def _hopper(tmp_path):
    """A floating base (10 kg) and a foot (2 kg, a 5 cm sphere) 0.3 m below it on a vertical prismatic
    joint: along z the relative coordinate s obeys μ s̈ = τ with μ = m1 m2 / (m1 + m2) (free base)."""
    inertia = '<inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/>'
    urdf = (
        f'<robot name="hopper"><link name="base"><inertial><mass value="{HOP_M1}"/>{inertia}</inertial></link>'
        f'<link name="foot"><inertial><mass value="{HOP_M2}"/>{inertia}</inertial>'
        f'<collision><geometry><sphere radius="{HOP_R}"/></geometry></collision></link>'
        '<joint name="slide" type="prismatic"><parent link="base"/><child link="foot"/>'
        f'<origin xyz="0 0 {-HOP_LEG}"/><axis xyz="0 0 1"/>'
        '<limit lower="-0.2" upper="0.2" effort="1e12" velocity="100"/></joint></robot>'
    )
    path = tmp_path / "hopper.urdf"
    path.write_text(urdf)
    scene = tmp_path / "zero_g.yaml"
    scene.write_text(ZERO_G_SCENE)
    return path, scene


def _hopper_world(path, scene, kp, kv, implicit):
    """The hopper in ``scene`` (a scene file or name) with PD gains (K_p, K_v) on its joint."""
    return World.from_scene(str(scene), robot=str(path), gains=([kp], [kv]), joint_limits=False, implicit_pd=implicit)


def test_implicit_pd_is_backward_euler_of_the_spring_damper(tmp_path):
    """A stiff PD servo (K_p = 1e7 N/m on μ = 1.67 kg: ω dt = 2.45 at dt = 1 ms, beyond the
    semi-implicit step's stability bound 2) released 1 cm from its set-point in zero gravity. With
    ``implicit_pd`` the relative coordinate follows backward Euler of μ s̈ = −K_p s − K_v ṡ exactly,
    [s, ṡ]ᵗ⁺¹ = A⁻¹ [s, ṡ]ᵗ with A = [[1, −dt], [dt K_p/μ, 1 + dt K_v/μ]] (100 steps, to 1e-15 m);
    the torque the World reports is the law at the end of the step, −K_p s⁺ − K_v ṡ⁺; with the
    stiffness explicit (the default) the same servo diverges."""
    path, scene = _hopper(tmp_path)
    kp, kv = 1e7, 100.0
    mu = HOP_M1 * HOP_M2 / (HOP_M1 + HOP_M2)
    runs = {}
    for implicit in (False, True):
        w = _hopper_world(path, scene, kp, kv, implicit)
        w.actuator.set_position([0.0])
        w.q[w.act_q[0]] = 0.01
        s = []
        for _ in range(100):
            w.step()
            s.append(w.q[w.act_q[0]])
            if implicit:  # the applied torque: the spring-damper at the step's end (set-point 0)
                end = -kp * w.q[w.act_q[0]] - kv * w.v[w.act_v[0]]
                assert w.tau_applied[0] == pytest.approx(end, rel=1e-9, abs=1e-9 * kp * 0.01)
        runs[implicit] = np.array(s)
    dt = w.dt
    A = np.linalg.inv(np.array([[1.0, -dt], [dt * kp / mu, 1.0 + dt * kv / mu]]))
    x, ref = np.array([0.01, 0.0]), []
    for _ in range(100):
        x = A @ x
        ref.append(x[0])
    assert np.abs(runs[True] - ref).max() < 1e-15
    assert np.abs(runs[False]).max() > 1.0  # explicit stiffness: grows from 1 cm without bound


@pytest.mark.parametrize("kp", [1e4, 1e8])
def test_implicit_pd_acts_within_the_contact_impulse(tmp_path, kp):
    """The hopper falls at 0.5 m/s with its foot touching the floor. In the first step the contact
    stops the foot, and the contact problem sees the servo: M̃ = M + dt (K_v + dt K_p) on the
    joint, so base and joint velocities after the step equal the closed form of the step's
    equations, q̇_free = q̇ + dt M̃⁻¹ (τ − b), p = −J q̇_free / (J M̃⁻¹ Jᵀ), q̇⁺ = q̇_free + M̃⁻¹ Jᵀ p
    (to 1e-9 m/s). A stiff servo (K_p = 1e8 N/m) passes the impact to the base, which keeps less
    than 10 % of its speed; a soft one (1e4) lets it keep 99 %."""
    path, _ = _hopper(tmp_path)
    kv = 2.0 * np.sqrt(kp * HOP_M1 * HOP_M2 / (HOP_M1 + HOP_M2))  # critical damping of the relative mode
    w = _hopper_world(path, "flat", kp, kv, True)
    w.actuator.set_position([0.0])
    w.q[2], w.q[3:7] = HOP_LEG + HOP_R, [0, 0, 0, 1]  # the sphere touches the floor
    v0 = 0.5
    w.v[:] = 0.0
    w.v[2] = -v0
    w.step()
    dt, g = w.dt, w.model.gravity.linear[2]
    k = kv + dt * kp
    Mt = np.array([[HOP_M1 + HOP_M2, HOP_M2], [HOP_M2, HOP_M2 + dt * k]])  # (base z, joint s)
    vf = np.array([-v0, 0.0]) + dt * np.linalg.solve(Mt, [(HOP_M1 + HOP_M2) * g, HOP_M2 * g])
    J = np.ones(2)  # the foot's height rate: ż + ṡ
    p = -(J @ vf) / (J @ np.linalg.solve(Mt, J))
    v1 = vf + np.linalg.solve(Mt, J * p)
    assert abs(w.v[2] - v1[0]) < 1e-9 and abs(w.v[w.act_v[0]] - v1[1]) < 1e-9
    assert (abs(w.v[2]) < 0.1 * v0) if kp > 1e6 else (abs(w.v[2]) > 0.99 * v0)
