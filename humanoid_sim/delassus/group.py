"""Delassus stage of a World step: per collision group, the relative Jacobian J of its contacts
(plus the robot's joint-limit rows, `humanoid_sim.stages.joint_limits`), M̃⁻¹Jᵀ and Λ from the
block-diagonal mass matrix of the world's mobile trees (robot tree:
`humanoid_sim.delassus.cholesky.CholeskyDelassus`; a free body: its 6×6 block), W = dt Λ and the
free contact velocity J q̇_free, as one `GroupSystem` (`GroupDelassus.systems`).

Rows (n, t1, t2) per contact, stacked contact by contact, then 3 per joint-limit row; frames and
relative contact Jacobians come from `humanoid_sim.stages.contacts`; W = dt·Λ is the velocity-level
matrix of the time-stepping problem (eq. 3.26).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from humanoid_sim.delassus.cholesky import CholeskyDelassus
from humanoid_sim.stages.contacts import _rel_jac  # relative_jacobian's kernel, for arrays the stage built itself

__all__ = ["GroupDelassus", "GroupSystem"]


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


@njit(cache=True)
def _jacobian_with_limits(Jw, masks, F, P, ja, jb, cols, rows):
    """J of a group whose contacts (`_rel_jac`'s arguments) are followed by joint-limit rows
    ``rows`` (k, nv_robot) (the robot's columns first in ``cols``): 3 rows per limit, the first
    its Jacobian row, the two tangential ones zero (as np.vstack of the contacts' J and those
    rows, one compiled call)."""
    Jc = _rel_jac(Jw, masks, F, P, ja, jb, cols)
    m3 = Jc.shape[0]
    J = np.zeros((m3 + 3 * rows.shape[0], cols.shape[0]))
    J[:m3] = Jc
    for i in range(rows.shape[0]):
        for c in range(rows.shape[1]):
            J[m3 + 3 * i, c] = rows[i, c]
    return J


@dataclass(slots=True)
class GroupSystem:
    """The velocity-level problem data of one collision group (k rows = 3 per contact, then 3
    per joint-limit row).

    group: the `humanoid_sim.stages.contacts.Group`; index: its rows of the step's contact arrays (a
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
    or None; masks: the combined model's `humanoid_sim.stages.contacts.support_masks`; dt [s]."""

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
        """One `GroupSystem` per group of ``contacts`` (a `humanoid_sim.stages.contacts.StepContacts`).
        limits: the step's `humanoid_sim.stages.joint_limits.LimitRows` or None (they join the robot's
        group); Jw (6, nv): ``data.J``; M: as in `minv_jt`; v_free (nv,): q̇_free [m/s]."""
        out = []
        b = contacts.batch
        single = contacts.single
        for g in contacts.groups:
            ncols = g.cols.shape[0]
            with_lim = limits is not None and 0 in g.trees
            if single and with_lim:  # the joint-limit rows (robot tree: its columns first in g.cols) in the kernel
                idx, nc = slice(None), b.m
                J = _jacobian_with_limits(
                    Jw, self.masks, contacts.frames, b.points, contacts.joint_a, contacts.joint_b, g.cols, limits.rows
                )
            elif single:
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
            if with_lim and not single:  # joint-limit rows (robot tree: its columns come first in g.cols)
                Jl = np.zeros((3 * limits.k, ncols))
                Jl[0::3, : self.nv_robot] = limits.rows
                J = np.vstack([J, Jl])
            X, Lam = self.minv_jt(g, J, M)
            vfree = J @ (v_free if ncols == v_free.shape[0] else v_free[g.cols])  # all trees: cols = 0..nv-1
            out.append(GroupSystem(g, idx, nc, J, X, Lam, self.dt * Lam, vfree, with_lim))
        return out
