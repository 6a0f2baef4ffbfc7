"""Delassus operator Λ = J M⁻¹ Jᵀ of a group of point contacts (spec ../shared/spec/000_chardonnet.md §2.3–2.4).

Contacts are 3-D: rows (n, t1, t2) per contact, stacked contact by contact (3m rows). A contact
is between body A (`joint_a`, a Pinocchio joint id) and body B (`joint_b`, 0 = the fixed
environment). The relative contact velocity is v_c = R_c (v_A(p_c) − v_B(p_c)) with R_c the
3×3 matrix whose rows are (n, t1, t2) in the world frame and n pointing from B into A, so that
v_n > 0 means separating (spec §2.3, L1318: algebraic difference of the two bodies' velocities).

This module computes Λ (units: 1/kg for the force rows, [m/s per N·s]); the velocity-level
matrix of the time-stepping problem is W = dt·Λ (spec §2.7, eq. 3.26), formed by the caller.

Paths (all verified against `delassus_dense`, the brute-force J M⁻¹ Jᵀ):

* `delassus_cholesky` (default, fast, exact): Pinocchio's `crba` for M, then a tree-sparse
  LᵀDL factorisation (Featherstone's LTDL, numba) and W = Zᵀ D⁻¹ Z with Lᵀ Z = Jᵀ. It also
  returns M⁻¹ Jᵀ, which the integrator needs for q̇⁺ = q̇_free + M⁻¹ Jᵀ f.
* `delassus_pinocchio`: `pin.cholesky.decompose` + `pin.cholesky.computeMinv` (an oracle).
* `RecursiveDelassus`: the thesis's three recursive algorithms on the Pinocchio tree
  (§2.4: "initial" = 3m unit-force ABA passes over the whole tree, "chang_khatib" = Ω recursion
  through L and nearest common ancestors, "new" = 6C unit-wrench ABA passes restricted to the
  branches holding contact bodies), with operation counters inside the recursions and a
  selector ("auto") that picks the cheaper of Chang–Khatib and new from counts predicted from
  the model's tree for the current contact configuration (spec L1809 via §2.4.3).
* `thesis_operation_counts`: Tables 3.1–3.3 of the thesis as formulas (spec §2.4).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin
from numba import njit

from humanoid_model.exceptions import SolverError

__all__ = [
    "ContactSet",
    "contact_jacobian",
    "frame_from_normal",
    "contacts_from_locations",
    "contact_projectors",
    "delassus_dense",
    "delassus_cholesky",
    "delassus_pinocchio",
    "CholeskyDelassus",
    "RecursiveDelassus",
    "thesis_operation_counts",
    "THESIS_HRP2_STANDING",
    "THESIS_SAME_BRANCH",
]


# --------------------------------------------------------------------------- contact description
@dataclass(frozen=True)
class ContactSet:
    """The contacts of one collision group.

    joint_a: (m,) int, Pinocchio joint id of body A (must be > 0: a mobile body).
    joint_b: (m,) int, joint id of body B, 0 for the fixed environment.
    points:  (m, 3) contact points in the world frame [m].
    frames:  (m, 3, 3) rows (n, t1, t2) in the world frame, orthonormal, n from B into A.
    """

    joint_a: np.ndarray
    joint_b: np.ndarray
    points: np.ndarray
    frames: np.ndarray

    @classmethod
    def make(cls, joint_a, points, frames, joint_b=None, source="ContactSet"):
        """Validated constructor; `frames` may also be (m, 3) normals (tangents then chosen)."""
        ja = np.atleast_1d(np.asarray(joint_a, dtype=np.int64))
        m = ja.shape[0]
        jb = np.zeros(m, np.int64) if joint_b is None else np.atleast_1d(np.asarray(joint_b, np.int64))
        pts = np.asarray(points, dtype=float).reshape(-1, 3) if m else np.zeros((0, 3))
        fr = np.asarray(frames, dtype=float)
        if fr.ndim == 2 and fr.shape == (m, 3):
            fr = np.array([frame_from_normal(n) for n in fr]).reshape(m, 3, 3)
        if jb.shape != (m,) or pts.shape != (m, 3) or fr.shape != (m, 3, 3):
            raise SolverError(
                f"{source}: field 'points'/'frames'/'joint_b' must have {m} rows matching joint_a; "
                f"got points {pts.shape}, frames {fr.shape}, joint_b {jb.shape}")
        if m and (ja.min() < 1):
            raise SolverError(f"{source}: field 'joint_a' must hold mobile joint ids (> 0); value {ja.tolist()}")
        if not (np.all(np.isfinite(pts)) and np.all(np.isfinite(fr))):
            raise SolverError(f"{source}: field 'points'/'frames' contains NaN or inf")
        if m and np.abs(np.einsum("kij,klj->kil", fr, fr) - np.eye(3)).max() > 1e-8:
            raise SolverError(f"{source}: field 'frames' rows (n, t1, t2) are not orthonormal")
        return cls(ja, jb, pts, fr)

    @property
    def m(self) -> int:
        return int(self.joint_a.shape[0])


def contacts_from_locations(robot, data, q, names) -> ContactSet:
    """ContactSet of the hull corners of the robot's named contact locations (DEVELOPERS.md
    `ContactLocation`) against the fixed environment, at configuration q. The location's
    `normal` (inward into the robot body) becomes n (from the environment B into body A)."""
    model = robot.model
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    ja, pts, nrm = [], [], []
    for name in names:
        loc = robot.contact_locations[name]
        fid = model.getFrameId(loc.body)
        oMf = data.oMf[fid]
        for corner in np.asarray(loc.hull, float):
            ja.append(model.frames[fid].parentJoint)
            pts.append(oMf.act(corner))
            nrm.append(oMf.rotation @ np.asarray(loc.normal, float))
    return ContactSet.make(ja, np.array(pts), np.array(nrm), source=f"contact locations {list(names)}")


def frame_from_normal(n) -> np.ndarray:
    """3×3 rows (n, t1, t2) with t1, t2 an orthonormal tangent basis (our convention: t1 ⟂ n
    built from the world axis least aligned with n; t2 = n × t1)."""
    n = np.asarray(n, dtype=float)
    n = n / np.linalg.norm(n)
    a = np.eye(3)[int(np.argmin(np.abs(n)))]
    t1 = np.cross(a, n)
    t1 /= np.linalg.norm(t1)
    return np.array([n, t1, np.cross(n, t1)])


def _skew(p):
    """(..., 3) -> (..., 3, 3) skew matrices."""
    p = np.asarray(p, float)
    z = np.zeros(p.shape[:-1])
    return np.stack([np.stack([z, -p[..., 2], p[..., 1]], -1),
                     np.stack([p[..., 2], z, -p[..., 0]], -1),
                     np.stack([-p[..., 1], p[..., 0], z], -1)], -2)


def contact_projectors(contacts: ContactSet) -> np.ndarray:
    """X_c (m, 3, 6): maps a world-origin spatial velocity (v_O, ω) of a body to the contact-frame
    velocity of the material point at p_c: R_c [I3, −skew(p_c)] (spec §2.4, note on eq. 3.38)."""
    return _projectors(np.ascontiguousarray(contacts.frames), np.ascontiguousarray(contacts.points))


@njit(cache=True)
def _projectors(R, P):
    m = R.shape[0]
    X = np.empty((m, 3, 6))
    for c in range(m):
        p = P[c]
        for i in range(3):
            r = R[c, i]
            X[c, i, 0], X[c, i, 1], X[c, i, 2] = r[0], r[1], r[2]
            # row i of −R skew(p) = (p × r_i)ᵀ
            X[c, i, 3] = p[1] * r[2] - p[2] * r[1]
            X[c, i, 4] = p[2] * r[0] - p[0] * r[2]
            X[c, i, 5] = p[0] * r[1] - p[1] * r[0]
    return X


_MASKS: dict = {}


def support_masks(model) -> np.ndarray:
    """(njoints, nv) bool: columns of the joints on the path root→joint (inclusive)."""
    key = id(model)
    hit = _MASKS.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    masks = np.zeros((model.njoints, model.nv), bool)
    for j in range(1, model.njoints):
        p = model.parents[j]
        masks[j] = masks[p]
        iv, nvj = model.joints[j].idx_v, model.joints[j].nv
        masks[j, iv:iv + nvj] = True
    _MASKS[key] = (model, masks)
    return masks


def contact_jacobian(model, data, contacts: ContactSet, q=None) -> np.ndarray:
    """J (3m, nv) of the relative contact velocities (rows n, t1, t2 per contact).

    If q is given, `pin.computeJointJacobians(model, data, q)` is called first; otherwise data.J
    (world-frame joint Jacobians) must be up to date for the current configuration."""
    if q is not None:
        pin.computeJointJacobians(model, data, q)
    Jw = data.J  # (6, nv) world frame, at the world origin
    masks = support_masks(model)
    X = contact_projectors(contacts)  # (m, 3, 6)
    Ja = np.einsum("kij,jn->kin", X, Jw) * masks[contacts.joint_a][:, None, :]
    if np.any(contacts.joint_b > 0):
        Ja = Ja - np.einsum("kij,jn->kin", X, Jw) * masks[contacts.joint_b][:, None, :]
    return Ja.reshape(3 * contacts.m, model.nv)


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
    W = np.empty((r, r))
    for a in range(r):
        for b in range(a, r):
            s = 0.0
            for i in rows:
                s += Z[i, a] * Y[i, b]
            W[a, b] = s
            W[b, a] = s
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


class CholeskyDelassus:
    """Default exact path: M from `pin.crba`, tree-sparse LᵀDL (numba), W = J M⁻¹ Jᵀ.

    >>> cd = CholeskyDelassus(model); W, MinvJt = cd(data, q, J)
    Pass `M` (symmetric, from the caller's own crba) to skip the crba call."""

    def __init__(self, model):
        self.model = model
        self.lam = dof_parents(model)

    def factor(self, data, q=None, M=None):
        if M is None:
            M = _mass_matrix(self.model, data, q)
        H = np.array(M, dtype=float, order="C")
        _ltdl(H, self.lam)
        return H

    def __call__(self, data, q, J, M=None):
        if M is None:
            M = _mass_matrix(self.model, data, q)
        H, ok = _factor_copy(M, self.lam)     # = factor(): one compiled call
        if not ok:
            raise SolverError(f"delassus: mass matrix is not positive definite at q = {np.asarray(q).tolist()}")
        W, MinvJt = _chol_delassus(H, self.lam, np.ascontiguousarray(J.T))
        return W, MinvJt


_CHOL: dict = {}


def delassus_cholesky(model, data, q, J, M=None):
    """W = J M⁻¹ Jᵀ (default fast exact path). Returns (W (3m, 3m), M⁻¹Jᵀ (nv, 3m))."""
    hit = _CHOL.get(id(model))
    if hit is None or hit.model is not model:
        hit = _CHOL[id(model)] = CholeskyDelassus(model)
    return hit(data, q, J, M)


# --------------------------------------------------------------------------- thesis tables
#: Spec ../shared/spec/000_chardonnet.md:244 (worked HRP-2 example, L1756–1758).
THESIS_HRP2_STANDING = dict(C=2, m=8, s=12, beta_m=48, alpha_C=12, beta_C=12)
#: Same-branch case (right hand + right forearm, spec ../shared/spec/000_chardonnet.md:253). The
#: thesis prints only the totals 6 323 / 7 590, not the parameters. These are OUR reconstruction:
#: the unique integer solution with C = 2 of Tables 3.2/3.3 = (6 323, 7 590) over m ≤ 16,
#: s, α_C < 30, β_C < 40 (searched exhaustively; see test_delassus.py).
THESIS_SAME_BRANCH = dict(C=2, m=8, s=6, beta_m=None, alpha_C=1, beta_C=11)


def thesis_operation_counts(C, m, s, beta_m=None, alpha_C=None, beta_C=None) -> dict:
    """Operation counts of Tables 3.1 (initial), 3.2 (Chang–Khatib), 3.3 (new); spec §2.4
    (../shared/spec/000_chardonnet.md:163-170, 195-202, 235-242). Returns
    {method: (mul_div, add_sub, total)} for the methods whose parameters are given."""
    proj = 27 * m * (m + 1) // 2  # m (m + 1) is always even
    out = {}
    if beta_m is not None:
        md = 144 * m + 39 * s * m + 36 * beta_m + proj
        ad = 99 * m + 36 * s * m + 21 * beta_m + proj
        out["initial"] = (md, ad, md + ad)
    if alpha_C is not None:
        md = 286 + 153 * s + 72 * alpha_C + 54 * C * m + proj
        ad = 235 + 179 * s + 66 * alpha_C + 54 * C * m + proj
        out["chang_khatib"] = (md, ad, md + ad)
    if beta_C is not None:
        md = 252 * C + 78 * C * s + 72 * beta_C + 54 * C * m + proj
        ad = 180 * C + 72 * C * s + 42 * beta_C + 54 * C * m + proj
        out["new"] = (md, ad, md + ad)
    return out


# --------------------------------------------------------------------------- recursive kernels
# Conventions of the kernels (spec §2.1 "all quantities in the world frame"): spatial vectors at
# the world origin, linear part first (Pinocchio's WORLD convention). Per joint k: S_k (6×nv_k)
# = world motion subspace (columns of data.J), IA_k = articulated inertia (data.oYaba after
# pin.aba(..., convention=WORLD)), U_k = IA_k S_k, Dinv_k = (S_kᵀ U_k)⁻¹, SD_k = S_k Dinv_k,
# PU_k = U_k Dinv_k. These are free-motion ABA quantities shared by all three methods and are
# not counted. Counters cnt[0] = multiplications/divisions, cnt[1] = additions/subtractions,
# incremented per matrix operation with its exact flop count.

@njit(cache=True)
def _aba_quantities(oMi, mass, lever, inertia, parent, S, idx_v, nvj, U, Dinv, SD, PU):
    """World-frame body inertias from the joint placements oMi (nj, 4, 4), then the ABA backward
    pass for articulated inertias IA_k and the per-joint U, Dinv, SD, PU (not counted: this is the
    free-motion ABA work that the thesis reuses, spec §2.4.3 and Appendix A)."""
    nj = parent.shape[0]
    IA = np.zeros((nj, 6, 6))
    for k in range(1, nj):
        R = np.ascontiguousarray(oMi[k, :3, :3])
        c = R @ lever[k] + oMi[k, :3, 3]
        Ic = R @ inertia[k] @ np.ascontiguousarray(R.T)
        mk = mass[k]
        sk = np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])
        for a in range(3):
            IA[k, a, a] = mk
        IA[k, :3, 3:] = -mk * sk
        IA[k, 3:, :3] = mk * sk
        IA[k, 3:, 3:] = Ic - mk * (sk @ sk)
    for k in range(nj - 1, 0, -1):
        n = nvj[k]
        iv = idx_v[k]
        for r in range(6):
            for c in range(n):
                s = 0.0
                for l in range(6):
                    s += IA[k, r, l] * S[l, iv + c]
                U[k, r, c] = s
        D = np.zeros((n, n))
        for a in range(n):
            for b in range(n):
                s = 0.0
                for l in range(6):
                    s += S[l, iv + a] * U[k, l, b]
                D[a, b] = s
        Di = np.linalg.inv(D)
        for a in range(n):
            for b in range(n):
                Dinv[k, a, b] = Di[a, b]
        for r in range(6):
            for c in range(n):
                s1 = 0.0
                s2 = 0.0
                for l in range(n):
                    s1 += S[r, iv + l] * Di[l, c]
                    s2 += U[k, r, l] * Di[l, c]
                SD[k, r, c] = s1
                PU[k, r, c] = s2
        p = parent[k]
        if p > 0:
            for r in range(6):
                for c in range(6):
                    s = 0.0
                    for l in range(n):
                        s += PU[k, r, l] * U[k, c, l]
                    IA[p, r, c] += IA[k, r, c] - s
    return IA


