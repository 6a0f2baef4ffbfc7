"""`posture.solver.slsqp.minimize_slsqp` (SciPy's SLSQP routine driven without `minimize`'s wrapping)
takes the same iterates as `scipy.optimize.minimize(method="SLSQP")`, bit for bit: on a posture
problem of HRP-2 (both soles strong on the floor, a hand target, the reference-posture criterion:
equalities, inequalities and joint bounds), on phase 1's min-max form (no equality rows, an
unbounded variable) and when a callback stops the run. A driver that evaluated the functions at
another point, sized the work arrays or bounds otherwise, or mishandled the stop would part from
SciPy's iterates.

The guard (the module docstring's "The guard"): on the pinned SciPy the private routine passes
its import-time check; a missing routine, one of another signature, one that answers wrong and one
that never ends each make the check choose the public path, which `minimize_slsqp` then takes
(`scipy.optimize.minimize` called). Forced onto the public path, the posture generator solves three
of test_posture_solver.py's problems (a hand target, a moved and turned foot, phase 1 then phase 2
from a CoM behind its polygon) as the fast path does: the same outcome, each constraint's residual
within the solver's tolerance of the fast path's, the criterion within `CRITERION_TOL`; and a
callback's stop reaches the public path's run at the same iterate."""

import importlib
import logging
import sys

import numpy as np
import pytest
from scipy.optimize import minimize

from humanoid_planner.posture import ComInPolygon, EnvironmentFrame, FramePosition
from humanoid_planner.posture.criteria.reference_posture import ReferencePosture
from humanoid_planner.posture.problem import PostureProblem
from humanoid_planner.posture.solver import slsqp
from humanoid_planner.posture.solver.slsqp import EXIT_MODES, STOPPED, minimize_slsqp
from humanoid_planner.posture.solver.two_phase import PostureSolverSettings, solve
from humanoid_planner.posture.stance import contacts_at, stance_constraints

HAND_TARGET = [0.35, -0.3, 0.9]  # [m] as test_posture_solver.py: reachable standing
TOL = PostureSolverSettings().tolerance  # the solver's tolerance on a residual, 1e-6
CRITERION_TOL = 1e-8  # chosen: 100 x SLSQP's ftol 1e-10, the criterion change at which a run stops


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


def test_the_pinned_scipy_takes_the_fast_path(caplog):
    """The project's SciPy (requirements.txt) passes the check: `minimize_slsqp` drives the private
    routine (the tests above compare its iterates with `minimize`'s), and `select` logs its choice
    in one record."""
    slsqplib = importlib.import_module("scipy.optimize._slsqplib")
    assert slsqp.private_routine() == (slsqplib.slsqp, "checked")
    assert slsqp.ROUTINE is slsqplib.slsqp and slsqp.PATH == slsqp.FAST
    with caplog.at_level(logging.INFO, logger=slsqp.__name__):
        assert slsqp.select() == slsqp.FAST
    assert [(r.levelno, slsqp.FAST in r.getMessage()) for r in caplog.records] == [(logging.INFO, True)]


@pytest.fixture
def spied_minimize(monkeypatch):
    """The calls `minimize_slsqp` makes to `scipy.optimize.minimize`, recorded; `ROUTINE` and
    `PATH` restored after the test."""
    monkeypatch.setattr(slsqp, "ROUTINE", slsqp.ROUTINE)
    monkeypatch.setattr(slsqp, "PATH", slsqp.PATH)
    calls = []

    def spy(*args, **kwargs):
        calls.append(kwargs["method"])
        return minimize(*args, **kwargs)

    monkeypatch.setattr(slsqp, "minimize", spy)
    return calls


def _check_on_the_chosen_path(calls):
    res = minimize_slsqp(*slsqp._check_problem())
    assert calls == ["SLSQP"] and res.status == 0
    assert np.allclose(res.x, [0.25, 0.75, 3.0], rtol=0.0, atol=1e-8)  # slsqp._check_problem's docstring


@pytest.mark.parametrize("gone", ["routine", "module"])
def test_the_guard_falls_back_when_the_private_routine_is_missing(gone, monkeypatch, spied_minimize, caplog):
    if gone == "routine":
        monkeypatch.delattr(pytest.importorskip("scipy.optimize._slsqplib"), "slsqp")
    else:
        monkeypatch.setitem(sys.modules, "scipy.optimize._slsqplib", None)
    with caplog.at_level(logging.INFO, logger=slsqp.__name__):
        assert slsqp.select() == slsqp.PUBLIC
    assert slsqp.ROUTINE is None
    [record] = caplog.records
    assert record.levelno == logging.WARNING and "no private routine" in record.getMessage()
    _check_on_the_chosen_path(spied_minimize)


