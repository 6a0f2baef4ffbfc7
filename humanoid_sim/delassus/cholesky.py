"""Delassus operator Λ = J M⁻¹ Jᵀ of a group of point contacts (Chardonnet 2009, §2.3.2, §3.1.4.1).

Contacts are 3-D: rows (n, t1, t2) per contact, stacked contact by contact (3m rows); frames and
relative contact Jacobians come from `humanoid_sim.stages.contacts` (`ContactSet`, `contact_jacobian`,
`relative_jacobian`). This module computes Λ (units: 1/kg for the force rows, [m/s per N·s]); the
velocity-level matrix of the time-stepping problem is W = dt·Λ (Chardonnet 2009, eq. (3.26)).

Paths (all verified against `delassus_dense`, the brute-force J M⁻¹ Jᵀ):

* `delassus_cholesky` / `CholeskyDelassus` (default, fast, exact): Pinocchio's `crba` for M,
  then a tree-sparse LᵀDL factorisation (Featherstone's LTDL, numba) and W = Zᵀ D⁻¹ Z with
  Lᵀ Z = Jᵀ. It also returns M⁻¹ Jᵀ, which the integrator needs for q̇⁺ = q̇_free + M⁻¹ Jᵀ f.
* `delassus_pinocchio`: `pin.cholesky.decompose` + `pin.cholesky.computeMinv` (an oracle).
* The thesis's three recursive algorithms and its operation counts (reference code, not on the
  step): `humanoid_sim.delassus.recursive`.

The step's per-group Delassus stage builds on `CholeskyDelassus`: `humanoid_sim.delassus.group`.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from numba import njit

from humanoid_model.exceptions import SolverError

__all__ = [
    "delassus_dense",
    "delassus_cholesky",
    "delassus_pinocchio",
    "dof_parents",
    "CholeskyDelassus",
]


def _mass_matrix(model, data, q):
    M = pin.crba(model, data, q)
    return np.triu(M) + np.triu(M, 1).T


# --------------------------------------------------------------------------- dense / Cholesky
def delassus_dense(model, data, q, J) -> np.ndarray:
    """Brute force J M⁻¹ Jᵀ with a dense inverse of M (the test oracle)."""
    M = _mass_matrix(model, data, q)
    return J @ np.linalg.inv(M) @ J.T


def delassus_pinocchio(model, data, q, J) -> np.ndarray:
    """J M⁻¹ Jᵀ from Pinocchio's sparse Cholesky (`pin.cholesky.computeMinv`), symmetrised."""
    pin.crba(model, data, q)
    pin.cholesky.decompose(model, data)
    Minv = pin.cholesky.computeMinv(model, data)
    Minv = np.triu(Minv) + np.triu(Minv, 1).T
    W = J @ Minv @ J.T
    return 0.5 * (W + W.T)


def dof_parents(model) -> np.ndarray:
    """λ (nv,) int: the parent degree of freedom of each dof in the tree (−1 for the root's first)."""
    lam = np.full(model.nv, -1, np.int64)
    for j in range(1, model.njoints):
        iv, nvj = model.joints[j].idx_v, model.joints[j].nv
        p = model.parents[j]
        for k in range(nvj):
            if k > 0:
                lam[iv + k] = iv + k - 1
            elif p > 0:
                lam[iv] = model.joints[p].idx_v + model.joints[p].nv - 1
    return lam


@njit(cache=True)
def _ltdl(H, lam):
    """In place: H = Lᵀ D L (Featherstone RBDA §6.5); lower triangle ← L, diagonal ← D."""
    n = H.shape[0]
    for k in range(n - 1, -1, -1):
        i = lam[k]
        while i >= 0:
            a = H[k, i] / H[k, k]
            j = i
            while j >= 0:
                H[i, j] -= a * H[k, j]
                j = lam[j]
            H[k, i] = a
            i = lam[i]


