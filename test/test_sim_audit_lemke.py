"""Acceptance audit of issue 3: Lemke's degenerate-pivot guard (§2.8, eqs 2.33–2.35) had no test
of its own. A resting box whose 4 corner contacts are each given twice (8 contacts, W of rank 6
in 24 rows) makes every ratio test tie exactly; the guard must still terminate with a
complementary solution that carries the weight and stops the box."""
import numpy as np
import pinocchio as pin
import pytest

from humanoid_sim.delassus import ContactSet, contact_jacobian, delassus_cholesky
from humanoid_sim.solvers import SolverSettings, get_solver
from humanoid_sim.solvers.base import ContactProblem

DT, G, MASS, MU = 1e-3, 9.81, 1.0, 0.4   # 1 ms (spec :402), μ = 0.4 (spec :1004); box mass chosen


def duplicated_box_problem(F=(0.0, 0.0)):
    a, b, c = 0.2, 0.2, 0.1                              # box size [m] (chosen)
    model = pin.Model()
    j = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "box")
    model.appendBodyToJoint(j, pin.Inertia.FromBox(MASS, a, b, c), pin.SE3.Identity())
    data = model.createData()
    q = pin.neutral(model)
    q[2] = c / 2
    corners = np.array([[sx * a / 2, sy * b / 2, -c / 2] for sx in (-1, 1) for sy in (-1, 1)] * 2)
    R = np.array([[0, 0, 1.0], [1.0, 0, 0], [0, 1.0, 0]])
    cs = ContactSet.make([j] * 8, corners, np.tile(R, (8, 1, 1)))
    J = contact_jacobian(model, data, cs, q)
    Lam, MinvJt = delassus_cholesky(model, data, q, J)
    v_body = np.zeros(6)
    v_body[:3] = DT * np.array([F[0] / MASS, F[1] / MASS, -G])
    return ContactProblem(DT * Lam, J @ v_body, np.full(8, MU)), MinvJt, v_body


@pytest.mark.parametrize("settings", [SolverSettings(frictionless=True), SolverSettings(facets=4),
                                      SolverSettings(facets=8)], ids=["frictionless", "4 facets", "8 facets"])
def test_lemke_terminates_on_exactly_degenerate_ties(settings):
    prob, MinvJt, v_body = duplicated_box_problem()
    r = get_solver("lemke_lcp").solve(prob, settings=settings)
    assert r.converged and r.extra["status"] == 0
    assert r.residuals["lcp_complementarity"] < 1e-12 and r.residuals["lcp_feasibility"] < 1e-12
    fn = r.impulses[0::3]
    assert np.all(fn >= -1e-12)
    assert fn.sum() == pytest.approx(MASS * G, rel=1e-9)            # the weight
    v1 = v_body + MinvJt @ (DT * r.impulses)   # W = dt Λ: the solution is in forces [N]
    assert np.linalg.norm(v1) < 1e-12                               # the box stops


def test_lemke_degenerate_sliding_along_a_facet():
    """The same duplicated contacts, 5 N pulling along x (a facet direction of both the 4- and
    8-facet cones): the box slides at (F − μ m g)/m exactly, as the exact cone gives."""
    prob, MinvJt, v_body = duplicated_box_problem(F=(5.0, 0.0))
    for k in (4, 8):
        r = get_solver("lemke_lcp").solve(prob, settings=SolverSettings(facets=k))
        assert r.converged and r.residuals["lcp_complementarity"] < 1e-12
        a = (v_body + MinvJt @ (DT * r.impulses))[:3] / DT
        assert a[0] == pytest.approx((5.0 - MU * MASS * G) / MASS, rel=1e-9)
        assert abs(a[1]) < 1e-9 and abs(a[2]) < 1e-9
