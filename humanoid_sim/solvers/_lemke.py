"""Lemke's complementary pivoting (numba) for 0 ≤ z ⊥ M z + q ≥ 0 (Chardonnet
2009, eq. (3.7) of §3.1.2 and eqs. (2.33)–(2.35) of §2.4.2.1), and the LCP helpers
shared by `lemke_lcp` and `impact_lcp` (pivot cap, the normal-only LCP, LCP residuals).

Degenerate-pivot guard (our choice): in the minimum-ratio test, rows whose ratios tie within a
relative 1e-10 are broken first in favour of the artificial variable z0 leaving (which ends the
algorithm), then by the lexicographic rule on the rows of B⁻¹ (the standard anti-cycling
rule); pivots below 1e-11 · max|column| are never taken; a pivot cap of 50·n + 100 stops
(status 2)."""

import numpy as np
from numba import njit

PIVOTS_PER_ROW, PIVOTS_EXTRA = 50, 100  # pivot cap 50 n + 100 for an LCP of n rows (our choice)


@njit(cache=True)
def lemke(M, q, max_pivots):
    """Solve 0 ≤ z ⊥ M z + q ≥ 0 (M (n, n), q (n,)) with at most max_pivots pivots.
    Returns (z, status, pivots): status 0 = solved, 1 = ray termination, 2 = pivot cap."""
    n = q.shape[0]
    z = np.zeros(n)
    if n == 0:
        return z, 0, 0
    qmin = q[0]
    r = 0
    for i in range(n):
        if q[i] < qmin:
            qmin = q[i]
            r = i
    if qmin >= 0.0:
        return z, 0, 0
    ncol = 2 * n + 2
    T = np.zeros((n, ncol))
    for i in range(n):
        T[i, i] = 1.0
        for j in range(n):
            T[i, n + j] = -M[i, j]
        T[i, 2 * n] = -1.0
        T[i, 2 * n + 1] = q[i]
    basis = np.arange(n)
    cand = np.empty(n, np.int64)
    piv_tol = 1e-11
    tie_tol = 1e-10
    z0 = 2 * n
    entering = z0
    pivots = 0
    status = 2
    while pivots < max_pivots:
        if pivots > 0:
            # ratio test on the entering column
            cmax = 0.0
            for i in range(n):
                cmax = max(cmax, abs(T[i, entering]))
            r = -1
            best = np.inf
            for i in range(n):
                c = T[i, entering]
                if c > piv_tol * cmax:
                    ratio = T[i, ncol - 1] / c
                    if ratio < best:
                        best = ratio
            if best < np.inf:
                # candidate rows: ratio within a relative tie tolerance of the minimum
                tie = tie_tol * max(1.0, abs(best))
                ncand = 0
                for i in range(n):
                    c = T[i, entering]
                    if c > piv_tol * cmax and T[i, ncol - 1] / c <= best + tie:
                        cand[ncand] = i
                        ncand += 1
                r = cand[0]
                for k in range(ncand):  # z0 leaving ends the algorithm: prefer it
                    if basis[cand[k]] == z0:
                        r = cand[k]
                        ncand = 1
                        cand[0] = r
                        break
                j = 0
                while ncand > 1 and j < n:  # lexicographic rule on the rows of B⁻¹
                    bmin = np.inf
                    for k in range(ncand):
                        i = cand[k]
                        val = T[i, j] / T[i, entering]
                        if val < bmin:
                            bmin = val
                    keep = 0
                    for k in range(ncand):
                        i = cand[k]
                        if T[i, j] / T[i, entering] <= bmin + tie_tol * max(1.0, abs(bmin)):
                            cand[keep] = i
                            keep += 1
                    ncand = keep
                    j += 1
                r = cand[0]
            if r < 0:
                status = 1
                break
        piv = T[r, entering]
        for j in range(ncol):
            T[r, j] /= piv
        for i in range(n):
            if i != r:
                a = T[i, entering]
                if a != 0.0:
                    for j in range(ncol):
                        T[i, j] -= a * T[r, j]
        leaving = basis[r]
        basis[r] = entering
        pivots += 1
        if leaving == z0:
            status = 0
            break
        entering = leaving + n if leaving < n else leaving - n
    for i in range(n):
        b = basis[i]
        if n <= b < 2 * n:
            z[b - n] = max(T[i, ncol - 1], 0.0)
    return z, status, pivots


def solve_lcp(M, q):
    """`lemke` with the pivot cap PIVOTS_PER_ROW · n + PIVOTS_EXTRA: (z, status, pivots)."""
    return lemke(M, q, PIVOTS_PER_ROW * q.shape[0] + PIVOTS_EXTRA)


def normal_lcp(problem, q):
    """The normal-only LCP of a `ContactProblem`: 0 ≤ f_n ⊥ W_nn f_n + q ≥ 0 with W_nn the
    normal rows and columns of `problem.W_eff`. Returns (f (3m,) with zero tangential rows,
    z = f_n, W_nn, status, pivots); f has the unit of the problem's solution (see `base`)."""
    M = np.ascontiguousarray(problem.W_eff[0::3, 0::3])
    z, status, pivots = solve_lcp(M, q)
    f = np.zeros(3 * problem.m)
    f[0::3] = z
    return f, z, M, status, pivots


def lcp_residuals(M, q, z):
    """Residuals of 0 ≤ z ⊥ w = M z + q ≥ 0: lcp_complementarity max |z w| and
    lcp_feasibility max(−w, −z, 0) (units of z·w and of w, z)."""
    w = M @ z + q
    return {
        "lcp_complementarity": float(np.max(np.abs(z * w), initial=0.0)),
        "lcp_feasibility": float(max(np.max(-w, initial=0.0), np.max(-z, initial=0.0))),
    }
