"""Numba kernels of the verified active-set steps of `nsgs_newton` (ours, docs/solvers.md §4):
`stick_step` (the sticking block solved directly, minimum-norm) and `newton_step` (one global
semismooth Newton step on the current active set), and `has_sliding`, which picks between them.
A step returns a candidate that the sweep driver (`_gs.gs_solve`) keeps only when it lowers the
natural-map residual; convergence is still decided there by the unchanged tests.

Flat arrays, rows (n, t1, t2) per contact: W (3m, 3m) [m/s per N], v_free, v (3m,) [m/s],
f (3m,) [N], mu (m,); merit [N] is the natural-map residual of the iterate.
"""

import numpy as np
from numba import njit

from ._residuals import CONE_EDGE, natural_map, proj_cone, true_residuals

STICK_PIVOT_TOL = 1e-10  # pivoted-Cholesky rank cut, relative to the largest diagonal (our choice)
STICK_ROUNDS = 4  # reduced solves per step (reclassification after a cone exit; our choice)
NEWTON_STEP_VT = 1e-8  # [m/s] a boundary contact slower than this is treated as sticking (ours)
SLIDE_VT = 5e-5  # [m/s] step choice: a boundary contact faster than this slides (ours; measured:
# standing iterates ≤ 1.8e-5 m/s after 1-2 sweeps, sliding ≥ 1.1e-4 m/s)


@njit(cache=True)
def _reduced_system(W, mu, fb, vb, kind):
    """The reduced system of `_reduced_solve`: (con, B, A, cv, k): unknown a belongs to contact
    con[a] and moves its force along B[a] (contact coordinates n, t1, t2); A = Pᵀ W P (k × k),
    cv = −Pᵀ vb."""
    n = fb.shape[0]
    m = n // 3
    con = np.empty(n, np.int64)  # contact of unknown a
    B = np.zeros((n, 3))  # its direction in the contact's (n, t1, t2) coordinates
    unit = np.full(n, -1, np.int64)  # r when B[a] is the unit vector e_r (a sticking contact's)
    k = 0
    for c in range(m):
        i = 3 * c
        if kind[c] == 1:
            for r in range(3):
                con[k] = c
                B[k, r] = 1.0
                unit[k] = r
                k += 1
        elif kind[c] == 2:
            nt = np.sqrt(fb[i + 1] ** 2 + fb[i + 2] ** 2)
            con[k] = c
            B[k, 0] = 1.0
            B[k, 1] = mu[c] * fb[i + 1] / nt
            B[k, 2] = mu[c] * fb[i + 2] / nt
            k += 1
    A = np.empty((k, k))
    cv = np.empty(k)
    for a in range(k):
        ia = 3 * con[a]
        s = 0.0
        for r in range(3):
            s -= B[a, r] * vb[ia + r]
        cv[a] = s
        ua = 3 * con[a] + unit[a]
        for b in range(a + 1):
            ib = 3 * con[b]
            if unit[a] >= 0 and unit[b] >= 0:  # two unit directions: the sums below reduce to one entry
                x = W[ua, ib + unit[b]] + 0.0  # (+ 0.0: the sums' +0 for a −0 entry)
                A[a, b] = x
                A[b, a] = x
                continue
            s = 0.0
            for r in range(3):
                if B[a, r] != 0.0:
                    t = 0.0
                    for q in range(3):
                        t += W[ia + r, ib + q] * B[b, q]
                    s += B[a, r] * t
            A[a, b] = s
            A[b, a] = s
    return con, B, A, cv, k


