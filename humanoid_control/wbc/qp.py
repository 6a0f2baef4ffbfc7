"""The whole-body QP's solver: a dense convex QP

    minimise ½ xᵀ H x + gᵀ x   subject to   A x = b,   l ≤ C x ≤ u,   l_box ≤ x ≤ u_box

solved by ProxQP (proxsuite's dense backend: Bambade et al., "PROX-QP: Yet another Quadratic
Programming Solver for Robotics and beyond", RSS 2022), warm-started from the previous cycle's
primal and dual solution while the problem's sizes stay the same (the active contacts change
them: a new solver object is then built once and kept for the next time those sizes come back).
A solve ends on the primal and dual residuals and the duality gap (residuals alone can stop short
of the minimum), and a problem is declared infeasible only on far tighter thresholds than ProxQP's
defaults (its 1e-4 calls feasible whole-body problems infeasible); a warm-started solve that
fails is tried again from scratch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import proxsuite

__all__ = ["QPSolver", "QPResult", "EPS_ABS", "MAX_ITER"]

EPS_ABS = 1e-6  # (chosen) absolute primal and dual residual: 1e-6 N and m/s² on problems of ~1e3 N
MAX_ITER = 1000  # (chosen) ProxQP iterations; a warm-started cycle takes a few, a cold one tens
INFEASIBLE = 1e-9  # (chosen) ProxQP's infeasibility thresholds: far below the problem's scale (1e3 N)


@dataclass
class QPResult:
    """x, the solver's status (``solved``), iterations and solve time [s]."""

    x: np.ndarray
    solved: bool
    status: str
    iterations: int
    primal_residual: float


class QPSolver:
    """ProxQP dense solvers, one per (n, n_eq, n_in), each warm-started from its last solution."""

    def __init__(self, eps_abs: float = EPS_ABS, max_iter: int = MAX_ITER):
        self.eps_abs, self.max_iter = float(eps_abs), int(max_iter)
        self._solvers: dict[tuple[int, int, int], proxsuite.proxqp.dense.QP] = {}

    def solve(self, H, g, A, b, C, lo, up, box_lo, box_up) -> QPResult:
        key = (H.shape[0], A.shape[0], C.shape[0])
        qp = self._solvers.get(key)
        warm = qp is not None
        if qp is None:
            qp = self._solvers[key] = self._new(key)
            qp.init(H, g, A, b, C, lo, up, box_lo, box_up)
        else:
            qp.update(H, g, A, b, C, lo, up, box_lo, box_up)
        qp.solve()
        if warm and qp.results.info.status != proxsuite.proxqp.QPSolverOutput.PROXQP_SOLVED:
            # a warm start far from this cycle's solution can stall or look infeasible on an
            # ill-conditioned problem (a task asking far too much): solve it again from scratch
            qp = self._solvers[key] = self._new(key)
            qp.init(H, g, A, b, C, lo, up, box_lo, box_up)
            qp.solve()
        info = qp.results.info
        status = info.status
        solved = status == proxsuite.proxqp.QPSolverOutput.PROXQP_SOLVED
        return QPResult(qp.results.x.copy(), bool(solved), status.name, int(info.iter), float(info.pri_res))

    def _new(self, key):
        qp = proxsuite.proxqp.dense.QP(*key, box_constraints=True)
        qp.settings.eps_abs = self.eps_abs
        qp.settings.eps_rel = 0.0
        qp.settings.max_iter = self.max_iter
        qp.settings.initial_guess = proxsuite.proxqp.InitialGuess.WARM_START_WITH_PREVIOUS_RESULT
        qp.settings.check_duality_gap = True  # small residuals alone can stop short of the minimum
        qp.settings.eps_duality_gap_abs = self.eps_abs
        qp.settings.eps_duality_gap_rel = 0.0
        qp.settings.eps_primal_inf = INFEASIBLE  # the default 1e-4 calls feasible problems infeasible
        qp.settings.eps_dual_inf = INFEASIBLE
        return qp

    def reset(self) -> None:
        """Forget the warm starts (a new motion, or after a failed solve)."""
        self._solvers.clear()