@njit(cache=True)
def _StF(S, iv, n, F, ncol, out, cnt):
    """out[:n,:ncol] = S_kᵀ F[:, :ncol]."""
    for a in range(n):
        for c in range(ncol):
            s = 0.0
            for l in range(6):
                s += S[l, iv + a] * F[l, c]
            out[a, c] = s
    cnt[0] += 6 * n * ncol
    cnt[1] += 5 * n * ncol


@njit(cache=True)
def _sub_AB(A, n, B, ncol, F, cnt):
    """F[:, :ncol] -= A[:, :n] B[:n, :ncol]  (A is 6×n)."""
    for r in range(6):
        for c in range(ncol):
            s = 0.0
            for l in range(n):
                s += A[r, l] * B[l, c]
            F[r, c] -= s
    cnt[0] += 6 * n * ncol
    cnt[1] += 6 * n * ncol


@njit(cache=True)
def _joint_accel(S, iv, n, U, Dinv, ap, u, has_u, ncol, ak, tmp, tmp2, cnt):
    """q̈ = Dinv (u − Uᵀ a_p);  a_k = a_p + S q̈   (ncol columns)."""
    for a in range(n):
        for c in range(ncol):
            s = 0.0
            for l in range(6):
                s += U[l, a] * ap[l, c]
            tmp[a, c] = (u[a, c] - s) if has_u else -s
    cnt[0] += 6 * n * ncol
    cnt[1] += (6 * n * ncol) if has_u else (5 * n * ncol)
    for a in range(n):
        for c in range(ncol):
            s = 0.0
            for l in range(n):
                s += Dinv[a, l] * tmp[l, c]
            tmp2[a, c] = s
    cnt[0] += n * n * ncol
    cnt[1] += n * (n - 1) * ncol
    for r in range(6):
        for c in range(ncol):
            s = ap[r, c]
            for l in range(n):
                s += S[r, iv + l] * tmp2[l, c]
            ak[r, c] = s
    cnt[0] += 6 * n * ncol
    cnt[1] += 6 * n * ncol


