"""Method (b): the thesis's indirect method, Pontryagin's maximum principle (Chessé 2002, §II.3.6
and §III.3.2.5), solved as a two-point boundary-value problem with ``scipy.integrate.solve_bvp``.

State x = (q, p) with p = M(q) qdot (Hamiltonian form, Chessé 2002, §I.3.2.2, eqs. (I.10)-(I.14));
co-state w = (w_q, w_p).  H = w^T f(x, u) - l_r(x, u) (eq. (II.19)) is maximised by
u* = sat(W^-1 B(q)^T w_p) (eq. (II.25); exact for the box of torque bounds and FB1, FB2 >= 0, since
the control Hessian is diagonal).  The adjoint is
wdot = -dH/dx at u = u* (CasADi exact Jacobians).  In single support the stance-foot bounds NB1 >= 1 N,
NB2 >= 6 N are mixed state-control constraints: u* maximises H under them (`_maximise_with_lower_bounds`)
and the adjoint is the total derivative of H(x, u*(x, w), w) (docs/gait.md, "PMP for single
support").  Boundary conditions: x(0) = x0, x(T) = x1.
Continuation in the penalty factors r_d, r_a and the inertias (Chessé 2002, §II.4.7 and §III.4) is
done by re-solving from the previous solution.

Closure and flattening stay exterior penalties; the same :class:`~humanoid_planner.gait.cost.
Weights` as the direct method (with ``enforce_contacts=False``: the thesis checks the friction
cones and the rear-toe force only a posteriori, Chessé 2002, §II.4.6).
"""

from __future__ import annotations

import time

import casadi as ca
import numpy as np
from scipy.integrate import solve_bvp

from humanoid_planner.exceptions import PlanningError

from .cost import Weights
from .direct import Phase, PhaseProblemBuilder, PhaseSolution, contact_forces_function, hermite_guess
from .model import PlanarTree


class PMPSystem:
    """CasADi expressions of the PMP boundary-value problem of one phase."""

    def __init__(self, tree: PlanarTree, p, phase: Phase, w: Weights):
        n, m = tree.n, tree.m
        self.tree, self.n, self.m, self.phase, self.w = tree, n, m, phase, w
        bld = PhaseProblemBuilder(tree, p, phase, w)
        self.builder = bld
        q = ca.SX.sym("q", n)
        pm = ca.SX.sym("p", n)
        wq = ca.SX.sym("wq", n)
        wp = ca.SX.sym("wp", n)
        u = ca.SX.sym("u", m)
        M = tree.f_M(q)
        qd = ca.solve(M, pm)
        B = tree.f_B(q)
        fp = tree.f_half_vdMv(q, qd) - tree.f_gq(q) + B @ u
        f = ca.vertcat(qd, fp)
        l = bld.f_l(q, qd, u)
        x = ca.vertcat(q, pm)
        wv = ca.vertcat(wq, wp)
        H = ca.dot(wv, f) - l
        Winv = 1.0 / bld.W
        self.mixed = None
        lb = np.full(m, -w.tau_max)
        ub = np.full(m, w.tau_max)
        if phase.kind == "ds":
            lb[6:] = [0.0, 0.0, -np.inf]
            cap = w.toe_force_cap()
            ub[6:] = [np.inf, cap if cap is not None else np.inf, np.inf]
        self.lb, self.ub = lb, ub
        u_free = ca.DM(Winv) * (B.T @ wp)  # the unconstrained maximiser (II.24)
        u_law = u_free
        if phase.kind == "ss":
            # stance-foot unilaterality NB1 >= ss_heel_min, NB2 >= ss_toe_min, the direct method's
            # bounds (our reading of Chessé 2002, §III.3.2.8): affine in u at a given state (mixed
            # constraints)
            cf = contact_forces_function(tree, p, "ss")
            g = cf(q, qd, ca.solve(M, B @ u - tree.f_bias(q, qd)), u)[:2]
            self.mixed = ca.Function("stance_normal", [ca.vertcat(q, pm), u], [g])
            vv, aa = ca.SX.sym("v", n), ca.SX.sym("a", n)
            self.f_stance_da = ca.Function("stance_da", [q, vv, aa, u], [ca.jacobian(cf(q, vv, aa, u)[:2], aa)])
            u_law = _maximise_with_lower_bounds(
                u_free, Winv, ca.jacobian(g, u), ca.substitute(g, u, ca.DM.zeros(m)), [w.ss_heel_min, w.ss_toe_min]
            )
        u_star = ca.fmin(ca.fmax(u_law, ca.DM(lb)), ca.DM(ub))
        if self.mixed is None:
            # box only: at u* either dH/du_i = 0 or u_i sits on a constant bound, so dH/dx at fixed u
            # is the total derivative
            dHdx = ca.substitute(ca.gradient(H, x), u, u_star)
        else:
            # an active mixed constraint g(x, u*) = lb adds mu^T dg/dx to the adjoint (augmented
            # Hamiltonian H + mu^T g): the total derivative of H(x, u*(x, w), w), since there
            # dH/du du*/dx = mu^T dg/dx
            dHdx = ca.gradient(ca.substitute(H, u, u_star), x)
        rhs = ca.vertcat(ca.substitute(f, u, u_star), -dHdx)
        y = ca.vertcat(q, pm, wq, wp)
        self.f_rhs = ca.Function("pmp_rhs", [y], [rhs])
        self.f_jac = ca.Function("pmp_jac", [y], [ca.jacobian(rhs, y)])
        self.f_u = ca.Function("u_star", [y], [u_star])
        self.f_ufree = ca.Function("u_free", [y], [u_free])
        self.f_H = ca.Function("H", [y], [ca.substitute(H, u, u_star)])
        self.f_l = ca.Function("l_star", [y], [ca.substitute(l, u, u_star)])
        self.f_qd = ca.Function("qd", [y], [qd])
        self._maps = {}

    def _mapped(self, name, k):
        key = (name, k)
        if key not in self._maps:
            self._maps[key] = getattr(self, name).map(k)
        return self._maps[key]

    def rhs(self, t, y):
        return np.array(self._mapped("f_rhs", y.shape[1])(y))

    def jac(self, t, y):
        k = y.shape[1]
        d = 4 * self.n
        J = np.array(self._mapped("f_jac", k)(y))
        return J.reshape(d, k, d).transpose(0, 2, 1)

    def eval(self, name, y):
        return np.array(self._mapped(name, y.shape[1])(y))


