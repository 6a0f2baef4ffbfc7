"""The centroidal trajectory through a stance sequence (humanoid_planner/motion/centroidal.py,
docs/planning.md "Dynamic motion"), on hand-made stances of two 0.23 x 0.13 m soles (HRP-2's) and
on the flat walk the contact planner finds:

- standing still on both soles, the optimum holds the CoM still: the forces carry m g exactly;
- the knots are the exact trajectory of the piecewise-constant forces: integrated apart (RK4), the
  CoM, its velocity and the angular momentum agree to round-off, and the check sees a force
  changed by 1 %;
- the zero-moment point computed from the CoM's motion and the angular momentum alone (Kajita et
  al. 2003's definition on flat ground) equals the centre of pressure of the forces, and lies
  inside the support: the linear and angular parts of the model agree;
- an impossible stance sequence (a step of 2 m in 0.3 s) fails with IPOPT's status and its last
  constraint violation.
"""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model.exceptions import PlanningError
from humanoid_planner.motion.centroidal import (
    GRAVITY,
    CentroidalPhase,
    CentroidalSettings,
    SupportContact,
    dynamics_residual,
    optimise_centroidal,
    phases_from_plan,
)

MASS = 58.0  #: kg (HRP-2's order; any mass does)
HALF = np.array([0.115, 0.065])  #: m, half a sole (HRP-2's 0.23 x 0.13 m hull)
MU = 0.7  #: the flat scene's floor friction order (chosen)


