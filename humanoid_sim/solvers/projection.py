"""`projection`: De Saxcé–Feng bipotential projection in block Gauss–Seidel sweeps (the PROJECTION
method of SICONOS Numerics in Table 5.1, Chardonnet 2009, §5.3): f_c ← P_K(f_c − ρ_c (v_c + μ‖v_t,c‖
e_n)), ρ_c = 1/λmax(W_cc) (our choice: 1/W_nn diverged on hyperstatic sole problems with W_tt >
W_nn), P_K the exact projection on the second-order cone. Its fixed points are exactly the Coulomb
solutions, but it converges only linearly."""

from ._gs import run_gs
from ._local import MODE_PROJ
from .base import ContactSolver


class Projection(ContactSolver):
    """De Saxcé–Feng projection sweeps (module docstring); `solve` as in `ContactSolver.solve`."""

    name = "projection"

    def solve(self, problem, warm_start=None, settings=None):
        """See `ContactSolver.solve` (forces [N] for W = dt Λ)."""
        return run_gs(MODE_PROJ, self.name, problem, warm_start, settings)
