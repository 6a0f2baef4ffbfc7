"""Numba kernels of the thesis's recursive Delassus algorithms (Chardonnet
2009, §3.2, Algorithms 3–5), driven by
`humanoid_sim.delassus.recursive.RecursiveDelassus`: the free-motion ABA quantities, the three
Ω recursions (initial, Chang–Khatib, new) and the projection Λ = Σ s_c s_d X_c Ω X_dᵀ, each with
exact operation counters.

Reference code, not on the simulator's step (with `humanoid_sim.delassus.recursive`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__: list[str] = []  # kernels only; see humanoid_sim.delassus.recursive

# Conventions of the kernels (Chardonnet 2009, §3.2: all quantities in the world frame): spatial vectors at
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
    free-motion ABA work that the thesis's new method reuses, Chardonnet 2009, §3.2.3)."""
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
            _joint_accel(S, idx_v[k], nvj[k], U[k], Dinv[k], a[p], u[k], onpath[k] == ii, 6, a[k], tmp, tmp2, cnt)
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
            _joint_accel(S, idx_v[k], nvj[k], U[k], Dinv[k], a[parent[k]], u[k], True, 3, a[k], tmp, tmp2, cnt)
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
    """out = T Ω Tᵀ with T = I − SD Uᵀ, via Ω − Ψ1 − Ψ1ᵀ + Ψ3 (the saving of Chardonnet 2009, §3.2.2):
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
def _omega_ck(parent, idx_v, nvj, S, U, SD, cbodies, visit_all, pair_ptr, pair_up, pair_down, Omega, cnt):
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