def _other_signature(state, fx, g, C, d, x):  # a routine whose arguments changed
    state["mode"] = 0


def _wrong_answer(state, fx, g, C, d, x, mult, xl, xu, buffer, indices):  # exits at once, x unmoved
    state["mode"], state["iter"] = 0, 1


def _endless(state, fx, g, C, d, x, mult, xl, xu, buffer, indices):  # asks for evaluations forever
    state["mode"] = 1


@pytest.mark.parametrize(
    "routine, why",
    [(_other_signature, "TypeError"), (_wrong_answer, "solved the check problem wrong"), (_endless, "no exit after")],
)
def test_the_guard_falls_back_when_the_private_routine_misbehaves(routine, why, monkeypatch, spied_minimize):
    monkeypatch.setattr(pytest.importorskip("scipy.optimize._slsqplib"), "slsqp", routine)
    found, reason = slsqp.private_routine()
    assert found is None and why in reason
    assert slsqp.select() == slsqp.PUBLIC and slsqp.ROUTINE is None
    _check_on_the_chosen_path(spied_minimize)


def _posture_problems(robot, floor):
    """Three problems of test_posture_solver.py: the hand target, the right sole moved 5 cm
    forward, 2 cm out and turned 0.2 rad, and the support polygon moved 12 cm forward (phase 1
    from a violated start, then phase 2)."""
    m, locations = robot.model, robot.contact_locations
    standing = contacts_at(m, locations, robot.q(), ["r_sole", "l_sole"], floor)
    hand = FramePosition(m, "RARM_LINK5", HAND_TARGET, point=locations["r_hand"].point, name="hand")
    e1, e2, _ = floor.rotation.T
    rel = standing[0][1].point - floor.centroid
    moved = EnvironmentFrame.on_surface(floor, rel @ e1 + 0.05, rel @ e2 - 0.02, 0.2)
    cons = stance_constraints(m, locations, standing, margin=0.0)
    shifted = ComInPolygon(m, cons[-1].vertices + [0.12, 0.0], name="com_forward")
    return {
        "hand": stance_constraints(m, locations, standing) + [hand],
        "foot": stance_constraints(m, locations, [("r_sole", moved, floor), standing[1]]),
        "com": cons[:-1] + [shifted],
    }


@pytest.mark.parametrize("name", ["hand", "foot", "com"])
def test_the_public_path_solves_the_posture_problems_as_the_fast_path(name, robot, floor, spied_minimize):
    if slsqp.ROUTINE is None:
        pytest.skip("this SciPy's private routine failed the check: no fast path to compare with")
    cons = _posture_problems(robot, floor)[name]
    m = robot.model
    fast = solve(PostureProblem(m, cons, robot.q(), ReferencePosture(m)))
    assert spied_minimize == []
    with slsqp.public_path():
        assert slsqp.ROUTINE is None and slsqp.PATH == slsqp.PUBLIC
        public = solve(PostureProblem(m, cons, robot.q(), ReferencePosture(m)))
    assert slsqp.PATH == slsqp.FAST  # restored after the block
    phases = 2 if name == "com" else 1  # phase 1 runs only from a violated start
    assert spied_minimize == ["SLSQP"] * phases
    assert (fast.phase1_iterations > 0) == (public.phase1_iterations > 0) == (name == "com")
    assert fast.success and public.success, (fast.message, public.message)
    assert public.max_violation <= TOL and fast.max_violation <= TOL
    assert public.violations.keys() == fast.violations.keys()
    for key, v in fast.violations.items():
        assert abs(public.violations[key] - v) <= TOL, key
    assert abs(public.criterion - fast.criterion) <= CRITERION_TOL


def test_a_callback_stop_reaches_the_public_path(problem, spied_minimize):
    """The posture problem stopped by its callback at the 5th iterate on both paths."""
    if slsqp.ROUTINE is None:
        pytest.skip("this SciPy's private routine failed the check: no fast path to compare with")
    x1 = np.r_[0.02, np.zeros(problem.nx - 1)]
    args = (lambda x: problem.at(x).f, lambda x: problem.at(x).g, _rows(problem), x1, problem.lower, problem.upper, 100)

    def run():
        calls = []
        return _ours(*args, stop=lambda x: calls.append(1) or len(calls) == 5)

    fast_run = run()
    with slsqp.public_path():
        public_run = run()
    results = [fast_run, public_run]
    (fast, fast_seen), (public, public_seen) = results
    assert spied_minimize == ["SLSQP"]
    assert fast.status == public.status == STOPPED and fast.nit == public.nit == 5
    assert len(fast_seen) == len(public_seen) == 5
    assert public.message == EXIT_MODES[STOPPED]
