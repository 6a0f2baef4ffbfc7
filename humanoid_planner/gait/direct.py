"""Method (a): direct transcription of one gait phase, solved with IPOPT through CasADi.

Decision variables at N+1 nodes: q_k, v_k (absolute angles, rates), a_k (accelerations) and the
controls u_k (6 torques, plus FB1, FB2, FB12 in DS).  Constraints:

* dynamics in inverse form at every node, M(q_k) a_k + c(q_k, v_k) + dV/dq - B(q_k) u_k = 0;
* integration with piecewise-linear accelerations: v_{k+1} = v_k + h (a_k + a_{k+1}) / 2 and
  q_{k+1} = q_k + h v_k + h^2 (2 a_k + a_{k+1}) / 6 (exact for that acceleration profile);
* fully specified boundary states (Chessé 2002, §II.3.1, eq. (II.2)), box bounds |tau| <= tau_max,
  FB1, FB2 >= 0 (eqs. (II.37)-(II.38)) and the optional FB2 <= 6 N;
* closure and flattening are *not* constraints: they are the exterior penalties of the cost, as
  in the thesis (§II.4.1, eqs. (II.31)-(II.32); eq. (III.21)).

The cost is the trapezoidal integral of :mod:`~humanoid_planner.gait.cost`'s l_r.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from humanoid_model.validation import finite_number, finite_vector
from humanoid_planner.exceptions import PlanningError

from .cost import Weights
from .interruptible import interruptible
from .model import PlanarTree


@dataclass
class Phase:
    """One phase to optimise: ``kind`` "ds" or "ss", fixed ``duration`` [s], boundary states."""

    name: str
    kind: str
    duration: float
    q0: np.ndarray
    v0: np.ndarray
    q1: np.ndarray
    v1: np.ndarray
    step_length: float = 0.5  # DS: heel target at (step_length - l_pied, 0)
    root_leg: str = "l"  # physical leg of the tree's root side (DS rear, SS stance)
    origin_x: float = 0.0  # world x of the phase frame's origin [m]


@dataclass
class PhaseSolution:
    phase: Phase
    t: np.ndarray
    q: np.ndarray  # (N+1, n)
    v: np.ndarray
    a: np.ndarray
    u: np.ndarray  # (N+1, m)
    cost: float
    solve_time: float
    iterations: int
    status: str
    success: bool
    lam_dyn: np.ndarray | None = None
    lam_stance: np.ndarray | None = None  # SS: multipliers of NB1, NB2 >= their bounds, (N+1, 2)
    checks: dict = field(default_factory=dict)


def _leg_expr(thigh, shank, foot, trunk, toe_neutral):
    hip = -((thigh + math.pi / 2) - (trunk - math.pi / 2))
    knee = -(shank - thigh)
    ankle = -((foot - shank) - (toe_neutral + math.pi / 2))
    return [hip, knee, ankle]


def physical_angles_expr(tree: PlanarTree, p, kind: str, q):
    """URDF-signed hip pitch, knee, ankle pitch of the root-side then the distal leg (unwrapped),
    the same affine map as :func:`~humanoid_planner.gait.boundary.urdf_joint_angles`."""
    tn = -p.foot.gamma_p
    if kind == "ds":
        return _leg_expr(q[2] + math.pi, q[1] + math.pi, q[0] + math.pi, q[6], tn) + _leg_expr(
            q[3], q[4], q[5] + p.foot.alpha_p, q[6], tn
        )
    return _leg_expr(q[1] + math.pi, q[0] + math.pi, -p.foot.gamma_p, q[5], tn) + _leg_expr(q[2], q[3], q[4], q[5], tn)


def wrapped_angles(ang, q, q0):
    """The joint-angle expressions ``ang`` of ``q`` less the multiples of 2 pi they have at the
    phase's start ``q0`` (the map is affine: the offsets are constant 2 pi k)."""
    a0 = np.array(ca.Function("ang", [q], [ang])(q0)).ravel()
    return ang - ca.DM(2 * math.pi * np.round(a0 / (2 * math.pi)))


