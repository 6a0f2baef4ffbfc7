"""Integration stage (`humanoid_sim.integrator`; spec ../shared/spec/000_chardonnet.md §2.9, §2.12):
free fall and a ballistic spin of a free body against their closed forms, unit quaternions, the
spherical pendulum (§6.2 C1), and the momentum projection of trees in free flight: a spinning,
moving HRP-2 in zero gravity keeps its momentum to 1e-9 relative (issue 3), the projection only
removes the integrator's O(dt²) drift per step, and without it the drift is first order."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_sim.integrator import MomentumProjection, free_velocity, integrate
from humanoid_sim.world import World

G = np.array([0.0, 0.0, -9.81])  # [m/s²] the scenes' gravity


def _body_world(tmp_path, gravity, velocity, angular, projection=True, size=(0.3, 0.2, 0.1)):
    """One free box (2 kg, chosen) at (0.1, −0.2, 1.5) m, no ground, the given world velocities."""
    p = tmp_path / "body.yaml"
    p.write_text(
        f"""
gravity: {np.asarray(gravity, float).tolist()}
ground: null
free_bodies:
  - {{name: box, shape: box, size: {list(size)}, mass: 2.0, pose: {{xyz: [0.1, -0.2, 1.5]}},
     velocity: {{linear: {np.asarray(velocity, float).tolist()}, angular: {np.asarray(angular, float).tolist()}}}}}
"""
    )
    return World.from_scene(p, momentum_projection=projection)


@pytest.mark.parametrize("projection", [True, False])
def test_free_fall_matches_the_semi_implicit_closed_form(tmp_path, projection):
    """v_n = v_0 + n dt g and x_n = x_0 + n dt v_0 + dt² g n(n + 1)/2 (positions use the new
    velocity, integrator docstring), to 1e-9 m over 1 s, with or without the momentum projection
    (a translating body's momentum already follows m g)."""
    v0 = np.array([1.0, 0.5, 2.0])
    w = _body_world(tmp_path, G, v0, [0, 0, 0], projection)
    x0 = w.state.bodies["box"].position.copy()
    n = 1000
    w.step(n)
    b = w.state.bodies["box"]
    dt = w.dt
    np.testing.assert_allclose(b.linear_velocity, v0 + n * dt * G, atol=1e-9)
    np.testing.assert_allclose(b.position, x0 + n * dt * v0 + dt**2 * G * n * (n + 1) / 2, atol=1e-9)
    np.testing.assert_allclose(b.quaternion, [0, 0, 0, 1], atol=1e-12)


def test_ballistic_spin_about_a_principal_axis_matches_the_closed_form(tmp_path):
    """Box with three different principal inertias spinning at 5 rad/s about its vertical axis
    (chosen) while falling: ω stays constant and the orientation is R_z(ω t), to 1e-10 over 2 s
    (round-off of 2000 steps), the quaternion stays unit to 1e-14, and the fall follows the
    closed form as above."""
    w_z = 5.0
    w = _body_world(tmp_path, G, [0, 0, 1.0], [0, 0, w_z])
    x0 = w.state.bodies["box"].position.copy()
    dt, qnorm = w.dt, 0.0
    for _ in range(2000):
        w.step()
        qnorm = max(qnorm, abs(np.linalg.norm(w.state.bodies["box"].quaternion) - 1.0))
    b = w.state.bodies["box"]
    t = w.t
    np.testing.assert_allclose(b.angular_velocity, [0, 0, w_z], atol=1e-10)
    half = 0.5 * w_z * t
    assert np.allclose(b.quaternion, [0, 0, np.sin(half), np.cos(half)], atol=1e-10) or np.allclose(
        b.quaternion, [0, 0, -np.sin(half), -np.cos(half)], atol=1e-10
    )
    assert qnorm < 1e-14
    n = 2000
    np.testing.assert_allclose(b.position, x0 + n * dt * np.array([0, 0, 1.0]) + dt**2 * G * n * (n + 1) / 2, atol=1e-9)


def _angular_momentum(w):
    """Angular momentum about the world origin [kg m²/s] of the world's free bodies."""
    d = w.model.createData()
    h = pin.computeCentroidalMomentum(w.model, d, w.q, w.v)
    return h.angular + np.cross(d.com[0], h.linear)


def test_momentum_projection_keeps_a_tumbling_body_s_momentum(tmp_path):
    """Zero gravity, the box spinning about a non-principal axis (torque-free tumbling): its
    angular momentum about the world origin stays within 1e-12 relative over 1 s with the
    projection, and drifts by more than 1e-9 without it (so the projection is doing the work)."""
    drift = {}
    for projection in (True, False):
        w = _body_world(tmp_path, [0, 0, 0], [0.2, 0.0, 0.1], [3.0, 2.0, 4.0], projection)
        L0 = _angular_momentum(w)
        w.step(1000)
        drift[projection] = np.linalg.norm(_angular_momentum(w) - L0) / np.linalg.norm(L0)
    assert drift[True] < 1e-12
    assert drift[False] > 1e-9


def test_free_trees_are_those_without_contact_or_wrench():
    model = pin.Model()
    cols = []
    for k in range(4):
        j = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), f"b{k}")
        model.appendBodyToJoint(j, pin.Inertia.FromBox(1.0, 0.1, 0.1, 0.1), pin.SE3.Identity())
        cols.append(np.arange(6 * k, 6 * k + 6))
    mp = MomentumProjection(model, cols, [1, 2, 3, 4], [1.0] * 4, 1e-3)
    tree_a, tree_b = np.array([0, 2]), np.array([-1, 0])  # 0 on the ground, 2 on 0
    assert mp.free_trees(tree_a, tree_b, pushed={3}) == [1]
    assert mp.free_trees(np.zeros(0, np.int64), np.zeros(0, np.int64), pushed=set()) == [0, 1, 2, 3]