@njit(cache=True)
def _project(X, side_body, side_sign, nside, Omega, Lam, cnt):
    """Λ_cd = Σ_{sides} s_c s_d X_c Ω_{body_d → body_c} X_dᵀ, upper block triangle, mirrored.
    Omega[i, j] = J_j M⁻¹ J_iᵀ (acceleration of contact body j per unit wrench on i), stored
    for i ≤ j; Ω_{i→j} = Ω_{j→i}ᵀ."""
    m = X.shape[0]
    T = np.empty((6, 3))
    for c in range(m):
        for d in range(c, m):
            blk = np.zeros((3, 3))
            for sc in range(nside[c]):
                bc = side_body[c, sc]
                for sd in range(nside[d]):
                    bd = side_body[d, sd]
                    sg = side_sign[c, sc] * side_sign[d, sd]
                    # O = Ω_{bd → bc}
                    for r in range(6):
                        for k in range(3):
                            s = 0.0
                            for l in range(6):
                                if bd <= bc:
                                    s += Omega[bd, bc, r, l] * X[d, k, l]
                                else:
                                    s += Omega[bc, bd, l, r] * X[d, k, l]
                            T[r, k] = s
                    for a in range(3):
                        for k in range(3):
                            s = 0.0
                            for l in range(6):
                                s += X[c, a, l] * T[l, k]
                            blk[a, k] += sg * s
                    cnt[0] += 108 + 54 + 9
                    cnt[1] += 90 + 45 + 9
            for a in range(3):
                for k in range(3):
                    Lam[3 * c + a, 3 * d + k] = blk[a, k]
                    Lam[3 * d + k, 3 * c + a] = blk[a, k]


