"""`nsgs_newton`: exact Coulomb cone, nonsmooth block Gauss–Seidel with per-contact
separate / stick / slide classification and the Alart–Curnier Newton local solver on sliding
contacts (Chardonnet 2009, §3.1.4.2, Algorithms 1–2, eqs. (3.28)–(3.34);
ρ_n = 1/W_nn, ρ_t = λmin(W_tt)/λmax(W_tt)², eq. (3.30)). Warm start, relative-change stopping
(3.34) AND true-residual thresholds, iteration and time budgets. Hot loops in numba
(`_gs.py`, `_local.py`). The project's default solver (see docs/solvers.md).

Acceleration (ours, docs/solvers.md §4): after sweeps 1 and 2, after a sweep that follows an
accepted step, else every 4th sweep, a verified active-set step (`_active_set.stick_step`: the
sticking block of the contact set solved directly, minimum-norm correction by pivoted Cholesky
of the singular hyperstatic block; `_active_set.newton_step`: one global semismooth Newton step
when contacts slide) is kept only when it lowers the natural-map residual; convergence is still
decided by the same relative-change and true-residual tests. `get_solver("nsgs_newton",
active_set=False)` gives the plain thesis iteration (for comparisons)."""

from ._gs import GaussSeidelSolver
from ._local import MODE_NEWTON


class NSGSNewton(GaussSeidelSolver):
    """Nonsmooth block Gauss–Seidel with the Alart–Curnier local solver (module docstring).

    active_set: try the verified active-set steps (default); False gives the plain thesis
    iteration. A result's `extra` has `newton_iterations` (local Newton iterations, all sweeps)
    and `stick_steps` (accepted active-set steps)."""

    name = "nsgs_newton"
    mode = MODE_NEWTON

    def __init__(self, active_set: bool = True):
        self.active_set = bool(active_set)

    @property
    def accel(self) -> bool:
        """The verified active-set steps (`GaussSeidelSolver`): ``active_set``."""
        return self.active_set