@njit(cache=True)
def _pivoted_cholesky(A, d, tol, L, piv):
    """Rank-revealing pivoted Cholesky A = L Lᵀ (A k × k symmetric PSD; L k × r, column j zero
    on the rows pivoted before j, every entry of L written): at step j the largest remaining diagonal d[a] (updated in
    place; ties: the lowest a) is the pivot piv[j], until none is above tol. Returns the rank r.

    Each entry is the textbook loop's, in IEEE order: L[a, j] = (A[a, p] − L[a, 0] L[p, 0] −
    L[a, 1] L[p, 1] − …) / L[p, j], the terms subtracted one by one, without fused multiply-adds.
    The rows not yet pivoted are kept in front of a column-major copy of the factor, so the
    subtractions of one column run along contiguous rows (vectorised, four columns a pass in the
    same order): about 1.8× faster at 96 unknowns than the row-by-row dot products (measured)."""
    k = A.shape[0]
    P = np.arange(k)  # P[i]: the row of A at position i (the pivoted rows first, in order)
    dd = d.copy()
    LT = np.zeros((k, k))  # LT[l, i]: column l of the factor at position i
    tmp = np.empty(k)
    r = 0
    for j in range(k):
        q = -1
        dp = tol
        for i in range(j, k):
            x = dd[i]
            if x > dp or (q >= 0 and x == dp and P[i] < P[q]):
                dp = x
                q = i
        if q < 0:
            break
        if q != j:
            P[j], P[q] = P[q], P[j]
            dd[j], dd[q] = dd[q], dd[j]
            for l in range(j):
                LT[l, j], LT[l, q] = LT[l, q], LT[l, j]
        ljj = np.sqrt(dp)
        pj = P[j]
        n = k - j - 1
        t1 = tmp[j + 1 :]
        for i in range(n):
            t1[i] = A[P[j + 1 + i], pj]
        l = 0
        while l + 4 <= j:  # (zero-based loops over views: vectorised)
            c0, c1, c2, c3 = LT[l, j], LT[l + 1, j], LT[l + 2, j], LT[l + 3, j]
            r0, r1, r2, r3 = LT[l, j + 1 :], LT[l + 1, j + 1 :], LT[l + 2, j + 1 :], LT[l + 3, j + 1 :]
            for i in range(n):
                t1[i] = (((t1[i] - r0[i] * c0) - r1[i] * c1) - r2[i] * c2) - r3[i] * c3
            l += 4
        while l < j:
            c = LT[l, j]
            row = LT[l, j + 1 :]
            for i in range(n):
                t1[i] -= row[i] * c
            l += 1
        LT[j, j] = ljj
        for i in range(n):
            x = t1[i] / ljj
            LT[j, j + 1 + i] = x
            dd[j + 1 + i] -= x * x
        r += 1
    for i in range(k):
        a = P[i]
        for l in range(k):
            L[a, l] = LT[l, i]
        d[a] = dd[i]
    for i in range(r):
        piv[i] = P[i]
    return r


@njit(cache=True)
def _pivot_forward(L, piv, c, r):
    """y (r,) with L_p y = c_p on the first r pivot rows (L[piv[a], l] = 0 for l > a: lower
    triangular in pivot order): forward substitution."""
    y = np.empty(r)
    for a in range(r):
        s = c[piv[a]]
        for l in range(a):
            s -= L[piv[a], l] * y[l]
        y[a] = s / L[piv[a], a]
    return y


@njit(cache=True)
def _full_rank_solve(L, piv, c, x):
    """x = A⁻¹ c for the full pivoted factor A = L Lᵀ (r = k): `_pivot_forward`, then back
    substitution with the transposed factor."""
    k = c.shape[0]
    z = _pivot_forward(L, piv, c, k)
    for a in range(k - 1, -1, -1):
        s = z[a]
        for l in range(a + 1, k):
            s -= L[piv[l], a] * z[l]
        z[a] = s / L[piv[a], a]
    for a in range(k):
        x[piv[a]] = z[a]


@njit(cache=True)
def _reduced_solve(W, mu, fb, vb, kind, fnew):
    """fnew = fb + P y with the minimum-norm y solving Pᵀ W P y = −Pᵀ vb (see `stick_step`;
    vb = W fb + v_free). kind per contact: 0 fixed, 1 sticking (3 unknowns), 2 on the cone
    boundary (1 unknown along b_c = e_n + μ d_c, d_c = fb_t/‖fb_t‖). False if nothing to solve.

    A = Pᵀ W P of full rank (e.g. contacts coupled by a compliance: the FEM soles, where W is
    positive definite) is solved by two triangular solves with the pivoted factor (y = A⁻¹ c, the
    unique solution); a rank-deficient A (hyperstatic rigid contacts) by the minimum-norm
    correction y = L (LᵀL)⁻¹ c."""
    n = fb.shape[0]
    con, B, A, cv, k = _reduced_system(W, mu, fb, vb, kind)
    for i in range(n):
        fnew[i] = fb[i]
    if k == 0:
        return False
    d = np.empty(k)
    dmax = 0.0
    for a in range(k):
        d[a] = A[a, a]
        dmax = max(dmax, d[a])
    if dmax <= 0.0:
        return False
    tol = STICK_PIVOT_TOL * dmax
    L = np.empty((k, k))
    piv = np.empty(k, np.int64)
    r = _pivoted_cholesky(A, d, tol, L, piv)
    if r == k:
        y = np.empty(k)
        _full_rank_solve(L, piv, cv, y)
        for a in range(k):
            ia = 3 * con[a]
            for q in range(3):
                fnew[ia + q] += B[a, q] * y[a]
        return True
    y = _pivot_forward(L, piv, cv, r)  # c on the pivot rows
    # G = LᵀL (r×r, SPD), Cholesky in place (lower), y ← G⁻¹ c; the correction is L y
    G = np.empty((r, r))
    for a in range(r):
        for b in range(a + 1):
            s = 0.0
            for i in range(k):
                s += L[i, a] * L[i, b]
            G[a, b] = s
    for a in range(r):
        s = G[a, a]
        for l in range(a):
            s -= G[a, l] * G[a, l]
        if s <= 0.0:
            return False
        G[a, a] = np.sqrt(s)
        for b in range(a + 1, r):
            t = G[b, a]
            for l in range(a):
                t -= G[b, l] * G[a, l]
            G[b, a] = t / G[a, a]
    for a in range(r):
        s = y[a]
        for l in range(a):
            s -= G[a, l] * y[l]
        y[a] = s / G[a, a]
    for a in range(r - 1, -1, -1):
        s = y[a]
        for l in range(a + 1, r):
            s -= G[l, a] * y[l]
        y[a] = s / G[a, a]
    for a in range(k):
        s = 0.0
        for l in range(r):
            s += L[a, l] * y[l]
        ia = 3 * con[a]
        for q in range(3):
            fnew[ia + q] += B[a, q] * s
    return True