def _maximise_with_lower_bounds(u_free, Winv, C, e, lb):
    """The maximiser of the concave H = -1/2 u^T W u + (W u_free)^T u subject to C u + e >= lb.

    With one active row i (KKT): u = u_free + mu W^-1 c_i, mu = (lb_i - c_i u_free - e_i) /
    (c_i W^-1 c_i^T) >= 0.  The first violated row (in order) is made active.  Two rows active
    together would be NB1 = 1 N and NB2 = 6 N at once, a stance foot carrying 7 N of a 1028 N robot:
    not handled (the a-posteriori checks would show it).  The caller applies the torque box
    afterwards (exact where the box and a row are not active together)."""
    Wi = ca.DM(Winv)
    out = u_free
    for i in reversed(range(C.shape[0])):
        c = C[i, :].T
        slack = lb[i] - (ca.dot(c, u_free) + e[i])
        out = ca.if_else(slack > 0, u_free + (slack / ca.dot(c, Wi * c)) * (Wi * c), out)
    return out


# SS guess from a direct solution: the co-states of the END_NODES first and last nodes are replaced
# by the nearest interior node's (the NLP multipliers there carry the boundary conditions, and the
# one-sided differences of w_p give w_q errors of ~100 at the ends; with them the SS BVP's mesh grew
# past 17,000 nodes, without them it converges in 513, chosen)
END_NODES = 3


