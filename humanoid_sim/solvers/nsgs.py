"""`nsgs`: plain projected block Gauss–Seidel (the AMELIFGS analogue of Table 5.1,
Chardonnet 2009, §5.3): per contact f_n ← max(0, f_n − v_n/W_nn), then
f_t ← radial projection of f_t − W_tt⁻¹ v_t on the disk of radius μ f_n. Exact when sticking;
for sliding contacts with anisotropic W_tt the radial projection is not the maximal-dissipation
force, so it is faster and less exact than `nsgs_newton`."""

from ._gs import GaussSeidelSolver
from ._local import MODE_PLAIN


class NSGS(GaussSeidelSolver):
    """Projected block Gauss–Seidel (module docstring); `solve` as in `ContactSolver.solve`."""

    name = "nsgs"
    mode = MODE_PLAIN
