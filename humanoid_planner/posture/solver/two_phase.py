"""The posture generator's solver: an explicit phase 1, then the full solve with SciPy SLSQP
(FSQP's two phases, Escande 2008, §3.2.1, with SciPy's SLSQP in place of FSQP).

Phase 1 (as FSQP's, Escande 2008, §3.2.1; SLSQP has none of its own): if some inequality is
violated at the start, solve min t over (x, t) s.t. c_i(x) <= t for the inequality rows and the joint bounds, with
t >= -``phase1_slack``; the problem's equalities are ignored. t* > ``tolerance`` means the
inequalities cannot be met from here: the call stops with INFEASIBLE_INEQUALITIES, the cheap
failure the thesis builds its pre-contacts on (§3.2.1, §6.1.3). Phase 2 starts from phase 1's point: min
criterion s.t. equalities = 0, inequalities <= 0, joint bounds, by SLSQP with the analytic
Jacobians. The outcome codes and the SLSQP mapping are in `outcome`.

Why SLSQP and not IPOPT (casadi): measured on one HRP-2 problem by
`benchmarks/posture_solvers.py` (docs/posture_generator.md has the numbers): the problem is small and
dense (36 variables, ~30 rows), so an interior-point method's sparse linear algebra buys
nothing, and the per-iteration callbacks through casadi cost more than SLSQP's dense QP.

**Rank-deficient equalities.** SLSQP's least-squares subproblem needs independent equality rows;
consistent but dependent ones stop it at once with "Singular matrix C in LSQ subproblem" (exit
mode 6). A sitting stance makes them: the thigh and the sole of one leg in strong contact fix
both ends of a chain whose three joints between them (knee, two ankle joints) cannot move the
foot in six directions, so 3 of its 12 rows are dependent. Round-off often hides it: the same
stance with the robot moved by a millimetre gives SLSQP a tiny pivot instead of a zero one, and
it answers with strides of radians (the shoulders flung to their limits) or no progress. So the
rank is tested before phase 2 (QR with column pivoting of the equality rows' Jacobian at its
start; pivots under ``RANK_TOLERANCE`` 1e-9 of the largest count as dependent, chosen: on the
sitting stance the pivots fall from 1.5e-2 to 1e-16, nothing in between), and phase 2 runs with
a linearly independent subset of the equality rows and without the others when the rank is short
there, or again from the same start with that subset when SLSQP reports the singular matrix
later. The result is still judged on every row. The left-out rows are implied by
the others to first order only: where the rank changes nearby (a sitting stance: 7 of 24 rows
dependent at the start), the solution leaves them off by up to 4e-4; when that is at most
``SUBSET_DRIFT`` 1e-2 (chosen, as the planner's polish) the point is projected on every row
(`newton_projection.NewtonProjector`: minimum-norm Newton steps, indifferent to dependent rows), else the
call ends with EQUALITIES_NOT_SATISFIED. (Keeping the left-out rows as tolerance bands instead makes
SLSQP's steps diverge, the base 490 m away on a sitting posture.)

**Band rows** (`base.BAND`, the contact planner's fast-fail bands |c| <= band around its
equality rows): phase 1 needs them (it sees inequalities only); phase 2 leaves them out. There
they are implied: the QP's linearised equalities c + J dx = 0 meet every linearised band row, so
the rows would only make SLSQP's least-squares subproblem larger (2 x 6 band rows per strong contact,
~a quarter of a stairs call's rows). The run again with an independent equality subset keeps them:
there they bound the left-out rows.

Numbers chosen here (the thesis gives no value of FSQP's tolerance eps_v, Escande 2008, §3.2.1):
``tolerance`` 1e-6 (m for positions, - for unit-vector products, about 1e-6 rad): the largest
violation accepted as satisfied, 100x below the 1e-4 rad alignment the strong-contact test asks
(acceptance test 001 A9). ``max_iterations`` 100: the smallest of the thesis's planning logs
(100, 150, 200; Escande 2008, §7.5.2). ``phase1_slack`` 1e-3: phase 1
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
import pinocchio as pin
from scipy.linalg import qr

from ..problem import PostureProblem
from .blas_threads import single_threaded
from .call_log import CallLog, notify
from .newton_projection import NewtonProjectionSettings, NewtonProjector
from .outcome import Outcome, PostureResult, from_slsqp
from .slsqp import minimize_slsqp

__all__ = ["PostureSolverSettings", "solve"]

SINGULAR_EQUALITIES = 6  #: SLSQP's exit mode "Singular matrix C in LSQ subproblem" (module docstring)
RANK_TOLERANCE = 1e-9  #: relative pivot below which an equality row counts as dependent (module docstring)
SUBSET_DRIFT = 1e-2  #: largest violation of the left-out rows that a projection repairs (module docstring)


@dataclass
class PostureSolverSettings:
    """Settings of a posture-generator call (defaults and reasons in the module docstring)."""

    tolerance: float = 1e-6
    max_iterations: int = 100
    phase1_iterations: int = 50
    phase1_slack: float = 1e-3
    ftol: float = 1e-10  #: SLSQP's acc: stop when the criterion changes by less (and constraints hold)
    stall_iterations: int = 10
    stall_ratio: float = 1e-3


def _phase1(problem: PostureProblem, x0, s: PostureSolverSettings):
    """``(x, t, iterations)``: the min-max of the inequality rows from ``x0``."""
    ineq = ~problem.equality
    n = problem.nx
    t0 = float(np.max(problem.at(x0).c[ineq]))

    def cons(z):
        return z[n] - problem.at(z[:n]).c[ineq]

    def cons_jac(z):
        J = -problem.at(z[:n]).J[ineq]
        return np.hstack([J, np.ones((J.shape[0], 1))])

    grad = np.eye(1, n + 1, n)[0]
    res = minimize_slsqp(
        lambda z: z[n],
        lambda z: grad,
        None,
        None,
        cons,
        cons_jac,
        np.append(x0, t0),
        np.append(problem.lower, -s.phase1_slack),
        np.append(problem.upper, np.inf),
        s.phase1_iterations,
        s.ftol,
    )
    x = res.x[:n]
    return x, float(np.max(problem.at(x).c[ineq])), int(res.nit)


class _Stall:
    """SLSQP callback: stop (return True) when the largest violation is above the tolerance and
    has not decreased by more than ``stall_ratio`` (relative) over ``stall_iterations`` iterations."""

    def __init__(self, problem: PostureProblem, s: PostureSolverSettings):
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
        return self.stopped


def solve(
    problem: PostureProblem,
    settings: PostureSolverSettings | None = None,
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


def _solve(problem: PostureProblem, settings: PostureSolverSettings | None, x0) -> PostureResult:
    s = settings or PostureSolverSettings()
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

    keep = _independent(problem, x, eq) if eq.any() else eq
    if keep.sum() < eq.sum():
        it2, message, subset = 0, "dependent at the start", True
    else:
        res, stall = _phase2(problem, x, s, _constraints(problem, eq, ineq & ~problem.band))  # "Band rows"
        it2, message = int(res.nit), str(res.message)
        subset = res.status == SINGULAR_EQUALITIES and eq.any() and not stall.stopped
    if subset:
        # dependent equality rows (module docstring, "Rank-deficient equalities"): from the start
        # with an independent subset as equalities, the band rows kept
        res, stall = _phase2(problem, x, s, _constraints(problem, keep, ineq))
        it2 += int(res.nit)
        message = f"{int(eq.sum() - keep.sum())} dependent equality rows left out ({message}): {res.message}"
        v = float(np.max(problem.violations(problem.at(res.x).c), initial=0.0))
        if res.status == 0 and not stall.stopped and not problem.extra_slices and s.tolerance < v <= SUBSET_DRIFT:
            pr = NewtonProjector(
                problem.model, problem.constraints, NewtonProjectionSettings(tolerance=s.tolerance)
            )._run(problem.at(res.x).q)
            it2 += pr.iterations
            message += f"; the left-out rows off by {v:.2g}, projected: {pr.outcome.name}"
            if pr.feasible:
                res.x = np.concatenate([pin.difference(problem.model, problem.q0, pr.q), res.x[problem.model.nv :]])
    if stall.stopped:
        return result(Outcome.NO_PROGRESS, res.x, len(stall.history), stall.message)
    out = result(Outcome.SUCCESS, res.x, it2, message)
    out.outcome = from_slsqp(int(res.status), out.feasible)
    return out


def _independent(problem: PostureProblem, x, eq) -> np.ndarray:
    """The mask (rows,) of a linearly independent subset of the equality rows ``eq`` at ``x``, by a
    QR factorisation with column pivoting of their Jacobian's transpose (rank: diagonal entries
    above `RANK_TOLERANCE` of the largest)."""
    rows = np.flatnonzero(eq)
    _, R, piv = qr(problem.at(x).J[eq].T, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    rank = int(np.sum(d > RANK_TOLERANCE * d[0])) if d.size and d[0] > 0 else 0
    keep = np.zeros_like(eq)
    keep[rows[piv[:rank]]] = True
    return keep


def _constraints(problem: PostureProblem, eq, ineq) -> tuple:
    """`minimize_slsqp`'s rows: ``(c_eq, J_eq, c_ineq, J_ineq)``, the rows ``eq`` as equalities, the
    rows ``ineq`` as inequalities (SLSQP wants them >= 0); None where there are none."""
    equalities = (lambda x: problem.at(x).c[eq], lambda x: problem.at(x).J[eq]) if eq.any() else (None, None)
    inequalities = (lambda x: -problem.at(x).c[ineq], lambda x: -problem.at(x).J[ineq]) if ineq.any() else (None, None)
    return equalities + inequalities


def _phase2(problem: PostureProblem, x, s: PostureSolverSettings, constraints):
    """SLSQP on the criterion from ``x``: ``(`SlsqpResult`, the stall callback)``."""
    stall = _Stall(problem, s)
    res = minimize_slsqp(
        lambda x: problem.at(x).f,
        lambda x: problem.at(x).g,
        *constraints,
        x,
        problem.lower,
        problem.upper,
        s.max_iterations,
        s.ftol,
        stall,
    )
    return res, stall
