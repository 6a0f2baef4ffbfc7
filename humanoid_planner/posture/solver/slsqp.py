"""SLSQP without `scipy.optimize.minimize`'s per-call and per-evaluation wrapping: the same
compiled routine (SciPy's ``_slsqplib.slsqp``, Kraft's algorithm; SciPy 1.16+ and the project's
pin, requirements.txt), driven by the loop `scipy.optimize._slsqp_py._minimize_slsqp` runs, with
the problem's functions called directly.

Why: in the contact planner's posture-generator calls, `minimize`'s machinery (its checks of the
arguments, ``ScalarFunction``'s caching, the constraint dicts' ``atleast_1d`` copies, an
``OptimizeResult`` per iterate for the callback) cost about as much Python time as the problem's
own evaluations (docs/posture_generator.md "Speed"). The iterates are the same bit for bit:
the routine, its state, its work sizes and its start evaluations are SciPy's, and
``test_slsqp.py`` compares every iterate with `minimize` on a posture problem.

`minimize_slsqp(f, g, c_eq, J_eq, c_ineq, J_ineq, x0, lower, upper, maxiter, ftol, callback)`:
``f(x)`` the criterion, ``g(x)`` its gradient; ``c_eq``/``c_ineq`` the equality (= 0) and
inequality (>= 0, SciPy's sign) rows and ``J_eq``/``J_ineq`` their Jacobians (None: no such rows);
``lower``/``upper`` (n,) with infinities where unbounded; ``callback(x)`` after each major
iteration, True to stop (exit status `STOPPED`). Returns an `SlsqpResult` (x, status, nit,
message), with SciPy's exit modes and messages.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

try:  # SciPy >= 1.16: the C routine with a state dict (the loop below is that version's)
    from scipy.optimize._slsqplib import slsqp as _slsqp
except ImportError as e:  # pragma: no cover - the project pins scipy (requirements.txt)
    raise ImportError(f"humanoid_planner.posture.solver.slsqp needs SciPy >= 1.16 (its C SLSQP routine): {e}") from e

__all__ = ["EXIT_MODES", "STOPPED", "SlsqpResult", "minimize_slsqp"]

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


@dataclass
class SlsqpResult:
    """The end of a run: the point ``x``, SciPy's exit ``status`` (`EXIT_MODES`), the major
    iterations ``nit`` and the exit ``message``."""

    x: np.ndarray
    status: int
    nit: int
    message: str


def minimize_slsqp(f, g, c_eq, J_eq, c_ineq, J_ineq, x0, lower, upper, maxiter: int, ftol: float, callback=None):
    """Minimise ``f`` from ``x0`` under the rows and bounds (module docstring)."""
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
    while True:
        _slsqp(state, fx, gx, C, d, x, mult, xl, xu, buffer, indices)
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
        previous = state["iter"]
    return SlsqpResult(x, status, int(state["iter"]), EXIT_MODES.get(status, f"exit mode {status}"))
