"""The block Gauss–Seidel sweep driver shared by `nsgs_newton`, `nsgs` and `projection` (Chardonnet
2009, §3.1.4.2, Algorithm 1): `gs_solve` (numba) sweeps over the
contacts with one local rule of `_local` (`mode`), decides convergence on the relative change
(eq. (3.34)) AND the true residuals, keeps the best iterate, and (for `nsgs_newton`) tries the
verified active-set steps of `_active_set` on a schedule; `run_gs` is its Python driver
(settings, iteration and time budgets, the `SolverResult`), `run_gs_trusted` the simulator's
one-call path, and `GaussSeidelSolver` the family's `ContactSolver`.
"""

import time

import numpy as np
from numba import njit

from ._active_set import STICK_ROUNDS, has_sliding, newton_step, stick_step
from ._conditioning import scan_problem, singular_block_compliance
from ._local import local_matrix, local_update
from ._residuals import cheap_residuals, natural_map, proj_cone, true_residuals, velocity_residuals
from .base import ContactSolver, SolverResult, SolverSettings, residual_dict

STICK_EVERY = 4  # active-set step after sweeps 1 and 2, then after every sweep that follows
# an accepted step, else every 4th sweep (our choice, measured)
NEWTON_STEP_MAX_ROWS = 96  # newton_step (dense least squares, O(n³)) only up to 32 contacts (ours:
# 198 rows took 0.3 s per step at 66 contacts on the 2-core VM, measured)
TIME_BUDGET_CHUNK = 4  # [sweeps] a time budget is checked between chunks of this many sweeps (ours)
SLIDE_TOL = 1e-6  # [m/s] `base.residuals`'s default sliding threshold, for the returned residuals
_DEFAULTS = SolverSettings()  # settings=None (read only: built once, not per solve)


