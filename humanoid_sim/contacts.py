"""Contact stage (spec ../shared/spec/000_chardonnet.md §2.3, §2.5): contact frames, collision
groups, relative contact Jacobians and the velocity-level problem data of each group.

Conventions (shared with `humanoid_sim.delassus` and `humanoid_sim.solvers`): each contact has
rows (n, t1, t2) in the world frame, n pointing from body B into body A, so the relative
velocity v_c = R_c (v_A(p) − v_B(p)) has v_n > 0 when separating. Body A is always mobile; B is
mobile or the fixed environment.

Collision groups (§2.5): connected components of the graph whose vertices are the mobile trees
(the robot, each free body) and whose edges are contacts between two mobile trees. The fixed
environment joins no group. Each group gets one Delassus matrix and one solve.

Gap stabilisation (our addition; the thesis has none, spec §2.10): the normal row of the
free velocity gets a term c_n so that the solver enforces v_n⁺ + c_n ≥ 0:

* gap ≥ 0 (within the activation margin): c_n = gap/dt. No force acts until the body would
  reach the surface during this step; the contact then closes the gap exactly (the "speculative"
  form of the Anitescu–Hart constraint v_n⁺ ≥ −φ/dt, spec §2.9, eq. 2.66–2.68).
* gap < 0 (penetration): c_n = β·gap/dt with ``BETA = 0.2``: a fifth of the penetration is
  removed per step (a bounded Baumgarte/ERP term, chosen as in the peer loop of
  ../shared/peers/README.md). Penetration therefore decays geometrically and stays bounded.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List

import numpy as np
from numba import njit

__all__ = ["frames_from_normals", "collision_groups", "Group", "relative_jacobian", "gap_term",
           "BETA"]

BETA = 0.2   # fraction of a penetration removed per step (chosen, see module docstring)


def frames_from_normals(normals) -> np.ndarray:
    """(m, 3, 3) frames with rows (n, t1, t2); t1 ⟂ n from the world axis least aligned with n,
    t2 = n × t1 (same rule as `humanoid_sim.delassus.frame_from_normal`, vectorised)."""
    return _frames(np.ascontiguousarray(np.asarray(normals, float).reshape(-1, 3)))


@njit(cache=True)
def _frames(N):
    m = N.shape[0]
    F = np.empty((m, 3, 3))
    for c in range(m):
        n0, n1, n2 = N[c, 0], N[c, 1], N[c, 2]
        s = np.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
        n0, n1, n2 = n0 / s, n1 / s, n2 / s
        a0, a1, a2 = abs(n0), abs(n1), abs(n2)
        # t1 = axis × n with axis the least aligned world axis (first minimum, as np.argmin)
        if a0 <= a1 and a0 <= a2:
            t0, t1_, t2_ = 0.0, -n2, n1          # e_x × n
        elif a1 <= a2:
            t0, t1_, t2_ = n2, 0.0, -n0          # e_y × n
        else:
            t0, t1_, t2_ = -n1, n0, 0.0          # e_z × n
        u = np.sqrt(t0 * t0 + t1_ * t1_ + t2_ * t2_)
        t0, t1_, t2_ = t0 / u, t1_ / u, t2_ / u
        F[c, 0, 0], F[c, 0, 1], F[c, 0, 2] = n0, n1, n2
        F[c, 1, 0], F[c, 1, 1], F[c, 1, 2] = t0, t1_, t2_
        F[c, 2, 0] = n1 * t2_ - n2 * t1_
        F[c, 2, 1] = n2 * t0 - n0 * t2_
        F[c, 2, 2] = n0 * t1_ - n1 * t0
    return F


@dataclass
class Group:
    """One collision group: ``contacts`` (indices into the step's contact batch), ``trees``
    (mobile tree indices) and ``cols`` (the velocity indices of those trees, concatenated)."""

    contacts: np.ndarray
    trees: List[int]
    cols: np.ndarray


def collision_groups(tree_a, tree_b, n_trees: int, tree_cols, merge_all: bool = False) -> List[Group]:
    """Connected components (union–find) of the contact graph over mobile trees.

    tree_a (m,): tree of body A; tree_b (m,): tree of body B or −1 (environment);
    tree_cols: list of velocity-index arrays per tree; merge_all: one group for all contacts
    (the thesis's single-Λ reference for the groups benchmark)."""
    tree_a = np.asarray(tree_a, np.int64)
    tree_b = np.asarray(tree_b, np.int64)
    m = tree_a.shape[0]
    if m == 0:
        return []
    parent = list(range(n_trees))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    if merge_all:
        roots = np.zeros(m, np.int64)
    else:
        for a, b in zip(tree_a.tolist(), tree_b.tolist()):
            if b >= 0:
                ra, rb = find(a), find(b)
                if ra != rb:
                    parent[rb] = ra
        roots = np.array([find(a) for a in tree_a.tolist()], np.int64)
    groups = []
    order = np.argsort(roots, kind="stable")
    r_sorted = roots[order]
    cuts = np.flatnonzero(np.diff(r_sorted)) + 1
    for idx in np.split(order, cuts):
        trees = sorted(set(tree_a[idx].tolist()) | set(t for t in tree_b[idx].tolist() if t >= 0))
        cols = np.concatenate([tree_cols[t] for t in trees])
        groups.append(Group(idx, trees, cols))
    return groups


def relative_jacobian(Jw, masks, frames, points, joint_a, joint_b, cols) -> np.ndarray:
    """J (3m, len(cols)): rows (n, t1, t2) of v_A(p) − v_B(p) for each contact.

    Jw (6, nv): Pinocchio's world-frame joint Jacobian matrix (``data.J`` after
    ``computeJointJacobians``: spatial velocity (v_O, ω) at the world origin); masks
    (njoints, nv) bool: support of each joint (`humanoid_sim.delassus.support_masks`);
    joint_b = 0 for the environment. Row block of contact c: X_c (S_A − S_B) Jw with
    X_c = R_c [I, −skew(p_c)] (spec §2.3 note, L1318)."""
    return _rel_jac(np.ascontiguousarray(Jw), masks, np.ascontiguousarray(frames, dtype=float),
                    np.ascontiguousarray(points, dtype=float), np.asarray(joint_a, np.int64),
                    np.asarray(joint_b, np.int64), np.asarray(cols, np.int64))


@njit(cache=True)
def _rel_jac(Jw, masks, F, P, ja, jb, cols):
    m = F.shape[0]
    k = cols.shape[0]
    J = np.zeros((3 * m, k))
    X = np.empty(6)
    for c in range(m):
        px, py, pz = P[c, 0], P[c, 1], P[c, 2]
        for i in range(3):
            r0, r1, r2 = F[c, i, 0], F[c, i, 1], F[c, i, 2]
            X[0], X[1], X[2] = r0, r1, r2
            X[3] = py * r2 - pz * r1          # p × r
            X[4] = pz * r0 - px * r2
            X[5] = px * r1 - py * r0
            row = 3 * c + i
            for q in range(k):
                col = cols[q]
                s = (1.0 if masks[ja[c], col] else 0.0) - (1.0 if (jb[c] > 0 and masks[jb[c], col]) else 0.0)
                if s != 0.0:
                    acc = 0.0
                    for j in range(6):
                        acc += X[j] * Jw[j, col]
                    J[row, q] = s * acc
    return J


def gap_term(gaps, dt: float, beta: float = BETA) -> np.ndarray:
    """c_n per contact [m/s] (module docstring): gap/dt for gap ≥ 0, β gap/dt for penetration."""
    g = np.asarray(gaps, float)
    return np.where(g >= 0.0, g, beta * g) / dt