def sole(name, x, y):
    corners = np.array([[x + sx * HALF[0], y + sy * HALF[1], 0.0] for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    return SupportContact(name, corners, np.array([0.0, 0.0, 1.0]), MU)


def phase(contacts, com, t_min=0.2, t_max=4.0):
    return CentroidalPhase(tuple(contacts), t_min, t_max, np.asarray(com, float))


def zmp_from_motion(m, k):
    """The ZMP (x, y) on the ground (z = 0) over interval ``k`` from the knots alone: the moment of
    the contact forces about the origin is dL/dt + c̄ x m (c̈ - g), c̄ the interval's mean CoM (the
    acceleration constant: c̄ = c + h v / 2 + h² c̈ / 6), and its vertical forces' centre is
    (-M_y, M_x) / F_z."""
    h = m.t[k + 1] - m.t[k]
    a = (m.v[k + 1] - m.v[k]) / h
    cbar = m.c[k] + 0.5 * h * m.v[k] + h * h * a / 6
    F = m.mass * (a - GRAVITY)
    M = (m.L[k + 1] - m.L[k]) / h + np.cross(cbar, F)
    return np.array([-M[1], M[0]]) / F[2]


def cop_of_forces(m, k):
    F, P = m.forces[k], m.points[k]
    return (F[:, 2] @ P[:, :2]) / F[:, 2].sum()


@pytest.fixture(scope="module")
def shift():
    """Double support, the right sole lifted and set 0.3 m ahead, double support: a step."""
    left, right, ahead = sole("l", 0.0, 0.1), sole("r", 0.0, -0.1), sole("r", 0.3, -0.1)
    phases = [
        phase([left, right], [0.0, 0.0, 0.8]),
        phase([left], [0.0, 0.1, 0.8], t_min=0.8),
        phase([left, ahead], [0.15, 0.0, 0.8]),
    ]
    return optimise_centroidal(phases, MASS, end_com=[0.15, 0.0, 0.8])


def test_standing_still_the_forces_carry_the_weight_and_the_com_does_not_move():
    """Over the soles' centre (elsewhere the effort term would move the CoM towards it and back:
    the corner forces' squares are least when the load is spread evenly)."""
    still = optimise_centroidal([phase([sole("l", 0, 0.1), sole("r", 0, -0.1)], [0.0, 0.0, 0.8])], MASS)
    for F in still.forces:
        assert F.sum(axis=0) == pytest.approx([0.0, 0.0, MASS * 9.81], abs=1e-6 * MASS * 9.81)
    assert np.abs(still.c - [0.0, 0.0, 0.8]).max() < 1e-9
    assert np.abs(still.L).max() < 1e-9


def test_the_knots_are_the_exact_trajectory_of_the_forces(shift):
    """c and v: linear rows, held to round-off; L: bilinear rows, held to IPOPT's tolerance (in
    L / m units, m²/s)."""
    res = dynamics_residual(shift)
    tol = CentroidalSettings().tolerance
    assert res["c"] < 1e-12 and res["v"] < 1e-12 and res["L"] < 10 * tol * MASS and res["friction"] < 1e-6
    assert shift.residual == res
    bad = shift.forces[5].copy()
    shift.forces[5] *= 1.01
    try:
        assert dynamics_residual(shift)["v"] > 1e-3  # the check is able to fail
    finally:
        shift.forces[5] = bad


def test_the_zmp_of_the_com_motion_is_the_centre_of_pressure_of_the_forces_inside_the_support(shift):
    for k in range(len(shift.t) - 1):
        cop = cop_of_forces(shift, k)
        assert zmp_from_motion(shift, k) == pytest.approx(cop, abs=1e-9)
        P = shift.points[k]
        assert np.all(cop >= P[:, :2].min(axis=0) - 1e-9) and np.all(cop <= P[:, :2].max(axis=0) + 1e-9)
    assert shift.c[-1, :2] == pytest.approx([0.15, 0.0], abs=1e-9)  # at rest where asked
    assert np.abs(shift.v[-1]).max() < 1e-9


def test_the_sampled_com_meets_the_knots_and_is_continuous(shift):
    t, c, v, a = shift.sample(0.005)
    at = np.searchsorted(t, shift.t[1:-1])
    np.testing.assert_allclose(c[at], shift.c[1:-1], atol=1e-8)  # knots at IPOPT's durations: 1e-9 s off the grid
    assert np.abs(np.diff(c, axis=0)).max() <= np.abs(v).max() * 0.005 + 1e-12
    assert t[-1] == pytest.approx(shift.duration)


def test_an_impossible_stance_sequence_fails_with_its_status_and_last_violation():
    far = [phase([sole("l", 0, 0.1), sole("r", 0, -0.1)], [0, 0, 0.8]), phase([sole("r", 2.0, -0.1)], [2, 0, 0.8])]
    short = [CentroidalPhase(p.contacts, 0.1, 0.3, p.com) for p in far]
    with pytest.raises(PlanningError, match=r"IPOPT did not converge .* last constraint violation \d"):
        optimise_centroidal(short, MASS, CentroidalSettings(max_iterations=200))


def test_bad_settings_and_phases_are_refused_in_one_line():
    with pytest.raises(PlanningError, match="knots"):
        CentroidalSettings(knots=0)
    with pytest.raises(PlanningError, match="min_phase"):
        CentroidalSettings(min_phase=5.0)
    with pytest.raises(PlanningError, match="phase 0 must hold a contact"):
        optimise_centroidal([CentroidalPhase((), 0.2, 1.0, np.zeros(3))], MASS)
    with pytest.raises(PlanningError, match="mass"):
        optimise_centroidal([phase([sole("l", 0, 0)], [0, 0, 0.8])], -1.0)


def test_a_planned_walk_keeps_its_stances_swings_and_standing_height(robot, flat_walk_plan):
    """The flat walk's plan (0.4 m, conftest): one phase per stance, a swing phase lasting at least
    the minimum single support, the CoM at the start's height above the soles (module docstring)."""
    result = flat_walk_plan["result"]
    feas, nodes = result.planner.feas, result.plan.nodes
    phases = phases_from_plan(feas, nodes, start_q=result.problem.start_q)
    assert len(phases) == len(nodes)
    s = CentroidalSettings()
    for j, ph in enumerate(phases):
        assert len(ph.contacts) == len(nodes[j].stance.contacts)
        assert ph.t_min >= (s.min_swing if len(ph.contacts) == 1 else s.min_phase)
        assert len(ph.swings) == (1 if len(ph.contacts) == 1 else 0)
    m = robot.model
    start = pin.centerOfMass(m, m.createData(), result.problem.start_q)
    assert all(ph.stand == pytest.approx(start[2], abs=1e-9) for ph in phases)  # flat: the soles at z = 0
