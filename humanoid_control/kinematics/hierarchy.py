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

All give the step of the σ/(σ²+λ²) inversion; they differ from one another by rounding. The
projector update is P - Wᵀ·W with W = L⁻¹·A (L: G's Cholesky factor; W's rows are orthonormal),
or P - V·Vᵀ with V's columns re-orthonormalised in the eigen-decomposition route, so P stays a
projector to rounding.

A last level >= 3 (posture) solves its regularised normal equations (AᵀA + μ²I)·x = Aᵀ·res in P's
range, where x lies: with unit rows (posture, joints) by a k×k system, k the columns whose row
weight differs from the first (HRP-2: the 6 free-flyer columns, `_rest_unit_rows`), otherwise by
Cholesky over every column followed by P·x. Either way the rounding of Aᵀ·res outside P's range,
which the plain normal equations amplify by 1/μ², is dropped (`test_kin_hierarchy.py` checks the
step against an SVD reference to 1e-11).

`cycle` calls `_pass`, and `_pass` calls `_level`, from one site each with arguments computed at
run time: numba compiles one specialisation per distinct constant argument. The kernels compile
once into numba's cache (about 40-60 s on the shared 2-core machine, half the earlier version's).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from humanoid_control.kinematics.frame_rows import _rows
from humanoid_control.kinematics.task_rows import _task_rows

__all__ = ["cycle", "no_rows"]

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


@njit(cache=True)
def _solve_small(M, b):
    """x with M·x = b for a small square M (Gaussian elimination with partial pivoting; M and b
    overwritten); ok is False when a pivot is exactly 0."""
    n = M.shape[0]
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(M[i, k]) > abs(M[p, k]):
                p = i
        if M[p, k] == 0.0:
            return b, False
        if p != k:
            for j in range(n):
                M[k, j], M[p, j] = M[p, j], M[k, j]
            b[k], b[p] = b[p], b[k]
        for i in range(k + 1, n):
            f = M[i, k] / M[k, k]
            if f != 0.0:
                for j in range(k, n):
                    M[i, j] -= f * M[k, j]
                b[i] -= f * b[k]
    for i in range(n - 1, -1, -1):
        t = b[i]
        for j in range(i + 1, n):
            t -= M[i, j] * b[j]
        b[i] = t / M[i, i]
    return b, True


@njit(cache=True, fastmath=_FAST)
def _rest_unit_rows(Jk, res, du, P, reg2):
    """The rest level's step when every row of Jk has at most one nonzero entry (posture and joint
    rows), added to du; False (nothing done) otherwise or when it would not be cheaper.

    Then AᵀA = P·D·P for A = Jk·P, D = diag(d), d_j = Σ_i Jk[i, j]² (JkᵀJk is diagonal), and
    Aᵀ·res = P·g, g = Jkᵀ·res. The solution x of (AᵀA + μ²I)·x = P·g lies in P's range, where
    P·D·P·x = c·x + Σ_{j∈K} (d_j - c)·x_j·p_j (P a symmetric projector, p_j its column j, c the
    first nonzero d, K the columns whose d differs from c: HRP-2's posture, the 6 free-flyer
    columns). So x = (P·g - F·E·z)/(c + μ²) with F = P[:, K], E = diag(d_K - c) and z = x_K the
    solution of the k×k system ((c + μ²)·I + P[K, K]·E)·z = (P·g)_K: no n×n factorisation, and no
    division by μ² (the n×n normal equations amplify the rounding of P·g outside P's range by 1/μ²)."""
    m, n = Jk.shape
    d = np.zeros(n)
    g = np.zeros(n)
    for i in range(m):
        hit = False
        for j in range(n):
            a = Jk[i, j]
            if a != 0.0:
                if hit:
                    return False
                hit = True
                d[j] += a * a
                g[j] += a * res[i]
    c = 0.0
    for j in range(n):
        if d[j] != 0.0:
            c = d[j]
            break
    k = 0
    for j in range(n):
        if d[j] != c:
            k += 1
    if c == 0.0 or k >= m:
        return False
    K = np.empty(k, np.int64)
    k = 0
    for j in range(n):
        if d[j] != c:
            K[k] = j
            k += 1
    b = np.empty(n)
    for i in range(n):
        t = 0.0
        for j in range(n):
            t += P[i, j] * g[j]
        b[i] = t
    cm = c + reg2
    M = np.empty((k, k))
    z = np.empty(k)
    for a in range(k):
        for j in range(k):
            M[a, j] = P[K[a], K[j]] * (d[K[j]] - c)
        M[a, a] += cm
        z[a] = b[K[a]]
    z, ok = _solve_small(M, z)
    if not ok:
        return False
    for j in range(k):
        f = (d[K[j]] - c) * z[j]
        for i in range(n):
            b[i] -= f * P[i, K[j]]
    for i in range(n):
        du[i] += b[i] / cm
    return True


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
def _forward(L, A):
    """W = L⁻¹·A (forward substitution, row-oriented: contiguous inner loops)."""
    m, n = A.shape
    W = A.copy()
    for i in range(m):
        for k in range(i):
            a = L[i, k]
            if a != 0.0:
                for j in range(n):
                    W[i, j] -= a * W[k, j]
        d = 1.0 / L[i, i]
        for j in range(n):
            W[i, j] *= d
    return W


