"""The sampled motion reference (`humanoid_control.wbc.reference`): contact phases and their load
ramps, and `MotionReference.sample` on HRP-2 against analytic motions (one joint following a sine,
the whole robot turning about the vertical at a constant rate) and Pinocchio's kinematics.

Finite-difference tolerances, derived for samples Δ = 5 ms apart: the speed at a sample is a
central difference (error Δ² |q'''| / 6) and between samples it is interpolated linearly (error
Δ² |q'''| / 8); the acceleration is a central difference of those speeds over 2Δ (error
(2Δ)² |q''''| / 6 at most) and is interpolated too (Δ² |q''''| / 8)."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.exceptions import ControlError
from humanoid_control.wbc.reference import ContactPhase, MotionReference
from humanoid_model.robot import load_robot

DT = 0.005  # [s] the samples' spacing
A, W = 0.3, np.pi  # [rad], [rad/s]: the sine's amplitude and pulsation
OMEGA = 0.8  # [rad/s] the turning rate about z
JOINT = "RARM_JOINT0"
V_TOL = 2 * DT**2 * A * W**3 * (1 / 6 + 1 / 8)  # 2x the speed's bound above: 1.5e-4 rad/s
A_TOL = 2 * DT**2 * A * W**4 * (4 / 6 + 1 / 8)  # 2x the acceleration's bound above: 1.2e-3 rad/s²


@pytest.fixture(scope="module")
def robot():
    return load_robot("hrp2")


@pytest.fixture(scope="module")
def sine(robot):
    """(reference, t, q, joint): HRP-2 at half-sitting with JOINT at q0 + A sin(W t), t in [0, 2] s."""
    model = robot.model
    joint = model.joints[model.getJointId(JOINT)]
    t = np.arange(0.0, 2.0 + DT / 2, DT)
    q = np.tile(robot.q(), (len(t), 1))
    q[:, joint.idx_q] += A * np.sin(W * t)
    frames = {"r_hand": model.getFrameId("RARM_LINK5")}
    return MotionReference(model, t, q, [], frames, track=("r_hand",)), t, q, joint


def _turning(robot, phases=(), track=("l_sole", "r_hand")):
    """HRP-2 at half-sitting turning about the world's z axis through its base at OMEGA, 1 s."""
    model = robot.model
    t = np.arange(0.0, 1.0 + DT / 2, DT)
    q = np.tile(robot.q(), (len(t), 1))
    for k, tk in enumerate(t):
        q[k, 3:7] = [0.0, 0.0, np.sin(OMEGA * tk / 2), np.cos(OMEGA * tk / 2)]  # xyzw about z
    frames = {"l_sole": model.getFrameId("LLEG_LINK5"), "r_hand": model.getFrameId("RARM_LINK5")}
    return MotionReference(model, t, q, list(phases), frames, track=track), t, q


# ---------------------------------------------------------------------- phases
def test_a_phases_load_ramps_from_zero_at_its_start_to_one_and_back_to_zero_at_its_end():
    ph = ContactPhase("l_sole", 1.0, 3.0, ramp_in=0.25, ramp_out=0.5)  # binary fractions: exact loads
    assert ph.load(0.99) == 0.0 and ph.load(1.0) == 0.0
    assert ph.load(1.125) == 0.5 and ph.load(1.1875) == 0.75
    assert ph.load(1.25) == 1.0 and ph.load(2.0) == 1.0 and ph.load(2.5) == 1.0
    assert ph.load(2.75) == pytest.approx(0.5)
    assert ph.load(3.0) == 0.0 and ph.load(5.0) == 0.0


def test_a_phase_without_ramps_is_fully_loaded_over_its_whole_span_and_an_endless_one_never_unloads():
    ph = ContactPhase("r_sole", 1.0, 2.0)
    assert ph.load(1.0) == 1.0 and ph.load(1.999) == 1.0 and ph.load(2.0) == 0.0
    held = ContactPhase("r_sole", -np.inf, np.inf, ramp_in=0.3, ramp_out=0.3)
    assert held.load(-1e9) == 1.0 and held.load(1e9) == 1.0
    landing = ContactPhase("r_sole", 2.0, np.inf, ramp_in=0.5)
    assert landing.load(2.25) == pytest.approx(0.5) and landing.load(1e6) == 1.0


