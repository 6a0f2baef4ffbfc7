"""The cyclic step (DS + SS) as one multi-phase NLP with continuous joint torques.

The thesis optimises each phase separately with fully specified boundary states (Chessé 2002,
§II.3.1 and §III.3.2.8), so the joint torques jump at the transitions (the separate solves of
`solve_gait_sequence`: up to 147 N m with the defaults, docs/gait.md).  Here both phases
of the periodic step are transcribed together
(:func:`~humanoid_planner.gait.direct.build_phase_nlp`, the same cost, bounds and boundary states)
and the six actuator torques are made continuous across both transitions, where the contact set
allows it: a motor torque is a state of the actuator (current), the contact forces are not, so the
ground reactions are left free to jump (the rear toe lifts off at DS -> SS, the front heel lands,
impactless, at SS -> DS, Chessé 2002, Annex A).

Joint correspondence (the relabelling maps of Chessé 2002, §III.3.2.1, Fig. III-25): every relative
joint rate of the SS start is minus the DS end's rate of the same physical joint, in reverse order
(the tree is re-rooted at the other foot: rear ankle <-> swing ankle, ..., front ankle <-> stance
ankle), so power conservation per joint gives ``u_ss(0) = DS_TO_SS_TORQUE @ u_ds(T)``; at SS -> DS
the legs keep their roles (stance = rear), ``u_ds(0) = u_ss(T)`` (`SS_TO_DS_TORQUE` = identity).
The periodic step closes on itself: the next DS starts where this SS ends.
"""

from __future__ import annotations

import time

import casadi as ca
import numpy as np

from .direct import PhaseSolution, build_phase_nlp, end_refined_grid, ipopt_options, node_times
from .interruptible import interruptible

# u_ss = DS_TO_SS_TORQUE @ u_ds: SS (stance ankle, knee, hip, swing hip, knee, ankle) from DS (rear
# ankle, knee, hip, front hip, knee, ankle); checked against the relabelled joint rates in
# test/planner/gait/test_gait_multiphase.py
DS_TO_SS_TORQUE = -np.fliplr(np.eye(6))
SS_TO_DS_TORQUE = np.eye(6)

TORQUE_RATE = 2500.0  # [N m/s] largest joint-torque rate (chosen, docs/gait.md)
DS_GRID_RATIO = 4.0  # end intervals 4x shorter than the middle ones in DS (chosen: docs/gait.md)


def torque_jumps(ds: PhaseSolution, ss: PhaseSolution) -> dict:
    """Largest absolute torque jump [N m] per transition of the periodic step, by physical joint."""
    n = 6
    j_ds_ss = ss.u[0, :n] - DS_TO_SS_TORQUE @ ds.u[-1, :n]
    j_ss_ds = ds.u[0, :n] - SS_TO_DS_TORQUE @ ss.u[-1, :n]
    return {
        "ds_to_ss": float(np.max(np.abs(j_ds_ss))),
        "ss_to_ds": float(np.max(np.abs(j_ss_ds))),
        "ds_to_ss_per_joint": j_ds_ss.tolist(),
        "ss_to_ds_per_joint": j_ss_ds.tolist(),
    }


