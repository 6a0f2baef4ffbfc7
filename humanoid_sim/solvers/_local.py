"""Numba kernels of the per-contact (local) solves of the block Gauss–Seidel family (Chardonnet
2009, §3.1.4.2): the Alart–Curnier Newton solver (Algorithm 2,
eqs. (3.28)–(3.33)) and the three local rules of a sweep (`local_update`, chosen by `mode`):

  MODE_NEWTON (0)  separate / stick / slide classification of Algorithm 1 and the Alart–Curnier
                   Newton local solver on sliding contacts (`nsgs_newton`);
  MODE_PLAIN  (1)  projected block GS: f_n ← max(0, f_n − v_n/W_nn), then
                   f_t ← radial projection of (f_t − W_tt⁻¹ v_t) on the disk μ f_n (`nsgs`);
  MODE_PROJ   (2)  De Saxcé–Feng projection: f ← P_K(f − ρ (v + μ‖v_t‖ e_n)), ρ = 1/λmax(W_cc)
                   (`projection`).

One contact at a time: W_ii (3, 3) [m/s per N], local velocities (3,) [m/s], forces (3,) [N].
No per-contact Python objects, no allocation in the sweep's calls.
"""

import numpy as np
from numba import njit

from ._residuals import CONE_EDGE, proj_cone

MODE_NEWTON, MODE_PLAIN, MODE_PROJ = 0, 1, 2


@njit(cache=True)
def ac_phi_jac(x, Wii, vloc, mu, rho_n, rho_t, phi, J):
    """Alart–Curnier function φ(v, f) (6,) and its generalized Jacobian (6×6), eqs. (3.28)–(3.33)
    of Chardonnet 2009, with ρ_n v_n in the active normal branch: the thesis prints ρ_n f_n in (3.31),
    a typo, as its own Jacobian (3.33), ∂φ3/∂v_n = ρ_n, shows."""
    J[:, :] = 0.0
    for r in range(3):
        s = x[r] - vloc[r]
        for k in range(3):
            s -= Wii[r, k] * x[3 + k]
            J[r, 3 + k] = -Wii[r, k]
        J[r, r] = 1.0
        phi[r] = s
    vn, fn = x[0], x[3]
    if fn - rho_n * vn > 0.0:
        phi[3] = rho_n * vn
        J[3, 0] = rho_n
    else:
        phi[3] = fn
        J[3, 3] = 1.0
    V1 = x[4] - rho_t * x[1]
    V2 = x[5] - rho_t * x[2]
    nV = np.sqrt(V1 * V1 + V2 * V2)
    r = mu * fn if fn > 0.0 else 0.0
    if nV <= r:
        phi[4] = rho_t * x[1]
        phi[5] = rho_t * x[2]
        J[4, 1] = rho_t
        J[5, 2] = rho_t
    else:
        e1, e2 = V1 / nV, V2 / nV
        phi[4] = x[4] - r * e1
        phi[5] = x[5] - r * e2
        # M(V) = (I − e eᵀ)/‖V‖
        m11, m12, m22 = (1 - e1 * e1) / nV, -e1 * e2 / nV, (1 - e2 * e2) / nV
        J[4, 1], J[4, 2] = rho_t * r * m11, rho_t * r * m12
        J[5, 1], J[5, 2] = rho_t * r * m12, rho_t * r * m22
        J[4, 4], J[4, 5] = 1.0 - r * m11, -r * m12
        J[5, 4], J[5, 5] = -r * m12, 1.0 - r * m22
        if fn > 0.0:
            J[4, 3] = -mu * e1
            J[5, 3] = -mu * e2


@njit(cache=True)
def ac_rhos(Wii):
    """ρ_n = 1/W_nn, ρ_t = λmin(W_tt)/λmax(W_tt)² (eq. 3.30)."""
    a, b, c = Wii[1, 1], Wii[1, 2], Wii[2, 2]
    tr, det = a + c, a * c - b * b
    disc = np.sqrt(max(0.25 * tr * tr - det, 0.0))
    lmax = 0.5 * tr + disc
    lmin = max(0.5 * tr - disc, 1e-14 * lmax)
    return 1.0 / Wii[0, 0], lmin / (lmax * lmax)


@njit(cache=True)
def _solve_small(A, b, M, x):
    """x = A⁻¹ b for a small dense system (the 3×3 of `_solve_ac`): Gaussian elimination with partial pivoting, M is
    scratch (no LAPACK call, no allocation in the hot loop)."""
    n = b.shape[0]
    for i in range(n):
        x[i] = b[i]
        for j in range(n):
            M[i, j] = A[i, j]
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(M[i, k]) > abs(M[p, k]):
                p = i
        if p != k:
            for j in range(n):
                M[k, j], M[p, j] = M[p, j], M[k, j]
            x[k], x[p] = x[p], x[k]
        piv = M[k, k]
        if piv == 0.0:
            piv = 1e-300
        for i in range(k + 1, n):
            a = M[i, k] / piv
            if a != 0.0:
                for j in range(k, n):
                    M[i, j] -= a * M[k, j]
                x[i] -= a * x[k]
    for k in range(n - 1, -1, -1):
        s = x[k]
        for j in range(k + 1, n):
            s -= M[k, j] * x[j]
        x[k] = s / (M[k, k] if M[k, k] != 0.0 else 1e-300)