def range_rows(ang, angv, bounds, w: Weights) -> list:
    """The inequalities h <= 0 of joint ranges and speeds: per angle of ``ang`` (rates ``angv``) its
    ``bounds`` (lower, upper [rad], speed limit [rad/s]), scaled by ``w.s_angle`` and ``w.s_vel``."""
    hs = []
    for i, (lo, hi, vmax) in enumerate(bounds):
        hs += [(ang[i] - hi) / w.s_angle, (lo - ang[i]) / w.s_angle]
        hs += [(angv[i] - vmax) / w.s_vel, (-vmax - angv[i]) / w.s_vel]
    return hs


def bip_phase_terms(tree: PlanarTree, p, phase: Phase, w: Weights, q, v):
    """BIP's phase terms for :class:`PhaseProblemBuilder`: the effort weights, the heel closure
    vector (DS; zero in SS), the flattening penalty 1/2 r_a delta^2 (DS), the inequalities h <= 0
    (joint ranges and speeds, the feet above the ground) and the URDF joint angles (wrapped near
    the phase's start). A planar mechanism other than BIP passes its own ``p.phase_terms``."""
    W = w.torque_w() + (w.force_w() if phase.kind == "ds" else [])
    closure = ca.SX.zeros(2)
    pen_flat = 0
    if phase.kind == "ds":
        closure = tree.point_expr["heel"] - ca.DM([phase.step_length - p.foot.l_pied, 0.0])
        delta = q[5] + math.pi - p.foot.beta_p  # Chessé 2002, eq. (III.20b)
        pen_flat = 0.5 * w.r_a * delta**2
    ang = wrapped_angles(ca.vertcat(*physical_angles_expr(tree, p, phase.kind, q)), q, phase.q0)
    names = ["hip_pitch", "knee", "ankle_pitch"] * 2
    hs = range_rows(ang, ca.jacobian(ang, q) @ v, [(*w.limits[nm], w.vel_limits[nm]) for nm in names], w)
    # anti-collision: feet points above the ground (the envelope is the ground, chosen)
    for pn in ["rear_heel", "toe"] if phase.kind == "ds" else ["swing_heel", "swing_toe"]:
        hs.append(-tree.point_expr[pn][1] / w.s_dist)
    return W, closure, pen_flat, hs, ang


class PhaseProblemBuilder:
    """CasADi functions of the running cost and the penalty terms of one phase: the effort, the
    closure penalty 1/2 r_d gamma10 |closure|^2, the robot's other penalties (``p.phase_terms``,
    BIP's by default: `bip_phase_terms`) and the exterior penalty of the inequalities h <= 0."""

    def __init__(self, tree: PlanarTree, p, phase: Phase, w: Weights):
        self.tree, self.p, self.phase, self.w = tree, p, phase, w
        q = ca.SX.sym("q", tree.n)
        v = ca.SX.sym("v", tree.n)
        u = ca.SX.sym("u", tree.m)
        terms = getattr(p, "phase_terms", None) or (lambda *a: bip_phase_terms(tree, p, *a))
        W, closure, pen_flat, hs, ang = terms(phase, w, q, v)
        W = ca.DM(W)
        effort = 0.5 * ca.sum1(W * u**2)
        pen_closure = 0.5 * w.r_d * w.gamma10 * ca.sumsqr(closure)
        angv = ca.jacobian(ang, q) @ v
        hvec = ca.vertcat(*hs)
        pen_ineq = 0.5 * w.r_h * ca.sumsqr(ca.fmax(hvec, 0))
        lr_smooth = effort + pen_closure + pen_flat  # + 1/2 r_h |s|^2 with slacks s >= h+
        # the tree's point expressions are in tree.q_sym/v_sym, q/v here are fresh: substitute
        xs, xt = ca.vertcat(q, v), ca.vertcat(tree.q_sym, tree.v_sym)

        def sub(e):
            return ca.substitute(e, xs, xt)

        args = [tree.q_sym, tree.v_sym, u]
        self.f_l_smooth = ca.Function("l_smooth", args, [sub(lr_smooth)])
        self.f_h = ca.Function("h", [tree.q_sym, tree.v_sym], [sub(hvec)])
        self.nh = hvec.shape[0]
        self.f_l = ca.Function("l_r", args, [sub(lr_smooth + pen_ineq)])
        self.f_parts = ca.Function("parts", args, [sub(e) for e in (effort, pen_closure, pen_flat, pen_ineq)])
        self.f_closure = ca.Function("closure", [tree.q_sym], [sub(closure)])
        self.f_ang = ca.Function("phys", [tree.q_sym], [sub(ang)])
        self.f_angv = ca.Function("physv", [tree.q_sym, tree.v_sym], [sub(angv)])
        self.W = np.array(W).ravel()


