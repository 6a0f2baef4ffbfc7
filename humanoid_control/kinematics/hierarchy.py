"""The numeric core of `humanoid_control.kinematics.prioritized`, compiled with numba: one solver
cycle on the stacked rows (step bounds, scaling, the levels in their null spaces, joint-limit
saturation and re-solves) in a single call, so the per-level and per-re-solve work costs no
Python or NumPy call overhead (docs/kinematics.md, "Benchmark").

The maths is `prioritized`'s (its module docstring): per level, A = J_k·P, G = A·Aᵀ, the step
Aᵀ·G_λ⁻¹·(r_k - J_k·du) and the projector P <- P - Aᵀ·G⁻¹·A. G's eigenvalues are the squared
singular values σ² of A. Three exact routes, chosen by Cholesky tests:

- undamped: when G - c·I is positive definite, c = max(ε², rank_tolerance²), every σ is above
  the damping threshold ε and the rank tolerance: λ = 0, no direction dropped, the step and the
  projector are G⁻¹ products (Cholesky);
- damped, full rank: when only G - rank_tolerance²·I is positive definite, σmin² comes from
  inverse iteration (Rayleigh quotient), λ² = λmax²·(1 - (σmin/ε)²), the step is
  Aᵀ·(G + λ²I)⁻¹·res and the projector Aᵀ·G⁻¹·A (Cholesky);
- rank deficient: the eigen-decomposition of G (Jacobi rotations, `_eigh`), σ below the rank
  tolerance zeroed, the damping rule as above.

All give the step of the σ/(σ²+λ²) inversion; they differ from one another by rounding. A last
level >= 3 (posture) solves its regularised normal equations (AᵀA + μ²I)·x = Aᵀ·res by Cholesky.
The kernels compile once (about a minute on a 2-core machine) into numba's cache.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["cycle"]

# reassociation (vectorised dot products) and fused multiply-add only: NaN and inf keep their
# IEEE meaning; results differ from the plain loops by rounding
_FAST = {"reassoc", "contract", "nsz", "arcp"}


@njit(cache=True, fastmath=_FAST)
def _cholesky(A, shift):
    """(L, ok): the lower Cholesky factor of A - shift·I; ok is False when that matrix is not
    positive definite (a pivot <= 0)."""
    n = A.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        s = A[j, j] - shift
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if s <= 0.0:
            return L, False
        d = np.sqrt(s)
        L[j, j] = d
        for i in range(j + 1, n):
            t = A[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / d
    return L, True


@njit(cache=True, fastmath=_FAST)
def _cho_solve(L, B):
    """X with L·Lᵀ·X = B (B (n, m), overwritten and returned; row-oriented: contiguous inner loops)."""
    n, c = B.shape
    for i in range(n):
        for k in range(i):
            a = L[i, k]
            if a != 0.0:
                for j in range(c):
                    B[i, j] -= a * B[k, j]
        d = 1.0 / L[i, i]
        for j in range(c):
            B[i, j] *= d
    for i in range(n - 1, -1, -1):
        for k in range(i + 1, n):
            a = L[k, i]
            if a != 0.0:
                for j in range(c):
                    B[i, j] -= a * B[k, j]
        d = 1.0 / L[i, i]
        for j in range(c):
            B[i, j] *= d
    return B


@njit(cache=True, fastmath=_FAST)
def _cho_solve_vec(L, b):
    """x with L·Lᵀ·x = b (b (n,), overwritten and returned): both substitutions read rows of L
    (contiguous), the second as column updates."""
    n = b.shape[0]
    for i in range(n):
        t = b[i]
        for k in range(i):
            t -= L[i, k] * b[k]
        b[i] = t / L[i, i]
    for i in range(n - 1, -1, -1):
        b[i] /= L[i, i]
        x = b[i]
        for k in range(i):
            b[k] -= L[i, k] * x
    return b


@njit(cache=True, fastmath=_FAST)
def _residual(Jk, rk, du):
    """rk - Jk·du, skipping Jk's zero entries."""
    m, n = Jk.shape
    out = rk.copy()
    for i in range(m):
        t = 0.0
        for k in range(n):
            t += Jk[i, k] * du[k]
        out[i] -= t
    return out


@njit(cache=True, fastmath=_FAST)
def _add_rows(du, A, y):
    """du += Aᵀ·y (rows of A weighted by y)."""
    for k in range(A.shape[0]):
        a = y[k]
        for j in range(A.shape[1]):
            du[j] += a * A[k, j]