@njit(cache=True)
def _omega_new(parent, idx_v, nvj, S, U, Dinv, PU, cbodies, visit_ptr, visit, Omega, cnt):
    """New method (Algorithm 5): per contact body i, 6 unit wrenches, backward to the root
    along i's branch, forward from the root over the branches of contact bodies j ≥ i."""
    nj = parent.shape[0]
    C = cbodies.shape[0]
    u = np.zeros((nj, 6, 6))
    onpath = np.full(nj, -1)
    a = np.zeros((nj, 6, 6))
    F = np.empty((6, 6))
    tmp = np.empty((6, 6))
    tmp2 = np.empty((6, 6))
    for ii in range(C):
        F[:, :] = 0.0
        for r in range(6):
            F[r, r] = 1.0
        k = cbodies[ii]
        while k > 0:
            n = nvj[k]
            _StF(S, idx_v[k], n, F, 6, u[k], cnt)
            _sub_AB(PU[k], n, u[k], 6, F, cnt)
            onpath[k] = ii
            k = parent[k]
        for t in range(visit_ptr[ii], visit_ptr[ii + 1]):
            k = visit[t]
            p = parent[k]
            _joint_accel(S, idx_v[k], nvj[k], U[k], Dinv[k], a[p], u[k], onpath[k] == ii, 6,
                         a[k], tmp, tmp2, cnt)
        for jj in range(ii, C):
            Omega[ii, jj] = a[cbodies[jj]]


