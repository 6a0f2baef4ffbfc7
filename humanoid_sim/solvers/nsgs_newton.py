"""`nsgs_newton`: exact Coulomb cone, nonsmooth block Gauss–Seidel with per-contact
separate / stick / slide classification and the Alart–Curnier Newton local solver on sliding
contacts (spec ../shared/spec/000_chardonnet.md §2.8, Algorithms 1–2, eqs 3.28–3.34;
ρ_n = 1/W_nn, ρ_t = λmin(W_tt)/λmax(W_tt)², eq. 3.30). Warm start, relative-change stopping
(3.34) AND true-residual thresholds, iteration and time budgets. Hot loops in numba
(`_gs.py`). The project's default solver (see docs/solvers.md)."""
from ._gs import MODE_NEWTON, newton_local, run_gs  # noqa: F401
from .base import register


@register("nsgs_newton")
class NSGSNewton:
    def solve(self, problem, warm_start=None, settings=None):
        return run_gs(MODE_NEWTON, self.name, problem, warm_start, settings)
