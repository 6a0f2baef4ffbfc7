"""The posture generator's solver: an explicit phase 1, then the full solve with SciPy SLSQP
(001_escande.md:80-89; the SciPy mapping at :89).

Phase 1 (001_escande.md:82, thesis L711-720): if some inequality is violated at the start,
solve min t over (x, t) s.t. c_i(x) <= t for the inequality rows and the joint bounds, with
t >= -``phase1_slack``; the problem's equalities are ignored. t* > ``tolerance`` means the
inequalities cannot be met from here: the call stops with INFEASIBLE_INEQUALITIES, the cheap
failure the thesis builds its pre-contacts on (:85). Phase 2 starts from phase 1's point: min
criterion s.t. equalities = 0, inequalities <= 0, joint bounds, by SLSQP with the analytic
Jacobians. The outcome codes and the SLSQP mapping are in `outcome`.

Why SLSQP and not IPOPT (casadi): measured on one HRP-2 problem by
`benchmarks/posture_solvers.py` (docs/planner.md has the numbers): the problem is small and
dense (36 variables, ~30 rows), so an interior-point method's sparse linear algebra buys
nothing, and the per-iteration callbacks through casadi cost more than SLSQP's dense QP.

Numbers chosen here (no thesis value exists; FSQP's eps_v is "not given", :83):
``tolerance`` 1e-6 (m for positions, - for unit-vector products, about 1e-6 rad): the largest
violation accepted as satisfied, 100x below A9's 1e-4 rad alignment. ``max_iterations`` 100:
the smallest of the thesis's planning logs (100, 150, 200; :87). ``phase1_slack`` 1e-3: phase 1
stops once every inequality holds with 1 mm (or 1e-3) to spare instead of driving on.
``stall_iterations`` 10 and ``stall_ratio`` 1e-3: phase 2 stops with NO_PROGRESS when the
largest violation, still above the tolerance, has not decreased by 0.1 % in 10 iterations (on
the 3 m hand target SLSQP sits at 2.2049 m from iteration ~20 to its line-search failure at 85;
Table 7.1's code 8 is "iterates numerically equal": ours is the same stall seen on the
violation).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from .blas_threads import single_threaded
from .call_log import CallLog, notify
from .outcome import Outcome, PostureResult, from_slsqp
from .problem import PostureProblem

__all__ = ["SolverSettings", "solve"]


@dataclass
class SolverSettings:
    """Settings of a posture-generator call (defaults and reasons in the module docstring)."""

    tolerance: float = 1e-6
    max_iterations: int = 100
    phase1_iterations: int = 50
    phase1_slack: float = 1e-3
    ftol: float = 1e-10  #: SLSQP's acc: stop when the criterion changes by less (and constraints hold)
    stall_iterations: int = 10
    stall_ratio: float = 1e-3


def _phase1(problem: PostureProblem, x0, s: SolverSettings):
    """``(x, t, iterations)``: the min-max of the inequality rows from ``x0``."""
    ineq = ~problem.equality
    n = problem.nx
    t0 = float(np.max(problem.at(x0).c[ineq]))

    def cons(z):
        return z[n] - problem.at(z[:n]).c[ineq]

    def cons_jac(z):
        J = -problem.at(z[:n]).J[ineq]
        return np.hstack([J, np.ones((J.shape[0], 1))])

    res = minimize(
        lambda z: z[n],
        np.append(x0, t0),
        jac=lambda z: np.eye(1, n + 1, n)[0],
        method="SLSQP",
        bounds=problem.bounds() + [(-s.phase1_slack, None)],
        constraints=[{"type": "ineq", "fun": cons, "jac": cons_jac}],
        options={"maxiter": s.phase1_iterations, "ftol": s.ftol},
    )
    x = res.x[:n]
    return x, float(np.max(problem.at(x).c[ineq])), int(res.nit)


class _Stall:
    """SLSQP callback: stop (StopIteration) when the largest violation is above the tolerance and
    has not decreased by more than ``stall_ratio`` (relative) over ``stall_iterations`` iterations."""

    def __init__(self, problem: PostureProblem, s: SolverSettings):
        self.problem, self.s = problem, s
        self.history: list[float] = []
        self.stopped = False
        self.message = ""

    def __call__(self, x):
        v = float(np.max(self.problem.violations(self.problem.at(x).c), initial=0.0))
        self.history.append(v)
        k = self.s.stall_iterations
        if v > self.s.tolerance and len(self.history) > k and v > (1.0 - self.s.stall_ratio) * self.history[-1 - k]:
            self.stopped = True
            self.message = f"no progress: max violation {v:.3g}, {self.history[-1 - k]:.3g} {k} iterations before"
            raise StopIteration


def solve(
    problem: PostureProblem,
    settings: SolverSettings | None = None,
    x0=None,
    log: CallLog | None = None,
    label: str = "",
) -> PostureResult:
    """Run phase 1 and phase 2 from ``x0`` (default `PostureProblem.start`: increment 0, i.e.
    ``problem.q0``, the warm start, and the extended variables' starts; an increment (nv,) keeps
    those), OpenBLAS single-threaded (`blas_threads`). Never raises for an unsatisfiable
    request: the outcome says why it failed. The call is recorded (`call_log`) into ``log`` and
    every active `call_log.recording` log, under ``label``."""
    cpu = time.process_time()
    with single_threaded():
        out = _solve(problem, settings, x0)
    out.cpu_time = time.process_time() - cpu
    notify(out, label, log)
    return out


def _solve(problem: PostureProblem, settings: SolverSettings | None, x0) -> PostureResult:
    s = settings or SolverSettings()
    start = time.perf_counter()
    x = problem.start()
    if x0 is not None:
        x0 = np.asarray(x0, float)
        x[: len(x0)] = x0  # an increment (nv,) keeps the z starts; (nx,) sets everything
    x = np.clip(x, problem.lower, problem.upper)
    ineq, eq = ~problem.equality, problem.equality
    it1 = 0

    def result(outcome, x, it2, message):
        ev = problem.at(x)
        viol = problem.violations(ev.c)
        worst = float(viol.max()) if viol.size else 0.0
        return PostureResult(
            outcome,
            ev.q.copy(),
            worst,
            worst <= s.tolerance,
            ev.f,
            it1,
            it2,
            time.perf_counter() - start,
            message,
            problem.by_constraint(ev.c),
            problem.extra(x),
        )

    if ineq.any() and np.max(problem.at(x).c[ineq]) > s.tolerance:
        x, t, it1 = _phase1(problem, x, s)
        if t > s.tolerance:
            return result(Outcome.INFEASIBLE_INEQUALITIES, x, 0, f"phase 1: max inequality {t:.3g} > {s.tolerance:g}")

    constraints = []
    if eq.any():
        constraints.append({"type": "eq", "fun": lambda x: problem.at(x).c[eq], "jac": lambda x: problem.at(x).J[eq]})
    if ineq.any():
        constraints.append(
            {"type": "ineq", "fun": lambda x: -problem.at(x).c[ineq], "jac": lambda x: -problem.at(x).J[ineq]}
        )
    stall = _Stall(problem, s)
    res = minimize(
        lambda x: problem.at(x).f,
        x,
        jac=lambda x: problem.at(x).g,
        method="SLSQP",
        bounds=problem.bounds(),
        constraints=constraints,
        options={"maxiter": s.max_iterations, "ftol": s.ftol},
        callback=stall,
    )
    if stall.stopped:
        return result(Outcome.NO_PROGRESS, res.x, len(stall.history), stall.message)
    out = result(Outcome.SUCCESS, res.x, int(res.nit), str(res.message))
    out.outcome = from_slsqp(int(res.status), out.feasible)
    return out