@njit(cache=True)
def stick_step(W, vfree, mu, f, v, merit, boundary, rounds, fnew, vnew):
    """Verified active-set step (ours, docs/solvers.md §4). From the iterate, guess the
    sticking set (f_n > 0, ‖f_t‖ < μ f_n · CONE_EDGE): 3 unknowns per contact, equations
    v_c = 0; with `boundary`, also the contacts on the cone boundary (f_n > 0, ‖f_t‖ ≥
    μ f_n · CONE_EDGE): one unknown along b_c = e_n + μ d_c (d_c = f_t/‖f_t‖), equation
    b_cᵀ v_c = 0 (true for a contact sticking on the boundary, v_c = 0). Every other force is
    kept. With the basis P of these unknowns, A = Pᵀ W P is symmetric PSD and singular for
    hyperstatic sets: rank-revealing pivoted Cholesky A = L Lᵀ (rank cut STICK_PIVOT_TOL ×
    the largest diagonal), c from the r pivot rows of L (lower triangular), minimum-norm
    correction y = L (LᵀL)⁻¹ c (y ∈ range(A): the workless internal-force component of the
    iterate is not changed). If a contact leaves its cone, the candidate is projected on the
    cones, the contact reclassified (projected to 0: kept at 0; outside: on the boundary) and
    the reduced solve repeated from there, at most `rounds` times. The candidate (vnew =
    W fnew + v_free, exact) is accepted only if it is in the cones and its natural-map
    residual is below `merit`; the caller still stops on the same residual and relative-change
    tests, so the result is the exact-cone solution. Returns (accepted, new merit)."""
    n = vfree.shape[0]
    m = n // 3
    kind = np.zeros(m, np.int64)
    nk = 0
    for c in range(m):
        i = 3 * c
        fn = f[i]
        if fn <= 0.0:
            continue
        ft2 = f[i + 1] ** 2 + f[i + 2] ** 2
        if ft2 < (mu[c] * fn * CONE_EDGE) ** 2:
            kind[c] = 1
            nk += 1
        elif boundary and ft2 > 0.0:
            kind[c] = 2
            nk += 1
    if nk == 0:
        return False, merit
    fb = f.copy()
    vb = v.copy()
    tmp = np.empty(3)
    for _rnd in range(rounds):
        if not _reduced_solve(W, mu, fb, vb, kind, fnew):
            return False, merit
        changed = False
        for c in range(m):
            if kind[c] == 0:
                continue
            i = 3 * c
            fn = fnew[i]
            nt = np.sqrt(fnew[i + 1] ** 2 + fnew[i + 2] ** 2)
            if fn >= 0.0 and nt <= mu[c] * fn:  # in the cone (at μ = 0, nt <= μ fn holds for fn < 0 too)
                continue
            if kind[c] == 2 and fn > 0.0 and nt > 0.0:
                sc = mu[c] * fn / nt  # on the boundary up to rounding: put it there
                fnew[i + 1] *= sc
                fnew[i + 2] *= sc
                continue
            proj_cone(fnew[i : i + 3].copy(), mu[c], tmp)
            fnew[i], fnew[i + 1], fnew[i + 2] = tmp[0], tmp[1], tmp[2]
            changed = True
            if tmp[0] <= 0.0 or mu[c] == 0.0:
                kind[c] = 0
                fnew[i] = fnew[i + 1] = fnew[i + 2] = 0.0
            else:
                kind[c] = 2
        true_residuals(W, vfree, mu, fnew, vnew)
        if not changed:
            mnew = natural_map(W, mu, fnew, vnew)
            if mnew < merit:
                return True, mnew
            return False, merit
        fb[:] = fnew
        vb[:] = vnew
    return False, merit