# ----------------------------------------------------------------------------- HRP-2 in free flight
ZERO_G = """
gravity: [0, 0, 0]
ground: null
robot: {name: hrp2, posture: half-sitting, base: {xyz: [0, 0, 1.0]}}
"""


def _zero_g_world(tmp_path, dt=1e-3, projection=True):
    """Spinning, moving HRP-2 in zero gravity with zero joint torques (and no joint-limit rows:
    limit stops are plastic impacts, which would spoil the energy test)."""
    p = tmp_path / "zero_g.yaml"
    p.write_text(ZERO_G)
    w = World.from_scene(p, joint_limits=False, dt=dt, momentum_projection=projection)
    w.actuator.set_torque(np.zeros(w.n_act))
    rng = np.random.default_rng(0)
    w.v = rng.normal(scale=0.5, size=w.model.nv)
    w.v[:6] = [0.3, -0.2, 0.1, 1.0, 0.5, -0.7]
    return w


def _momentum(w):
    """(linear, angular about the world origin) (6,) of the robot at the world's state."""
    d = w.model.createData()
    h = pin.computeCentroidalMomentum(w.model, d, w.q, w.v)
    return np.concatenate([h.linear, h.angular + np.cross(d.com[0], h.linear)])


def _record_corrections(w):
    """Wrap the world's momentum projection (`integrator.MomentumProjection.project`): per step,
    the size of the momentum change it makes, relative to the momentum (the uncorrected step's
    drift)."""
    proj = w.momentum
    orig, out = proj.project, []

    def wrapped(trees, q, v, qnew, vnew):
        res = orig(trees, q, v, qnew, vnew)
        h_in = proj.momenta(qnew, vnew, trees)[0][0]
        h_out = proj.momenta(qnew, res, trees)[0][0]
        out.append(np.linalg.norm(h_out - h_in) / np.linalg.norm(h_out))
        return res

    proj.project = wrapped
    return out


def test_zero_gravity_momentum_conserved(tmp_path):
    """Spinning, moving HRP-2, zero gravity, no contact, zero joint torques, 1 s: linear and
    angular momentum (about the world origin) conserved to 1e-9 relative (issue 3); kinetic
    energy drift bounded (< 0.1 % over 1 s: our bound; 0.064 % measured). The projection that
    makes the first check hold must only remove the integrator's O(dt²) drift: its correction
    per step is < 5 s⁻²·dt² relative (our bound; 2.4 s⁻²·dt² measured over this 1 s), and it
    is actually applied on every step."""
    w = _zero_g_world(tmp_path)
    corr = _record_corrections(w)

    def energy():
        return pin.computeKineticEnergy(w.model, w.model.createData(), w.q, w.v)

    h0 = _momentum(w)
    e0 = energy()
    drift = 0.0
    for _ in range(1000):
        w.step()
        drift = max(drift, abs(energy() - e0) / e0)
    h1 = _momentum(w)
    assert w.last.batch.m == 0 and np.linalg.norm(w.q[7:] - w.q0[7:]) > 0.1  # it did move
    assert np.linalg.norm(h1[:3] - h0[:3]) <= 1e-9 * np.linalg.norm(h0[:3])
    assert np.linalg.norm(h1[3:] - h0[3:]) <= 1e-9 * np.linalg.norm(h0[3:])
    assert drift < 1e-3
    assert len(corr) == 1000 and min(corr) > 0.0
    assert max(corr) < 5.0 * w.dt**2


