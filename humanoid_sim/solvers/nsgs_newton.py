"""`nsgs_newton`: exact Coulomb cone, nonsmooth block Gauss–Seidel with per-contact
separate / stick / slide classification and the Alart–Curnier Newton local solver on sliding
contacts (spec ../shared/spec/000_chardonnet.md §2.8, Algorithms 1–2, eqs 3.28–3.34;
ρ_n = 1/W_nn, ρ_t = λmin(W_tt)/λmax(W_tt)², eq. 3.30). Warm start, relative-change stopping
(3.34) AND true-residual thresholds, iteration and time budgets. Hot loops in numba
(`_gs.py`). The project's default solver (see docs/solvers.md).

Acceleration (ours, docs/solvers.md §4): after sweeps 1, 2, 4 and every 8th, a verified
active-set step (`_gs.stick_step`) solves the sticking block of the contact set directly
(minimum-norm correction of the iterate, pivoted Cholesky of the singular hyperstatic block)
and keeps it only when it lowers the natural-map residual; convergence is still decided by
the same relative-change and true-residual tests. `get_solver("nsgs_newton",
active_set=False)` gives the plain thesis iteration (for comparisons)."""
from ._gs import MODE_NEWTON, newton_local, run_gs  # noqa: F401
from .base import register


@register("nsgs_newton")
class NSGSNewton:
    def __init__(self, active_set: bool = True):
        self.active_set = bool(active_set)

    def solve(self, problem, warm_start=None, settings=None):
        return run_gs(MODE_NEWTON, self.name, problem, warm_start, settings, accel=self.active_set)