def hermite_guess(q0, v0, q1, v1, T, t):
    """Cubic Hermite interpolation matching positions and velocities at both ends."""
    s = t / T
    h00 = 2 * s**3 - 3 * s**2 + 1
    h10 = s**3 - 2 * s**2 + s
    h01 = -2 * s**3 + 3 * s**2
    h11 = s**3 - s**2
    q = np.outer(h00, q0) + np.outer(h10 * T, v0) + np.outer(h01, q1) + np.outer(h11 * T, v1)
    d00 = (6 * s**2 - 6 * s) / T
    d10 = 3 * s**2 - 4 * s + 1
    d01 = (-6 * s**2 + 6 * s) / T
    d11 = 3 * s**2 - 2 * s
    v = np.outer(d00, q0) + np.outer(d10, v0) + np.outer(d01, q1) + np.outer(d11, v1)
    e00 = (12 * s - 6) / T**2
    e10 = (6 * s - 4) / T
    e01 = (-12 * s + 6) / T**2
    e11 = (6 * s - 2) / T
    a = np.outer(e00, q0) + np.outer(e10, v0) + np.outer(e01, q1) + np.outer(e11, v1)
    return q, v, a


def node_times(T: float, N: int, grid=None) -> np.ndarray:
    """N + 1 node times on [0, T]: uniform, or ``grid`` (N + 1 increasing numbers from 0 to 1,
    scaled by T). Raises PlanningError on a malformed grid."""
    if grid is None:
        return np.linspace(0.0, T, N + 1)
    g = np.asarray(grid, dtype=float)
    if g.shape != (N + 1,) or not np.all(np.isfinite(g)) or g[0] != 0.0 or g[-1] != 1.0 or np.any(np.diff(g) <= 0):
        raise PlanningError(f"gait: field 'grid' must be {N + 1} increasing numbers from 0 to 1; value {g!r}")
    return T * g


def end_refined_grid(N: int, ratio: float = 4.0) -> np.ndarray:
    """N + 1 nodes on [0, 1] whose spacing shrinks smoothly from the middle towards both ends, the
    end intervals ``ratio`` times shorter than the middle ones (a mesh refined where the direct
    solutions are steep: the imposed boundary rates, e.g. omega1 = -5 rad/s at the DS end)."""
    s = np.linspace(-1.0, 1.0, N)
    h = 1.0 + (ratio - 1.0) * s**2  # interval length profile (inverse)
    h = 1.0 / h
    g = np.concatenate([[0.0], np.cumsum(h) / h.sum()])
    g[-1] = 1.0
    return g


@dataclass
class PhaseNLP:
    """The transcription of one phase: decision vector x, cost J, constraints g with bounds, box
    bounds, initial guess, the control matrix U (m x N+1) and the index blocks to unpack."""

    x: ca.MX
    J: ca.MX
    g: ca.MX
    lbg: np.ndarray
    ubg: np.ndarray
    lbx: np.ndarray
    ubx: np.ndarray
    x0: np.ndarray
    U: ca.MX
    t: np.ndarray
    blocks: tuple
    builder: PhaseProblemBuilder
    stance_rows: int | None = None  # SS: first row of the NB1, NB2 bounds in g (2 (N + 1) rows)

    def unpack(self, xs, n, m):
        N1 = len(self.t)
        bQ, bV, bA, bU, bS = self.blocks
        return (
            xs[bQ : bQ + n * N1].reshape(N1, n),
            xs[bV : bV + n * N1].reshape(N1, n),
            xs[bA : bA + n * N1].reshape(N1, n),
            xs[bU:bS].reshape(N1, m),
        )


