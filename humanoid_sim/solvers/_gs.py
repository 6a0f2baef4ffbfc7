"""Numba kernels of the block Gauss–Seidel family (spec ../shared/spec/000_chardonnet.md §2.8).

One sweep loop, three local rules (`mode`):
  MODE_NEWTON (0)  separate / stick / slide classification of Algorithm 1 and the Alart–Curnier
                   Newton local solver (eqs 3.28–3.33) on sliding contacts;
  MODE_PLAIN  (1)  projected block GS: f_n ← max(0, f_n − v_n/W_nn), then
                   f_t ← radial projection of (f_t − W_tt⁻¹ v_t) on the disk μ f_n;
  MODE_PROJ   (2)  De Saxcé–Feng projection: f ← P_K(f − ρ (v + μ‖v_t‖ e_n)), ρ = 1/λmax(W_cc).
No per-contact Python objects: flat arrays only.
"""
import numpy as np
from numba import njit

MODE_NEWTON, MODE_PLAIN, MODE_PROJ = 0, 1, 2


@njit(cache=True)
def _proj_cone(f, mu, out):
    n = f[0]
    nt = np.sqrt(f[1] * f[1] + f[2] * f[2])
    if nt <= mu * n:
        out[0], out[1], out[2] = f[0], f[1], f[2]
    elif mu * nt <= -n:
        out[0], out[1], out[2] = 0.0, 0.0, 0.0
    else:
        a = (n + mu * nt) / (1.0 + mu * mu)
        s = mu * a / nt
        out[0], out[1], out[2] = a, s * f[1], s * f[2]