@njit(cache=True, fastmath=_FAST)
def _sub_gram(P, W):
    """P <- P - Wᵀ·W (the lower half computed, mirrored). With W = L⁻¹·A (G = A·Aᵀ = L·Lᵀ) this is
    the projector update P - Aᵀ·G⁻¹·A; W's rows are orthonormal, so the new P stays a projector to
    rounding of order ε·cond(L) (ε·cond(G) through Aᵀ·(G⁻¹·A))."""
    m, n = W.shape
    for k in range(m):
        for i in range(n):
            a = W[k, i]
            if a != 0.0:
                for j in range(i + 1):
                    P[i, j] -= a * W[k, j]
    for i in range(n):
        for j in range(i):
            P[j, i] = P[i, j]


@njit(cache=True)
def _orthonormalise(V):
    """V's columns made orthonormal in place (modified Gram-Schmidt, two passes): they are in exact
    arithmetic, and the projector update P - V·Vᵀ needs it to rounding."""
    n, r = V.shape
    for _ in range(2):
        for j in range(r):
            for i in range(j):
                t = 0.0
                for k in range(n):
                    t += V[k, i] * V[k, j]
                for k in range(n):
                    V[k, j] -= t * V[k, i]
            t = 0.0
            for k in range(n):
                t += V[k, j] * V[k, j]
            t = 1.0 / np.sqrt(t)
            for k in range(n):
                V[k, j] *= t


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
        if _rest_unit_rows(Jk, res, du, P, reg2):
            return
        eye = _is_eye(P)
        A = Jk.copy() if eye else _rows_times(Jk, P)
        H = _normal(A)
        b = np.zeros(nv)
        for k in range(m):
            for j in range(nv):
                b[j] += A[k, j] * res[k]
        for i in range(nv):
            H[i, i] += reg2
        L, ok = _cholesky(H, 0.0)
        if ok:  # always, but with non-finite rows: H is positive definite by construction (μ² > 0)
            x = _cho_solve_vec(L, b)
            if eye:
                du += x
            else:  # x lies in P's range: P·x drops the rounding of b outside it, amplified by 1/μ²
                for i in range(nv):
                    t = 0.0
                    for j in range(nv):
                        t += P[i, j] * x[j]
                    du[i] += t
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
        if lam2 > 0.0:
            Ld, okd = _cholesky(G, -lam2)
            y = _cho_solve_vec(Ld, res.copy())  # (G + λ²I)⁻¹·res
        else:
            y = _cho_solve_vec(L, res.copy())  # G⁻¹·res
        _add_rows(du, A, y)
        if not last:
            _sub_gram(P, _forward(L, A))  # P - Aᵀ·G⁻¹·A
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
        _orthonormalise(V)
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
def _pass(J, r, lev_start, lev_num, k0, k1, final, sat_last, du, P, sat, sat_r, nsat, settings):
    """Levels k0..k1-1 of (J, r) in order, with the saturation rows (unit rows ``sat[:nsat]``,
    steps ``sat_r``) as one more level before them, or after them when ``sat_last``; du and P
    updated in place. When ``final``, the pass's last level is the solve's last (no projector
    update; the rest level when it is a level >= 3). One call site of `_level` with flags computed
    at run time: numba compiles a call with a constant argument as a specialisation of its own
    (about 10 s of compilation each on a 2-core machine)."""
    tol2, eps2, lam2max, reg2 = settings[0], settings[1], settings[2], settings[3]
    nv = J.shape[1]
    Js = np.zeros((nsat, nv))
    for i in range(nsat):
        Js[i, sat[i]] = 1.0
    rs = sat_r[:nsat].copy()
    blocks = k1 - k0 + (1 if nsat > 0 else 0)
    sat_at = -1 if nsat == 0 else (blocks - 1 if sat_last else 0)
    k = k0
    for i in range(blocks):
        last = final and i == blocks - 1
        if i == sat_at:
            Jk, rk, rest = Js, rs, nsat < 0  # (a runtime False, see the docstring)
        else:
            Jk, rk = J[lev_start[k] : lev_start[k + 1]], r[lev_start[k] : lev_start[k + 1]]
            rest = last and lev_num[k] >= 3
            k += 1
        _level(Jk, rk, du, P, last, rest, tol2, eps2, lam2max, reg2)


