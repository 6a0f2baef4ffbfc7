"""The dynamic box lift's cam profile and impact (Chardonnet 2009, §5.2.1.2–§5.2.1.4, (5.9)–(5.18);
`humanoid_planner.lifting.cam`, `humanoid_planner.lifting.impact`), checked against a numerical
integration of the cam's acceleration, an impulse solve of the two bodies written here from Newton's
laws, and the inverted pendulum integrated after the impact."""

import numpy as np
import pytest
from scipy.integrate import cumulative_trapezoid, solve_ivp

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.lifting.cam import RAMP, cam_profile
from humanoid_planner.lifting.impact import G, cross, design_impact, locked_impact


@pytest.mark.parametrize("ramp", [RAMP, 0.3, 0.5])
def test_cam_position_and_speed_are_the_integrals_of_its_acceleration(ramp):
    """P and V integrated from A (trapezoids, 200 001 points) from rest at 0: the profile ends at 1
    at rest, rises linearly between the ramps, and passes T = 0.5 halfway at full speed."""
    T = np.linspace(0.0, 1.0, 200_001)
    P, V, A = cam_profile(T, ramp)
    V_int = cumulative_trapezoid(A, T, initial=0.0)
    P_int = cumulative_trapezoid(V_int, T, initial=0.0)
    assert np.max(np.abs(V_int - V)) < 1e-8
    assert np.max(np.abs(P_int - P)) < 1e-8
    assert P[-1] == pytest.approx(1.0, abs=1e-12) and V[-1] == pytest.approx(0.0, abs=1e-12)
    middle = np.abs(T - 0.5) < 0.5 - ramp  # between the ramps
    if middle.any():
        assert np.ptp(A[middle]) == 0.0 and np.ptp(V[middle]) < 1e-12
    half = cam_profile(0.5, ramp)
    assert float(half[0]) == pytest.approx(0.5, abs=1e-12)
    assert float(half[1]) == pytest.approx(V.max(), abs=1e-12)


def _impulse_solve(m_r, c_r, i_r, v_r, w_r, m_o, c_o, i_o):
    """Two planar rigid bodies, the box at rest, locked together by an impulse (P, M) the box takes
    (the robot takes the opposite): Newton's laws for each and the lock (same angular velocity; the
    box's centre moves as the robot's body point there). Returns the robot's (v⁺, ω⁺)."""
    d = np.asarray(c_o) - np.asarray(c_r)
    # unknowns: v_r+ (2), w+ (1), v_o+ (2), P (2), M (1)
    K = np.zeros((8, 8))
    rhs = np.zeros(8)
    K[0:2, 0:2] = m_r * np.eye(2)
    K[0:2, 5:7] = np.eye(2)  # m_r (v_r+ - v_r) = -P
    rhs[0:2] = m_r * np.asarray(v_r)
    K[2, 2] = i_r  # i_r (w+ - w_r) = -M - d x P
    K[2, 5:7] = [-d[1], d[0]]
    K[2, 7] = 1.0
    rhs[2] = i_r * w_r
    K[3:5, 3:5] = m_o * np.eye(2)  # m_o v_o+ = P
    K[3:5, 5:7] = -np.eye(2)
    K[5, 2] = i_o  # i_o w+ = M
    K[5, 7] = -1.0
    K[6:8, 3:5] = np.eye(2)  # v_o+ = v_r+ + w+ (-d_z, d_x)
    K[6:8, 0:2] = -np.eye(2)
    K[6:8, 2] = [d[1], -d[0]]
    x = np.linalg.solve(K, rhs)
    return x[0:2], x[2]