def build_phase_nlp(tree: PlanarTree, p, phase: Phase, w: Weights, t: np.ndarray, init=None) -> PhaseNLP:
    """Direct transcription of one phase on the node times ``t`` (see the module docstring)."""
    source = f"gait phase '{phase.name}'"
    finite_number(phase.duration, source, "duration", minimum=0.0, strict=True, unit="[s]", error=PlanningError)
    for name in ("q0", "v0", "q1", "v1"):
        finite_vector(getattr(phase, name), tree.n, source, name, PlanningError)
    n, m = tree.n, tree.m
    N = len(t) - 1
    T = phase.duration
    hk = ca.DM(np.diff(t)).T  # (1, N) interval lengths
    bld = PhaseProblemBuilder(tree, p, phase, w)
    Q = ca.MX.sym("Q", n, N + 1)
    Vv = ca.MX.sym("V", n, N + 1)
    A = ca.MX.sym("A", n, N + 1)
    U = ca.MX.sym("U", m, N + 1)
    f_id_map = tree.f_id.map(N + 1)
    dyn = f_id_map(Q, Vv, A, U)
    Hn = ca.repmat(hk, n, 1)
    g_int_v = Vv[:, 1:] - Vv[:, :-1] - Hn / 2 * (A[:, :-1] + A[:, 1:])
    g_int_q = Q[:, 1:] - Q[:, :-1] - Hn * Vv[:, :-1] - Hn**2 / 6 * (2 * A[:, :-1] + A[:, 1:])
    g = [ca.vec(dyn), ca.vec(g_int_v), ca.vec(g_int_q)]
    lbg = [np.zeros(n * (N + 1)), np.zeros(n * N), np.zeros(n * N)]
    ubg = [np.zeros(n * (N + 1)), np.zeros(n * N), np.zeros(n * N)]
    cf = contact_forces_function(tree, p, phase.kind).map(N + 1)
    F = cf(Q, Vv, A, U)

    def ineq(expr, lo):
        g.append(ca.vec(expr))
        lbg.append(np.full(N + 1, lo))
        ubg.append(np.full(N + 1, np.inf))

    def cone(normal, tangential):  # |tangential| <= friction x normal, at every node
        ineq(w.friction * normal - tangential, 0.0)
        ineq(w.friction * normal + tangential, 0.0)

    stance_rows = None
    bip = getattr(p, "phase_terms", None) is None
    if bip and phase.kind == "ss":
        stance_rows = sum(len(r) for r in lbg)
        # stance-foot unilaterality through the bound of the thesis (Chessé 2002, §III.3.2.8: "NB2
        # saturated at 6 N"; our reading: NB2 >= 6 N, and NB1 >= 0). NB1, NB2 are affine in the
        # stance-ankle torque, so this is the thesis's bound on a reparameterised ankle control.
        ineq(F[0, :], w.ss_heel_min)
        ineq(F[1, :], w.ss_toe_min)
    if bip and w.enforce_contacts:
        # extension: friction cones and the rear-toe unilaterality in the NLP (the thesis checks them
        # afterwards, Chessé 2002, §II.4.6)
        if phase.kind == "ds":
            N_A, T_A = F[0, :], F[1, :]
            ineq(N_A, 0.0)
            cone(N_A, T_A)
            cone(U[6, :] + U[7, :], U[8, :])
            if w.toe_contact_eps is not None:
                # complementarity of the front toe: no force where the toe is off the ground
                # (Chessé 2002, §II.4.2), relaxed to height * FB2 <= eps (cost.Weights.toe_contact_eps)
                f_toe = ca.Function("toe_height", [tree.q_sym], [tree.point_expr["toe"][1]]).map(N + 1)
                ineq(w.toe_contact_eps - f_toe(Q) * U[7, :], 0.0)
            if w.toe_force_rate is not None:
                # the toe force rises continuously (Weights.toe_force_rate, instead of the 6 N cap)
                lim = ca.DM(w.toe_force_rate * np.diff(t)).T
                for e in (lim - (U[7, 1:] - U[7, :-1]), lim + (U[7, 1:] - U[7, :-1])):
                    g.append(ca.vec(e))
                    lbg.append(np.zeros(N))
                    ubg.append(np.full(N, np.inf))
        else:
            cone(F[0, :] + F[1, :], F[2, :])
    if not bip and getattr(p, "root_on_ground", False):
        # a root pivot that is a foot on the ground (RABBIT's rear foot in DS, its stance foot in SS):
        # the ground only pushes it, inside the NLP's friction cone (the reaction of eqs. (III.17)-(III.18))
        ineq(F[0, :], 0.0)
        cone(F[0, :], F[1, :])
    # exterior penalty 1/2 r_h (h+)^2 written smoothly with slacks: min 1/2 r_h s^2, s >= h, s >= 0
    # has the same value as the penalty at the optimum (the inequalities h <= 0 themselves are
    # never imposed)
    Sl = ca.MX.sym("S", bld.nh, N + 1)
    L = bld.f_l_smooth.map(N + 1)(Q, Vv, U) + 0.5 * w.r_h * ca.sum1(Sl**2)
    Hh = bld.f_h.map(N + 1)(Q, Vv)
    dt = np.diff(t)
    wts = np.zeros(N + 1)
    wts[:-1] += dt / 2
    wts[1:] += dt / 2
    J = L @ ca.DM(wts)
    g.append(ca.vec(Sl - Hh))
    lbg.append(np.zeros(bld.nh * (N + 1)))
    ubg.append(np.full(bld.nh * (N + 1), np.inf))
    x = ca.vertcat(ca.vec(Q), ca.vec(Vv), ca.vec(A), ca.vec(U), ca.vec(Sl))
    nq = n * (N + 1)
    lbx = np.full(x.shape[0], -np.inf)
    ubx = np.full(x.shape[0], np.inf)

    def idx(block, node, i, size):
        return block + node * size + i

    bQ, bV, bA, bU = 0, nq, 2 * nq, 3 * nq
    bS = bU + m * (N + 1)
    lbx[bS:] = 0.0
    for i in range(n):
        for blk, val0, val1 in ((bQ, phase.q0, phase.q1), (bV, phase.v0, phase.v1)):
            lbx[idx(blk, 0, i, n)] = ubx[idx(blk, 0, i, n)] = val0[i]
            lbx[idx(blk, N, i, n)] = ubx[idx(blk, N, i, n)] = val1[i]
    bounds = [(-w.tau_max, w.tau_max)] * tree.n_tau + force_bounds(tree, p, phase, w)
    for k in range(N + 1):
        for i, (lo, hi) in enumerate(bounds):
            lbx[idx(bU, k, i, m)], ubx[idx(bU, k, i, m)] = lo, hi
    # initial guess: a solution on the same number of nodes (re-timed), or the Hermite guess
    if init is not None and init.q.shape == (N + 1, n):
        qg, vg, ag, ug = init.q, init.v, init.a, init.u
    else:
        qg, vg, ag = hermite_guess(phase.q0, phase.v0, phase.q1, phase.v1, T, t)
        ug = np.zeros((N + 1, m))
        for k in range(N + 1):
            Mk = tree.M(qg[k])
            rhs = Mk @ ag[k] + np.array(tree.f_bias(qg[k], vg[k])).ravel()
            Bk = tree.B(qg[k])
            if tree.n_f:
                # weighted least squares with the cost weights
                Wd = np.sqrt(bld.W)
                sol = np.linalg.lstsq(Bk / Wd, rhs, rcond=None)[0] / Wd
            else:
                sol = np.linalg.lstsq(Bk, rhs, rcond=None)[0]
            ug[k] = sol
    x0 = np.concatenate([qg.ravel(), vg.ravel(), ag.ravel(), ug.ravel()])
    hg = np.array(bld.f_h.map(N + 1)(qg.T, vg.T))
    x0 = np.concatenate([x0, np.maximum(hg, 0.0).T.ravel()])
    x0 = np.clip(x0, lbx, ubx)
    return PhaseNLP(
        x,
        J,
        ca.vertcat(*g),
        np.concatenate(lbg),
        np.concatenate(ubg),
        lbx,
        ubx,
        x0,
        U,
        t,
        (bQ, bV, bA, bU, bS),
        bld,
        stance_rows,
    )