@njit(cache=True)
def _solve_ac(J, phi, Mw, dx):
    """Newton step J dx = φ for the Alart–Curnier Jacobian, whose first three rows are
    [I3, −W_ii]: dv = φ_1..3 + W_ii df, then (A W_ii + B) df = φ_4..6 − A φ_1..3 with
    A = ∂φ_4..6/∂v, B = ∂φ_4..6/∂f (block elimination of the linear rows: the same step as the
    full 6×6 solve, at a third of the cost)."""
    for r in range(3):
        rhs = phi[3 + r]
        for k in range(3):
            rhs -= J[3 + r, k] * phi[k]
            s = J[3 + r, 3 + k]
            for l in range(3):
                s -= J[3 + r, l] * J[l, 3 + k]  # A (−J[0:3, 3:6]) = A W
            Mw[r, k] = s
        Mw[r, 3] = rhs
    for r in range(3):
        dx[3 + r] = Mw[r, 3]
    # 3×3 solve by partial pivoting in Mw[:3, :3]
    _solve_small(Mw[:3, :3], dx[3:6], Mw[3:6, :3], dx[3:6])
    for r in range(3):
        s = phi[r]
        for k in range(3):
            s -= J[r, 3 + k] * dx[3 + k]
        dx[r] = s


@njit(cache=True)
def _wnorm(phi, rho_n):
    """‖φ‖ with the velocity rows scaled by ρ_n (force units)."""
    s = 0.0
    for r in range(6):
        w = rho_n if r < 3 else 1.0
        s += (w * phi[r]) ** 2
    return np.sqrt(s)


@njit(cache=True)
def newton_local(Wii, vloc, mu, f0, tol, maxit, hist):
    """Alart–Curnier Newton on one contact (Algorithm 2) from the force guess f0.
    Returns (f (3,), v (3,), iterations); hist[k] = ‖φ‖ scaled to force units at iterate k."""
    vec = np.empty((6, 6))
    mat = np.empty((3, 6, 6))
    f = np.empty(3)
    v = np.empty(3)
    it = _newton_ws(Wii, vloc, mu, f0, tol, maxit, hist, vec, mat, f, v)
    return f, v, it


@njit(cache=True)
def _newton_ws(Wii, vloc, mu, f0, tol, maxit, hist, vec, mat, f, v):
    """Allocation-free body of `newton_local`: vec (6, 6) and mat (3, 6, 6) are scratch."""
    rho_n, rho_t = ac_rhos(Wii)
    x, xb, xt, phi, phit, dx = vec[0], vec[1], vec[2], vec[3], vec[4], vec[5]
    J, Jt, Mw = mat[0], mat[1], mat[2]
    for k in range(3):
        x[3 + k] = f0[k]
    for r in range(3):
        s = vloc[r]
        for k in range(3):
            s += Wii[r, k] * f0[k]
        x[r] = s
    scale = rho_n * np.sqrt(vloc[0] ** 2 + vloc[1] ** 2 + vloc[2] ** 2) + 1e-300
    it = 0
    for r in range(6):
        xb[r] = x[r]
    ac_phi_jac(x, Wii, vloc, mu, rho_n, rho_t, phi, J)
    nrm = _wnorm(phi, rho_n)
    best = nrm
    nt = nrm
    for it in range(maxit + 1):
        if it < hist.shape[0]:
            hist[it] = nrm
        if nrm <= tol * scale or it == maxit:
            break
        _solve_ac(J, phi, Mw, dx)
        # globalisation (our choice): backtracking on ‖φ‖, full Newton steps near the solution
        step = 1.0
        for _ in range(20):
            for r in range(6):
                xt[r] = x[r] - step * dx[r]
            ac_phi_jac(xt, Wii, vloc, mu, rho_n, rho_t, phit, Jt)
            nt = _wnorm(phit, rho_n)
            if nt < (1.0 - 1e-4 * step) * nrm:
                break
            step *= 0.5
        for r in range(6):
            x[r] = xt[r]
            phi[r] = phit[r]
            for k in range(6):
                J[r, k] = Jt[r, k]
        nrm = nt
        if nrm < best:
            best = nrm
            for r in range(6):
                xb[r] = x[r]
    proj_cone(xb[3:], mu, f)
    for r in range(3):
        s = vloc[r]
        for k in range(3):
            s += Wii[r, k] * f[k]
        v[r] = s
    return it