@njit(cache=True)
def gs_solve(
    mode, W, vfree, mu, f, max_iter, tol_rel, tol_comp, tol_pen, tol_cone, newton_tol, newton_maxit, stats, accel,
    v_out, res_out, stall_sweeps, stall_gain,
):  # fmt: skip
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
    accepted sticking-block steps]; v_out (out, n): W f + v_free at the returned f, and res_out
    (out, 7): `base.residuals`'s kernel there (`_residuals.velocity_residuals`, sliding threshold
    SLIDE_TOL)."""
    n = vfree.shape[0]
    m = n // 3
    Winv = np.empty((m, 3, 3))
    for c in range(m):
        local_matrix(mode, W, 3 * c, Winv[c])
    # start from a feasible point
    tmp = np.empty(3)
    tmp2 = np.empty(3)
    for c in range(m):
        tmp2[0], tmp2[1], tmp2[2] = f[3 * c], f[3 * c + 1], f[3 * c + 2]
        proj_cone(tmp2, mu[c], tmp)
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
    best_mark = best
    for it in range(max_iter):
        sweeps = it + 1
        dsum = 0.0
        fsum = 0.0
        for c in range(m):
            i0 = 3 * c
            Wii = W[i0 : i0 + 3, i0 : i0 + 3]
            for r in range(3):
                s = v[i0 + r]
                for k in range(3):
                    s -= Wii[r, k] * f[i0 + k]
                vloc[r] = s
            # inexact local solves while this contact is far from converged (our choice):
            # Newton tolerance max(newton_tol, min(1e-3, 1e-2 · its previous relative change));
            # per contact, so decoupled groups iterate exactly as when solved separately
            ntol = max(newton_tol, min(1e-3, 1e-2 * crel[c]))
            newt += local_update(
                mode,
                Wii,
                Winv[c],
                vloc,
                v[i0 : i0 + 3],
                f[i0 : i0 + 3],
                mu[c],
                ntol,
                newton_maxit,
                out,
                hist,
                vec,
                mat,
                g,
                vv,
            )
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
            comp, pen, cone = cheap_residuals(mu, f, v)
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
        if stall_sweeps > 0 and sweeps % stall_sweeps == 0:
            if best > (1.0 - stall_gain) * best_mark:
                break  # stalled: return what a spent budget returns (`SolverSettings.stall_sweeps`)
            best_mark = best
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
                    bcomp, bpen, bcone = cheap_residuals(mu, f, v)
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
    # v = W f + v_free by the compiled kernel, not BLAS: OpenBLAS runs a product of 96 × 96 and
    # more on two threads (its size threshold), which costs more than it saves on a busy machine
    velocity_residuals(W, vfree, mu, f, v_out, SLIDE_TOL, res_out)


@njit(cache=True)
def gs_trusted(
    mode, W, vfree, mu, f, max_iter, tol_rel, tol_comp, tol_pen, tol_cone, newton_tol, newton_maxit, stats, accel,
    v_out, res_out, stall_sweeps, stall_gain,
):  # fmt: skip
    """`base.ContactProblem.trusted`'s check and conditioning, then `gs_solve` (same arguments),
    in one compiled call: False, with nothing solved, when W or v_free holds a NaN or inf; else
    the contact blocks that are singular get their compliance in a copy of W (`_conditioning`,
    as `base._invertible_blocks`) and the sweeps run on it."""
    singular = scan_problem(W, vfree)
    if singular < 0:
        return False
    if singular:
        eps = np.empty(W.shape[0])
        singular_block_compliance(W, eps)
        W = W + np.diag(eps)
    gs_solve(
        mode, W, vfree, mu, f, max_iter, tol_rel, tol_comp, tol_pen, tol_cone, newton_tol, newton_maxit, stats, accel,
        v_out, res_out, stall_sweeps, stall_gain,
    )  # fmt: skip
    return True


def run_gs_trusted(mode, name, W, v_free, mu, warm_start, settings, accel=False):
    """`run_gs` of ``ContactProblem.trusted(W, v_free, mu)`` without building the problem (the
    simulator's hot path: `GaussSeidelSolver.solve_trusted`): the check, the conditioning and the
    sweeps in one compiled call (`gs_trusted`), the same `SolverResult`. None (the caller then
    builds the problem, whose checks name what is wrong) when W is not (3m, 3m) for v_free (3m,),
    when W or v_free is not finite, or under a time budget (`run_gs`'s chunks)."""
    s = settings or _DEFAULTS
    n = v_free.shape[0]
    if s.time_budget is not None or W.shape != (n, n):
        return None
    t0 = time.perf_counter()
    f, stats, v, o = _buffers(warm_start, n)
    stall = (s.stall_sweeps, s.stall_gain)
    if not gs_trusted(mode, W, v_free, mu, f, s.max_iterations, *_tolerances(s), stats, accel, v, o, *stall):
        return None
    st = stats.tolist()
    return _result(name, f, v, o, st, int(st[0]), bool(st[1]), int(st[7]), t0)


def _buffers(warm_start, n):
    """(f (n,): the warm start's copy or zeros, the kernel's stats (8,), v (n,) and residuals (7,)
    to be filled by it)."""
    f = np.zeros(n) if warm_start is None else np.array(warm_start, dtype=float).reshape(n)
    return f, np.zeros(8), np.empty(n), np.empty(7)


def _tolerances(s):
    """The kernel's stopping arguments of settings ``s``, in `gs_solve`'s order."""
    return (s.tol_rel, s.tol_complementarity, s.tol_penetration, s.tol_cone, s.newton_tol, s.newton_max_iterations)


def _result(name, f, v, o, st, sweeps, conv, nacc, t0):
    """The `SolverResult` of a run: the kernel's outputs (f, v, residuals o, stats list st) with
    its sweeps, convergence and accepted active-set steps, timed from ``t0``."""
    res = residual_dict(o)
    res["relative_change"] = st[5]
    extra = {"newton_iterations": int(st[6]), "stick_steps": nacc}
    return SolverResult(f, v, sweeps, res, conv, time.perf_counter() - t0, name, extra)


def run_gs(mode, name, problem, warm_start, settings, accel=False):
    """Solve `problem` with the sweeps of local rule `mode` (`_local.MODE_*`) and return the
    `SolverResult` of solver `name` (see `base.ContactSolver.solve` for the arguments); accel
    enables the active-set steps. The iteration budget runs inside numba; a time budget runs the
    kernel in chunks of TIME_BUDGET_CHUNK sweeps and stops at the deadline, keeping the best
    iterate."""
    s = settings or _DEFAULTS
    t0 = time.perf_counter()
    f, stats, v, o = _buffers(warm_start, problem.v_free.shape[0])  # v, o: W f + v_free and its residuals
    args = (problem.W_eff, problem.v_free, problem.mu)
    tols = _tolerances(s)
    if s.time_budget is None:
        gs_solve(mode, *args, f, s.max_iterations, *tols, stats, accel, v, o, s.stall_sweeps, s.stall_gain)
        st = stats.tolist()
        sweeps, conv, nacc = int(st[0]), bool(st[1]), int(st[7])
    else:
        sweeps, conv, nacc = 0, False, 0
        while sweeps < s.max_iterations:
            k = min(TIME_BUDGET_CHUNK, s.max_iterations - sweeps)
            gs_solve(mode, *args, f, k, *tols, stats, accel, v, o, 0, 0.0)  # chunks: the time budget decides
            sweeps += int(stats[0])
            nacc += int(stats[7])
            conv = bool(stats[1])
            if conv or time.perf_counter() - t0 > s.time_budget:
                break
        st = stats.tolist()
    return _result(name, f, v, o, st, sweeps, conv, nacc, t0)


class GaussSeidelSolver(ContactSolver):
    """A solver of the Gauss–Seidel family: the sweeps of `gs_solve` with the local rule ``mode``
    (`_local.MODE_*`, a class attribute), the active-set steps when ``accel``. Subclasses set
    ``name`` and ``mode``."""

    mode: int
    accel: bool = False

    def solve(self, problem, warm_start=None, settings=None):
        """See `ContactSolver.solve` (forces [N] for W = dt Λ)."""
        return run_gs(self.mode, self.name, problem, warm_start, settings, accel=self.accel)

    def solve_trusted(self, W, v_free, mu, warm_start=None, settings=None, compliance=None, source="contact problem"):
        """See `ContactSolver.solve_trusted`: without compliance, one compiled call (`run_gs_trusted`)."""
        if compliance is None:
            res = run_gs_trusted(self.mode, self.name, W, v_free, mu, warm_start, settings, accel=self.accel)
            if res is not None:
                return res
        return super().solve_trusted(W, v_free, mu, warm_start, settings, compliance, source)
