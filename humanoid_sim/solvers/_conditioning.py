"""Rank-deficient contact blocks: the compliance that makes every 3×3 diagonal block of W
invertible (a leaf numba module, used by `base.ContactProblem`).

A contact's block W_cc = J_c M⁻¹ J_cᵀ is singular when the contact point cannot move in some
direction relative to the other body: a self-contact between two links joined by one or two
joints (relative motion of rank 1 or 2), or two bodies that are both fixed. Every local rule of
the Gauss–Seidel family divides by that block (its inverse, W_nn, the tangential eigenvalues),
so without a remedy such a contact makes the whole step fail with a ZeroDivisionError (HRP-2
under its URDF effort limits folds a leg onto itself within 0.14 s).

The remedy is a tiny compliance on the diagonal of those blocks only: ε = BLOCK_COMPLIANCE · tr(W_cc),
at least BLOCK_COMPLIANCE_MIN. The velocity of the blocked direction is J_c u with u in the
range of M⁻¹ J_cᵀ, hence has no component along the block's null space, so the compliance only
fixes the force there (to 0) and changes no motion. Regular blocks are left exactly as they were.
"""

import numpy as np
from numba import njit

# A block counts as singular when det(W_cc) ≤ BLOCK_SINGULAR · tr(W_cc)³: then its smallest
# eigenvalue is below about 4e-12 tr (the rounding of the cofactor determinant is ~1e-16 tr³;
# an HRP-2 foot contact block measured in the folding run has det/tr³ ≈ 0.02). Chosen.
BLOCK_SINGULAR = 1e-12
BLOCK_COMPLIANCE = 1e-9  # [-] ε / tr(W_cc): relative compliance added to a singular block (chosen)
BLOCK_COMPLIANCE_MIN = 1e-12  # [m/s per N] ε when the block is zero (both bodies fixed) (chosen)


@njit(cache=True)
def scan_problem(W, v_free):
    """One pass over a contact problem for the hot path: -1 when W or v_free holds a NaN or inf,
    else the number of singular 3×3 contact blocks (0: W needs no compliance)."""
    n = W.shape[0]
    for i in range(n):
        if not np.isfinite(v_free[i]):
            return -1
        for j in range(n):
            if not np.isfinite(W[i, j]):
                return -1
    count = 0
    for c in range(n // 3):
        if _singular(W, 3 * c):
            count += 1
    return count


@njit(cache=True)
def _singular(W, i):
    """Whether the 3×3 block W[i:i+3, i:i+3] counts as singular (det ≤ BLOCK_SINGULAR tr³)."""
    a, b, cc = W[i, i], W[i, i + 1], W[i, i + 2]
    d, e, f = W[i + 1, i], W[i + 1, i + 1], W[i + 1, i + 2]
    g, h, k = W[i + 2, i], W[i + 2, i + 1], W[i + 2, i + 2]
    det = a * (e * k - f * h) - b * (d * k - f * g) + cc * (d * h - e * g)
    tr = a + e + k
    return not (det > BLOCK_SINGULAR * tr * tr * tr and tr > 0.0)


@njit(cache=True)
def singular_block_compliance(W, eps):
    """eps (3m,) = the compliance to add to W's diagonal, 0 on the rows of regular blocks;
    returns the number of singular blocks (0: eps is all zeros and W needs nothing)."""
    m = W.shape[0] // 3
    count = 0
    for c in range(m):
        i = 3 * c
        if _singular(W, i):
            tr = W[i, i] + W[i + 1, i + 1] + W[i + 2, i + 2]
            x = max(BLOCK_COMPLIANCE * tr, BLOCK_COMPLIANCE_MIN)
            eps[i] = eps[i + 1] = eps[i + 2] = x
            count += 1
        else:
            eps[i] = eps[i + 1] = eps[i + 2] = 0.0
    return count


@njit(cache=True)
def with_compliance(W, c):
    """W + diag(c) as a new C-ordered array, entry by entry as numpy's W + np.diag(c) (the
    off-diagonal entries + 0.0): the compliance of `base.ContactProblem`."""
    n = W.shape[0]
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = W[i, j] + (c[i] if i == j else 0.0)
    return out
