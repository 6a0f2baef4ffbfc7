"""The whole-body QP's solver: a dense strictly convex QP

    minimise ½ xᵀ H x + gᵀ x   subject to   A x = b,   l ≤ C x ≤ u,   l_box ≤ x ≤ u_box

solved by DAQP (Arnström, Bemporad and Axehill, "A dual active-set solver for embedded quadratic
programming using recursive LDLᵀ updates", IEEE TAC 2022): a dual active-set method, so the
answer is the problem's minimiser to round-off (H is positive definite: the controller's
regularisations), not a point within a residual tolerance. Each cycle starts from the active set
of the last cycle that had the same sizes (the active contacts change them; one active set is
kept per size): a controller's problems change little from one millisecond to the next, so a
cycle usually ends after one iteration. A hot-started solve that fails is tried again from an
empty active set.

Rows with a bound of ±`INFINITY` or beyond have no bound on that side.
"""

from __future__ import annotations

from dataclasses import dataclass

import daqp
import numpy as np

from humanoid_control.wbc.contact import INFINITY

__all__ = ["QPSolver", "QPResult"]

_DAQP_INF = 1e30  # DAQP's own infinity: a bound at or beyond it is absent (DAQP_INF in its C API)
# DAQP's sense flags: 1 active (at its upper bound), 2 at its lower bound, 4 immutable; an
# equality is 5, a hot start's row active at its lower bound 3
_EQUALITY = 5
_ACTIVE_UPPER, _ACTIVE_LOWER = 1, 3
STATUS = {  # DAQP's exit flags (its C API's EXIT_*)
    1: "optimal",
    2: "soft_optimal",
    -1: "infeasible",
    -2: "cycling",
    -3: "unbounded",
    -4: "iteration_limit",
    -5: "nonconvex",
    -6: "overdetermined_initial",
}


@dataclass
class QPResult:
    """x, whether it is the minimiser (``solved``), the solver's status and its iterations
    (active-set changes)."""

    x: np.ndarray
    solved: bool
    status: str
    iterations: int


class QPSolver:
    """DAQP, hot-started from the last active set of each problem size (module docstring)."""

    def __init__(self):
        self._active: dict[tuple[int, int, int], np.ndarray] = {}

    def solve(self, H, g, A, b, C, lo, up, box_lo, box_up) -> QPResult:
        n, ne, ni = H.shape[0], A.shape[0], C.shape[0]
        key = (n, ne, ni)
        rows = np.empty((ne + ni, n))
        rows[:ne] = A
        rows[ne:] = C
        upper = np.concatenate((box_up, b, up))
        lower = np.concatenate((box_lo, b, lo))
        upper[upper >= INFINITY] = _DAQP_INF
        lower[lower <= -INFINITY] = -_DAQP_INF
        cold = np.zeros(n + ne + ni, np.int32)
        cold[n : n + ne] = _EQUALITY
        last = self._active.get(key)
        x, _, flag, info = daqp.solve(H, g, rows, upper, lower, cold if last is None else last | cold)
        iterations = int(info["iterations"])
        if flag != 1 and last is not None:
            x, _, flag, info = daqp.solve(H, g, rows, upper, lower, cold)
            iterations += int(info["iterations"])
        x = np.asarray(x, float)
        if flag == 1:
            lam = np.asarray(info["lam"])  # > 0 at an upper bound, < 0 at a lower one
            active = np.zeros(n + ne + ni, np.int32)
            active[lam > 0.0] = _ACTIVE_UPPER
            active[lam < 0.0] = _ACTIVE_LOWER
            active[n : n + ne] = 0
            self._active[key] = active
        else:
            self._active.pop(key, None)
        return QPResult(x, flag == 1, STATUS.get(flag, f"flag {flag}"), iterations)

    def reset(self) -> None:
        """Forget the hot starts (a new motion, or after a failed solve)."""
        self._active.clear()