@njit(cache=True)
def local_update(mode, Wii, Wiinv, vloc, vcur, fi, mu, newton_tol, newton_maxit, out, hist, vec, mat, g, vv):
    """out = the new force [N] of one contact under the local rule `mode`, the other contacts'
    forces fixed. Wii (3, 3): its Delassus block; Wiinv: `local_matrix` of the contact; vloc:
    its local free velocity v_c − W_cc f_c [m/s]; vcur: its current velocity v_c [m/s]; fi: its
    current force [N]; newton_tol / newton_maxit: Alart–Curnier stopping rule; hist, vec, mat,
    g, vv: scratch (see `newton_local`). Returns the number of Newton iterations (0 when none)."""
    if mode == MODE_NEWTON:
        if vloc[0] >= 0.0:
            out[0] = out[1] = out[2] = 0.0
            return 0
        for r in range(3):
            s = 0.0
            for k in range(3):
                s -= Wiinv[r, k] * vloc[k]
            out[r] = s
        if out[0] >= 0.0 and out[1] * out[1] + out[2] * out[2] <= (mu * out[0]) ** 2:
            return 0
        ftn = np.sqrt(fi[1] * fi[1] + fi[2] * fi[2])
        if fi[0] > 0.0 and ftn >= mu * fi[0] * CONE_EDGE:
            # sliding in the previous sweep: start Newton from that force (as Chardonnet 2009, §3.1.4.2 advises)
            g[0], g[1], g[2] = fi[0], fi[1], fi[2]
        else:
            proj_cone(out, mu, g)
            if g[0] <= 0.0:  # stick guess pulls: start from the frictionless normal force instead
                g[0] = -vloc[0] / Wii[0, 0]
                g[1] = 0.0
                g[2] = 0.0
        return _newton_ws(Wii, vloc, mu, g, newton_tol, newton_maxit, hist, vec, mat, out, vv)
    elif mode == MODE_PLAIN:
        fn = fi[0] - vcur[0] / Wii[0, 0]
        if fn < 0.0:
            fn = 0.0
        dn = fn - fi[0]
        # tangential velocity after the normal update
        vt1 = vcur[1] + Wii[1, 0] * dn
        vt2 = vcur[2] + Wii[2, 0] * dn
        a, b, c = Wii[1, 1], Wii[1, 2], Wii[2, 2]
        det = a * c - b * b
        t1 = fi[1] - (c * vt1 - b * vt2) / det
        t2 = fi[2] - (-b * vt1 + a * vt2) / det
        nt = np.sqrt(t1 * t1 + t2 * t2)
        r = mu * fn
        if nt > r:
            s = r / nt
            t1 *= s
            t2 *= s
        out[0], out[1], out[2] = fn, t1, t2
        return 0
    else:
        # ρ_c = 1/λmax(W_cc), stored in Wiinv[0, 0] by `local_matrix`; De Saxcé's map written out
        # as in `_residuals.natural_map`: a shared njit helper slowed the sweeps (measured)
        rho = Wiinv[0, 0]
        nvt = np.sqrt(vcur[1] * vcur[1] + vcur[2] * vcur[2])
        y = g
        y[0] = fi[0] - rho * (vcur[0] + mu * nvt)
        y[1] = fi[1] - rho * vcur[1]
        y[2] = fi[2] - rho * vcur[2]
        proj_cone(y, mu, out)
        return 0


@njit(cache=True)
def local_matrix(mode, W, i, out):
    """out (3, 3) = what `local_update` needs of the contact block W[i:i+3, i:i+3]: its inverse
    (MODE_NEWTON, MODE_PLAIN), or, for MODE_PROJ, the step ρ_c = 1/λmax(W_cc) in out[0, 0]
    (stable for any block anisotropy), zeros elsewhere."""
    if mode == MODE_PROJ:
        out[:, :] = 0.0
        out[0, 0] = 1.0 / np.linalg.eigvalsh(np.ascontiguousarray(W[i : i + 3, i : i + 3]))[2]
    else:
        _inv3(W, i, out)


@njit(cache=True)
def _inv3(W, i, out):
    """out = inverse of the 3×3 block W[i:i+3, i:i+3] by cofactors (no LAPACK call)."""
    a, b, c = W[i, i], W[i, i + 1], W[i, i + 2]
    d, e, f = W[i + 1, i], W[i + 1, i + 1], W[i + 1, i + 2]
    g, h, k = W[i + 2, i], W[i + 2, i + 1], W[i + 2, i + 2]
    A, B, C = e * k - f * h, -(d * k - f * g), d * h - e * g
    det = a * A + b * B + c * C
    r = 1.0 / det
    out[0, 0], out[1, 0], out[2, 0] = A * r, B * r, C * r
    out[0, 1], out[1, 1], out[2, 1] = -(b * k - c * h) * r, (a * k - c * g) * r, -(a * h - b * g) * r
    out[0, 2], out[1, 2], out[2, 2] = (b * f - c * e) * r, -(a * f - c * d) * r, (a * e - b * d) * r