@njit(cache=True)
def cycle(Jw, F, ia, ib, ref, kind, support, start, com, Jcom, com_start, com_target, joint_start, joint_count, iq,
          iv, joint_target, J, e, row_scale, weight, gain, linear, task_start, lev_start, lev_num, col_scale, bounds,
          q, lq, lv, lo, hi, clamp, max_iter, settings, sat, du, r, dq):  # fmt: skip
    """One `prioritized` cycle, the solver's one compiled call: the frame constraints' rows
    (`frame_rows._rows`, its arguments first: `FrameRows.inputs`) and the CoM and joint tasks' rows
    (`task_rows._task_rows`: `TaskRows.inputs`) written into J (m, nv) and e (m,) (the other tasks'
    rows are already there), then the step on the stacked raw rows of the tasks (row offsets
    ``task_start``) sorted by level (row offsets ``lev_start``, level numbers ``lev_num``). J is
    scaled in place. ``settings`` = (rank_tolerance², ε², λmax², REST_REGULARISATION²); ``bounds``
    = (MAX_STEP_LINEAR, MAX_STEP_ANGULAR). Joint limits: bounded q indices ``lq``, v indices ``lv``,
    bounds ``lo``/``hi`` (margin included).

    Writes the step into ``du`` (nv,) in the solver's scaled units and into ``dq`` (nv,) in the
    structure's, and the right-hand side into ``r`` (m,) (outputs passed in: arrays returned to
    Python cost a boxing each); returns (nsat, iterations), ``sat[:nsat]`` being the saturated
    joints' v indices in the order they were saturated.

    The saturation rows go right after level 1 when the first level is level 1 and there are
    others (the loops keep priority over the limits, the limits over the commands): the re-solves
    restart from the step and projector kept after level 1. Otherwise they go first (no level 1:
    before every level), or last when level 1 is the only level.

    One entry point on purpose: numba re-optimises every callee inside each compiled caller, so a
    second compiled function wrapping this one would compile it twice (about a minute each on a
    fresh 2-core machine). This file's cache does not see edits of `frame_rows` or `task_rows`:
    `make clean-numba` after editing them (DEVELOPERS.md)."""
    _rows(Jw, F, ia, ib, ref, kind, support, start, J, e)
    _task_rows(com, Jcom, com_start, com_target, joint_start, joint_count, iq, iv, joint_target, q, J, e)
    nv = J.shape[1]
    r[:] = _scale(J, e, row_scale, weight, gain, linear, task_start, col_scale, bounds[0], bounds[1])
    nlev = lev_num.shape[0]
    du[:] = 0.0
    P = np.eye(nv)
    sat_r = np.zeros(max(lv.shape[0], 1))
    first = nlev > 1 and lev_num[0] == 1  # re-solves restart after level 1
    only_first = nlev == 1 and lev_num[0] == 1  # saturation rows after the one level
    split = 1 if first else 0
    # run-time False and 0: `_pass` compiles once, for run-time arguments (its docstring)
    no, zero = nv < 0, split - split
    nsat, iterations = zero, zero
    # iteration 0: every level; (du, P) after level 1 are kept for the re-solves
    _pass(J, r, lev_start, lev_num, zero, split, split == nlev, no, du, P, sat, sat_r, zero, settings)
    du1, P1 = du.copy(), P.copy()
    _pass(J, r, lev_start, lev_num, split, nlev, not no, no, du, P, sat, sat_r, zero, settings)
    if clamp and lv.shape[0] > 0:
        for it in range(max_iter + 1):
            iterations = it
            if it > 0:
                if first:  # level 1 is kept: restart after it
                    du[:] = du1
                    P[:, :] = P1
                else:
                    du[:] = 0.0
                    P[:, :] = np.eye(nv)
                _pass(J, r, lev_start, lev_num, split, nlev, not no, only_first, du, P, sat, sat_r, nsat, settings)
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
    for j in range(nv):
        dq[j] = du[j] * col_scale[j]
    return nsat, iterations


def no_rows() -> tuple:
    """`cycle`'s first arguments for a call without frame, CoM or joint tasks (rows already in J),
    with the array types of the solver's call (`FrameRows.inputs`, `TaskRows.inputs`: Pinocchio's
    Jacobians are column-major, and an array with a dimension of length 0 or 1 types as row-major),
    so that both calls share one compiled specialisation (`test_kin_hierarchy.py` checks it)."""
    i0, f0 = np.zeros(0, np.int64), np.zeros((0, 12))
    return (
        np.zeros((6, 2), order="F"), f0, i0, i0, f0, i0, np.zeros((0, 2, 0), bool), i0, np.zeros(3),
        np.zeros((3, 2), order="F"), i0, np.zeros((0, 2)), i0, i0, i0, i0, np.zeros(0),
    )  # fmt: skip