@njit(cache=True)
def _lam_initial(parent, idx_v, nvj, S, U, Dinv, PU, X, side_joint, side_sign, nside, Lam, cnt):
    """Initial method (Algorithm 3): per contact point, 3 unit forces (n, t1, t2), a full-tree
    backward pass and a full-tree forward pass, then Λ's column block by projection."""
    nj = parent.shape[0]
    m = X.shape[0]
    f = np.zeros((nj, 6, 3))
    u = np.zeros((nj, 6, 3))
    a = np.zeros((nj, 6, 3))
    tmp = np.empty((6, 3))
    tmp2 = np.empty((6, 3))
    for c in range(m):
        f[:, :, :] = 0.0
        for s in range(nside[c]):
            b = side_joint[c, s]
            for r in range(6):
                for k in range(3):
                    f[b, r, k] += side_sign[c, s] * X[c, k, r]
        for k in range(nj - 1, 0, -1):
            n = nvj[k]
            _StF(S, idx_v[k], n, f[k], 3, u[k], cnt)
            _sub_AB(PU[k], n, u[k], 3, f[k], cnt)
            p = parent[k]
            if p > 0:
                for r in range(6):
                    for q in range(3):
                        f[p, r, q] += f[k, r, q]
                cnt[1] += 18
        for k in range(1, nj):
            _joint_accel(S, idx_v[k], nvj[k], U[k], Dinv[k], a[parent[k]], u[k], True, 3,
                         a[k], tmp, tmp2, cnt)
        for d in range(c, m):
            for s in range(nside[d]):
                b = side_joint[d, s]
                sg = side_sign[d, s]
                for r in range(3):
                    for q in range(3):
                        acc = 0.0
                        for l in range(6):
                            acc += X[d, r, l] * a[b, l, q]
                        Lam[3 * d + r, 3 * c + q] += sg * acc
                cnt[0] += 54
                cnt[1] += 54
            for r in range(3):
                for q in range(3):
                    Lam[3 * c + q, 3 * d + r] = Lam[3 * d + r, 3 * c + q]