@njit(cache=True)
def has_sliding(mu, f, v):
    """True if some contact is on its cone boundary (f_n > 0, ‖f_t‖ ≥ μ f_n · CONE_EDGE) with a
    tangential velocity above SLIDE_VT."""
    for c in range(f.shape[0] // 3):
        i = 3 * c
        fn = f[i]
        if (
            fn > 0.0
            and f[i + 1] ** 2 + f[i + 2] ** 2 >= (mu[c] * fn * CONE_EDGE) ** 2
            and v[i + 1] ** 2 + v[i + 2] ** 2 > SLIDE_VT**2
        ):
            return True
    return False


@njit(cache=True)
def newton_step(W, vfree, mu, f, v, merit, fnew, vnew):
    """Verified global semismooth-Newton step on the current active set (ours,
    docs/solvers.md §4): per contact, separated (f_n ≤ 0): δf_c = 0; sticking (inside the cone,
    or on its boundary with ‖v_t‖ ≤ NEWTON_STEP_VT): δv_c = W_c: δf = −v_c; sliding: δv_n = −v_n
    and the linearisation of f_t + μ f_n v_t/‖v_t‖ = 0 (the sliding branch of the
    Alart–Curnier Jacobian, eqs 3.28–3.33, with v = W f + v_free eliminated). The square
    system is singular for hyperstatic sets: minimum-norm least squares (LAPACK gelsd, rcond
    STICK_PIVOT_TOL), so the workless internal-force component is not changed arbitrarily and
    decoupled groups get the same step solved together or apart (a basic solution by complete
    pivoting was 2× cheaper but moved the corner split of hyperstatic boxes by 0.8 N between
    the two; row pivoting with column skipping is not rank-revealing enough: 89 instead of 17
    sweeps on the articulated table problem; measured, docs/solvers.md).
    Candidates P_K(f + α δf), α = 1, ½, ¼, projected on the cones;
    the one with the smallest natural-map residual is accepted only if it is below `merit`.
    Returns (accepted, new merit)."""
    n = vfree.shape[0]
    m = n // 3
    K = np.zeros((n, n))
    rhs = np.empty(n)
    for c in range(m):
        i = 3 * c
        fn = f[i]
        ft2 = f[i + 1] ** 2 + f[i + 2] ** 2
        nvt = np.sqrt(v[i + 1] ** 2 + v[i + 2] ** 2)
        if fn <= 0.0:
            for q in range(3):
                K[i + q, i + q] = 1.0
                rhs[i + q] = 0.0
        elif ft2 < (mu[c] * fn * CONE_EDGE) ** 2 or nvt <= NEWTON_STEP_VT:
            for q in range(3):
                for j in range(n):
                    K[i + q, j] = W[i + q, j]
                rhs[i + q] = -v[i + q]
        else:
            for j in range(n):
                K[i, j] = W[i, j]
            rhs[i] = -v[i]
            e1, e2 = v[i + 1] / nvt, v[i + 2] / nvt
            a = mu[c] * fn / nvt  # μ f_n (I − e eᵀ)/‖v_t‖
            m11, m12, m22 = a * (1.0 - e1 * e1), -a * e1 * e2, a * (1.0 - e2 * e2)
            for j in range(n):
                K[i + 1, j] = m11 * W[i + 1, j] + m12 * W[i + 2, j]
                K[i + 2, j] = m12 * W[i + 1, j] + m22 * W[i + 2, j]
            K[i + 1, i + 1] += 1.0
            K[i + 2, i + 2] += 1.0
            K[i + 1, i] += mu[c] * e1
            K[i + 2, i] += mu[c] * e2
            rhs[i + 1] = -(f[i + 1] + mu[c] * fn * e1)
            rhs[i + 2] = -(f[i + 2] + mu[c] * fn * e2)
    d = np.linalg.lstsq(K, rhs, STICK_PIVOT_TOL)[0]
    tmp = np.empty(3)
    fc = np.empty(n)
    vc = np.empty(n)
    best = merit
    alpha = 1.0
    for _ in range(3):
        for c in range(m):
            i = 3 * c
            tmp[0], tmp[1], tmp[2] = f[i] + alpha * d[i], f[i + 1] + alpha * d[i + 1], f[i + 2] + alpha * d[i + 2]
            proj_cone(tmp.copy(), mu[c], tmp)
            fc[i], fc[i + 1], fc[i + 2] = tmp[0], tmp[1], tmp[2]
        true_residuals(W, vfree, mu, fc, vc)
        mc = natural_map(W, mu, fc, vc)
        if mc < best:
            best = mc
            fnew[:] = fc
            vnew[:] = vc
        alpha *= 0.5
    return best < merit, best