@njit(cache=True, fastmath=_FAST)
def _rows_times(Jk, P):
    """Jk·P, skipping Jk's zero entries (a frame's rows touch only its chain's columns; posture
    rows are unit rows)."""
    m, n = Jk.shape
    out = np.zeros((m, P.shape[1]))
    for i in range(m):
        for k in range(n):
            a = Jk[i, k]
            if a != 0.0:
                for j in range(P.shape[1]):
                    out[i, j] += a * P[k, j]
    return out


@njit(cache=True, fastmath=_FAST)
def _gram(A):
    """A·Aᵀ (symmetric: one half computed, mirrored)."""
    m, n = A.shape
    G = np.empty((m, m))
    for i in range(m):
        for j in range(i + 1):
            t = 0.0
            for k in range(n):
                t += A[i, k] * A[j, k]
            G[i, j] = t
            G[j, i] = t
    return G


@njit(cache=True, fastmath=_FAST)
def _gram_projected(A, Jk):
    """A·Jkᵀ = Jk·P·Jkᵀ = A·Aᵀ for A = Jk·P and P a symmetric projector (P = P·Pᵀ): row dot
    products (contiguous, vectorised), one half computed, mirrored."""
    m, n = A.shape
    G = np.empty((m, m))
    for i in range(m):
        for j in range(i + 1):
            t = 0.0
            for k in range(n):
                t += A[i, k] * Jk[j, k]
            G[i, j] = t
            G[j, i] = t
    return G


@njit(cache=True, fastmath=_FAST)
def _normal(A):
    """Aᵀ·A (n, n) by row updates (contiguous inner loops, A's zero entries skipped); the lower
    half computed, mirrored."""
    m, n = A.shape
    H = np.zeros((n, n))
    for k in range(m):
        for i in range(n):
            a = A[k, i]
            if a != 0.0:
                for j in range(i + 1):
                    H[i, j] += a * A[k, j]
    for i in range(n):
        for j in range(i):
            H[j, i] = H[i, j]
    return H


@njit(cache=True, fastmath=_FAST)
def _normal_unit_rows(Jk, P):
    """Aᵀ·A for A = Jk·P when every row of Jk has at most one nonzero entry (posture and joint
    rows), else an empty matrix. Then AᵀA = P·D·P with D = diag(column sums of Jk²), and with P a
    symmetric projector (P·P = P) and c the first nonzero d: P·D·P = c·P + Σ_{d_j≠c} (d_j - c)·p_j·p_jᵀ
    (p_j: row j of P), one rank-one update per column whose d differs from c (HRP-2's posture:
    the 6 free-flyer columns instead of 30 rows). Used when that is fewer updates than rows."""
    m, n = Jk.shape
    d = np.zeros(n)
    for i in range(m):
        hit = False
        for j in range(n):
            a = Jk[i, j]
            if a != 0.0:
                if hit:
                    return np.empty((0, 0))
                hit = True
                d[j] += a * a
    c = 0.0
    for j in range(n):
        if d[j] != 0.0:
            c = d[j]
            break
    updates = 0
    for j in range(n):
        if d[j] != c:
            updates += 1
    if updates >= m:
        return np.empty((0, 0))
    H = np.empty((n, n))
    for i in range(n):
        for j in range(i + 1):
            H[i, j] = c * P[i, j]
    for k in range(n):
        f = d[k] - c
        if f != 0.0:
            for i in range(n):
                a = f * P[k, i]
                if a != 0.0:
                    for j in range(i + 1):
                        H[i, j] += a * P[k, j]
    for i in range(n):
        for j in range(i):
            H[j, i] = H[i, j]
    return H


@njit(cache=True)
def _is_eye(P):
    """Whether P is exactly the identity (no level above: A = Jk, no product needed)."""
    n = P.shape[0]
    for i in range(n):
        for j in range(n):
            if P[i, j] != (1.0 if i == j else 0.0):
                return False
    return True


@njit(cache=True, fastmath=_FAST)
def _sub_cross(P, A, X):
    """P <- P - Aᵀ·X for the symmetric result of a projector update (X = G⁻¹·A): the lower half
    computed, mirrored."""
    m, n = A.shape
    for k in range(m):
        for i in range(n):
            a = A[k, i]
            if a != 0.0:
                for j in range(i + 1):
                    P[i, j] -= a * X[k, j]
    for i in range(n):
        for j in range(i):
            P[j, i] = P[i, j]