def test_active_phase_at_and_next_phase_follow_the_schedule(robot):
    phases = [
        ContactPhase("l_sole", -np.inf, np.inf),
        ContactPhase("r_sole", -np.inf, 0.4, 0.0, 0.2),
        ContactPhase("r_sole", 0.7, np.inf, 0.2, 0.0),
    ]
    ref, _, _ = _turning(robot, phases)
    assert ref.active(0.1) == {"l_sole": 1.0, "r_sole": 1.0}
    assert ref.active(0.3) == pytest.approx({"l_sole": 1.0, "r_sole": 0.5})
    assert ref.active(0.5) == {"l_sole": 1.0}  # the right foot swings: absent
    assert ref.active(0.75) == pytest.approx({"l_sole": 1.0, "r_sole": 0.25})
    assert ref.phase_at("r_sole", 0.5) is None
    assert ref.phase_at("r_sole", 0.2) is phases[1] and ref.phase_at("r_sole", 0.8) is phases[2]
    assert ref.next_phase("r_sole", 0.2) is phases[2] and ref.next_phase("r_sole", 0.7) is None
    assert ref.next_phase("l_sole", 0.0) is None


def test_overlapping_phases_of_one_location_give_the_larger_load(robot):
    phases = [ContactPhase("r_sole", 0.0, 0.5, 0.0, 0.4), ContactPhase("r_sole", 0.3, 1.0, 0.4, 0.0)]
    ref, _, _ = _turning(robot, phases)
    assert ref.active(0.2) == pytest.approx({"r_sole": 0.75})  # the first unloading, the second not begun
    assert ref.active(0.4) == pytest.approx({"r_sole": 0.25})  # max(0.25, 0.25)
    assert ref.active(0.45) == pytest.approx({"r_sole": 0.375})  # max(0.125, 0.375)


def test_a_phase_without_placement_gets_the_frames_reference_placement_at_its_start(robot):
    phases = [ContactPhase("l_sole", 0.5, np.inf), ContactPhase("l_sole", -np.inf, 0.2)]
    ref, t, q = _turning(robot, phases)
    model = robot.model
    data = model.createData()
    fid = model.getFrameId("LLEG_LINK5")
    k = int(round(0.5 / DT))
    pin.framesForwardKinematics(model, data, q[k])
    assert phases[0].placement.isApprox(data.oMf[fid], 1e-12)
    pin.framesForwardKinematics(model, data, q[0])  # a phase held from -inf: the motion's start
    assert phases[1].placement.isApprox(data.oMf[fid], 1e-12)


# ---------------------------------------------------------------------- sampling
def test_configurations_are_interpolated_linearly_between_samples(sine):
    ref, t, q, joint = sine
    for tt in (0.0, 0.5, 0.7123, 1.3333, 2.0):
        k = min(int(np.floor(tt / DT)), len(t) - 2)
        s = (tt - t[k]) / DT
        expected = (1 - s) * q[k, joint.idx_q] + s * q[k + 1, joint.idx_q]
        sample = ref.sample(tt)
        assert sample.q[joint.idx_q] == pytest.approx(expected, abs=1e-12)
        assert sample.q[joint.idx_q] == pytest.approx(q[0, joint.idx_q] + A * np.sin(W * tt), abs=DT**2 * A * W**2 / 8)
        others = np.delete(np.arange(len(sample.q)), joint.idx_q)
        assert np.allclose(sample.q[others], q[0, others], rtol=0, atol=1e-12)


def test_speeds_and_accelerations_of_a_joint_following_a_sine_match_its_derivatives(sine):
    ref, t, q, joint = sine
    i = joint.idx_v - 6  # the sample's v and a are the actuated joints'
    for tt in np.linspace(0.05, 1.95, 37) + 0.0013:
        sample = ref.sample(tt)
        assert sample.v.shape == (len(q[0]) - 7,) and sample.a.shape == sample.v.shape
        assert sample.v[i] == pytest.approx(A * W * np.cos(W * tt), abs=V_TOL)
        assert sample.a[i] == pytest.approx(-A * W**2 * np.sin(W * tt), abs=A_TOL)
        assert np.count_nonzero(np.abs(sample.v) > 1e-12) == 1  # only that joint moves


def test_outside_the_motion_the_reference_holds_its_end_at_rest(sine):
    ref, t, q, joint = sine
    for tt, k in ((-1.0, 0), (3.0, -1)):
        sample = ref.sample(tt)
        assert np.array_equal(sample.q, q[k])
        assert not sample.v.any() and not sample.a.any()
        assert not sample.com[1].any() and not sample.com[2].any()
        M, vel, acc = sample.frames["r_hand"]
        assert not vel.any() and not acc.any()


