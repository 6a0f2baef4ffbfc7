"""The planner potential and goal tasks (humanoid_planner/contact/potentials/mixed_potential.py,
posture/constraints/com_region.py, point_region.py): the mixed potential (5.12)-(5.16) of
Escande 2008, §5.1.2 (its first branch with the 1/2 of (5.12)) is C¹ at d0 and its gradient w.r.t.
the tangent increment matches central differences; the goal rows' Jacobians too (same check as
test_posture_jacobians: step 1e-5, |FD - J d| <= 1e-6 |J d| + 1e-9)."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_planner.contact import MixedPotential
from humanoid_planner.contact.potentials import mixed
from humanoid_planner.posture import ComRegion, PointRegion
from humanoid_planner.posture import kinematics as kin


def _random_q(robot, rng):
    m = robot.model
    q = pin.neutral(m)
    q[:3] = rng.uniform(-0.5, 0.5, 3)
    q[3:7] = pin.Quaternion(pin.exp3(rng.uniform(-0.5, 0.5, 3))).coeffs()
    q[7:] = rng.uniform(robot.q_lower, robot.q_upper)
    return q


def test_mixed_potential_is_c1_at_d0():
    a, d0 = 2.0, 0.7
    (u0, g0), (u1, g1) = mixed(d0 - 1e-9, a, d0), mixed(d0 + 1e-9, a, d0)
    assert abs(u1 - u0) < 1e-8 and abs(g1 - g0) < 1e-8
    assert mixed(0.3, a, d0)[0] == pytest.approx(0.5 * a * 0.09)  # quadratic branch
    assert mixed(2.0, a, d0)[0] == pytest.approx(a * d0 * 2.0 - 0.5 * a * d0**2)  # linear branch


def test_potential_and_goal_jacobians_match_finite_differences(robot):
    m = robot.model
    rng = np.random.default_rng(11)
    L = robot.contact_locations
    pot = MixedPotential(m, (0.4, 0.1), robot.q(), d0=0.3)  # both branches met over the samples
    goals = [ComRegion(m, (0.3, 0.5), (-0.1, 0.1)), PointRegion(m, L["r_sole"].body, L["r_sole"].point, (0, 1), (0, 1))]
    data = m.createData()
    h = 1e-5
    for _ in range(5):
        q = _random_q(robot, rng)
        for _ in range(3):
            v = rng.normal(size=m.nv)
            v /= np.linalg.norm(v)
            fp, fm = pot(pin.integrate(m, q, h * v)), pot(pin.integrate(m, q, -h * v))
            jd = pot.evaluate(q)[1] @ v
            assert abs((fp - fm) / (2 * h) - jd) <= 1e-6 * abs(jd) + 1e-9
            for g in goals:
                kin.update(m, data, pin.integrate(m, q, h * v), com=True)
                cp = g.value(None, data)
                kin.update(m, data, pin.integrate(m, q, -h * v), com=True)
                cm = g.value(None, data)
                kin.update(m, data, q, com=True)
                Jd = g.jacobian(q, data) @ v
                assert np.all(np.abs((cp - cm) / (2 * h) - Jd) <= 1e-6 * np.abs(Jd) + 1e-9)