def solve_cyclic_step(
    problem,
    N_ds: int = 34,
    N_ss: int = 50,
    grid_ds="refined",
    continuity: bool = True,
    torque_rate: float | None = TORQUE_RATE,
    init=None,
    verbose: bool = False,
    max_iter: int = 1000,
    tol: float = 1e-8,
):
    """Solve the cyclic DS and SS of ``problem`` (a :class:`~humanoid_planner.gait.phase_sequence.GaitProblem`)
    in one NLP; ``continuity``: the torque continuity constraints above. ``grid_ds``: None
    (uniform), "refined" (`end_refined_grid` with `DS_GRID_RATIO`) or N_ds + 1 numbers on [0, 1].
    ``init``: (DS, SS) solutions on the same numbers of nodes (else the Hermite guesses).
    Returns (ds, ss) :class:`PhaseSolution` with their a-posteriori checks; the cost of each is its
    own phase's share of the joint optimum."""
    ph_ds, ph_ss = problem.phases("cyclic")
    w = problem.weights
    if isinstance(grid_ds, str) and grid_ds == "refined":
        grid_ds = end_refined_grid(N_ds, DS_GRID_RATIO)
    t_ds = node_times(ph_ds.duration, N_ds, grid_ds)
    t_ss = node_times(ph_ss.duration, N_ss)
    i_ds, i_ss = (None, None) if init is None else init
    a = build_phase_nlp(problem.ds, problem.params, ph_ds, w, t_ds, i_ds)
    b = build_phase_nlp(problem.ss, problem.params, ph_ss, w, t_ss, i_ss)
    g = [a.g, b.g]
    lbg, ubg = [a.lbg, b.lbg], [a.ubg, b.ubg]
    if continuity:
        P, R = ca.DM(DS_TO_SS_TORQUE), ca.DM(SS_TO_DS_TORQUE)
        g += [b.U[:6, 0] - P @ a.U[:6, -1], a.U[:6, 0] - R @ b.U[:6, -1]]
        lbg += [np.zeros(12)]
        ubg += [np.zeros(12)]
    if torque_rate is not None:
        # |u_k+1 - u_k| <= torque_rate * h_k inside both phases (and, with the continuity above,
        # across the transitions)
        for nlp_k in (a, b):
            dU = nlp_k.U[:6, 1:] - nlp_k.U[:6, :-1]
            lim = ca.repmat(ca.DM(torque_rate * np.diff(nlp_k.t)).T, 6, 1)
            for e in (lim - dU, lim + dU):
                g.append(ca.vec(e))
                lbg.append(np.zeros(e.numel()))
                ubg.append(np.full(e.numel(), np.inf))
    x = ca.vertcat(a.x, b.x)
    f_parts = ca.Function("parts", [x], [a.J, b.J])
    nlp = {"x": x, "f": a.J + b.J, "g": ca.vertcat(*g)}
    solver = ca.nlpsol("gait_cyclic_step", "ipopt", nlp, ipopt_options(verbose, max_iter, tol))
    t0 = time.perf_counter()
    with interruptible():  # Ctrl-C stops the program, not only this solve
        res = solver(
            x0=np.concatenate([a.x0, b.x0]),
            lbx=np.concatenate([a.lbx, b.lbx]),
            ubx=np.concatenate([a.ubx, b.ubx]),
            lbg=np.concatenate(lbg),
            ubg=np.concatenate(ubg),
        )
    dt = time.perf_counter() - t0
    st = solver.stats()
    xs = np.array(res["x"]).ravel()
    na = a.x.shape[0]
    costs = [float(c) for c in f_parts(xs)]
    lam = np.array(res["lam_g"]).ravel()
    out = []
    off_g = 0
    for nlp_k, ph, tree, xk, cost, ng in (
        (a, ph_ds, problem.ds, xs[:na], costs[0], a.g.shape[0]),
        (b, ph_ss, problem.ss, xs[na:], costs[1], b.g.shape[0]),
    ):
        q, v, acc, u = nlp_k.unpack(xk, tree.n, tree.m)
        nq = tree.n * len(nlp_k.t)
        s = PhaseSolution(
            phase=ph,
            t=nlp_k.t,
            q=q,
            v=v,
            a=acc,
            u=u,
            cost=cost,
            solve_time=dt,
            iterations=int(st.get("iter_count", -1)),
            status=str(st.get("return_status")),
            success=bool(st.get("success")),
            lam_dyn=lam[off_g : off_g + nq].reshape(len(nlp_k.t), tree.n),
        )
        off_g += ng
        s.builder = nlp_k.builder
        s.checks = problem.check(s, w)
        out.append(s)
    return tuple(out)
