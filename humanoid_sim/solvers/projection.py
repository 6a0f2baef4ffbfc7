"""`projection`: De Saxcé–Feng bipotential projection in block Gauss–Seidel sweeps (the PROJECTION
method of SICONOS Numerics in Table 5.1, Chardonnet 2009, §5.3): f_c ← P_K(f_c − ρ_c (v_c + μ‖v_t,c‖
e_n)), ρ_c = 1/λmax(W_cc) (our choice: 1/W_nn diverged on hyperstatic sole problems with W_tt >
W_nn), P_K the exact projection on the second-order cone. Its fixed points are exactly the Coulomb
solutions, but it converges only linearly."""

from ._gs import GaussSeidelSolver
from ._local import MODE_PROJ


class Projection(GaussSeidelSolver):
    """De Saxcé–Feng projection sweeps (module docstring); `solve` as in `ContactSolver.solve`."""

    name = "projection"
    mode = MODE_PROJ
