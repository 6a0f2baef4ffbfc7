"""Delassus operator Λ = J M⁻¹ Jᵀ of a group of point contacts (spec ../shared/spec/000_chardonnet.md §2.3–2.4).

Contacts are 3-D: rows (n, t1, t2) per contact, stacked contact by contact (3m rows); frames and
relative contact Jacobians come from `humanoid_sim.contacts` (`ContactSet`, `contact_jacobian`,
`relative_jacobian`). This module computes Λ (units: 1/kg for the force rows, [m/s per N·s]); the
velocity-level matrix of the time-stepping problem is W = dt·Λ (spec §2.7, eq. 3.26).

Paths (all verified against `delassus_dense`, the brute-force J M⁻¹ Jᵀ):

* `delassus_cholesky` / `CholeskyDelassus` (default, fast, exact): Pinocchio's `crba` for M,
  then a tree-sparse LᵀDL factorisation (Featherstone's LTDL, numba) and W = Zᵀ D⁻¹ Z with
  Lᵀ Z = Jᵀ. It also returns M⁻¹ Jᵀ, which the integrator needs for q̇⁺ = q̇_free + M⁻¹ Jᵀ f.
* `delassus_pinocchio`: `pin.cholesky.decompose` + `pin.cholesky.computeMinv` (an oracle).
* The thesis's three recursive algorithms and its operation counts:
  `humanoid_sim.delassus_recursive`.

The delassus stage of a World step (`GroupDelassus`): per collision group, the relative
Jacobian J of its contacts (plus the robot's joint-limit rows, `humanoid_sim.joint_limits`),
M̃⁻¹Jᵀ and Λ from the block-diagonal mass matrix of the world's mobile trees (robot tree:
`CholeskyDelassus`; a free body: its 6×6 block), W = dt Λ and the free contact velocity J q̇_free,
as one `GroupSystem`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin
from numba import njit

from humanoid_model.exceptions import SolverError
from humanoid_sim.contacts import _rel_jac  # relative_jacobian's kernel, for arrays the stage built itself

__all__ = [
    "delassus_dense",
    "delassus_cholesky",
    "delassus_pinocchio",
    "dof_parents",
    "CholeskyDelassus",
    "GroupDelassus",
    "GroupSystem",
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


# --------------------------------------------------------------------------- the stage
@njit(cache=True)
def _block_from_lower(M, c0, n):
    """The symmetric (n, n) diagonal block of M at (c0, c0) from its lower triangle (as
    np.tril(B) + np.tril(B, −1).T, which adds exact zeros)."""
    B = np.empty((n, n))
    for i in range(n):
        for j in range(i + 1):
            x = M[c0 + i, c0 + j]
            B[i, j] = x
            B[j, i] = x
    return B


@dataclass(slots=True)
class GroupSystem:
    """The velocity-level problem data of one collision group (k rows = 3 per contact, then 3
    per joint-limit row).

    group: the `humanoid_sim.contacts.Group`; index: its rows of the step's contact arrays (a
    slice when one group holds every contact); nc: its contacts; J (k, n): rows over the group's
    columns; X (n, k) = M̃⁻¹ Jᵀ; Lam (k, k) = J M̃⁻¹ Jᵀ; W = dt Lam; v_free (k,) = J q̇_free [m/s]
    (updated by the impact stage); limits: the group carries the joint-limit rows."""

    group: object
    index: object
    nc: int
    J: np.ndarray
    X: np.ndarray
    Lam: np.ndarray
    W: np.ndarray
    v_free: np.ndarray
    limits: bool


class GroupDelassus:
    """M̃⁻¹Jᵀ and Λ of the collision groups of a world whose combined model is block-diagonal over
    mobile trees (module docstring).

    tree_cols: velocity indices of each tree; robot_model: the robot's Pinocchio model (tree 0)
    or None; masks: the combined model's `humanoid_sim.contacts.support_masks`; dt [s]."""

    def __init__(self, tree_cols, robot_model, masks, dt: float):
        self.tree_cols = tree_cols
        self.robot = CholeskyDelassus(robot_model) if robot_model is not None else None
        self.nv_robot = robot_model.nv if robot_model is not None else 0
        self.masks = masks
        self.dt = float(dt)

    def minv_jt(self, group, J, M):
        """(M̃⁻¹ Jᵀ restricted to the group's columns, Λ = J M̃⁻¹ Jᵀ) of J (k, len(group.cols)).
        M: the combined mass matrix with M̃'s entries in its lower triangle (``data.M.T`` after
        ``pin.crba``, armature included)."""
        k = J.shape[0]
        if len(group.trees) == 1 and group.trees[0] == 0 and self.robot is not None:
            # robot tree alone: X and W straight from the Cholesky kernel (W is exactly
            # symmetric there, so the symmetrisation below would not change it)
            n = self.tree_cols[0].shape[0]
            W, X = self.robot(None, None, J, M=M[:n, :n])
            return X, W
        if len(group.trees) == 1:  # one free body: its 6×6 block (the loop below, one tree)
            cols = self.tree_cols[group.trees[0]]
            X = np.linalg.solve(_block_from_lower(M, cols[0], cols.shape[0]), J.T)
            W = J @ X
            return X, 0.5 * (W + W.T)
        out = np.zeros((group.cols.shape[0], k))
        W = np.zeros((k, k))
        off = 0
        for t in group.trees:
            cols = self.tree_cols[t]
            n = cols.shape[0]
            Jt = J[:, off : off + n]
            if self.robot is not None and t == 0:
                Wt, X = self.robot(None, None, Jt, M=M[:n, :n])  # reads the lower triangle
            else:
                X = np.linalg.solve(_block_from_lower(M, cols[0], n), Jt.T)
                Wt = Jt @ X
            out[off : off + n] = X
            W += Wt
            off += n
        return out, 0.5 * (W + W.T)

    def systems(self, contacts, limits, Jw, M, v_free) -> list[GroupSystem]:
        """One `GroupSystem` per group of ``contacts`` (a `humanoid_sim.contacts.StepContacts`).
        limits: the step's `humanoid_sim.joint_limits.LimitRows` or None (they join the robot's
        group); Jw (6, nv): ``data.J``; M: as in `minv_jt`; v_free (nv,): q̇_free [m/s]."""
        out = []
        b = contacts.batch
        single = contacts.single
        for g in contacts.groups:
            ncols = g.cols.shape[0]
            if single:
                idx, nc = slice(None), b.m
                J = _rel_jac(Jw, self.masks, contacts.frames, b.points, contacts.joint_a, contacts.joint_b, g.cols)
            else:
                idx = g.contacts
                nc = idx.shape[0]
                J = (  # the kernel of relative_jacobian: the indexed rows are fresh contiguous arrays
                    _rel_jac(
                        Jw,
                        self.masks,
                        contacts.frames[idx],
                        b.points[idx],
                        contacts.joint_a[idx],
                        contacts.joint_b[idx],
                        g.cols,
                    )
                    if nc
                    else np.zeros((0, ncols))
                )
            with_lim = limits is not None and 0 in g.trees
            if with_lim:  # joint-limit rows (robot tree: its columns come first in g.cols)
                Jl = np.zeros((3 * limits.k, ncols))
                Jl[0::3, : self.nv_robot] = limits.rows
                J = np.vstack([J, Jl])
            X, Lam = self.minv_jt(g, J, M)
            vfree = J @ (v_free if ncols == v_free.shape[0] else v_free[g.cols])  # all trees: cols = 0..nv-1
            out.append(GroupSystem(g, idx, nc, J, X, Lam, self.dt * Lam, vfree, with_lim))
        return out