def initial_guess_from_direct(system: PMPSystem, sol: PhaseSolution):
    """(t, y) from a direct solution: x = (q, M qd); w_p from the NLP multipliers of the dynamics
    (stationarity in u of the NLP Lagrangian gives u = W^-1 B^T lam_k / h_k, the PMP law with
    w_p = lam_k / h_k); w_q from the w_p-rows of the adjoint equation."""
    tree, n = system.tree, system.n
    t = sol.t
    K = len(t)
    h = np.diff(t)
    wts = np.zeros(K)
    wts[:-1] += h / 2
    wts[1:] += h / 2
    P = np.array([tree.M(sol.q[k]) @ sol.v[k] for k in range(K)])
    lam = sol.lam_dyn.copy()
    if system.mixed is not None and sol.lam_stance is not None:
        # the NLP's stance-force bounds depend on the accelerations: their multipliers mu enter the
        # acceleration rows (M^T lam + F_a^T mu + ... = 0), so the PMP's w_p is (lam + M^-T F_a^T mu) / h
        # (then u = W^-1 (B^T w_p + g_u^T m) with m = -mu / h >= 0 and g_u = F_u + F_a M^-1 B)
        for k in range(K):
            Fa = np.array(system.f_stance_da(sol.q[k], sol.v[k], sol.a[k], sol.u[k]))
            lam[k] += np.linalg.solve(tree.M(sol.q[k]).T, Fa.T @ sol.lam_stance[k])
    WP = lam / wts[:, None]
    Y = np.vstack([sol.q.T, P.T, np.zeros((n, K)), WP.T])
    # w_q = M (-wdot_p + (d l/d p) - (d f_p/d p)^T w_p) is what the adjoint's p-rows require; use
    # the rhs with w_q = 0 to get the other terms: wdot_p = -M^-1 w_q + r(q, p, w_p)
    r = system.rhs(t, Y)[3 * n :, :]
    wdot_p = np.gradient(WP, t, axis=0).T
    for k in range(K):
        Y[2 * n : 3 * n, k] = tree.M(sol.q[k]) @ (r[:, k] - wdot_p[:, k])
    if system.mixed is not None and K > 2 * END_NODES + 1:
        E = END_NODES
        Y[2 * n :, :E] = Y[2 * n :, [E]]
        Y[2 * n :, K - E :] = Y[2 * n :, [K - 1 - E]]
    return t, Y


def zero_costate_guess(system: PMPSystem, phase: Phase, K: int = 41):
    """A guess that does not use the direct solution: cubic Hermite states, zero co-states."""
    t = np.linspace(0.0, phase.duration, K)
    q, v, _ = hermite_guess(phase.q0, phase.v0, phase.q1, phase.v1, phase.duration, t)
    P = np.array([system.tree.M(q[k]) @ v[k] for k in range(K)])
    return t, np.vstack([q.T, P.T, np.zeros((2 * system.n, K))])


def solve_pmp(system: PMPSystem, t, Y, tol=1e-4, max_nodes=20000, verbose=0):
    ph = system.phase
    tree = system.tree
    x0 = np.concatenate([ph.q0, tree.M(ph.q0) @ ph.v0])
    x1 = np.concatenate([ph.q1, tree.M(ph.q1) @ ph.v1])
    n2 = 2 * system.n

    def bc(ya, yb):
        return np.concatenate([ya[:n2] - x0, yb[:n2] - x1])

    def bc_jac(ya, yb):
        d = 4 * system.n
        A = np.zeros((d, d))
        Bm = np.zeros((d, d))
        A[:n2, :n2] = np.eye(n2)
        Bm[n2:, :n2] = np.eye(n2)
        return A, Bm

    t0 = time.perf_counter()
    res = solve_bvp(
        system.rhs, bc, t, Y, fun_jac=system.jac, bc_jac=bc_jac, tol=tol, max_nodes=max_nodes, verbose=verbose
    )
    res.solve_time = time.perf_counter() - t0
    return res


def pmp_to_solution(system: PMPSystem, res, K: int = 201) -> PhaseSolution:
    """Sample the BVP solution into a PhaseSolution (q, v, a, u on K nodes) and its cost."""
    ph = system.phase
    t = np.linspace(0.0, ph.duration, K)
    Y = res.sol(t)
    n = system.n
    q = Y[:n].T
    v = system.eval("f_qd", Y).T
    u = system.eval("f_u", Y).T
    a = np.array([system.tree.forward_dynamics(q[k], v[k], u[k]) for k in range(K)])
    # cost by Simpson's rule on the fine mesh
    tf = np.linspace(0.0, ph.duration, 2001)
    lf = system.eval("f_l", res.sol(tf)).ravel()
    from scipy.integrate import simpson

    cost = float(simpson(lf, x=tf))
    s = PhaseSolution(
        phase=ph,
        t=t,
        q=q,
        v=v,
        a=a,
        u=u,
        cost=cost,
        solve_time=getattr(res, "solve_time", 0.0),
        iterations=int(res.niter),
        status=str(res.message),
        success=bool(res.status == 0),
    )
    s.builder = system.builder
    s.bvp = res
    s.costate = Y[2 * n :].T
    return s


def hamiltonian_along(system: PMPSystem, res, K: int = 401):
    """H(x, u*, w) on K points (constant for the autonomous fixed-duration problem; acceptance test
    003 A11)."""
    t = np.linspace(0.0, system.phase.duration, K)
    return t, system.eval("f_H", res.sol(t)).ravel()