def test_zero_gravity_uncorrected_integrator_is_first_order(tmp_path):
    """Without the projection, semi-implicit Euler on the Lie group drifts the momentum by
    O(dt²) per step, so O(dt) over a fixed 0.2 s: halving dt halves the drift (ratio 2.00
    measured at 4/2/1 ms; ±10 % accepted) and it is far above the 1e-9 acceptance (1.6e-4 at
    1 ms), so the projection is needed and the conservation test above is not vacuous. With the
    projection, the per-step correction is second order: ratio 4 (3.98 measured) between 2 and
    1 ms, ±10 %."""
    T = 0.2
    drifts = []
    for dt in (4e-3, 2e-3, 1e-3):
        w = _zero_g_world(tmp_path, dt=dt, projection=False)
        h0 = _momentum(w)
        w.step(int(round(T / dt)))
        drifts.append(np.linalg.norm(_momentum(w) - h0) / np.linalg.norm(h0))
    assert drifts[2] > 1e-5
    assert drifts[0] / drifts[1] == pytest.approx(2.0, rel=0.1)
    assert drifts[1] / drifts[2] == pytest.approx(2.0, rel=0.1)
    peaks = []
    for dt in (2e-3, 1e-3):
        w = _zero_g_world(tmp_path, dt=dt)
        corr = _record_corrections(w)
        h0 = _momentum(w)
        w.step(int(round(T / dt)))
        assert np.linalg.norm(_momentum(w) - h0) <= 1e-9 * np.linalg.norm(h0)
        peaks.append(max(corr))
    assert peaks[0] / peaks[1] == pytest.approx(4.0, rel=0.1)


# ----------------------------------------------------------------------------- spherical pendulum (C1)
def _swing_pendulum(release_deg, steps, dt=1e-3):
    """Rod (L = 1 m, m = 1 kg, chosen) on a quaternion spherical joint released `release_deg` from
    the downward vertical in the xz plane; returns (worst out-of-plane angle [rad], worst |quat|-1,
    number of steps with the rod horizontal (pitch ±90°, where roll-pitch-yaw is singular), final v)."""
    model = pin.Model()
    j = model.addJoint(0, pin.JointModelSpherical(), pin.SE3.Identity(), "ball")
    L, m = 1.0, 1.0
    model.appendBodyToJoint(
        j, pin.Inertia(m, np.array([0, 0, -L / 2]), np.diag([m * L**2 / 12] * 2 + [1e-4])), pin.SE3.Identity()
    )
    data = model.createData()
    q = pin.Quaternion(pin.utils.rpyToMatrix(0, np.radians(release_deg), 0)).coeffs().copy()
    v = np.zeros(3)
    worst, qerr, horizontal = 0.0, 0.0, 0
    for _ in range(steps):
        pin.crba(model, data, q)
        v = free_velocity(model, data, q, v, np.zeros(3), dt)
        q = integrate(model, q, v, dt)
        R = pin.Quaternion(q[3], q[0], q[1], q[2]).toRotationMatrix()
        tip = R @ np.array([0, 0, -L])
        worst = max(worst, abs(np.arcsin(tip[1] / np.linalg.norm(tip))))
        qerr = max(qerr, abs(np.linalg.norm(q) - 1.0))
        horizontal += abs(tip[2]) < 0.05 * L
    return worst, qerr, horizontal, v


@pytest.mark.parametrize(
    "release_deg, steps, through_singularity",
    [
        (60, 20000, False),  # C1 (../shared/spec/000_chardonnet.md:1031-1033): 20 s
        (120, 5000, True),  # swings through pitch ±90°, where an Euler-angle joint is singular
    ],
)
def test_spherical_pendulum_planar_and_unit_quaternion(release_deg, steps, through_singularity):
    """Out-of-plane angle < 1e-6 rad, |quat| = 1 ± 1e-9 (pin.integrate), no blow-up."""
    worst, qerr, horizontal, v = _swing_pendulum(release_deg, steps)
    assert worst < 1e-6
    assert qerr < 1e-9
    assert (horizontal > 10) == through_singularity
    # energy bound: ω ≤ √(2 m g (1 - cos a) L/2 / (m L²/3)) < 7 rad/s for a ≤ 120°
    assert np.all(np.isfinite(v)) and np.linalg.norm(v) < 10.0