@njit(cache=True)
def _tomt(Om, U, SD, n, out, cnt):
    """out = T Ω Tᵀ with T = I − SD Uᵀ, via Ω − Ψ1 − Ψ1ᵀ + Ψ3 (spec §2.4.2 saving):
    Ψ1 = SD (Uᵀ Ω), Ψ3 = SD (Uᵀ Ω U) SDᵀ."""
    X1 = np.empty((6, 6))
    for a in range(n):
        for c in range(6):
            s = 0.0
            for l in range(6):
                s += U[l, a] * Om[l, c]
            X1[a, c] = s
    cnt[0] += 36 * n
    cnt[1] += 30 * n
    X3 = np.empty((6, 6))
    for a in range(n):
        for b in range(n):
            s = 0.0
            for l in range(6):
                s += X1[a, l] * U[l, b]
            X3[a, b] = s
    cnt[0] += 6 * n * n
    cnt[1] += 5 * n * n
    P1 = np.empty((6, 6))
    for r in range(6):
        for c in range(6):
            s = 0.0
            for l in range(n):
                s += SD[r, l] * X1[l, c]
            P1[r, c] = s
    cnt[0] += 36 * n
    cnt[1] += 36 * (n - 1)
    Y = np.empty((6, 6))  # SD X3
    for r in range(6):
        for b in range(n):
            s = 0.0
            for l in range(n):
                s += SD[r, l] * X3[l, b]
            Y[r, b] = s
    cnt[0] += 6 * n * n
    cnt[1] += 6 * n * (n - 1)
    for r in range(6):  # symmetric: upper triangle computed, mirrored
        for c in range(r, 6):
            s = 0.0
            for l in range(n):
                s += Y[r, l] * SD[c, l]
            v = Om[r, c] - P1[r, c] - P1[c, r] + s
            out[r, c] = v
            out[c, r] = v
    cnt[0] += 21 * n
    cnt[1] += 21 * (n - 1) + 63


@njit(cache=True)
def _omega_ck(parent, idx_v, nvj, S, U, SD, cbodies, visit_all, pair_ptr, pair_up, pair_down,
              Omega, cnt):
    """Chang–Khatib (Algorithm 4): Ω_kk = S D⁻¹ Sᵀ + T_k Ω_{h,h} T_kᵀ along the branches of the
    contact bodies (root → contact bodies), then Ω_{i→j} = T_j…T_c′ Ω_hh T_cᵀ…T_iᵀ through the
    nearest common ancestor h (T_k = ^{h}Lᵀ = I − S_k D_k⁻¹ H_kᵀ)."""
    nj = parent.shape[0]
    C = cbodies.shape[0]
    Od = np.zeros((nj, 6, 6))
    for t in range(visit_all.shape[0]):
        k = visit_all[t]
        n = nvj[k]
        iv = idx_v[k]
        _tomt(Od[parent[k]], U[k], SD[k], n, Od[k], cnt)
        for r in range(6):  # + S D⁻¹ Sᵀ = SD Sᵀ (symmetric)
            for c in range(r, 6):
                s = 0.0
                for l in range(n):
                    s += SD[k, r, l] * S[c, iv + l]
                Od[k, r, c] += s
                if c != r:
                    Od[k, c, r] += s
        cnt[0] += 21 * n
        cnt[1] += 21 * n
    B = np.empty((6, 6))
    G = np.empty((6, 6))
    pidx = 0
    for ii in range(C):
        Omega[ii, ii] = Od[cbodies[ii]]
        for jj in range(ii + 1, C):
            # pair (ii, jj): Ω_{i→j}; up-list: joints c..i (from h's child down to i), down-list
            # joints c'..j (from h's child down to j); B starts as Ω_hh.
            h = pair_up[pair_ptr[pidx]]  # first entry of the up-list is h itself
            B[:, :] = Od[h]
            for t in range(pair_ptr[pidx] + 1, pair_ptr[pidx + 1]):
                k = pair_up[t]
                if k < 0:
                    continue
                n = nvj[k]
                # B ← B T_kᵀ = B − (B U_k) SD_kᵀ
                for r in range(6):
                    for b in range(n):
                        s = 0.0
                        for l in range(6):
                            s += B[r, l] * U[k, l, b]
                        G[r, b] = s
                for r in range(6):
                    for c in range(6):
                        s = 0.0
                        for l in range(n):
                            s += G[r, l] * SD[k, c, l]
                        B[r, c] -= s
                cnt[0] += 72 * n
                cnt[1] += 30 * n + 36 * n
            for t in range(pair_ptr[pidx] + 1, pair_ptr[pidx + 1]):
                k = pair_down[t]
                if k < 0:
                    continue
                n = nvj[k]
                # B ← T_k B = B − SD_k (U_kᵀ B)
                for a in range(n):
                    for c in range(6):
                        s = 0.0
                        for l in range(6):
                            s += U[k, l, a] * B[l, c]
                        G[a, c] = s
                for r in range(6):
                    for c in range(6):
                        s = 0.0
                        for l in range(n):
                            s += SD[k, r, l] * G[l, c]
                        B[r, c] -= s
                cnt[0] += 72 * n
                cnt[1] += 30 * n + 36 * n
            Omega[ii, jj] = B
            pidx += 1


# --------------------------------------------------------------------------- recursive driver
METHODS = ("initial", "chang_khatib", "new")