# SS tolerance continuation from the direct solution (chosen): solved directly to 1e-3 the SS BVP's
# mesh grows past 19,000 nodes (the kinks where the stance-heel bound becomes active); 1e-1 -> 1e-2
# -> 1e-3 converges in 513 -> 781 -> 807 nodes (docs/gait.md)
SS_TOLERANCES = (1e-1, 1e-2)
MAX_NODES = 5000  # BVP mesh cap of solve_pmp_phase (chosen: the converged solves use at most ~800)


def solve_pmp_phase(
    problem, phase: Phase, weights: Weights | None = None, progress=None, direct=None, tol=1e-3, tolerances=None
):
    """PMP solve of one phase (DS or SS), initialised from the direct solution (computed if not
    given), through the BVP tolerances ``tolerances`` (default: `SS_TOLERANCES` in SS, none in DS)
    down to ``tol``."""
    w = weights or problem.weights.with_(enforce_contacts=False)
    tree = problem.tree(phase.kind)
    if direct is None:
        direct = problem.solve_phase(phase, weights=w)
    system = PMPSystem(tree, problem.params, phase, w)
    t, Y = initial_guess_from_direct(system, direct)
    if tolerances is None:
        tolerances = SS_TOLERANCES if phase.kind == "ss" else ()
    for tk in [x for x in tolerances if x > tol] + [tol]:
        res = solve_pmp(system, t, Y, tol=tk, max_nodes=MAX_NODES)
        if progress:
            progress(
                f"  PMP {phase.name} (tol {tk:g}): {res.message} ({res.niter} it, {len(res.x)} nodes, "
                f"{res.solve_time:.1f} s)"
            )
        if res.status != 0:
            break
        t, Y = res.x, res.y
    s = pmp_to_solution(system, res)
    s.checks = problem.check(s, w)
    s.system = system
    return s


# continuation schedule: (centroidal inertia scale, r_d, r_a), ending at the nominal problem.
# Measured on the cyclic DS from zero co-states: low penalty factors make the BVP mesh explode
# (18,883 nodes, 409 s at r_d = 10, inertia x0.5 with masses scaled), reduced inertias (x0.25,
# x0.5) end on a singular collocation Jacobian, while the nominal problem converges directly with
# the tolerance continuation 1e-1 -> 1e-2 -> 1e-3.  Default: the nominal problem only.
CONTINUATION = ((1.0, 150.0, 15.0),)


def solve_pmp_continuation(
    problem, phase: Phase, weights: Weights | None = None, schedule=CONTINUATION, progress=None, tol=1e-3
):
    """PMP from an initial guess that does not use the direct solution (cubic Hermite states,
    zero co-states), with continuation in the centroidal inertias (the trunk included) and the
    penalty factors (Chessé 2002, §III.4; acceptance test 003 A20) given by ``schedule``, plus a tolerance
    continuation 1e-1 -> 1e-2 -> ``tol`` on the last step, which must be the nominal problem.
    Returns (solution, steps) with one record per continuation step."""
    from .model import ds_model

    w0 = weights or problem.weights.with_(enforce_contacts=False)
    steps, res = [], None
    for k, (scale, r_d, r_a) in enumerate(schedule):
        p = problem.params.scaled(scale)
        w = w0.with_(r_d=r_d * w0.r_d / 150.0, r_a=r_a * w0.r_a / 15.0)
        system = PMPSystem(ds_model(p), p, phase, w)
        if res is None:
            t, Y = zero_costate_guess(system, phase)
        else:
            t, Y = res.x, res.y
        last = k == len(schedule) - 1
        res = solve_pmp(system, t, Y, tol=1e-1, max_nodes=5000)
        if last and res.status == 0:
            res = solve_pmp(system, res.x, res.y, tol=1e-2, max_nodes=5000)
            if res.status == 0:
                res = solve_pmp(system, res.x, res.y, tol=tol, max_nodes=5000)
        _record_step(steps, progress, phase, f"continuation step {k}", k, scale, w, res, res.niter, res.solve_time)
    s = pmp_to_solution(system, res)
    s.checks = problem.check(s, w0)
    s.system = system
    return s, steps


# Schedule of the robustness procedure (Chessé 2002, §III.4; acceptance test 003 A20): (centroidal
# inertia scale, closure penalty r_d) from reduced inertias and r_d = 10 to the nominal problem
# (r_d = 150, Chessé 2002, §III.3.2.8); the flattening penalty r_a is continued in proportion
# (r_a = r_d * w.r_a / w.r_d).  Chosen: three steps, scales 0.5 -> 0.75 -> 1 and r_d geometric.
# Measured on the cyclic DS (thesis params, 2 cores, uniform 101-node restart mesh): 95, 242, 264
# nodes, 1.8 + 4.0 + 8.3 s.  Without the mesh restart the refined meshes accumulate (740 nodes,
# 160 s over 6 steps) and 4 steps from x0.25 hit 2000 nodes at the last step (docs/gait.md).
A20_SCHEDULE = ((0.5, 10.0), (0.75, 38.7), (1.0, 150.0))


