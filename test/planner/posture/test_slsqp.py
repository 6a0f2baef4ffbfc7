"""`posture.solver.slsqp.minimize_slsqp` (SciPy's SLSQP routine driven without `minimize`'s wrapping)
takes the same iterates as `scipy.optimize.minimize(method="SLSQP")`, bit for bit: on a posture
problem of HRP-2 (both soles strong on the floor, a hand target, the reference-posture criterion:
equalities, inequalities and joint bounds), on phase 1's min-max form (no equality rows, an
unbounded variable) and when a callback stops the run. A driver that evaluated the functions at
another point, sized the work arrays or bounds otherwise, or mishandled the stop would part from
SciPy's iterates."""

import numpy as np
import pytest
from scipy.optimize import minimize

from humanoid_planner.posture import FramePosition
from humanoid_planner.posture.criteria.reference_posture import ReferencePosture
from humanoid_planner.posture.problem import PostureProblem
from humanoid_planner.posture.solver.slsqp import EXIT_MODES, STOPPED, minimize_slsqp
from humanoid_planner.posture.stance import contacts_at, stance_constraints

HAND_TARGET = [0.35, -0.3, 0.9]  # [m] as test_posture_solver.py: reachable standing


@pytest.fixture(scope="module")
def problem(robot, floor):
    m = robot.model
    standing = contacts_at(m, robot.contact_locations, robot.q(), ["r_sole", "l_sole"], floor)
    hand = FramePosition(m, "RARM_LINK5", HAND_TARGET, point=robot.contact_locations["r_hand"].point, name="hand")
    return PostureProblem(
        m, stance_constraints(m, robot.contact_locations, standing) + [hand], robot.q(), ReferencePosture(m)
    )


def _scipy(f, g, rows, x0, lower, upper, maxiter, stop=None):
    seen = []

    def callback(intermediate_result):
        seen.append(intermediate_result.x.copy())
        if stop is not None and stop(intermediate_result.x):
            raise StopIteration

    bounds = [(a if np.isfinite(a) else None, b if np.isfinite(b) else None) for a, b in zip(lower, upper)]
    cons = [{"type": t, "fun": c, "jac": J} for t, c, J in rows if c is not None]
    res = minimize(
        f,
        x0,
        jac=g,
        method="SLSQP",
        bounds=bounds,
        constraints=cons,
        options={"maxiter": maxiter, "ftol": 1e-10},
        callback=callback,
    )
    return res, seen


def _ours(f, g, rows, x0, lower, upper, maxiter, stop=None):
    seen = []

    def callback(x):
        seen.append(x.copy())
        return stop is not None and bool(stop(x))

    (_, ce, Je), (_, ci, Ji) = rows
    return minimize_slsqp(f, g, ce, Je, ci, Ji, x0, lower, upper, maxiter, 1e-10, callback), seen


def _rows(problem):
    eq = problem.equality
    return [
        ("eq", lambda x: problem.at(x).c[eq], lambda x: problem.at(x).J[eq]),
        ("ineq", lambda x: -problem.at(x).c[~eq], lambda x: -problem.at(x).J[~eq]),
    ]


def _same(theirs, ours):
    res, seen = theirs
    mine, mine_seen = ours
    assert len(seen) == len(mine_seen) == mine.nit >= 2
    for a, b in zip(seen, mine_seen):
        assert np.array_equal(a, b)
    assert np.array_equal(res.x, mine.x)
    assert mine.status == res.status and mine.message == EXIT_MODES[mine.status]


def test_the_posture_problem_takes_scipy_s_iterates(problem):
    x0 = np.r_[0.02, np.zeros(problem.nx - 1)]  # the soles 2 cm off: equality rows to restore
    args = (lambda x: problem.at(x).f, lambda x: problem.at(x).g, _rows(problem), x0, problem.lower, problem.upper, 100)
    theirs, ours = _scipy(*args), _ours(*args)
    _same(theirs, ours)
    assert ours[0].status == 0 and problem.violations(problem.at(ours[0].x).c).max() < 1e-6


def test_phase_1_s_form_and_a_callback_stop_take_scipy_s_iterates(problem):
    """Only inequality rows, min t over (x, t) with t bounded below only; then the posture
    problem stopped by its callback at the 5th iterate."""
    n, ineq = problem.nx, ~problem.equality
    rows = [
        ("eq", None, None),
        (
            "ineq",
            lambda z: z[n] - problem.at(z[:n]).c[ineq],
            lambda z: np.hstack([-problem.at(z[:n]).J[ineq], np.ones((int(ineq.sum()), 1))]),
        ),
    ]
    x0 = np.r_[0.3, np.zeros(n - 1)]  # the base 30 cm forward: the CoM out of the support polygon
    z0 = np.append(x0, problem.at(x0).c[ineq].max())
    grad = np.eye(1, n + 1, n)[0]
    args = (
        lambda z: z[n],
        lambda z: grad,
        rows,
        z0,
        np.append(problem.lower, -1e-3),
        np.append(problem.upper, np.inf),
        50,
    )
    _same(_scipy(*args), _ours(*args))

    calls = []
    stop = lambda x: calls.append(1) or len(calls) == 5  # noqa: E731
    x1 = np.r_[0.02, np.zeros(problem.nx - 1)]
    args = (lambda x: problem.at(x).f, lambda x: problem.at(x).g, _rows(problem), x1, problem.lower, problem.upper, 100)
    theirs = _scipy(*args, stop=stop)
    calls.clear()
    ours = _ours(*args, stop=stop)
    _same(theirs, ours)
    assert ours[0].nit == 5 and ours[0].status == STOPPED