@njit(cache=True, fastmath=_FAST)
def _smallest_eigenvalue(G, L):
    """The smallest eigenvalue of the positive definite G (L: its Cholesky factor), by inverse
    iteration with the Rayleigh quotient (which is >= the eigenvalue and converges to it even when
    the two smallest are close), to 1e-14 relative or 200 iterations. One vector updated in place
    (no temporaries: each iteration is a Cholesky solve and a product with G)."""
    m = G.shape[0]
    x = np.empty(m)
    for i in range(m):
        x[i] = 1.0 + 0.37 * i  # (chosen) any start not orthogonal to the eigenvector
    rq = np.inf
    for _ in range(200):
        _cho_solve_vec(L, x)  # x <- G⁻¹·x
        n2 = 0.0
        for i in range(m):
            n2 += x[i] * x[i]
        inv = 1.0 / np.sqrt(n2)
        for i in range(m):
            x[i] *= inv
        new = 0.0
        for i in range(m):
            t = 0.0
            for k in range(m):
                t += G[i, k] * x[k]
            new += x[i] * t
        if abs(rq - new) <= 1e-14 * new:
            return new
        rq = new
    return rq


@njit(cache=True)
def _eigh(G):
    """(w ascending, U): eigen-decomposition of the symmetric G by cyclic Jacobi rotations (small
    matrices; accurate to rounding for every eigenvalue, zero ones included), until the squared
    off-diagonal norm is below 1e-32 of the squared Frobenius norm (at most 60 sweeps)."""
    n = G.shape[0]
    A = G.copy()
    V = np.eye(n)
    fro2 = 0.0
    for i in range(n):
        for j in range(n):
            fro2 += A[i, j] * A[i, j]
    for _ in range(60):
        off = 0.0
        for p in range(n):
            for q in range(p + 1, n):
                off += A[p, q] * A[p, q]
        if off <= 1e-32 * fro2:
            break
        for p in range(n - 1):
            for q in range(p + 1, n):
                apq = A[p, q]
                if apq == 0.0:
                    continue
                theta = (A[q, q] - A[p, p]) / (2.0 * apq)
                if abs(theta) > 1e150:
                    t = 0.5 / theta
                else:
                    t = (1.0 if theta >= 0.0 else -1.0) / (abs(theta) + np.sqrt(theta * theta + 1.0))
                c = 1.0 / np.sqrt(t * t + 1.0)
                s = t * c
                for k in range(n):
                    akp, akq = A[k, p], A[k, q]
                    A[k, p] = c * akp - s * akq
                    A[k, q] = s * akp + c * akq
                for k in range(n):
                    apk, aqk = A[p, k], A[q, k]
                    A[p, k] = c * apk - s * aqk
                    A[q, k] = s * apk + c * aqk
                for k in range(n):
                    vkp, vkq = V[k, p], V[k, q]
                    V[k, p] = c * vkp - s * vkq
                    V[k, q] = s * vkp + c * vkq
    w = np.empty(n)
    for i in range(n):
        w[i] = A[i, i]
    order = np.argsort(w)
    return w[order].copy(), np.ascontiguousarray(V[:, order])