def _record_step(steps, progress, phase, label, k, scale, w, res, iterations, seconds):
    """Append one continuation record, report it, and stop with PlanningError if it failed."""
    steps.append(
        {
            "inertia_scale": float(scale),
            "r_d": float(w.r_d),
            "r_a": float(w.r_a),
            "converged": bool(res.status == 0),
            "iterations": int(iterations),
            "nodes": int(len(res.x)),
            "time": float(seconds),
        }
    )
    if progress:
        progress(
            f"  {label}: inertia x{scale}, r_d {w.r_d:.1f}, r_a {w.r_a:.2f}: "
            f"{res.message} ({len(res.x)} nodes, {seconds:.1f} s)"
        )
    if res.status != 0:
        raise PlanningError(
            f"gait phase '{phase.name}': PMP continuation step {k} "
            f"(inertia x{scale}, r_d {w.r_d}) did not converge: {res.message}"
        )


def _uniform(res, K):
    t = np.linspace(res.x[0], res.x[-1], K)
    return t, res.sol(t)


def solve_pmp_a20(
    problem,
    phase: Phase,
    weights: Weights | None = None,
    schedule=A20_SCHEDULE,
    N_init: int = 50,
    mesh: int = 101,
    tol_step: float = 1e-2,
    tol: float = 1e-3,
    max_nodes: int = 3000,
    progress=None,
):
    """The thesis's robustness procedure (Chessé 2002, §III.4; acceptance test 003 A20): PMP
    continuation from reduced inertias and low penalties to the nominal problem, each step
    converging from the previous one.

    Step 0 (reduced problem) is initialised from a direct solution of that reduced problem (the
    direct method replaces the thesis's shooting initialisation, Chessé 2002, §II.4.7); every later
    step starts from the previous step's PMP solution re-sampled on a uniform mesh of ``mesh``
    nodes (so the mesh refined for one step does not accumulate), solved to ``tol_step``; the
    nominal step is then refined to ``tol`` from its own solution.  Returns (solution, steps):
    one record per continuation step (inertia scale, r_d, r_a, converged, Newton iterations,
    nodes, time).  Raises PlanningError if a step fails."""
    from .direct import solve_direct
    from .model import ds_model

    if phase.kind != "ds":
        raise PlanningError(f"gait phase '{phase.name}': the PMP method is implemented for DS only")
    w0 = weights or problem.weights.with_(enforce_contacts=False)
    if not schedule or tuple(schedule[-1]) != (1.0, w0.r_d):
        raise PlanningError(
            f"gait phase '{phase.name}': field 'schedule' must end at the nominal "
            f"problem (1.0, {w0.r_d}), got {schedule!r}"
        )
    steps, res = [], None
    for k, (scale, r_d) in enumerate(schedule):
        p = problem.params.scaled(scale)
        w = w0.with_(r_d=r_d, r_a=r_d * w0.r_a / w0.r_d)
        tree = ds_model(p)
        system = PMPSystem(tree, p, phase, w)
        if res is None:
            d = solve_direct(tree, p, phase, w, N=N_init)
            if not d.success:
                raise PlanningError(
                    f"gait phase '{phase.name}': direct solve of the reduced "
                    f"problem (inertia x{scale}, r_d {r_d}) failed: {d.status}"
                )
            t, Y = initial_guess_from_direct(system, d)
        else:
            t, Y = _uniform(res, mesh)
        last = k == len(schedule) - 1
        res = solve_pmp(system, t, Y, tol=tol_step, max_nodes=max_nodes)
        t_step, it = res.solve_time, res.niter
        if last and res.status == 0 and tol < tol_step:
            res = solve_pmp(system, res.x, res.y, tol=tol, max_nodes=max_nodes)
            t_step += res.solve_time
            it += res.niter
        _record_step(steps, progress, phase, f"A20 step {k}", k, scale, w, res, it, t_step)
    s = pmp_to_solution(system, res)
    s.checks = problem.check(s, w0)
    s.system = system
    s.continuation_steps = len(steps)
    return s, steps
