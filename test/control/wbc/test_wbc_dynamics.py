"""The whole-body controller's dynamics (`humanoid_control.wbc.dynamics.RobotDynamics`) on HRP-2.

Every value is checked against a computation that does not go through the module: Pinocchio's
second-order forward kinematics with the full acceleration (not the drift plus the Jacobian), the
recursive Newton-Euler algorithm, the mass-weighted mean of the bodies' centres of mass, and finite
differences of positions along the curve q(t) = q ⊕ (t v + t²/2 a) (for Pinocchio's free flyer its
second derivative at t = 0 is a, the exponential map's first-order term ad_v v being zero)."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.wbc.dynamics import RobotDynamics
from humanoid_model.robot import load_robot

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
LOCAL = pin.ReferenceFrame.LOCAL
FRAMES = ("RLEG_LINK5", "LARM_LINK5", "BODY", "CHEST_LINK1")
TOL = 1e-9  # two exact computations of the same quantity: rounding only (values of order 1e2)
FD_STEP = 1e-4  # [s] central second difference: truncation ~h² p'''' / 12, rounding ~1e-16 / h²
FD_TOL = 1e-6  # [m/s²] both terms stay below 1e-7 for the speeds drawn here (|v| <= 1, |a| <= 1)


@pytest.fixture(scope="module")
def robot():
    return load_robot("hrp2")


def _state(robot, seed):
    """A random configuration inside the joint limits, with a random base pose, speed and acceleration."""
    rng = np.random.default_rng(seed)
    model = robot.model
    q = pin.neutral(model)
    q[:3] = rng.uniform(-0.5, 0.5, 3)
    quat = rng.normal(size=4)
    q[3:7] = quat / np.linalg.norm(quat)
    q[7:] = rng.uniform(robot.q_lower, robot.q_upper)
    v = rng.uniform(-1.0, 1.0, model.nv)
    a = rng.uniform(-1.0, 1.0, model.nv)
    return q, v, a


def _frame_positions(model, data, q, v, a, fid, h):
    """World positions of frame fid at t = -h, 0, h along q ⊕ (t v + t²/2 a)."""
    out = []
    for t in (-h, 0.0, h):
        qt = pin.integrate(model, q, t * v + 0.5 * t * t * a)
        pin.framesForwardKinematics(model, data, qt)
        out.append(data.oMf[fid].translation.copy())
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_frame_jacobian_times_a_plus_drift_is_pinocchios_classical_acceleration_in_world_axes(robot, seed):
    model = robot.model
    q, v, a = _state(robot, seed)
    dyn = RobotDynamics(model)
    dyn.update(q, v)
    data = model.createData()
    pin.forwardKinematics(model, data, q, v, a)
    pin.updateFramePlacements(model, data)
    for name in FRAMES:
        fid = model.getFrameId(name)
        J, drift = dyn.frame(fid)
        expected = pin.getFrameClassicalAcceleration(model, data, fid, LWA).vector
        assert np.allclose(J @ a + drift, expected, rtol=0, atol=TOL), name
        # the velocity: J v, and the one the module reports
        assert np.allclose(J @ v, pin.getFrameVelocity(model, data, fid, LWA).vector, rtol=0, atol=TOL)
        assert np.allclose(dyn.frame_velocity(fid), J @ v, rtol=0, atol=TOL)


@pytest.mark.parametrize("seed", [3, 4])
def test_the_linear_part_is_the_second_derivative_of_the_frames_world_position(robot, seed):
    model = robot.model
    q, v, a = _state(robot, seed)
    dyn = RobotDynamics(model)
    dyn.update(q, v)
    data = model.createData()
    for name in FRAMES:
        fid = model.getFrameId(name)
        J, drift = dyn.frame(fid)
        pm, p0, pp = _frame_positions(model, data, q, v, a, fid, FD_STEP)
        fd = (pp - 2.0 * p0 + pm) / FD_STEP**2
        assert np.allclose((J @ a + drift)[:3], fd, rtol=0, atol=FD_TOL), name
        assert np.allclose((J @ v)[:3], (pp - pm) / (2.0 * FD_STEP), rtol=0, atol=FD_TOL)


@pytest.mark.parametrize("seed", [5, 6])
def test_local_frame_rows_are_the_classical_acceleration_and_velocity_in_the_frames_own_axes(robot, seed):
    model = robot.model
    q, v, a = _state(robot, seed)
    dyn = RobotDynamics(model)
    dyn.update(q, v)
    data = model.createData()
    pin.forwardKinematics(model, data, q, v, a)
    pin.updateFramePlacements(model, data)
    for name in FRAMES:
        fid = model.getFrameId(name)
        J, drift, vel = dyn.local_frame(fid)
        assert np.allclose(
            J @ a + drift, pin.getFrameClassicalAcceleration(model, data, fid, LOCAL).vector, rtol=0, atol=TOL
        )
        assert np.allclose(vel, pin.getFrameVelocity(model, data, fid, LOCAL).vector, rtol=0, atol=TOL)
        assert np.allclose(J @ v, vel, rtol=0, atol=TOL)
        # the same acceleration as the world-aligned one, rotated into the frame's axes
        R = data.oMf[fid].rotation
        Jw, dw = dyn.frame(fid)
        world = Jw @ a + dw
        assert np.allclose((J @ a + drift)[:3], R.T @ world[:3], rtol=0, atol=TOL)
        assert np.allclose((J @ a + drift)[3:], R.T @ world[3:], rtol=0, atol=TOL)


@pytest.mark.parametrize("seed", [7, 8])
def test_com_jacobian_and_drift_give_pinocchios_com_acceleration(robot, seed):
    model = robot.model
    q, v, a = _state(robot, seed)
    dyn = RobotDynamics(model)
    dyn.update(q, v)
    data = model.createData()
    pin.centerOfMass(model, data, q, v, a)
    assert np.allclose(dyn.com, data.com[0], rtol=0, atol=TOL)
    assert np.allclose(dyn.com_velocity, data.vcom[0], rtol=0, atol=TOL)
    assert np.allclose(dyn.com_jacobian @ v, data.vcom[0], rtol=0, atol=TOL)
    assert np.allclose(dyn.com_jacobian @ a + dyn.com_drift, data.acom[0], rtol=0, atol=TOL)


def test_the_com_is_the_mass_weighted_mean_of_the_bodies_and_its_acceleration_the_second_difference(robot):
    model = robot.model
    q, v, a = _state(robot, 9)
    dyn = RobotDynamics(model)
    dyn.update(q, v)
    data = model.createData()

    def com(qq):
        pin.forwardKinematics(model, data, qq)
        total = sum(model.inertias[j].mass for j in range(1, model.njoints))
        return (
            sum(model.inertias[j].mass * data.oMi[j].act(model.inertias[j].lever) for j in range(1, model.njoints))
            / total
        )

    assert np.allclose(dyn.com, com(q), rtol=0, atol=TOL)
    h = FD_STEP
    cm, c0, cp = (com(pin.integrate(model, q, t * v + 0.5 * t * t * a)) for t in (-h, 0.0, h))
    assert np.allclose(dyn.com_jacobian @ a + dyn.com_drift, (cp - 2.0 * c0 + cm) / h**2, rtol=0, atol=FD_TOL)
    assert np.allclose(dyn.com_velocity, (cp - cm) / (2.0 * h), rtol=0, atol=FD_TOL)


@pytest.mark.parametrize("seed", [10, 11])
def test_mass_matrix_times_a_plus_h_is_the_inverse_dynamics(robot, seed):
    model = robot.model
    q, v, a = _state(robot, seed)
    dyn = RobotDynamics(model)
    dyn.update(q, v)
    data = model.createData()
    tau = pin.rnea(model, data, q, v, a)
    assert np.allclose(dyn.M @ a + dyn.h, tau, rtol=0, atol=1e-8)  # torques of order 1e2 N·m
    assert np.allclose(dyn.h, pin.rnea(model, data, q, v, np.zeros(model.nv)), rtol=0, atol=1e-8)
    assert np.array_equal(dyn.M, dyn.M.T)  # both triangles filled
    assert np.all(np.linalg.eigvalsh(dyn.M) > 0)


def test_an_update_replaces_the_frame_quantities_of_the_previous_state(robot):
    model = robot.model
    dyn = RobotDynamics(model)
    fid = model.getFrameId("LARM_LINK5")
    q1, v1, _ = _state(robot, 12)
    q2, v2, a2 = _state(robot, 13)
    dyn.update(q1, v1)
    dyn.frame(fid)
    dyn.local_frame(fid)  # both cached at the first state
    dyn.update(q2, v2)
    data = model.createData()
    pin.forwardKinematics(model, data, q2, v2, a2)
    pin.updateFramePlacements(model, data)
    J, drift = dyn.frame(fid)
    assert np.allclose(
        J @ a2 + drift, pin.getFrameClassicalAcceleration(model, data, fid, LWA).vector, rtol=0, atol=TOL
    )
    Jl, dl, vel = dyn.local_frame(fid)
    assert np.allclose(vel, pin.getFrameVelocity(model, data, fid, LOCAL).vector, rtol=0, atol=TOL)
    assert dyn.placement(fid).isApprox(data.oMf[fid], 1e-12)