def test_the_designed_impact_leaves_the_foot_centre_at_rest():
    """For 200 random robots, boxes and foot centres, the robot moving as one rigid body with the
    design's velocity and angular velocity (h_r⁻ / I_r) locks onto the box: the merged body's velocity
    at the foot centre is zero to 1e-12 m/s (the centre of percussion, (5.11)), its angular momentum
    about the foot centre is the design's L_B (5.13), and `locked_impact` gives the impulse solve's
    motion."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        m_r, m_o = rng.uniform(20, 80), rng.uniform(0.5, 15)
        i_r, i_o = rng.uniform(1, 10), rng.uniform(0.01, 0.5)
        b = np.array([rng.uniform(-0.1, 0.1), 0.0])
        c_r = b + [rng.uniform(0.02, 0.3), rng.uniform(0.4, 0.8)]
        c_o = b + [rng.uniform(0.3, 0.6), rng.uniform(0.2, 0.6)]
        d = design_impact(m_r, c_r, i_r, m_o, c_o, i_o, b)
        v_r, w_r = d.robot_velocity * d.direction, d.robot_momentum / i_r
        v_plus, w_plus = _impulse_solve(m_r, c_r, i_r, v_r, w_r, m_o, c_o, i_o)
        at_b = v_plus + w_plus * np.array([-(b - c_r)[1], (b - c_r)[0]])
        assert np.max(np.abs(at_b)) < 1e-12
        a, v_s, w_s = locked_impact(m_r, c_r, v_r, i_r * w_r, m_o, c_o, d.inertia)
        assert np.allclose(a, d.com, atol=1e-15) and w_s == pytest.approx(w_plus, rel=1e-12)
        assert np.allclose(v_s, v_plus + w_plus * np.array([-(a - c_r)[1], (a - c_r)[0]]), atol=1e-12)
        l_b = d.inertia * w_s + cross(a - b, d.mass * v_s)
        assert l_b == pytest.approx(d.momentum, rel=1e-12)


def _swing(design, scale, duration=20.0):
    """The merged body as an inverted pendulum about the foot centre (§5.2.1.2) from the design's
    lean at ``scale`` times its ω_s⁺: the least lean [rad] it reaches within ``duration`` [s], or -1
    if it passes the top."""
    i_b = design.inertia + design.mass * design.arm**2
    k = design.mass * G * design.arm / i_b

    def top(t, y):
        return y[0]

    def turn(t, y):
        return y[1]

    top.terminal = turn.terminal = True
    turn.direction = 1
    sol = solve_ivp(
        lambda t, y: [y[1], k * np.sin(y[0])],
        (0.0, duration),
        [design.lean, -scale * design.omega],
        events=[top, turn],
        rtol=1e-11,
        atol=1e-13,
    )
    return -1.0 if sol.t_events[0].size else float(sol.y[0].min())


def test_the_pendulum_after_the_impact_just_reaches_the_top():
    """The lean θ₀ decides ω_s⁺: 0.1 % faster and the merged body passes over the foot centre, 0.1 %
    slower and it falls back forward before the top; at the design's speed it is within 1 mrad of the
    top after 3 s and still rising (it would take forever to reach it; later, the integration's
    round-off decides the side it falls to)."""
    d = design_impact(40.0, [0.12, 0.55], 4.0, 4.5, [0.45, 0.495], 0.1, [0.0, 0.0])
    assert _swing(d, 1.001) == -1.0
    assert _swing(d, 0.999) > 0.005
    assert 0.0 < _swing(d, 1.0, duration=3.0) < 1e-3


def test_a_box_behind_the_feet_or_a_weightless_robot_is_refused():
    with pytest.raises(PlanningError, match="ahead of the foot centre"):
        design_impact(40.0, [-0.2, 0.55], 4.0, 4.5, [-0.3, 0.4], 0.1, [0.0, 0.0])
    with pytest.raises(PlanningError, match="robot mass"):
        design_impact(0.0, [0.1, 0.55], 4.0, 4.5, [0.4, 0.4], 0.1, [0.0, 0.0])
    with pytest.raises(PlanningError, match="ramp"):
        cam_profile(0.2, ramp=0.0)