@njit(cache=True)
def _level(Jk, rk, du, P, last, rest, tol2, eps2, lam2max, reg2):
    """Add level (Jk, rk)'s step, in the null space P of the levels above, to ``du``; shrink P
    (unless ``last``). ``rest``: the last posture level, by regularised normal equations."""
    m, nv = Jk.shape
    if m == 0:
        return
    res = _residual(Jk, rk, du)
    if rest:  # (AᵀA + μ²I)·x = Aᵀ·res: the column-space form (the row-space form Aᵀ·(A·Aᵀ + μ²I)⁻¹·res
        # multiplies the residual's part outside A's range by 1/μ² before Aᵀ cancels it: 1e-8 errors)
        H = _normal_unit_rows(Jk, P)
        b = np.zeros(nv)
        if H.shape[0] == 0:
            A = Jk.copy() if _is_eye(P) else _rows_times(Jk, P)
            H = _normal(A)
            for k in range(m):
                for j in range(nv):
                    b[j] += A[k, j] * res[k]
        else:  # unit rows: Aᵀ·res = P·(Jkᵀ·res), Jk's one entry per row
            g = np.zeros(nv)
            for k in range(m):
                for j in range(nv):
                    if Jk[k, j] != 0.0:
                        g[j] += Jk[k, j] * res[k]
            for i in range(nv):
                t = 0.0
                for j in range(nv):
                    t += P[i, j] * g[j]
                b[i] = t
        for i in range(nv):
            H[i, i] += reg2
        L, ok = _cholesky(H, 0.0)
        if ok:  # always, but with non-finite rows: H is positive definite by construction (μ² > 0)
            du += _cho_solve_vec(L, b)
        return
    A = Jk.copy() if _is_eye(P) else _rows_times(Jk, P)
    G = _gram(A) if m > nv else _gram_projected(A, Jk)
    L, ok = _cholesky(G, max(eps2, tol2))
    lam2 = 0.0
    if not ok and eps2 > tol2:  # some σ < ε: damped; all kept when G - tol²·I is positive definite
        L, ok = _cholesky(G, tol2)
        if ok:
            L, ok = _cholesky(G, 0.0)
        if ok:
            smin2 = _smallest_eigenvalue(G, L)
            lam2 = 0.0 if smin2 >= eps2 else lam2max * (1.0 - smin2 / eps2)
    elif ok:  # every σ > ε: no damping, full rank
        L, ok = _cholesky(G, 0.0)
    if ok:
        B = np.empty((m, 1 if last else nv + 1))
        B[:, 0] = res
        if not last:
            B[:, 1:] = A
        X = _cho_solve(L, B)  # G⁻¹·[res, A]
        if lam2 > 0.0:
            Ld, okd = _cholesky(G, -lam2)
            y = _cho_solve_vec(Ld, res.copy())  # (G + λ²I)⁻¹·res
        else:
            y = X[:, 0].copy()
        _add_rows(du, A, y)
        if not last:
            _sub_cross(P, A, X[:, 1:])
        return
    w, U = _eigh(G)
    first = m
    for i in range(m):
        if w[i] > tol2:
            first = i
            break
    if first == m:
        return
    wk = w[first:]
    Uk = np.ascontiguousarray(U[:, first:])
    smin2 = wk[0]
    lam2 = 0.0 if smin2 >= eps2 else lam2max * (1.0 - smin2 / eps2)
    y = (Uk.T @ res) / (wk + lam2)
    du += A.T @ (Uk @ y)
    if not last:
        V = (A.T @ Uk) / np.sqrt(wk)
        P -= V @ V.T


@njit(cache=True)
def _scale(J, e, row_scale, weight, gain, linear, task_start, col_scale, bound_lin, bound_ang):
    """Scale J in place and return r: each task's error shortened to the step bounds (position
    rows to ``bound_lin``, rotation rows to ``bound_ang``), r = -gain·e·w, J <- w·J·col_scale."""
    m, nv = J.shape
    r = np.empty(m)
    fast = min(bound_lin, bound_ang) ** 2
    for t in range(task_start.shape[0] - 1):
        a, b = task_start[t], task_start[t + 1]
        n2, nl, na = 0.0, 0.0, 0.0
        for i in range(a, b):
            n2 += e[i] * e[i]
            if linear[i]:
                nl += e[i] * e[i]
            else:
                na += e[i] * e[i]
        fl, fa = 1.0, 1.0
        if n2 > fast:
            nl, na = np.sqrt(nl), np.sqrt(na)
            if nl > bound_lin:
                fl = bound_lin / nl
            if na > bound_ang:
                fa = bound_ang / na
        for i in range(a, b):
            w = row_scale[i] * weight[t]
            r[i] = -(gain[t] * (e[i] * (fl if linear[i] else fa)) * w)
            for j in range(nv):
                J[i, j] = J[i, j] * w * col_scale[j]
    return r