def test_the_com_is_forward_kinematics_of_the_samples_and_its_speed_the_jacobians(robot, sine):
    ref, t, q, joint = sine
    model = robot.model
    data = model.createData()
    for k in (0, 57, 200, 399):
        assert np.allclose(ref.sample(t[k]).com[0], pin.centerOfMass(model, data, q[k]), rtol=0, atol=1e-12)
    for tt in (0.3011, 1.1007):
        qt = robot.q()
        qt[joint.idx_q] += A * np.sin(W * tt)
        v = np.zeros(model.nv)
        v[joint.idx_v] = A * W * np.cos(W * tt)
        expected = pin.jacobianCenterOfMass(model, data, qt) @ v
        sample = ref.sample(tt)
        assert np.allclose(sample.com[0], pin.centerOfMass(model, data, qt), rtol=0, atol=1e-6)  # Δ² interpolation
        assert np.allclose(sample.com[1], expected, rtol=0, atol=5e-6)  # ~2e-2 m/s: the speed's bound


def test_frames_of_a_robot_turning_about_z_turn_at_its_rate_on_circles(robot):
    ref, t, q = _turning(robot)
    model = robot.model
    data = model.createData()
    for tt in (0.0, 0.2, 0.4567, 1.0):
        sample = ref.sample(tt)
        qt = q[0].copy()
        qt[3:7] = [0.0, 0.0, np.sin(OMEGA * tt / 2), np.cos(OMEGA * tt / 2)]
        pin.framesForwardKinematics(model, data, qt)
        for name, body in (("l_sole", "LLEG_LINK5"), ("r_hand", "RARM_LINK5")):
            M, vel, acc = sample.frames[name]
            p = data.oMf[model.getFrameId(body)].translation
            expected = data.oMf[model.getFrameId(body)]
            assert np.allclose(M.rotation, expected.rotation, rtol=0, atol=1e-12)  # the rotation: exact
            # the position, on the chord between samples: the arc's sag r (Ω Δ)² / 8 < 2e-6 m
            assert np.allclose(M.translation, expected.translation, rtol=0, atol=2e-6)
            assert np.allclose(vel[3:], [0.0, 0.0, OMEGA], rtol=0, atol=1e-9)
            assert np.allclose(acc[3:], 0.0, rtol=0, atol=1e-9)
            if 0.0 < tt < 1.0:  # inside: central differences (the ends are one-sided)
                # central differences on a circle of radius r < 1 m: errors r Ω³ Δ² (1/6 + 1/8) < 5e-6
                assert np.allclose(vel[:3], OMEGA * np.array([-p[1], p[0], 0.0]), rtol=0, atol=5e-6)
                assert np.allclose(acc[:3], -(OMEGA**2) * np.array([p[0], p[1], 0.0]), rtol=0, atol=5e-6)
        base_M, base_vel, base_acc = sample.base
        assert np.allclose(base_vel, [0, 0, 0, 0, 0, OMEGA], rtol=0, atol=1e-9)  # the base turns about its origin
        assert np.allclose(base_M.rotation, pin.rpy.rpyToMatrix(0.0, 0.0, OMEGA * tt), rtol=0, atol=1e-4)


def test_only_the_locations_in_phases_or_tracked_are_followed(robot):
    ref, _, _ = _turning(robot, [ContactPhase("l_sole", -np.inf, np.inf)], track=())
    assert set(ref.sample(0.5).frames) == {"l_sole"}


# ---------------------------------------------------------------------- bad inputs
@pytest.mark.parametrize(
    "t, edit",
    [
        ([0.0, 0.1, 0.1, 0.3], None),  # a repeated time
        ([0.0, 0.2, 0.1, 0.3], None),  # a time going back
        ([0.0, 0.1, np.nan, 0.3], None),
        ([0.0, 0.1, 0.2, 0.3], (2, 9, np.nan)),  # a NaN angle
        ([0.0, 0.1, 0.2, 0.3], (1, 0, np.inf)),
        ([0.0], None),  # one sample
    ],
)
def test_bad_times_or_configurations_are_control_errors(robot, t, edit):
    model = robot.model
    q = np.tile(robot.q(), (len(t), 1))
    if edit is not None:
        q[edit[0], edit[1]] = edit[2]
    with pytest.raises(ControlError, match="demo"):
        MotionReference(model, t, q, [], {}, source="demo")


def test_configurations_of_the_wrong_width_are_a_control_error(robot):
    with pytest.raises(ControlError, match="37 values"):
        MotionReference(robot.model, [0.0, 1.0], np.zeros((2, 36)), [], {}, source="demo")
