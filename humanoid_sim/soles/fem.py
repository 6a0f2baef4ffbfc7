"""Linear tetrahedral elasticity of a sole and its condensations (Chardonnet
2009, §4.3, eqs. (4.4)–(4.22)).

    mesh = box_sole()
    sole = CondensedSole(mesh)  # K, Dirichlet removal (4.10–4.11), surface condensation (4.12–4.14), once
    Kc = sole.contact_stiffness(nodes)  # per step: condensation to the contact nodes (4.18–4.20)
    Cc = sole.contact_compliance(nodes)  # K_c⁻¹ [m/N], the block of K_s⁻¹ (same matrix, no solve)
    Un = sole.noncontact_displacements(nodes, Uc)  # the recovery of 4.22

Element stiffness (eq. (4.9), Chardonnet 2009, §4.3.2): K_e = V_e B_eᵀ C_e B_e with the constant
strain–displacement matrix B_e (6 × 12, Voigt order xx, yy, zz, yz, xz, xy with engineering
shear strains) and the isotropic C_e of the element's own Lamé coefficients (eq. 4.7), so that
multi-material and layered soles work (as the thesis allows, §4.3.2). Degrees of freedom are node-major: node i has
rows 3i, 3i+1, 3i+2 (x, y, z of the sole frame). Forces [N], displacements [m], K [N/m].

The identity used by `contact_compliance`: the Schur complement K_c of (4.20) is the inverse of
the (c, c) block of K_s⁻¹ (block inversion), so K_c⁻¹ = (K_s⁻¹)_cc. With K_s⁻¹ stored once, the
per-step compliance is a gather; `contact_stiffness` computes (4.20) literally (one dense
Cholesky of K_nn per call) and `test_soles_fem.py` checks that the two agree.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import message

from .material import lame
from .mesh import SoleMesh

__all__ = ["element_stiffness", "stiffness_matrix", "rigid_body_modes", "node_dofs", "CondensedSole"]


def node_dofs(nodes) -> np.ndarray:
    """The dof indices (3i, 3i+1, 3i+2 per node i), in the order of `nodes`."""
    n = np.asarray(nodes, dtype=np.int64).reshape(-1)
    return (3 * n[:, None] + np.arange(3)).ravel()


def element_stiffness(mesh: SoleMesh) -> tuple[np.ndarray, np.ndarray]:
    """(K_e (M, 12, 12) [N/m], V_e (M,) [m³]) of every tetrahedron (eq. 4.9)."""
    X = mesh.nodes[mesh.tets]  # (M, 4, 3)
    A = np.concatenate([np.ones((len(X), 4, 1)), X], axis=2)  # rows (1, x, y, z) of each vertex
    V = np.abs(np.linalg.det(A)) / 6.0
    G = np.linalg.inv(A)[:, 1:, :]  # (M, 3, 4): G[:, a, k] = ∂N_k/∂x_a
    B = np.zeros((len(X), 6, 12))
    for k in range(4):
        gx, gy, gz = G[:, 0, k], G[:, 1, k], G[:, 2, k]
        c = 3 * k
        B[:, 0, c], B[:, 1, c + 1], B[:, 2, c + 2] = gx, gy, gz
        B[:, 3, c + 1], B[:, 3, c + 2] = gz, gy  # γ_yz
        B[:, 4, c], B[:, 4, c + 2] = gz, gx  # γ_xz
        B[:, 5, c], B[:, 5, c + 1] = gy, gx  # γ_xy
    mu, lam = lame(mesh.E, mesh.nu)
    C = np.zeros((len(X), 6, 6))
    C[:, :3, :3] = lam[:, None, None]
    C[:, [0, 1, 2], [0, 1, 2]] += 2.0 * mu[:, None]
    C[:, [3, 4, 5], [3, 4, 5]] = mu[:, None]
    Ke = V[:, None, None] * np.einsum("mai,mab,mbj->mij", B, C, B)
    return Ke, V


def stiffness_matrix(mesh: SoleMesh) -> sp.csr_matrix:
    """The assembled global stiffness K (3N × 3N, scipy CSR, symmetric PSD with the 6 rigid-body
    modes in its kernel) of the free sole (eq. 4.8, K U = F)."""
    Ke, _ = element_stiffness(mesh)
    dofs = node_dofs(mesh.tets.ravel()).reshape(len(mesh.tets), 12)
    rows = np.repeat(dofs, 12, axis=1).ravel()
    cols = np.tile(dofs, (1, 12)).ravel()
    n = 3 * mesh.n_nodes
    K = sp.coo_matrix((Ke.ravel(), (rows, cols)), shape=(n, n)).tocsr()
    return ((K + K.T) * 0.5).tocsr()  # exact symmetry (the element sums are symmetric up to rounding)


def rigid_body_modes(nodes) -> np.ndarray:
    """(3N, 6) displacement fields of the 3 translations and 3 small rotations about the origin."""
    X = np.asarray(nodes, dtype=float)
    R = np.zeros((len(X), 3, 6))
    R[:, [0, 1, 2], [0, 1, 2]] = 1.0
    for a in range(3):  # rotation about axis a: u = e_a × x
        e = np.zeros(3)
        e[a] = 1.0
        R[:, :, 3 + a] = np.cross(e, X)
    return R.reshape(-1, 6)


class CondensedSole:
    """A sole reduced once to its free surface (eqs. (4.10)–(4.14)) and condensed per step to its
    contact nodes (4.18–4.20).

    Attributes: mesh; K (free sole, sparse); free (dofs not on the top face: Dirichlet removal,
    4.10–4.11); K_r (sparse, free dofs); surface_dofs / interior_dofs (dofs of
    mesh.surface_nodes / of the other free nodes, both into the full dof numbering); K_s (dense,
    surface dofs, eq. 4.12: K_ss − K_si K_ii⁻¹ K_is); C_s = K_s⁻¹ [m/N]."""

    def __init__(self, mesh: SoleMesh, source: str = "soles.CondensedSole"):
        if not isinstance(mesh, SoleMesh):
            raise ConfigError(message(source, "mesh", "a soles.SoleMesh", mesh))
        self.mesh, self.source = mesh, source
        self.K = stiffness_matrix(mesh)
        n = mesh.n_nodes
        is_top = np.zeros(n, bool)
        is_top[mesh.top] = True
        is_surf = np.zeros(n, bool)
        is_surf[mesh.surface_nodes] = True
        self.free = node_dofs(np.flatnonzero(~is_top))
        self.surface_dofs = node_dofs(mesh.surface_nodes)
        self.interior_dofs = node_dofs(np.flatnonzero(~is_top & ~is_surf))
        self.K_r = self.K[self.free][:, self.free].tocsc()
        self._pos = np.full(n, -1, np.int64)  # node -> position in surface_nodes
        self._pos[mesh.surface_nodes] = np.arange(len(mesh.surface_nodes))

    @cached_property
    def K_s(self) -> np.ndarray:
        """The surface stiffness K_s = K_ss − K_si K_ii⁻¹ K_is (eq. 4.12) [N/m], dense; built on
        first use (the full solve `solve_full` does not need it)."""
        Kss = self.K[self.surface_dofs][:, self.surface_dofs].toarray()
        if len(self.interior_dofs) == 0:
            return Kss
        Kis = self.K[self.interior_dofs][:, self.surface_dofs].toarray()
        Ks = Kss - Kis.T @ self._solve_ii(Kis)
        return 0.5 * (Ks + Ks.T)

    @cached_property
    def C_s(self) -> np.ndarray:
        """K_s⁻¹ [m/N], dense (one Cholesky, on first use)."""
        C = sla.cho_solve(sla.cho_factor(self.K_s), np.eye(len(self.K_s)))
        return 0.5 * (C + C.T)

    @cached_property
    def _solve_ii(self):
        """Solve with K_ii (the free nodes off the surface; SuperLU), or None without interior nodes."""
        if len(self.interior_dofs) == 0:
            return None
        lu = spla.splu(self.K[self.interior_dofs][:, self.interior_dofs].tocsc())
        return lambda b: lu.solve(np.asarray(b, float))

    # ------------------------------------------------------------------ index helpers
    def surface_index(self, nodes) -> np.ndarray:
        """Positions of `nodes` (global node ids, each a surface node) in the surface dofs' rows."""
        nodes = np.asarray(nodes, dtype=np.int64).reshape(-1)
        bad = (nodes < 0) | (nodes >= self.mesh.n_nodes)
        if bad.any() or (self._pos[nodes] < 0).any() or len(np.unique(nodes)) != len(nodes):
            raise ConfigError(message(self.source, "nodes", "distinct surface node ids (not top nodes)", nodes))
        return node_dofs(self._pos[nodes])

    def _split(self, contact_nodes):
        c = self.surface_index(contact_nodes)
        keep = np.ones(len(self.K_s), bool)
        keep[c] = False
        return c, np.flatnonzero(keep)

    # ------------------------------------------------------------------ per step (4.18–4.22)
    def contact_stiffness(self, contact_nodes) -> np.ndarray:
        """K_c = K_cc − K_cn K_nn⁻¹ K_nc (eq. 4.20) [N/m], 3m × 3m in the sole frame."""
        c, nn = self._split(contact_nodes)
        Ks = self.K_s
        if len(nn) == 0:
            return Ks[np.ix_(c, c)].copy()
        Knc = Ks[np.ix_(nn, c)]
        Kc = Ks[np.ix_(c, c)] - Knc.T @ sla.cho_solve(sla.cho_factor(Ks[np.ix_(nn, nn)]), Knc)
        return 0.5 * (Kc + Kc.T)

    def contact_compliance(self, contact_nodes) -> np.ndarray:
        """K_c⁻¹ [m/N], 3m × 3m in the sole frame: the (c, c) block of K_s⁻¹ (module docstring)."""
        c = self.surface_index(contact_nodes)
        return self.C_s[np.ix_(c, c)].copy()

    def noncontact_displacements(self, contact_nodes, U_c) -> np.ndarray:
        """U_n (the surface dofs not in contact, in surface order) of contact displacements U_c
        (3m,) [m] with no load off the contacts (eq. 4.22): U_n = −K_nn⁻¹ K_nc U_c."""
        c, nn = self._split(contact_nodes)
        Ks = self.K_s
        return -sla.cho_solve(sla.cho_factor(Ks[np.ix_(nn, nn)]), Ks[np.ix_(nn, c)] @ np.asarray(U_c, float))

    # ------------------------------------------------------------------ whole-sole helpers
    def surface_displacements(self, contact_nodes, U_c) -> np.ndarray:
        """All surface dofs (surface order) from U_c: the contact rows are U_c, the rest 4.22."""
        c, nn = self._split(contact_nodes)
        U = np.empty(len(self.K_s))
        U[c] = U_c
        U[nn] = self.noncontact_displacements(contact_nodes, U_c)
        return U

    def displacement_field(self, U_s) -> np.ndarray:
        """(N, 3) displacements of every node from the surface displacements U_s: top nodes 0,
        interior nodes U_i = −K_ii⁻¹ K_is U_s (no interior load, the assumption of 4.12)."""
        U = np.zeros(3 * self.mesh.n_nodes)
        U[self.surface_dofs] = U_s
        if self._solve_ii is not None:
            Kis = self.K[self.interior_dofs][:, self.surface_dofs]
            U[self.interior_dofs] = -self._solve_ii(Kis @ np.asarray(U_s, float))
        return U.reshape(-1, 3)

    def solve_full(self, F) -> np.ndarray:
        """(N, 3) displacements of the uncondensed reduced system K^r U^r = F^r (eqs 4.10–4.11)
        for node forces F (N, 3) [N] (rows of top nodes are ignored: they are reactions)."""
        F = np.asarray(F, dtype=float).reshape(-1)
        U = np.zeros(3 * self.mesh.n_nodes)
        U[self.free] = spla.spsolve(self.K_r, F[self.free])
        return U.reshape(-1, 3)