@njit(cache=True)
def _run(J, r, lev_start, lev_num, k0, du, P, sat, sat_r, nsat, settings):
    """Levels k0.. of (J, r), the saturation rows (unit rows ``sat[:nsat]``, steps ``sat_r``)
    inserted before level k0 when ``nsat`` > 0 (or after level 0 when k0 = 0 and it is the only
    level 1), updating du and P in place."""
    tol2, eps2, lam2max, reg2 = settings[0], settings[1], settings[2], settings[3]
    nlev = lev_num.shape[0]
    nv = J.shape[1]
    Js = np.zeros((nsat, nv))
    for i in range(nsat):
        Js[i, sat[i]] = 1.0
    rs = sat_r[:nsat].copy()
    only_first = nsat > 0 and nlev == 1 and lev_num[0] == 1
    if nsat > 0 and not only_first:
        _level(Js, rs, du, P, False, False, tol2, eps2, lam2max, reg2)
    for k in range(k0, nlev):
        last = k == nlev - 1 and not only_first
        rest = last and lev_num[k] >= 3
        _level(J[lev_start[k] : lev_start[k + 1]], r[lev_start[k] : lev_start[k + 1]], du, P, last, rest,
               tol2, eps2, lam2max, reg2)  # fmt: skip
    if only_first:
        _level(Js, rs, du, P, True, False, tol2, eps2, lam2max, reg2)


@njit(cache=True)
def cycle(J, e, row_scale, weight, gain, linear, task_start, lev_start, lev_num, col_scale, bounds, q, lq, lv,
          lo, hi, clamp, max_iter, settings, sat, du, r):  # fmt: skip
    """One `prioritized` cycle on the stacked raw rows J (m, nv) and errors e (m,) of the tasks
    (row offsets ``task_start``) sorted by level (row offsets ``lev_start``, level numbers
    ``lev_num``). J is scaled in place. ``settings`` = (rank_tolerance², ε², λmax²,
    REST_REGULARISATION²); ``bounds`` = (MAX_STEP_LINEAR, MAX_STEP_ANGULAR). Joint limits: bounded
    q indices ``lq``, v indices ``lv``, bounds ``lo``/``hi`` (margin included).

    Writes the scaled step into ``du`` (nv,) and the right-hand side into ``r`` (m,) (outputs passed
    in: arrays returned to Python cost a boxing each); returns (nsat, iterations), ``sat[:nsat]``
    being the saturated joints' v indices in the order they were saturated."""
    nv = J.shape[1]
    r[:] = _scale(J, e, row_scale, weight, gain, linear, task_start, col_scale, bounds[0], bounds[1])
    nlev = lev_num.shape[0]
    du[:] = 0.0
    P = np.eye(nv)
    sat_r = np.zeros(max(lv.shape[0], 1))
    nsat, iterations = 0, 0
    # iteration 0: every level; (du, P) after level 1 are kept for the re-solves
    if nlev == 1:
        _run(J, r, lev_start, lev_num, 0, du, P, sat, sat_r, 0, settings)
    else:
        k1 = lev_start[1]
        _level(J[:k1], r[:k1], du, P, False, False, settings[0], settings[1], settings[2], settings[3])
    du1, P1 = du.copy(), P.copy()
    if nlev > 1:
        _run(J, r, lev_start, lev_num, 1, du, P, sat, sat_r, 0, settings)
    first = nlev > 1 and lev_num[0] == 1
    if clamp and lv.shape[0] > 0:
        for it in range(max_iter + 1):
            iterations = it
            if it > 0:
                if first:  # level 1 is kept: restart after it
                    du[:] = du1
                    P[:, :] = P1
                    _run(J, r, lev_start, lev_num, 1, du, P, sat, sat_r, nsat, settings)
                else:
                    du[:] = 0.0
                    P[:, :] = np.eye(nv)
                    _run(J, r, lev_start, lev_num, 0, du, P, sat, sat_r, nsat, settings)
            added = 0
            n0 = nsat
            for k in range(lv.shape[0]):
                v = lv[k]
                qn = q[lq[k]] + du[v] * col_scale[v]
                if qn > hi[k] or qn < lo[k]:
                    seen = False
                    for i in range(n0):
                        if sat[i] == v:
                            seen = True
                    if not seen:
                        sat[nsat] = v
                        sat_r[nsat] = (min(max(qn, lo[k]), hi[k]) - q[lq[k]]) / col_scale[v]
                        nsat += 1
                        added += 1
            if added == 0:
                break
        for k in range(lv.shape[0]):  # what still crosses (the loops needed it) is clipped
            v = lv[k]
            qk = q[lq[k]]
            qn = qk + du[v] * col_scale[v]
            qn = min(max(qn, min(lo[k], qk)), max(hi[k], qk))
            du[v] = (qn - qk) / col_scale[v]
    return nsat, iterations