def force_bounds(tree: PlanarTree, p, phase: Phase, w: Weights) -> list:
    """(lower, upper) of each released contact force of ``tree`` [N]: BIP's DS FB1, FB2 >= 0
    (eqs. (II.37)-(II.38)) and the toe cap of the weight set; another mechanism's
    ``p.force_bounds(phase, w)``."""
    own = getattr(p, "force_bounds", None)
    if own is not None:
        return list(own(phase, w))
    if phase.kind != "ds":
        return []
    cap = w.toe_force_cap()
    return [(0.0, np.inf), (0.0, np.inf if cap is None else cap), (-np.inf, np.inf)]


def ipopt_options(verbose: bool, max_iter: int, tol: float) -> dict:
    return {
        "ipopt.print_level": 5 if verbose else 0,
        "print_time": False,
        "ipopt.max_iter": max_iter,
        "ipopt.tol": tol,
        "ipopt.acceptable_tol": 1e-6,
        "ipopt.mu_strategy": "adaptive",
        "ipopt.sb": "yes",
    }


def solve_direct(
    tree: PlanarTree,
    p,
    phase: Phase,
    w: Weights,
    N: int = 40,
    init: PhaseSolution | None = None,
    verbose: bool = False,
    max_iter: int = 1000,
    tol: float = 1e-8,
    grid=None,
) -> PhaseSolution:
    """Solve one phase by direct transcription (IPOPT) on N intervals (uniform, or ``grid``: N + 1
    increasing numbers from 0 to 1). Raises PlanningError on bad input."""
    t = node_times(phase.duration, N, grid)
    nlp = build_phase_nlp(tree, p, phase, w, t, init)
    solver = ca.nlpsol(
        "gait_" + phase.name, "ipopt", {"x": nlp.x, "f": nlp.J, "g": nlp.g}, ipopt_options(verbose, max_iter, tol)
    )
    t0 = time.perf_counter()
    with interruptible():  # Ctrl-C stops the program, not only this solve
        res = solver(x0=nlp.x0, lbx=nlp.lbx, ubx=nlp.ubx, lbg=nlp.lbg, ubg=nlp.ubg)
    dt = time.perf_counter() - t0
    st = solver.stats()
    xs = np.array(res["x"]).ravel()
    q, v, a, u = nlp.unpack(xs, tree.n, tree.m)
    nq = tree.n * len(t)
    lam = np.array(res["lam_g"]).ravel()[:nq].reshape(len(t), tree.n)
    sol = PhaseSolution(
        phase=phase,
        t=t,
        q=q,
        v=v,
        a=a,
        u=u,
        cost=float(res["f"]),
        solve_time=dt,
        iterations=int(st.get("iter_count", -1)),
        status=str(st.get("return_status")),
        success=bool(st.get("success")),
        lam_dyn=lam,
    )
    if nlp.stance_rows is not None:
        lam_all = np.array(res["lam_g"]).ravel()
        sol.lam_stance = lam_all[nlp.stance_rows : nlp.stance_rows + 2 * len(t)].reshape(2, len(t)).T
    sol.builder = nlp.builder
    return sol


