"""Contact solvers, one module each, sharing one interface (W, v_free, mu, warm start ->
impulses, iterations, residuals); see `base.py` and docs/solvers.md.

    from humanoid_sim.solvers import ContactProblem, get_solver
    result = get_solver("nsgs_newton").solve(ContactProblem(W, v_free, mu), warm_start=f_prev)
"""
from .base import SOLVERS, ContactProblem, SolverResult, SolverSettings, get_solver, residuals  # noqa: F401
from . import nsgs_newton, nsgs, projection, lemke_lcp, impact_lcp, pinocchio_peers  # noqa: F401,E402

DEFAULT_SOLVER = "nsgs_newton"