@njit(cache=True)
def ac_phi_jac(x, Wii, vloc, mu, rho_n, rho_t, phi, J):
    """Alart–Curnier function φ(v, f) (6,) and its generalized Jacobian (6×6), eqs 3.28–3.33,
    with ρ_n v_n in the active normal branch (typo (3.31) corrected, spec §2.20)."""
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
def _solve6_ws(A, b, M, x):
    """x = A⁻¹ b for a small dense system: Gaussian elimination with partial pivoting, M is
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
    _solve6_ws(Mw[:3, :3], dx[3:6], Mw[3:6, :3], dx[3:6])
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
    _proj_cone(xb[3:], mu, f)
    for r in range(3):
        s = vloc[r]
        for k in range(3):
            s += Wii[r, k] * f[k]
        v[r] = s
    return it


@njit(cache=True)
def _local(mode, Wii, Wiinv, vloc, vcur, fi, mu, newton_tol, newton_maxit, out, hist, vec, mat, g, vv):
    """New force of one contact given its local free velocity vloc (others fixed)."""
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
        if fi[0] > 0.0 and ftn >= mu * fi[0] * (1.0 - 1e-9):
            # sliding in the previous sweep: start Newton from that force (thesis L1426 advice)
            g[0], g[1], g[2] = fi[0], fi[1], fi[2]
        else:
            _proj_cone(out, mu, g)
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
        rho = Wiinv[0, 0]  # ρ_c = 1/λmax(W_cc), stored there by gs_solve for this mode
        nvt = np.sqrt(vcur[1] * vcur[1] + vcur[2] * vcur[2])
        y = g
        y[0] = fi[0] - rho * (vcur[0] + mu * nvt)
        y[1] = fi[1] - rho * vcur[1]
        y[2] = fi[2] - rho * vcur[2]
        _proj_cone(y, mu, out)
        return 0


@njit(cache=True)
def true_residuals(W, vfree, mu, f, v):
    """v ← W f + v_free; returns (complementarity, penetration, cone)."""
    n = vfree.shape[0]
    for r in range(n):
        s = vfree[r]
        for k in range(n):
            s += W[r, k] * f[k]
        v[r] = s
    return _cheap_residuals(mu, f, v)


@njit(cache=True)
def _cheap_residuals(mu, f, v):
    """(complementarity, penetration, cone) of impulses f with contact velocities v already known."""
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


@njit(cache=True)
def natural_map(W, mu, f, v):
    """max_c ‖f_c − P_K(f_c − ρ_c (v_c + μ‖v_t,c‖ e_n))‖, ρ_c = 1/W_nn,c [force units]:
    0 exactly at a Coulomb–Signorini solution (De Saxcé); the merit of the best iterate."""
    out = 0.0
    y = np.empty(3)
    p = np.empty(3)
    for c in range(f.shape[0] // 3):
        i = 3 * c
        rho = 1.0 / W[i, i]
        nvt = np.sqrt(v[i + 1] ** 2 + v[i + 2] ** 2)
        y[0] = f[i] - rho * (v[i] + mu[c] * nvt)
        y[1] = f[i + 1] - rho * v[i + 1]
        y[2] = f[i + 2] - rho * v[i + 2]
        _proj_cone(y, mu[c], p)
        out = max(out, np.sqrt((f[i] - p[0]) ** 2 + (f[i + 1] - p[1]) ** 2 + (f[i + 2] - p[2]) ** 2))
    return out


STICK_PIVOT_TOL = 1e-10  # pivoted-Cholesky rank cut, relative to the largest diagonal (our choice)
STICK_EVERY = 4          # active-set step after sweeps 1 and 2, then after every sweep that follows
                         # an accepted step, else every 4th sweep (our choice, measured)
STICK_ROUNDS = 4         # reduced solves per step (reclassification after a cone exit; our choice)
NEWTON_STEP_VT = 1e-8    # [m/s] a boundary contact slower than this is treated as sticking (ours)
SLIDE_VT = 5e-5          # [m/s] step choice: a boundary contact faster than this slides (ours; measured:
                         # standing iterates ≤ 1.8e-5 m/s after 1-2 sweeps, sliding ≥ 1.1e-4 m/s)
NEWTON_STEP_MAX_ROWS = 96  # newton_step (dense least squares, O(n³)) only up to 32 contacts (ours:
                           # 198 rows took 0.3 s per step at 66 contacts on the 2-core VM, measured)


@njit(cache=True)
def _reduced_solve(W, mu, fb, vb, kind, fnew):
    """fnew = fb + P y with the minimum-norm y solving Pᵀ W P y = −Pᵀ vb (see `stick_step`;
    vb = W fb + v_free). kind per contact: 0 fixed, 1 sticking (3 unknowns), 2 on the cone
    boundary (1 unknown along b_c = e_n + μ d_c, d_c = fb_t/‖fb_t‖). False if nothing to solve."""
    n = fb.shape[0]
    m = n // 3
    con = np.empty(n, np.int64)   # contact of unknown a
    B = np.zeros((n, 3))          # its direction in the contact's (n, t1, t2) coordinates
    k = 0
    for c in range(m):
        i = 3 * c
        if kind[c] == 1:
            for r in range(3):
                con[k] = c
                B[k, r] = 1.0
                k += 1
        elif kind[c] == 2:
            nt = np.sqrt(fb[i + 1] ** 2 + fb[i + 2] ** 2)
            con[k] = c
            B[k, 0] = 1.0
            B[k, 1] = mu[c] * fb[i + 1] / nt
            B[k, 2] = mu[c] * fb[i + 2] / nt
            k += 1
    for i in range(n):
        fnew[i] = fb[i]
    if k == 0:
        return False
    A = np.empty((k, k))
    d = np.empty(k)
    cv = np.empty(k)
    dmax = 0.0
    for a in range(k):
        ia = 3 * con[a]
        s = 0.0
        for r in range(3):
            s -= B[a, r] * vb[ia + r]
        cv[a] = s
        for b in range(a + 1):
            ib = 3 * con[b]
            s = 0.0
            for r in range(3):
                if B[a, r] != 0.0:
                    t = 0.0
                    for q in range(3):
                        t += W[ia + r, ib + q] * B[b, q]
                    s += B[a, r] * t
            A[a, b] = s
            A[b, a] = s
        d[a] = A[a, a]
        dmax = max(dmax, d[a])
    if dmax <= 0.0:
        return False
    # rank-revealing pivoted Cholesky A = L Lᵀ (L: k × r, column j has zeros on the rows
    # pivoted before j)
    L = np.zeros((k, k))
    used = np.zeros(k, np.bool_)
    piv = np.empty(k, np.int64)
    r = 0
    for j in range(k):
        p = -1
        dp = STICK_PIVOT_TOL * dmax
        for a in range(k):
            if not used[a] and d[a] > dp:
                dp = d[a]
                p = a
        if p < 0:
            break
        used[p] = True
        piv[j] = p
        ljj = np.sqrt(dp)
        for a in range(k):
            if used[a]:
                continue
            s = A[a, p]
            for l in range(j):
                s -= L[a, l] * L[p, l]
            L[a, j] = s / ljj
            d[a] -= L[a, j] * L[a, j]
        L[p, j] = ljj
        r += 1
    # c: forward substitution on the pivot rows (L[piv[a], l] = 0 for l > a)
    y = np.empty(r)
    for a in range(r):
        s = cv[piv[a]]
        for l in range(a):
            s -= L[piv[a], l] * y[l]
        y[a] = s / L[piv[a], a]
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
    sticking set (f_n > 0, ‖f_t‖ < μ f_n(1 − 1e-9)): 3 unknowns per contact, equations
    v_c = 0; with `boundary`, also the contacts on the cone boundary (f_n > 0, ‖f_t‖ ≥
    μ f_n(1 − 1e-9)): one unknown along b_c = e_n + μ d_c (d_c = f_t/‖f_t‖), equation
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
        if ft2 < (mu[c] * fn * (1.0 - 1e-9)) ** 2:
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
    for rnd in range(rounds):
        if not _reduced_solve(W, mu, fb, vb, kind, fnew):
            return False, merit
        changed = False
        for c in range(m):
            if kind[c] == 0:
                continue
            i = 3 * c
            fn = fnew[i]
            nt = np.sqrt(fnew[i + 1] ** 2 + fnew[i + 2] ** 2)
            if nt <= mu[c] * fn:
                continue
            if kind[c] == 2 and fn > 0.0 and nt > 0.0:
                sc = mu[c] * fn / nt   # on the boundary up to rounding: put it there
                fnew[i + 1] *= sc
                fnew[i + 2] *= sc
                continue
            _proj_cone(fnew[i:i + 3].copy(), mu[c], tmp)
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
    """True if some contact is on its cone boundary (f_n > 0, ‖f_t‖ ≥ μ f_n(1 − 1e-9)) with a
    tangential velocity above SLIDE_VT."""
    for c in range(f.shape[0] // 3):
        i = 3 * c
        fn = f[i]
        if fn > 0.0 and f[i + 1] ** 2 + f[i + 2] ** 2 >= (mu[c] * fn * (1.0 - 1e-9)) ** 2 \
                and v[i + 1] ** 2 + v[i + 2] ** 2 > SLIDE_VT ** 2:
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
    sweeps on the articulated table problem; measured, docs/solvers.md). Candidates P_K(f + α δf), α = 1, ½, ¼, projected on the cones;
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
        elif ft2 < (mu[c] * fn * (1.0 - 1e-9)) ** 2 or nvt <= NEWTON_STEP_VT:
            for q in range(3):
                for j in range(n):
                    K[i + q, j] = W[i + q, j]
                rhs[i + q] = -v[i + q]
        else:
            for j in range(n):
                K[i, j] = W[i, j]
            rhs[i] = -v[i]
            e1, e2 = v[i + 1] / nvt, v[i + 2] / nvt
            a = mu[c] * fn / nvt   # μ f_n (I − e eᵀ)/‖v_t‖
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
            _proj_cone(tmp.copy(), mu[c], tmp)
            fc[i], fc[i + 1], fc[i + 2] = tmp[0], tmp[1], tmp[2]
        true_residuals(W, vfree, mu, fc, vc)
        mc = natural_map(W, mu, fc, vc)
        if mc < best:
            best = mc
            fnew[:] = fc
            vnew[:] = vc
        alpha *= 0.5
    return best < merit, best


@njit(cache=True)
def gs_solve(mode, W, vfree, mu, f, max_iter, tol_rel, tol_comp, tol_pen, tol_cone,
             newton_tol, newton_maxit, stats, accel=False):
    """Block GS sweeps from f (warm start, modified in place). Returned iterate: the last one
    when converged; when a budget runs out, the last one unless its natural-map residual is
    more than twice the smallest seen, in which case the best one (our rule: deterministic for
    decoupled groups, and a safeguard against oscillating iterations).
    accel: after sweeps 1 and 2, after a sweep that follows an accepted step, else every
    STICK_EVERY sweeps, try a verified active-set step: if some contact slides, `newton_step`
    (≤ NEWTON_STEP_MAX_ROWS rows), then `stick_step` without boundary contacts; else
    `stick_step` with, then without boundary contacts, then `newton_step`;
    a step is kept only when it lowers the natural-map residual.
    stats (out): [sweeps, converged, comp, pen, cone, rel, newton_iterations_total,
    accepted sticking-block steps]."""
    n = vfree.shape[0]
    m = n // 3
    Winv = np.empty((m, 3, 3))
    for c in range(m):
        if mode == MODE_PROJ:  # step ρ_c = 1/λmax(W_cc) (stable for any block anisotropy)
            Winv[c, :, :] = 0.0
            Winv[c, 0, 0] = 1.0 / np.linalg.eigvalsh(np.ascontiguousarray(W[3 * c:3 * c + 3, 3 * c:3 * c + 3]))[2]
        else:
            _inv3(W, 3 * c, Winv[c])
    # start from a feasible point
    tmp = np.empty(3)
    tmp2 = np.empty(3)
    for c in range(m):
        tmp2[0], tmp2[1], tmp2[2] = f[3 * c], f[3 * c + 1], f[3 * c + 2]
        _proj_cone(tmp2, mu[c], tmp)
        f[3 * c], f[3 * c + 1], f[3 * c + 2] = tmp[0], tmp[1], tmp[2]
    v = np.empty(n)
    comp, pen, cone = true_residuals(W, vfree, mu, f, v)
    best = natural_map(W, mu, f, v)
    fbest = f.copy()
    out = np.empty(3)
    vloc = np.empty(3)
    hist = np.empty(0)
    vec = np.empty((6, 6))
    mat = np.empty((3, 6, 6))
    g = np.empty(3)
    vv = np.empty(3)
    crel = np.full(m, 1e-4)  # first sweep: Newton tolerance 1e-6 (a warm start is checked closely)
    sweeps = 0
    conv = 0
    rel = np.inf
    newt = 0
    # (no early exit on the warm start: comp/pen/cone do not test the friction law; one sweep
    #  with zero relative change confirms a correct warm start)
    bcomp, bpen, bcone, brel = comp, pen, cone, rel
    lcomp, lpen, lcone, lrel = comp, pen, cone, rel
    flast_ok = True
    nacc = 0
    last_try = 0
    last_acc = False
    fnew = np.empty(n)
    vnew = np.empty(n)
    for it in range(max_iter):
        sweeps = it + 1
        dsum = 0.0
        fsum = 0.0
        for c in range(m):
            i0 = 3 * c
            Wii = W[i0:i0 + 3, i0:i0 + 3]
            for r in range(3):
                s = v[i0 + r]
                for k in range(3):
                    s -= Wii[r, k] * f[i0 + k]
                vloc[r] = s
            # inexact local solves while this contact is far from converged (our choice):
            # Newton tolerance max(newton_tol, min(1e-3, 1e-2 · its previous relative change));
            # per contact, so decoupled groups iterate exactly as when solved separately
            ntol = max(newton_tol, min(1e-3, 1e-2 * crel[c]))
            newt += _local(mode, Wii, Winv[c], vloc, v[i0:i0 + 3], f[i0:i0 + 3], mu[c],
                           ntol, newton_maxit, out, hist, vec, mat, g, vv)
            d0 = out[0] - f[i0]
            d1 = out[1] - f[i0 + 1]
            d2 = out[2] - f[i0 + 2]
            dn = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
            fo = np.sqrt(out[0] ** 2 + out[1] ** 2 + out[2] ** 2)
            dsum += dn
            fsum += fo
            crel[c] = dn / fo if fo > 0.0 else (0.0 if dn == 0.0 else 1.0)
            if dn > 0.0:
                for r in range(n):
                    v[r] += W[r, i0] * d0 + W[r, i0 + 1] * d1 + W[r, i0 + 2] * d2
                f[i0], f[i0 + 1], f[i0 + 2] = out[0], out[1], out[2]
        rel = dsum / max(fsum, 1e-300) if fsum > 0.0 else (0.0 if dsum == 0.0 else np.inf)
        # residuals from the incrementally updated v (O(m)); v is recomputed exactly (O(m²))
        # every 16 sweeps, at the last sweep and before convergence is declared
        exact = (sweeps % 16 == 0) or (it == max_iter - 1)
        if exact:
            comp, pen, cone = true_residuals(W, vfree, mu, f, v)
        else:
            comp, pen, cone = _cheap_residuals(mu, f, v)
        ok = rel <= tol_rel and max(comp / tol_comp, pen / tol_pen, cone / tol_cone) <= 1.0
        if ok and not exact:
            comp, pen, cone = true_residuals(W, vfree, mu, f, v)
            ok = max(comp / tol_comp, pen / tol_pen, cone / tol_cone) <= 1.0
        merit = natural_map(W, mu, f, v)
        if merit <= best:
            best = merit
            fbest[:] = f
            bcomp, bpen, bcone, brel = comp, pen, cone, rel
        if merit <= 2.0 * best:  # the last iterate wins unless clearly worse (see docstring)
            flast_ok = True
            lcomp, lpen, lcone, lrel = comp, pen, cone, rel
        else:
            flast_ok = False
        if ok:
            conv = 1
            fbest[:] = f
            bcomp, bpen, bcone, brel = comp, pen, cone, rel
            break
        if accel and (sweeps <= 2 or last_acc or sweeps - last_try >= STICK_EVERY) and it < max_iter - 1:
            last_try = sweeps
            if not exact:
                true_residuals(W, vfree, mu, f, v)
            # b_cᵀ v_c = 0 is the law of a contact sticking on its cone boundary, not of a
            # sliding one: with sliding contacts, boundary contacts stay fixed in stick_step
            # sliding contacts: the global Newton step first (the sticking-only step is
            # accepted often but gains little there: 51 instead of 9 sweeps, measured)
            sliding = has_sliding(mu, f, v)
            small = n <= NEWTON_STEP_MAX_ROWS
            acc = False
            mnew = merit
            if sliding and small:
                acc, mnew = newton_step(W, vfree, mu, f, v, merit, fnew, vnew)
            if not acc and not sliding:
                acc, mnew = stick_step(W, vfree, mu, f, v, merit, True, STICK_ROUNDS, fnew, vnew)
            if not acc:
                acc, mnew = stick_step(W, vfree, mu, f, v, merit, False, STICK_ROUNDS, fnew, vnew)
            if not acc and not sliding and small:
                acc, mnew = newton_step(W, vfree, mu, f, v, merit, fnew, vnew)
            last_acc = acc
            if acc:
                nacc += 1
                f[:] = fnew
                v[:] = vnew
                if mnew <= best:
                    best = mnew
                    fbest[:] = f
                    bcomp, bpen, bcone = _cheap_residuals(mu, f, v)
                    brel = rel
    if not conv and flast_ok:
        bcomp, bpen, bcone, brel = lcomp, lpen, lcone, lrel
    elif not conv:
        f[:] = fbest
    stats[0] = sweeps
    stats[1] = conv
    stats[2] = bcomp
    stats[3] = bpen
    stats[4] = bcone
    stats[5] = brel
    stats[6] = newt
    stats[7] = nacc


def run_gs(mode, name, problem, warm_start, settings, accel=False):
    """Python driver: iteration budget inside numba; a time budget runs the kernel in chunks of
    `chunk` sweeps and stops at the deadline, keeping the best iterate."""
    import time

    from .base import SolverResult, SolverSettings, residuals

    s = settings or SolverSettings()
    t0 = time.perf_counter()
    n = problem.v_free.shape[0]
    f = np.zeros(n) if warm_start is None else np.array(warm_start, dtype=float).reshape(n)
    stats = np.zeros(8)
    args = (problem.W_eff, problem.v_free, problem.mu)
    tols = (s.tol_rel, s.tol_complementarity, s.tol_penetration, s.tol_cone, s.newton_tol,
            s.newton_max_iterations)
    if s.time_budget is None:
        gs_solve(mode, *args, f, s.max_iterations, *tols, stats, accel)
        sweeps, conv, nacc = int(stats[0]), bool(stats[1]), int(stats[7])
    else:
        chunk, sweeps, conv, nacc = 4, 0, False, 0
        while sweeps < s.max_iterations:
            k = min(chunk, s.max_iterations - sweeps)
            gs_solve(mode, *args, f, k, *tols, stats, accel)
            sweeps += int(stats[0])
            nacc += int(stats[7])
            conv = bool(stats[1])
            if conv or time.perf_counter() - t0 > s.time_budget:
                break
    v = problem.W_eff @ f + problem.v_free
    res = residuals(problem, f, v)
    res["relative_change"] = float(stats[5])
    return SolverResult(f, v, sweeps, res, conv, time.perf_counter() - t0, name,
                        {"newton_iterations": int(stats[6]), "stick_steps": nacc})


@njit(cache=True)
def residual_kernel(W, mu, f, v, slide_tol, out):
    """out = [complementarity, penetration, cone, dissipation, slip_force, natural_map,
    sliding_contacts] (definitions in base.residuals)."""
    comp = pen = cone = dis = slip = 0.0
    nsl = 0
    for c in range(f.shape[0] // 3):
        i = 3 * c
        fn, vn = f[i], v[i]
        nft = np.sqrt(f[i + 1] ** 2 + f[i + 2] ** 2)
        nvt = np.sqrt(v[i + 1] ** 2 + v[i + 2] ** 2)
        comp = max(comp, abs(fn * vn))
        pen = max(pen, -vn)
        cone = max(cone, nft - mu[c] * fn, -fn)
        if nvt > slide_tol and fn > 0.0:
            nsl += 1
            cs = -(f[i + 1] * v[i + 1] + f[i + 2] * v[i + 2]) / max(nft * nvt, 1e-300)
            dis = max(dis, 1.0 - cs)
            slip = max(slip, abs(nft - mu[c] * fn))
    out[0], out[1], out[2], out[3], out[4] = comp, pen, cone, dis, slip
    out[5] = natural_map(W, mu, f, v)
    out[6] = nsl