@njit(cache=True)
def _chol_delassus(H, lam, JT):
    """Given H = LᵀDL from `_ltdl` and JT (nv, r): returns (W, M⁻¹Jᵀ) with W = J M⁻¹ Jᵀ."""
    n, r = JT.shape
    Z = JT.copy()
    # rows of Z that can be nonzero: the nonzero rows of Jᵀ and their ancestors (lam[i] < i);
    # the other rows stay exactly 0, so skipping them changes no sum
    act = np.zeros(n, np.bool_)
    for i in range(n):
        for c in range(r):
            if JT[i, c] != 0.0:
                act[i] = True
                break
    for i in range(n - 1, -1, -1):
        if act[i] and lam[i] >= 0:
            act[lam[i]] = True
    for i in range(n - 1, -1, -1):  # Lᵀ Z = Jᵀ
        if not act[i]:
            continue
        j = lam[i]
        while j >= 0:
            lij = H[i, j]
            for c in range(r):
                Z[j, c] -= lij * Z[i, c]
            j = lam[j]
    Y = np.empty_like(Z)  # D⁻¹ Z
    for i in range(n):
        d = 1.0 / H[i, i]
        for c in range(r):
            Y[i, c] = Z[i, c] * d
    rows = np.flatnonzero(act)
    # W[a, b] = Σ_i Z[i, a] Y[i, b] over the rows in ascending order, for b ≥ a: the sums of one
    # row a run side by side in acc (contiguous, zero-based loops: vectorised), each in the same
    # order as a scalar loop over i, and the terms with Z[i, a] = 0 are skipped, so the bits are
    # those of that loop (with finite Y; W and M⁻¹Jᵀ of 96 rows: 65 -> 27 µs, measured)
    W = np.empty((r, r))
    acc = np.empty(r)
    for a in range(r):
        m = r - a
        for b in range(m):
            acc[b] = 0.0
        for i in rows:
            z = Z[i, a]
            if z == 0.0:  # a dof that does not move row a's contact (another limb)
                continue
            Yi = Y[i, a:]
            for b in range(m):
                acc[b] += z * Yi[b]
        for b in range(m):
            W[a, a + b] = acc[b]
            W[a + b, a] = acc[b]
    X = Y.copy()  # L X = D⁻¹ Z  ->  X = M⁻¹ Jᵀ
    for i in range(n):
        j = lam[i]
        while j >= 0:
            lij = H[i, j]
            for c in range(r):
                X[i, c] -= lij * X[j, c]
            j = lam[j]
    return W, X


@njit(cache=True)
def _diag_positive(H):
    """np.all(np.diag(H) > 0) without the temporaries (False on NaN as well)."""
    for i in range(H.shape[0]):
        if not H[i, i] > 0:
            return False
    return True


@njit(cache=True)
def _factor_copy(M, lam):
    """C-ordered copy of M (any layout) factored in place by `_ltdl`, and whether its D > 0."""
    n = M.shape[0]
    H = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            H[i, j] = M[i, j]
    _ltdl(H, lam)
    return H, _diag_positive(H)


@njit(cache=True)
def _factor_and_delassus(M, lam, J):
    """(D > 0, W, M⁻¹Jᵀ): `_factor_copy` then `_chol_delassus` with Jᵀ (one compiled call; W and
    M⁻¹Jᵀ are empty when the factor is not positive definite)."""
    H, ok = _factor_copy(M, lam)
    if not ok:
        return ok, np.empty((0, 0)), np.empty((0, 0))
    W, X = _chol_delassus(H, lam, np.ascontiguousarray(J.T))
    return ok, W, X


class CholeskyDelassus:
    """Default exact path: M from `pin.crba`, tree-sparse LᵀDL (numba), W = J M⁻¹ Jᵀ.

    >>> cd = CholeskyDelassus(model); W, MinvJt = cd(data, q, J)
    Pass `M` (symmetric, from the caller's own crba) to skip the crba call."""

    def __init__(self, model):
        self.model = model
        self.lam = dof_parents(model)

    def factor(self, data, q=None, M=None):
        """H = Lᵀ D L of M in place of a copy (lower triangle L, diagonal D); M from `pin.crba` at q
        unless given."""
        if M is None:
            M = _mass_matrix(self.model, data, q)
        H = np.array(M, dtype=float, order="C")
        _ltdl(H, self.lam)
        return H

    def __call__(self, data, q, J, M=None):
        if M is None:
            M = _mass_matrix(self.model, data, q)
        ok, W, MinvJt = _factor_and_delassus(M, self.lam, J)  # = factor(), then W and M⁻¹Jᵀ
        if not ok:
            raise SolverError(f"delassus: mass matrix is not positive definite at q = {np.asarray(q).tolist()}")
        return W, MinvJt


_CHOL: dict = {}


def delassus_cholesky(model, data, q, J, M=None):
    """W = J M⁻¹ Jᵀ (default fast exact path). Returns (W (3m, 3m), M⁻¹Jᵀ (nv, 3m))."""
    hit = _CHOL.get(id(model))
    if hit is None or hit.model is not model:
        hit = _CHOL[id(model)] = CholeskyDelassus(model)
    return hit(data, q, J, M)
