"""Numba kernels of the Coulomb–Signorini residuals and the cone projection they rely on (Chardonnet
2009, eqs. (2.26)–(2.28) and §3.1.4.2). A leaf module: it imports nothing from the package, so
`base.residuals`, the Gauss–Seidel sweeps and the active-set steps can all use it.

Arrays are flat, rows (n, t1, t2) per contact: f (3m,) [N], v (3m,) [m/s], W (3m, 3m) [m/s per N],
mu (m,) [-] (units for W = dt Λ; with W = Λ, f is an impulse [N·s], see `base`).
"""

import numpy as np
from numba import njit

CONE_EDGE = 1.0 - 1e-9  # a force with ‖f_t‖ ≥ μ f_n · CONE_EDGE counts as on its cone's boundary
# (sliding, or sticking at the limit) in the local and active-set classifications (our choice)


@njit(cache=True)
def proj_cone(f, mu, out):
    """out = Euclidean projection of f = (n, t1, t2) on the Coulomb cone ‖t‖ ≤ μ n
    (out may be f itself). A negative normal is never inside, also for μ = 0 (the half-line
    t = 0, n ≥ 0), where nt ≤ μ n reads 0 ≤ −0."""
    n = f[0]
    nt = np.sqrt(f[1] * f[1] + f[2] * f[2])
    if nt <= mu * n and n >= 0.0:
        out[0], out[1], out[2] = f[0], f[1], f[2]
    elif mu * nt <= -n:
        out[0], out[1], out[2] = 0.0, 0.0, 0.0
    else:
        a = (n + mu * nt) / (1.0 + mu * mu)
        s = mu * a / nt
        out[0], out[1], out[2] = a, s * f[1], s * f[2]


@njit(cache=True)
def natural_map(W, mu, f, v):
    """max_c ‖f_c − P_K(f_c − ρ_c (v_c + μ‖v_t,c‖ e_n))‖, ρ_c = 1/W_nn,c [force units]:
    0 exactly at a Coulomb–Signorini solution (De Saxcé); the merit of the best iterate."""
    out = 0.0
    y = np.empty(3)
    p = np.empty(3)
    for c in range(f.shape[0] // 3):
        i = 3 * c
        # De Saxcé's map, written out as in `_local.local_update` (MODE_PROJ): a shared njit helper
        # made the sweeps 8-20 % slower, even with inline="always" (measured)
        rho = 1.0 / W[i, i]
        nvt = np.sqrt(v[i + 1] ** 2 + v[i + 2] ** 2)
        y[0] = f[i] - rho * (v[i] + mu[c] * nvt)
        y[1] = f[i + 1] - rho * v[i + 1]
        y[2] = f[i + 2] - rho * v[i + 2]
        proj_cone(y, mu[c], p)
        out = max(out, np.sqrt((f[i] - p[0]) ** 2 + (f[i + 1] - p[1]) ** 2 + (f[i + 2] - p[2]) ** 2))
    return out


@njit(cache=True)
def true_residuals(W, vfree, mu, f, v):
    """v ← W f + v_free (exact, O(m²)); returns (complementarity, penetration, cone).
    Four rows at a time: four independent sums side by side, each in the order of a scalar
    loop over k (the same bits; 2-3× faster at 96 rows, measured)."""
    n = vfree.shape[0]
    n4 = n - n % 4
    for r in range(0, n4, 4):
        s0, s1, s2, s3 = vfree[r], vfree[r + 1], vfree[r + 2], vfree[r + 3]
        for k in range(n):
            fk = f[k]
            s0 += W[r, k] * fk
            s1 += W[r + 1, k] * fk
            s2 += W[r + 2, k] * fk
            s3 += W[r + 3, k] * fk
        v[r], v[r + 1], v[r + 2], v[r + 3] = s0, s1, s2, s3
    for r in range(n4, n):
        s = vfree[r]
        for k in range(n):
            s += W[r, k] * f[k]
        v[r] = s
    return cheap_residuals(mu, f, v)


@njit(cache=True)
def cheap_residuals(mu, f, v):
    """(complementarity [N·m/s], penetration [m/s], cone [N]) of forces f with contact
    velocities v already known (O(m))."""
    comp = 0.0
    pen = 0.0
    cone = 0.0
    for c in range(f.shape[0] // 3):
        fn, vn = f[3 * c], v[3 * c]
        comp = max(comp, abs(fn * vn))
        pen = max(pen, -vn)
        cone = max(cone, -fn, np.sqrt(f[3 * c + 1] ** 2 + f[3 * c + 2] ** 2) - mu[c] * fn)
    return comp, pen, cone


@njit(cache=True)
def residual_kernel(W, mu, f, v, slide_tol, out):
    """out = [complementarity, penetration, cone, dissipation, slip_force, natural_map,
    sliding_contacts] (definitions and units in `base.residuals`)."""
    comp, pen, cone = cheap_residuals(mu, f, v)
    dis = slip = 0.0
    nsl = 0
    for c in range(f.shape[0] // 3):
        i = 3 * c
        fn = f[i]
        nft = np.sqrt(f[i + 1] ** 2 + f[i + 2] ** 2)
        nvt = np.sqrt(v[i + 1] ** 2 + v[i + 2] ** 2)
        if nvt > slide_tol and fn > 0.0:
            nsl += 1
            cs = -(f[i + 1] * v[i + 1] + f[i + 2] * v[i + 2]) / max(nft * nvt, 1e-300)
            dis = max(dis, 1.0 - cs)
            slip = max(slip, abs(nft - mu[c] * fn))
    out[0], out[1], out[2], out[3], out[4] = comp, pen, cone, dis, slip
    out[5] = natural_map(W, mu, f, v)
    out[6] = nsl


@njit(cache=True)
def velocity_residuals(W, vfree, mu, f, v, slide_tol, out):
    """v ← W f + v_free (`true_residuals`), then out = `residual_kernel` at (f, v): one compiled
    call for a solver's returned iterate."""
    true_residuals(W, vfree, mu, f, v)
    residual_kernel(W, mu, f, v, slide_tol, out)
