"""Contact solvers, one module each, behind one interface (`ContactSolver`: W, v_free, mu, warm
start -> impulses, iterations, residuals); see `base.py` and docs/solvers.md.

    from humanoid_sim.solvers import ContactProblem, get_solver
    result = get_solver("nsgs_newton").solve(ContactProblem(W, v_free, mu), warm_start=f_prev)

The registry: `SOLVERS` maps each name to its class, filled here (and only here) from the
solver modules, which never import this package. Adding a solver = one module with a
`ContactSolver` subclass (class attribute `name`) + one line in `SOLVERS` below.

Package layout (no import cycle: the kernels are leaves, no module imports this file):
  base.py          the interface: ContactProblem, SolverSettings, SolverResult, ContactSolver, residuals
  _residuals.py    numba: cone projection, true residuals, natural map (leaf)
  _local.py        numba: per-contact local rules, Alart–Curnier Newton
  _active_set.py   numba: verified active-set steps of nsgs_newton
  _gs.py           the Gauss–Seidel sweep driver (numba), its Python wrappers run_gs and
                   run_gs_trusted, and GaussSeidelSolver (the family's ContactSolver)
  _lemke.py        numba: Lemke's pivoting; LCP helpers
  nsgs_newton.py, nsgs.py, projection.py, lemke_lcp.py, impact_lcp.py, pinocchio_peers.py: the solvers
"""

from humanoid_model.exceptions import SolverError
from humanoid_model.validation import message

from .base import ContactProblem, ContactSolver, SolverResult, SolverSettings, residuals
from .impact_lcp import ImpactLCP
from .lemke_lcp import LemkeLCP
from .nsgs import NSGS
from .nsgs_newton import NSGSNewton
from .pinocchio_peers import PinocchioADMM, PinocchioPGS
from .projection import Projection

__all__ = [
    "ContactProblem",
    "ContactSolver",
    "SolverResult",
    "SolverSettings",
    "residuals",
    "SOLVERS",
    "DEFAULT_SOLVER",
    "get_solver",
]

SOLVERS: dict[str, type[ContactSolver]] = {
    "nsgs_newton": NSGSNewton,
    "nsgs": NSGS,
    "projection": Projection,
    "lemke_lcp": LemkeLCP,
    "impact_lcp": ImpactLCP,
    "pinocchio_admm": PinocchioADMM,
    "pinocchio_pgs": PinocchioPGS,
}
"""Registry: solver name -> `ContactSolver` class (each class's `name` is its key)."""

DEFAULT_SOLVER = "nsgs_newton"
"""The project's default solver (docs/solvers.md §4)."""


def get_solver(name: str, **kw) -> ContactSolver:
    """A new solver instance by registry name (`SOLVERS`): nsgs_newton (default), nsgs,
    projection, lemke_lcp, impact_lcp, pinocchio_admm, pinocchio_pgs. Keyword arguments go to
    the class (e.g. ``get_solver("nsgs_newton", active_set=False)``). An unknown name raises
    `SolverError` listing the known ones."""
    cls = SOLVERS.get(name)
    if cls is None:
        raise SolverError(message("solver", "solver", f"one of {sorted(SOLVERS)}", name))
    return cls(**kw)
