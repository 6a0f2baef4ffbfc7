"""SLSQP for the posture generator: SciPy's compiled routine driven without
`scipy.optimize.minimize`'s per-call and per-evaluation wrapping (the fast path), or, where that
private routine is missing or misbehaves, `scipy.optimize.minimize(method="SLSQP")` on the same
problem (the public path).

**The fast path** calls SciPy's private ``scipy.optimize._slsqplib.slsqp`` (Kraft's algorithm, the
C routine with a state dict of SciPy 1.16+, the project's pin: requirements.txt) in the loop
`scipy.optimize._slsqp_py._minimize_slsqp` runs, with the problem's functions called directly.
Why: in the contact planner's posture-generator calls, `minimize`'s machinery (its checks of the
arguments, ``ScalarFunction``'s caching, the constraint dicts' ``atleast_1d`` copies, an
``OptimizeResult`` per iterate for the callback) cost about as much Python time as the problem's
own evaluations (docs/posture_generator.md "Speed"). The iterates are the same bit for bit:
the routine, its state, its work sizes and its start evaluations are SciPy's, and
``test_slsqp.py`` compares every iterate with `minimize` on a posture problem.

**The guard.** A private routine may change in any SciPy release (SciPy 1.16 replaced the
Fortran one and its signature). At import, `select` checks that the routine exists and that the
loop below solves a small problem of known solution with it (`CHECK_SOLUTION`: an equality, an
active inequality, an active bound, unbounded variables; status 0, the point to 1e-8, one callback
per iteration, at most `CHECK_CALLS` routine calls); any failure (missing, an exception from a
changed signature or state, a wrong point) makes every call take the public path. The choice is
logged once (logger ``humanoid_planner.posture.solver.slsqp``: INFO for the fast path, WARNING
with the reason for the public one); `ROUTINE` holds it (None: the public path) and `PATH` names it.
`public_path()` forces the public path for a block (tests, the benchmark).

`minimize_slsqp(f, g, c_eq, J_eq, c_ineq, J_ineq, x0, lower, upper, maxiter, ftol, callback)`:
``f(x)`` the criterion, ``g(x)`` its gradient; ``c_eq``/``c_ineq`` the equality (= 0) and
inequality (>= 0, SciPy's sign) rows and ``J_eq``/``J_ineq`` their Jacobians (None: no such rows);
``lower``/``upper`` (n,) with infinities where unbounded; ``callback(x)`` after each major
iteration, True to stop (exit status `STOPPED`). Returns an `SlsqpResult` (x, status, nit,
message), with SciPy's exit modes and messages, on either path.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, minimize

__all__ = [
    "CHECK_SOLUTION",
    "EXIT_MODES",
    "PATH",
    "ROUTINE",
    "STOPPED",
    "SlsqpResult",
    "minimize_slsqp",
    "private_routine",
    "public_path",
    "select",
]

_log = logging.getLogger(__name__)

STOPPED = 99  #: the exit status when the callback stopped the run (SciPy's `minimize` gives 99 too)
EXIT_MODES = {
    -1: "Gradient evaluation required (g & a)",
    0: "Optimization terminated successfully",
    1: "Function evaluation required (f & c)",
    2: "More equality constraints than independent variables",
    3: "More than 3*n iterations in LSQ subproblem",
    4: "Inequality constraints incompatible",
    5: "Singular matrix E in LSQ subproblem",
    6: "Singular matrix C in LSQ subproblem",
    7: "Rank-deficient equality constraint subproblem HFTI",
    8: "Positive directional derivative for linesearch",
    9: "Iteration limit reached",
    STOPPED: "stopped by the callback",
}
FAST, PUBLIC = "SciPy's private SLSQP routine", 'scipy.optimize.minimize(method="SLSQP")'
CHECK_SOLUTION = np.array([0.25, 0.75, 3.0])  #: the check problem's minimiser (`_check_problem`)
CHECK_CALLS = 1000  #: routine calls after which the check gives up (a changed routine that never ends)

ROUTINE = None  #: the private routine when `select`'s check passed, else None (the public path)
PATH = PUBLIC  #: the path `minimize_slsqp` takes (`FAST` or `PUBLIC`)


@dataclass
class SlsqpResult:
    """The end of a run: the point ``x``, SciPy's exit ``status`` (`EXIT_MODES`), the major
    iterations ``nit`` and the exit ``message``."""

    x: np.ndarray
    status: int
    nit: int
    message: str


def minimize_slsqp(f, g, c_eq, J_eq, c_ineq, J_ineq, x0, lower, upper, maxiter: int, ftol: float, callback=None):
    """Minimise ``f`` from ``x0`` under the rows and bounds (module docstring), on the path `select` chose."""
    args = (f, g, c_eq, J_eq, c_ineq, J_ineq, x0, lower, upper, maxiter, ftol, callback)
    if ROUTINE is None:
        return _public(*args)
    return _driven(ROUTINE, *args)


def _driven(routine, f, g, c_eq, J_eq, c_ineq, J_ineq, x0, lower, upper, maxiter, ftol, callback=None, calls=None):
    """The fast path: ``routine`` (SciPy 1.16+'s C SLSQP) in `_minimize_slsqp`'s loop; ``calls``
    (None: no cap) bounds the routine calls, for the check only."""
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    x = np.clip(np.asarray(x0, float).ravel(), lower, upper)
    n = x.size
    meq = 0 if c_eq is None else np.asarray(c_eq(x)).size
    mieq = 0 if c_ineq is None else np.asarray(c_ineq(x)).size
    m = meq + mieq
    state = {
        "acc": ftol,
        "alpha": 0.0,
        "f0": 0.0,
        "gs": 0.0,
        "h1": 0.0,
        "h2": 0.0,
        "h3": 0.0,
        "h4": 0.0,
        "t": 0.0,
        "t0": 0.0,
        "tol": 10.0 * ftol,
        "exact": 0,
        "inconsistent": 0,
        "reset": 0,
        "iter": 0,
        "itermax": int(maxiter),
        "line": 0,
        "m": m,
        "meq": meq,
        "mode": 0,
        "n": n,
    }
    indices = np.zeros(max(m + 2 * n + 2, 1), dtype=np.int32)
    size = n * (n + 1) // 2 + 3 * m * n - (m + 5 * n + 7) * meq + 9 * m + 8 * n * n + 35 * n + meq * meq + 28
    if mieq == 0:
        size += 2 * n * (n + 1)
    buffer = np.zeros(max(size, 1))
    mult = np.zeros(max(1, m + 2 * n + 2))
    xl = np.where(np.isfinite(lower), lower, np.nan)  # the C routine marks no bound by NaN
    xu = np.where(np.isfinite(upper), upper, np.nan)
    C = np.zeros((max(1, m), n), order="F")
    d = np.zeros(max(1, m))

    def values(x):
        if meq:
            d[:meq] = c_eq(x)
        if mieq:
            d[meq:m] = c_ineq(x)

    def normals(x):
        if meq:
            C[:meq] = J_eq(x)
        if mieq:
            C[meq:m] = J_ineq(x)

    fx, gx = float(f(x)), np.asarray(g(x), float)
    normals(x)
    values(x)
    previous = 0
    count = 0
    while True:
        routine(state, fx, gx, C, d, x, mult, xl, xu, buffer, indices)
        count += 1
        status = int(state["mode"])
        if status == 1:
            fx = float(f(x))
            values(x)
        elif status == -1:
            gx = np.asarray(g(x), float)
            normals(x)
        if state["iter"] > previous and callback is not None and callback(x.copy()):
            status = STOPPED
            break
        if abs(status) != 1:
            break
        if calls is not None and count >= calls:
            raise RuntimeError(f"no exit after {count} routine calls (mode {status})")
        previous = state["iter"]
    return SlsqpResult(x, status, int(state["iter"]), EXIT_MODES.get(status, f"exit mode {status}"))


def _public(f, g, c_eq, J_eq, c_ineq, J_ineq, x0, lower, upper, maxiter, ftol, callback=None):
    """The public path: `scipy.optimize.minimize(method="SLSQP")` with the same criterion,
    gradient, rows, Jacobians, bounds, ``maxiter`` and ``ftol``; the callback's True becomes a
    StopIteration (SciPy's exit status 99, `STOPPED`)."""
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    x0 = np.clip(np.asarray(x0, float).ravel(), lower, upper)
    constraints = [
        {"type": kind, "fun": c, "jac": J}
        for kind, c, J in (("eq", c_eq, J_eq), ("ineq", c_ineq, J_ineq))
        if c is not None
    ]

    def stop(intermediate_result):  # minimize passes an OptimizeResult to a parameter of this name
        if callback(intermediate_result.x.copy()):
            raise StopIteration

    res = minimize(
        f,
        x0,
        jac=g,
        method="SLSQP",
        bounds=Bounds(lower, upper),
        constraints=constraints,
        options={"maxiter": int(maxiter), "ftol": ftol},
        callback=None if callback is None else stop,
    )
    status = int(res.status)
    return SlsqpResult(np.asarray(res.x, float), status, int(res.nit), EXIT_MODES.get(status, str(res.message)))


def _check_problem():
    """`_driven`'s arguments but the routine for the check: min (x0 - 1)^4 + (x1 - 2)^2 + x2^2
    s.t. x0 + x1 = 1, x0 >= 0.25, x2 >= 3 (a bound), x0, x1 unbounded, from (3, -4, 5). On the
    line x0 + x1 = 1 the criterion is (x0 - 1)^4 + (x0 + 1)^2 + x2^2, whose x0-derivative
    4 (x0 - 1)^3 + 2 (x0 + 1) is positive from x0 = 0.25 on (0.8125 there): the inequality and the
    bound are active, the minimiser `CHECK_SOLUTION` (0.25, 0.75, 3). The quartic term makes
    SLSQP iterate (its line search and quasi-Newton updates), not solve one QP."""
    return (
        lambda x: (x[0] - 1.0) ** 4 + (x[1] - 2.0) ** 2 + x[2] ** 2,
        lambda x: np.array([4.0 * (x[0] - 1.0) ** 3, 2.0 * (x[1] - 2.0), 2.0 * x[2]]),
        lambda x: np.array([x[0] + x[1] - 1.0]),
        lambda x: np.array([[1.0, 1.0, 0.0]]),
        lambda x: np.array([x[0] - 0.25]),
        lambda x: np.array([[1.0, 0.0, 0.0]]),
        np.array([3.0, -4.0, 5.0]),
        np.array([-np.inf, -np.inf, 3.0]),
        np.full(3, np.inf),
        50,
        1e-12,
    )


def private_routine():
    """``(routine, reason)``: SciPy's private SLSQP routine and "checked" when it exists and
    `_driven` solves the check problem (`_check_problem`) with it; else None and why not."""
    try:
        from scipy.optimize._slsqplib import slsqp as routine
    except ImportError as e:
        return None, f"no private routine scipy.optimize._slsqplib.slsqp ({e})"
    iterations = []
    try:
        res = _driven(routine, *_check_problem(), callback=lambda x: iterations.append(x) and False, calls=CHECK_CALLS)
    except Exception as e:  # noqa: BLE001 - any change of its signature, state or work arrays
        return None, f"the private routine failed on the check problem: {type(e).__name__}: {e}"
    if res.status != 0 or len(iterations) != res.nit or not np.allclose(res.x, CHECK_SOLUTION, rtol=0.0, atol=1e-8):
        return None, (
            f"the private routine solved the check problem wrong: status {res.status}, {res.nit} iterations, "
            f"{len(iterations)} callbacks, x {np.array2string(res.x, precision=9)}"
        )
    return routine, "checked"


def select() -> str:
    """Check the private routine (`private_routine`), set `ROUTINE` and `PATH` from it, log the
    path once and return it. Run at import."""
    global ROUTINE, PATH
    ROUTINE, reason = private_routine()
    PATH = PUBLIC if ROUTINE is None else FAST
    if ROUTINE is None:
        _log.warning("SLSQP through %s: %s", PUBLIC, reason)
    else:
        _log.info("SLSQP through %s (%s on a problem of known solution)", FAST, reason)
    return PATH


@contextmanager
def public_path():
    """A block in which `minimize_slsqp` takes the public path whatever `select` found (tests, the
    benchmark); not for threads that solve at the same time."""
    global ROUTINE, PATH
    saved = ROUTINE, PATH
    ROUTINE, PATH = None, PUBLIC
    try:
        yield
    finally:
        ROUTINE, PATH = saved


select()