class RecursiveDelassus:
    """The thesis's three recursive Λ algorithms on a Pinocchio model (spec §2.4).

    >>> rd = RecursiveDelassus(model)
    >>> rd.prepare(data, q)                    # free-motion articulated inertias (shared)
    >>> Lam, counts = rd.compute(contacts, "auto")   # or "initial", "chang_khatib", "new"
    `counts` = (mul_div, add_sub) performed by the recursion (Ω part + projection).
    `rd.last_method` tells what "auto" chose. `rd.predict_counts(contacts, method)` gives the
    same counts from the tree structure alone (no numerics); the selector uses it.
    """

    def __init__(self, model):
        self.model = model
        self.parent = np.array(model.parents, np.int64)
        self.idx_v = np.array([j.idx_v if i else 0 for i, j in enumerate(model.joints)], np.int64)
        self.nvj = np.array([j.nv if i else 0 for i, j in enumerate(model.joints)], np.int64)
        nj = model.njoints
        self.U = np.zeros((nj, 6, 6))
        self.Dinv = np.zeros((nj, 6, 6))
        self.SD = np.zeros((nj, 6, 6))
        self.PU = np.zeros((nj, 6, 6))
        self.mass = np.array([I.mass for I in model.inertias])
        self.lever = np.array([I.lever for I in model.inertias])
        self.inertia = np.array([I.inertia for I in model.inertias])
        self.S = None
        self._struct_cache: dict = {}
        self.last_method = None

    # ---- configuration-dependent, shared by all methods
    def prepare(self, data, q):
        """World-frame motion subspaces (pin.computeJointJacobians, which also updates
        data.oMi) and articulated inertias at q (our own ABA backward pass, numba)."""
        m = self.model
        pin.computeJointJacobians(m, data, q)
        self.S = np.ascontiguousarray(data.J)
        oMi = np.array([M.homogeneous for M in data.oMi])
        self.IA = _aba_quantities(oMi, self.mass, self.lever, self.inertia, self.parent, self.S,
                                  self.idx_v, self.nvj, self.U, self.Dinv, self.SD, self.PU)

    # ---- structure of a contact configuration
    def _ancestors(self, j):
        out = []
        while j > 0:
            out.append(j)
            j = self.parent[j]
        return out[::-1]  # root-side first

    def structure(self, contacts: ContactSet):
        key = contacts.joint_a.tobytes() + b"|" + contacts.joint_b.tobytes()
        st = self._struct_cache.get(key)
        if st is not None:
            return st
        bodies = sorted(set(contacts.joint_a.tolist()) | set(j for j in contacts.joint_b.tolist() if j > 0))
        cb = np.array(bodies, np.int64)
        pos = {b: i for i, b in enumerate(bodies)}
        m = contacts.m
        side_body = np.zeros((m, 2), np.int64)
        side_joint = np.zeros((m, 2), np.int64)
        side_sign = np.zeros((m, 2))
        nside = np.zeros(m, np.int64)
        for c in range(m):
            side_body[c, 0], side_joint[c, 0], side_sign[c, 0] = pos[contacts.joint_a[c]], contacts.joint_a[c], 1.0
            nside[c] = 1
            if contacts.joint_b[c] > 0:
                side_body[c, 1], side_joint[c, 1], side_sign[c, 1] = pos[contacts.joint_b[c]], contacts.joint_b[c], -1.0
                nside[c] = 2
        anc = [self._ancestors(b) for b in bodies]
        # new method: forward visit list for body ii = union of branches of bodies jj ≥ ii
        ptr = [0]
        visit = []
        for ii in range(len(bodies)):
            s = sorted(set().union(*[set(anc[jj]) for jj in range(ii, len(bodies))]))
            visit += s
            ptr.append(len(visit))
        visit_all = sorted(set().union(*[set(a) for a in anc])) if bodies else []
        # Chang–Khatib pair paths through the nearest common ancestor
        pair_ptr = [0]
        up, down = [], []
        for ii in range(len(bodies)):
            for jj in range(ii + 1, len(bodies)):
                ai, aj = anc[ii], anc[jj]
                k = 0
                while k < min(len(ai), len(aj)) and ai[k] == aj[k]:
                    k += 1
                h = ai[k - 1] if k > 0 else 0
                upl = ai[k:]   # from h's child down to i
                dnl = aj[k:]
                L = max(len(upl), len(dnl))
                up += [h] + upl + [-1] * (L - len(upl))
                down += [-1] + dnl + [-1] * (L - len(dnl))
                pair_ptr.append(len(up))
        st = dict(cb=cb, side_body=side_body, side_joint=side_joint, side_sign=side_sign,
                  nside=nside, visit_ptr=np.array(ptr, np.int64), visit=np.array(visit, np.int64),
                  visit_all=np.array(visit_all, np.int64), pair_ptr=np.array(pair_ptr, np.int64),
                  pair_up=np.array(up, np.int64), pair_down=np.array(down, np.int64), anc=anc)
        self._struct_cache[key] = st
        return st

    # ---- predicted counts (from the tree only), mirroring the kernels' counters
    def predict_counts(self, contacts: ContactSet, method: str):
        st = self.structure(contacts)
        nv = self.nvj
        md = ad = 0

        def accel(n, ncol, has_u):
            return (6 * n * ncol + n * n * ncol + 6 * n * ncol,
                    (6 * n * ncol if has_u else 5 * n * ncol) + n * (n - 1) * ncol + 6 * n * ncol)

        def back(n, ncol):
            return 12 * n * ncol, 11 * n * ncol

        m = contacts.m
        if method == "initial":
            nsides = st["nside"]
            for c in range(m):
                for k in range(1, self.model.njoints):
                    x, y = back(nv[k], 3)
                    md, ad = md + x, ad + y + (18 if self.parent[k] > 0 else 0)
                    x, y = accel(nv[k], 3, True)
                    md, ad = md + x, ad + y
                for d in range(c, m):
                    md += 54 * nsides[d]
                    ad += 54 * nsides[d]
            return int(md), int(ad)
        if method == "new":
            C = len(st["cb"])
            for ii in range(C):
                for k in st["anc"][ii]:
                    x, y = back(nv[k], 6)
                    md, ad = md + x, ad + y
                onp = set(st["anc"][ii])
                for t in range(st["visit_ptr"][ii], st["visit_ptr"][ii + 1]):
                    k = st["visit"][t]
                    x, y = accel(nv[k], 6, k in onp)
                    md, ad = md + x, ad + y
        elif method == "chang_khatib":
            for k in st["visit_all"]:
                n = nv[k]
                md += 36 * n + 6 * n * n + 36 * n + 6 * n * n + 21 * n + 21 * n
                ad += 30 * n + 5 * n * n + 36 * (n - 1) + 6 * n * (n - 1) + 21 * (n - 1) + 63 + 21 * n
            pp, up, dn = st["pair_ptr"], st["pair_up"], st["pair_down"]
            for p in range(len(pp) - 1):
                for t in range(pp[p] + 1, pp[p + 1]):
                    for k in (up[t], dn[t]):
                        if k >= 0:
                            md += 72 * nv[k]
                            ad += 66 * nv[k]
        else:
            raise SolverError(f"delassus: field 'method' must be one of {METHODS + ('auto',)}; value {method!r}")
        ns = st["nside"]
        for c in range(m):
            for d in range(c, m):
                md += 171 * ns[c] * ns[d]
                ad += 144 * ns[c] * ns[d]
        return int(md), int(ad)

    def select(self, contacts: ContactSet) -> str:
        """The cheaper (predicted total operations) of Chang–Khatib and new; ties go to new.
        Cached per contact configuration (the counts depend on the tree and the contact bodies
        only, not on q)."""
        st = self.structure(contacts)
        sel = st.get("selected")
        if sel is None:
            ck = sum(self.predict_counts(contacts, "chang_khatib"))
            nw = sum(self.predict_counts(contacts, "new"))
            sel = st["selected"] = "new" if nw <= ck else "chang_khatib"
        return sel

    # ---- compute
    def compute(self, contacts: ContactSet, method: str = "auto"):
        if self.S is None:
            raise SolverError("delassus: RecursiveDelassus.prepare(data, q) must be called before compute()")
        if method == "auto":
            method = self.select(contacts)
        if method not in METHODS:
            raise SolverError(f"delassus: field 'method' must be one of {METHODS + ('auto',)}; value {method!r}")
        self.last_method = method
        st = self.structure(contacts)
        X = contact_projectors(contacts)
        m = contacts.m
        Lam = np.zeros((3 * m, 3 * m))
        cnt = np.zeros(2, np.int64)
        if m == 0:
            return Lam, (0, 0)
        if method == "initial":
            _lam_initial(self.parent, self.idx_v, self.nvj, self.S, self.U, self.Dinv, self.PU, X,
                         st["side_joint"], st["side_sign"], st["nside"], Lam, cnt)
        else:
            C = len(st["cb"])
            Omega = np.zeros((C, C, 6, 6))
            if method == "new":
                _omega_new(self.parent, self.idx_v, self.nvj, self.S, self.U, self.Dinv, self.PU,
                           st["cb"], st["visit_ptr"], st["visit"], Omega, cnt)
            else:
                _omega_ck(self.parent, self.idx_v, self.nvj, self.S, self.U, self.SD, st["cb"],
                          st["visit_all"], st["pair_ptr"], st["pair_up"], st["pair_down"], Omega, cnt)
            _project(X, st["side_body"], st["side_sign"], st["nside"], Omega, Lam, cnt)
        return Lam, (int(cnt[0]), int(cnt[1]))