def joint_power(tree: PlanarTree, sol: PhaseSolution) -> tuple[np.ndarray, float]:
    """The motors' absolute power sum |tau_j phi_j'| at the nodes [W] and its integral, the energy
    J_e [J] that the thesis reports (Chessé 2002, §II.3.3 and §III.2.5; phi_j' the joints' relative rates)."""
    power = np.sum(np.abs((sol.v @ tree.S_act.T) * sol.u[:, : tree.n_tau]), axis=1)
    return power, float(np.trapezoid(power, sol.t))


def contact_forces(tree: PlanarTree, p, sol: PhaseSolution) -> np.ndarray:
    """`contact_forces_function` at every node of ``sol`` [N]: one row per node."""
    cf = contact_forces_function(tree, p, sol.phase.kind)
    return np.array([np.array(cf(sol.q[k], sol.v[k], sol.a[k], sol.u[k])).ravel() for k in range(len(sol.t))])


def contact_forces_function(tree: PlanarTree, p, kind: str) -> ca.Function:
    """Ground reactions of the non-released support (Chessé 2002, §III.3.2.6-7), as functions of
    (q, v, a, u).  DS: rear-toe (N_A2, T_A2) from the whole-body Newton equation (III.23).  SS:
    stance-foot heel and toe normal forces (NB1, NB2) and the tangential force, from the Newton
    equation of the moving bodies and the moment balance of the static stance foot about its
    heel (Annex D, with the foot geometry of :mod:`params`).  Another mechanism (``p.phase_terms``,
    RABBIT and the five-bar): the (normal, tangential) force at its root pivot in every phase
    (Chessé 2002, eqs. (III.17)-(III.18))."""
    q, v = tree.q_sym, tree.v_sym
    a = ca.SX.sym("a", tree.n)
    u = ca.SX.sym("u", tree.m)
    com = tree.f_coms(q)  # 2 x n
    Pm = 0
    for i, b in enumerate(tree.bodies):
        ci = com[:, i]
        Jc = ca.jacobian(ci, q)
        acc = Jc @ a + ca.jacobian(Jc @ v, q) @ v
        Pm = Pm + b.seg.mass * (acc - ca.DM([0.0, -tree.g]))
    if kind == "ds" or getattr(p, "phase_terms", None) is not None:
        # force of the ground on the moving system at the root pivot (BIP's rear toe): the whole
        # body's Newton equation less the released forces, (normal, tangential)
        F = Pm
        for j, (_name, d) in enumerate(tree.force_points):
            F = F - u[tree.n_tau + j] * ca.DM(list(d))
        out = ca.vertcat(F[1], F[0])
    else:
        R = Pm  # force of the stance foot on the stance shank
        foot = getattr(tree, "stance_foot", None)  # a generated model's own (generated_model.py)
        if foot is not None:
            m0, xc, (ax, ay), l = foot["mass"], foot["com_x"], foot["ankle"], foot["length"]
        else:
            m0 = p.foot_front.mass  # Annex D's stance-foot mass m0, taken as the foot's
            a5, b5 = p.foot_front_toe_frame()
            g_ = p.foot.gamma_p
            xc = p.foot.heel_to_ankle_x + a5 * math.cos(-g_) - b5 * math.sin(-g_)
            ax, ay = p.foot.heel_to_ankle_x, p.foot.ankle_height
            l = p.foot.l_pied
        # the torque the ankle passes to the foot: the motor's minus the reflected rotor inertia's
        # share (armature: joint-space inertia, as Pinocchio's model.armature; 0 in the thesis set,
        # whose I_O include the rotors), found against Crocoddyl's contact forces (docs/gait.md)
        arm = tree.joints[0][4] if tree.joints and tree.joints[0][1] == 0 else 0.0
        tau_a = u[0] - arm * (ca.DM(tree.S[0]).T @ a)
        NB2 = (tau_a + ax * R[1] - ay * R[0] + xc * m0 * tree.g) / l
        NB1 = R[1] + m0 * tree.g - NB2
        out = ca.vertcat(NB1, NB2, R[0])
    return ca.Function("contact_" + kind, [q, v, a, u], [out])
