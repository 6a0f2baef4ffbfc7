"""Lemke's complementary pivoting (numba) for 0 ≤ z ⊥ M z + q ≥ 0 (spec
../shared/spec/000_chardonnet.md §2.6 eq. 3.7 and §2.8 eqs 2.33–2.35).

Degenerate-pivot guard (our choice): in the minimum-ratio test, rows whose ratios tie within a
relative 1e-12 are broken first in favour of the artificial variable z0 leaving (which ends the
algorithm), then by the largest pivot element (numerical stability); pivots below 1e-12 ·
max|column| are never taken; a pivot cap of 50·n + 100 stops cycling (status 2)."""
import numpy as np
from numba import njit


@njit(cache=True)
def lemke(M, q, max_pivots):
    """Returns (z, status, pivots): status 0 = solved, 1 = ray termination, 2 = pivot cap."""
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
                if c > 1e-12 * cmax and c > 0.0:
                    ratio = T[i, ncol - 1] / c
                    if r < 0 or ratio < best - 1e-12 * max(1.0, abs(best)):
                        r, best = i, ratio
                    elif abs(ratio - best) <= 1e-12 * max(1.0, abs(best)):
                        # tie: prefer z0 leaving, then the larger pivot
                        if basis[r] != z0 and (basis[i] == z0 or c > T[r, entering]):
                            r, best = i, ratio
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
