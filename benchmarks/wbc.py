"""Whole-body controller benchmark (humanoid_control.wbc): the cycle time on HRP-2 beside TSID on the
same problem, the two solutions' agreement, the QP solver alone beside ProxQP and quadprog, and the
real-time factor of the acceptance motions executed in closed loop in the simulator.

    .venv/bin/python benchmarks/wbc.py [--cycles 2000] [--reps 5] [--quick] [--no-closed-loop] [--json OUT.json]

1. Cycle time. HRP-2 in half-sitting, `WholeBodyController` with the default `WbcSettings`,
   holding both soles and the right hand (r_hand, its palm held where it is: 3 surface contacts,
   36 accelerations + 36 corner forces), or the soles only; references: the CoM and the base's
   orientation where they are, the posture half-sitting. Two motions, each over ``--cycles``
   states (at least 2000):
     still  the robot at rest in half-sitting, the same QP every cycle (the hot start is then
            the solution's active set: the controller's best case);
     sway   the CoM reference swaying sideways, y = A (1 − cos ωt) / 2 (A = 3 cm, 0.5 Hz), and the
            states of an ideal robot following the controller's own accelerations (semi-implicit
            Euler at dt = 1 ms, no simulator): every cycle's QP differs, as on a robot.
   A cycle is `compute(q, v)` with the CoM reference of the state: dynamics, the QP's matrices,
   the solve, the torques. The peer, TSID 1.10.0 (benchmarks/peers/wbc_tsid.py: the same contacts,
   frames, corners, friction coefficient, gains and weights, torque and acceleration bounds;
   eiquadprog), is timed the same way: the references, `computeProblemData`, the solve, the
   getters (torques, accelerations, forces). The states are cut into ``--reps`` chunks; in each
   repetition every case runs its chunk with our controller and with TSID, in alternating order.
   Median, p90 and max over all the cycles; "≤ 0.5 ms" is the controller's target on this machine.
2. Agreement with TSID: the joint torques' difference (largest |Δτ| and RMS over the 30 joints;
   for sway the median and the largest over the cycles) and each contact's normal force, with
   TSID's usual contact force regularisation (w = 1e-5 on each contact's wrench) and without it
   (w = 0: the forces then carry only TSID's Hessian regularisation, 1e-8, the controller's own
   ε_f): the distribution of the weight among the contacts is what the regularisations choose.
3. The QP alone (the controller's `QPSolver`: DAQP 0.11 hot-started cycle to cycle from the last
   active set) beside DAQP started cold, ProxQP 0.8 warm-started cycle to cycle (`ProxQPWarm`:
   1e-6 residuals and duality gap, infeasibility thresholds 1e-9) and quadprog 0.1.14 (cold;
   optional, not in requirements.txt) on the same QPs, captured on the sway states by calling
   `humanoid_control.wbc.problem.build` as the controller does; timed is the solver call only
   (the matrices already in its form).
4. Closed loop: `humanoid_execution.run.execute` (no recording) on the acceptance motions, made
   as the tests make them (test/execution/) into a temporary folder at the start: the HRP-2 walk
   (`humanoid-stack walk --steps 6 --step-length 0.2`), the same walk pushed sideways with 60 N
   for 0.1 s at 4.2 s, the flat-walk contact plan (`plan flat --goal 0.8,0`) and the
   can-on-the-table plan (`plan table_can`) at `--joint-speed 60 --base-speed 0.3
   --base-rotation-speed 30`, the stairs plan at `--joint-speed 45 --base-speed 0.25
   --base-rotation-speed 25 --dt 0.01` (the caps of `make demo`), BIP's gait (`gait --robot bip
   --phase walk --params urdf --cyclic-steps 3`) (``--quick``: the walks and the flat plan only).
   Two tables: the timing (the motion's duration, the simulated time: the motion and 1 s standing
   or until a fall, wall time, real-time factor, the controller's median cycle, the simulator's
   median step `run.log.step_time`, the shares of the wall time in the controller's cycles and in
   the simulator's steps, the rest being the loop's contact measurements, the executor and the
   log) and the report of each run (success, the CoM's tracking error, the worst landing and final
   contact errors, the smallest CoP margin, the largest force-to-cone ratio, the largest torque
   ratio and the share of cycles at a limit, the late and early contacts).

Single-threaded BLAS. Timings are wall clock on whatever machine runs it (not a test); without
TSID (`make peer-tsid`, benchmarks/README.md) its rows say "skipped".
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # single-threaded, as TSID's Eigen

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pinocchio as pin  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.peers import wbc_tsid  # noqa: E402
from humanoid_control.wbc.contact import INFINITY  # noqa: E402
from humanoid_control.wbc.controller import WbcSettings, WholeBodyController  # noqa: E402
from humanoid_control.wbc.problem import Layout, build  # noqa: E402
from humanoid_control.wbc.qp import QPSolver  # noqa: E402
from humanoid_model import load_robot  # noqa: E402

TARGET_MS = 0.5  # chosen target: the controller's median cycle on HRP-2 with 3 contacts, this machine
CASES = {"feet + r_hand": ("r_sole", "l_sole", "r_hand"), "feet": ("r_sole", "l_sole")}
MOTIONS = ("still", "sway")
SWAY = (0.03, 0.5)  # [m], [Hz] the CoM reference's sideways sway, y = A (1 - cos 2πft) / 2
CAPTURED = 500  # QPs captured per case for the solver comparison
SPEEDS = ["--joint-speed", "60", "--base-speed", "0.3", "--base-rotation-speed", "30"]
STAIRS_SPEEDS = ["--joint-speed", "45", "--base-speed", "0.25", "--base-rotation-speed", "25", "--dt", "0.01"]
WALK = ["walk", "--steps", "6", "--step-length", "0.2"]
GAIT = ["gait", "--robot", "bip", "--phase", "walk", "--params", "urdf", "--cyclic-steps", "3"]
MOTION_FILES = {  # name: (file, humanoid-stack arguments, in --quick)
    "walk (6 steps of 0.2 m)": ("walk.json", WALK, True),
    "flat plan (goal 0.8, 0)": ("flat.json", ["plan", "flat", "--goal", "0.8,0", *SPEEDS, "--quiet"], True),
    "stairs plan": ("stairs.json", ["plan", "stairs", *STAIRS_SPEEDS, "--quiet"], False),
    "can on the table plan": ("table_can.json", ["plan", "table_can", *SPEEDS, "--quiet"], False),
    "BIP gait (3 cyclic steps)": ("gait.json", GAIT, False),
}
PUSHED = {"walk pushed 60 N sideways": ("walk (6 steps of 0.2 m)", 4.2, (0.0, 60.0, 0.0), 0.1)}  # test_execute_walk


def header(*cells) -> None:
    """A Markdown table's header and rule."""
    print("| " + " | ".join(cells) + " |")
    print("|" + "---|" * len(cells))


def log(text: str) -> None:
    """A progress line (stderr: the tables stay on stdout)."""
    print(text, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- the standing problem
def standing(robot, contacts):
    """(controller, q0): our controller holding ``contacts`` at half-sitting, references there."""
    ctrl = WholeBodyController(robot, WbcSettings())
    for name in contacts:
        ctrl.add_contact(name)
    q0 = robot.q("half-sitting")
    ctrl.dyn.update(q0, np.zeros(robot.nv))
    ctrl.com.set_reference(ctrl.dyn.com.copy())
    ctrl.base.set_reference(ctrl.dyn.placement(ctrl.base.fid).copy())
    ctrl.posture.set_reference(q0.copy())
    return ctrl, q0


def com_reference(c0, t: float):
    """The sway's CoM reference (position, velocity, acceleration) at ``t`` [s]."""
    a, f = SWAY
    w = 2 * np.pi * f
    e = np.array([0.0, 1.0, 0.0])
    return c0 + e * a * (1 - np.cos(w * t)) / 2, e * a * w * np.sin(w * t) / 2, e * a * w**2 * np.cos(w * t) / 2


def states(robot, contacts, motion: str, n: int):
    """``n`` states (q, v, CoM reference) of ``motion`` (module docstring): the sway's from a
    controller of its own, its accelerations integrated."""
    ctrl, q = standing(robot, contacts)
    c0, v = ctrl.com.position.copy(), np.zeros(robot.nv)
    if motion == "still":
        ref = (c0, np.zeros(3), np.zeros(3))
        return [(q, v, ref)] * n
    out, dt = [], ctrl.settings.dt
    for k in range(n):
        ref = com_reference(c0, k * dt)
        out.append((q.copy(), v.copy(), ref))
        ctrl.com.set_reference(*ref)
        cmd = ctrl.compute(q, v)
        if not cmd.solved:
            raise RuntimeError(f"sway states: the controller failed at cycle {k}: {cmd.status}")
        v = v + dt * cmd.a
        q = pin.integrate(ctrl.model, q, dt * v)
    return out


def normal_forces(forces, ctrl) -> dict:
    """{contact: total normal force [N]} of stacked corner forces in the contact frames (TSID's or our QP's)."""
    out, col = {}, 0
    for name, c in ctrl.contacts.items():
        out[name] = float(np.sum(forces[col : col + c.n_force][2::3]))
        col += c.n_force
    return out


# --------------------------------------------------------------------------- 1-2. cycle time and agreement
class Case:
    """One (contacts, motion) case: its states, our controller and TSID's (None when skipped),
    the cycle times [s] and the torques of every cycle."""

    def __init__(self, robot, label, contacts, motion, n, with_tsid):
        self.label, self.motion = label, motion
        self.states = states(robot, contacts, motion, n)
        self.ctrl, q0 = standing(robot, contacts)
        self.peer = wbc_tsid.TsidController(self.ctrl, q0, np.zeros(robot.nv)) if with_tsid else None
        self.times = {"ours": [], "tsid": []}
        self.tau = {"ours": [None] * n, "tsid": [None] * n}
        self.forces = {}
        self.iterations = []
        self.failed = {"ours": 0, "tsid": 0}

    def run(self, who: str, chunk: range) -> None:
        ctrl, times, tau = self.ctrl, self.times[who], self.tau[who]
        for k in chunk:
            q, v, ref = self.states[k]
            if who == "ours":
                t0 = time.perf_counter()
                ctrl.com.set_reference(*ref)
                cmd = ctrl.compute(q, v)
                times.append(time.perf_counter() - t0)
                tau[k] = cmd.tau if cmd.solved else None
                self.failed["ours"] += not cmd.solved
                self.iterations.append(cmd.iterations)
                if k == 0 and cmd.solved:
                    self.forces["ours"] = {
                        name: float(np.sum(f @ ctrl.dyn.placement(c.fid).rotation, axis=0)[2])
                        for (name, f), c in zip(cmd.forces.items(), ctrl.contacts.values())
                    }
            else:
                ctrl.com.set_reference(*ref)  # TSID reads it in its compute (timed there)
                t0 = time.perf_counter()
                tq, _, f = self.peer.compute(q, v)
                times.append(time.perf_counter() - t0)
                tau[k] = tq
                self.failed["tsid"] += tq is None
                if k == 0 and f is not None:
                    self.forces["tsid"] = normal_forces(f, ctrl)


def agreement(tau_a, tau_b):
    """Per cycle: (largest |Δτ|, RMS Δτ) [N·m] of the cycles both solved."""
    d = [np.asarray(a) - np.asarray(b) for a, b in zip(tau_a, tau_b) if a is not None and b is not None]
    if not d:
        return np.array([]), np.array([])
    d = np.array(d)
    return np.abs(d).max(axis=1), np.sqrt(np.mean(d**2, axis=1))


def stats_us(times):
    t = 1e6 * np.asarray(times)
    return float(np.median(t)), float(np.percentile(t, 90)), float(t.max())


def cycle_tables(robot, n: int, reps: int, tsid_note: str | None) -> dict:
    with_tsid = tsid_note is None
    cases = []
    for label, contacts in CASES.items():
        for motion in MOTIONS:
            log(f"... states and controllers: {label}, {motion}")
            cases.append(Case(robot, label, contacts, motion, n, with_tsid))
    bounds = np.linspace(0, n, reps + 1).astype(int)
    for r in range(reps):
        chunk = range(bounds[r], bounds[r + 1])
        order = ("ours", "tsid") if r % 2 == 0 else ("tsid", "ours")
        for case in cases:
            for who in order:
                if who == "ours" or with_tsid:
                    case.run(who, chunk)
        log(f"... cycle times: repetition {r + 1}/{reps}")
    print(f"\n## 1. Cycle time on HRP-2 ({n} cycles per row, {reps} interleaved repetitions)\n")
    header(
        "contacts",
        "motion",
        "controller",
        "median [ms]",
        "p90 [ms]",
        "max [ms]",
        "≤ 0.5 ms",
        "/ TSID",
        "QP iterations, median",
        "failed",
    )
    out = {"cycle": []}
    for case in cases:
        ours = stats_us(case.times["ours"])
        peer = stats_us(case.times["tsid"]) if with_tsid else None
        ratio = f"{ours[0] / peer[0]:.2f}x" if peer else ""
        it = np.median(case.iterations)
        print(
            f"| {case.label} | {case.motion} | ours (DAQP) | {ours[0] / 1e3:.3f} | {ours[1] / 1e3:.3f} | "
            f"{ours[2] / 1e3:.3f} | {'yes' if ours[0] / 1e3 <= TARGET_MS else 'no'} | {ratio} | {it:.0f} | "
            f"{case.failed['ours']} |"
        )
        row = {"contacts": case.label, "motion": case.motion, "ours_us": ours, "iterations": float(it)}
        if peer:
            print(
                f"| {case.label} | {case.motion} | TSID {wbc_tsid.VERSION} (eiquadprog) | {peer[0] / 1e3:.3f} | "
                f"{peer[1] / 1e3:.3f} | {peer[2] / 1e3:.3f} | {'yes' if peer[0] / 1e3 <= TARGET_MS else 'no'} | 1 | "
                f"(not exposed) | {case.failed['tsid']} |"
            )
            row["tsid_us"] = peer
        out["cycle"].append(row)
    if not with_tsid:
        print(f"| all | | TSID | skipped: {tsid_note} ({wbc_tsid.INSTALL}) | | | | | | |")
        return out
    out.update(agreement_tables(robot, cases))
    return out


OURS, EXACT, TSID_REG, TSID_0 = "ours (DAQP, hot start)", "our QP, DAQP cold", "TSID, w = 1e-5", "TSID, w = 0"
TSID_MU = "TSID, w = 0, its pyramid for μ = 0.4"
COMPARED = ((OURS, TSID_REG), (EXACT, TSID_0), (EXACT, TSID_MU), (OURS, EXACT))


def solutions(robot, case) -> dict:
    """{solver: (torques per cycle, normal forces at the first cycle)} of ``case``'s states: ours
    and TSID's as timed, TSID without force regularisation, and our QP solved exactly by DAQP."""
    out = {OURS: (case.tau["ours"], case.forces.get("ours")), TSID_REG: (case.tau["tsid"], case.forces.get("tsid"))}
    ctrl = case.ctrl
    for name, own in ((TSID_0, False), (TSID_MU, True)):
        peer = wbc_tsid.TsidController(ctrl, case.states[0][0], case.states[0][1], force_reg=0.0, own_pyramid=own)
        taus, forces = [], None
        for k, (q, v, ref) in enumerate(case.states):
            ctrl.com.set_reference(*ref)
            tq, _, f = peer.compute(q, v)
            taus.append(tq)
            if k == 0 and f is not None:
                forces = normal_forces(f, ctrl)
        out[name] = (taus, forces)
    import daqp

    contacts = list(ctrl.contacts.values())
    s = ctrl.settings
    layout = Layout(contacts, ctrl.nv, ctrl.n_act, s.reg_acceleration, s.reg_force)
    taus, forces = [], None
    for k, (q, v, ref) in enumerate(case.states):
        ctrl.com.set_reference(*ref)
        ctrl.dyn.update(q, v)
        qp = build(layout, ctrl.dyn, ctrl.tasks, contacts, ctrl.tau_max, ctrl.joint_bounds.bounds(q[7:], v[6:]))
        x, _, flag, _ = daqp.solve(*daqp_form(*qp[:9]))
        if flag != 1:
            taus.append(None)
            continue
        a, f = x[: ctrl.nv], x[ctrl.nv :]
        taus.append(ctrl.dyn.M[6:] @ a + ctrl.dyn.h[6:] - qp[9][6:] @ f)
        if k == 0:
            forces = normal_forces(f, ctrl)
    out[EXACT] = (taus, forces)
    return out


def agreement_tables(robot, cases) -> dict:
    print("\n## 2. Agreement with TSID: joint torques [N·m] (30 joints)\n")
    print(
        "TSID's contact force regularisation: w = 1e-5 on each contact's wrench (timed above), or w = 0 (the "
        "forces then carry only TSID's Hessian regularisation, 1e-8, our ε_f); TSID is given μ = 0.4/√2 (our "
        "pyramid's faces) but in the last variant; our QP exact: the controller's QP of the same state solved "
        "to its optimum by DAQP.\n"
    )
    header(
        "contacts",
        "motion",
        "compared",
        "max abs Δτ (median over cycles)",
        "max abs Δτ (all cycles)",
        "RMS Δτ (median)",
    )
    out = {"agreement": [], "forces": {}}
    for case in cases:
        log(f"... agreement: {case.label}, {case.motion}")
        sol = solutions(robot, case)
        for a, b in COMPARED:
            if a not in sol or b not in sol:
                continue
            mx, rms = agreement(sol[a][0], sol[b][0])
            if not len(mx):
                print(f"| {case.label} | {case.motion} | {a} / {b} | no cycle solved by both | | |")
                continue
            print(
                f"| {case.label} | {case.motion} | {a} / {b} | {np.median(mx):.2g} | {mx.max():.2g} | "
                f"{np.median(rms):.2g} |"
            )
            out["agreement"].append(
                {
                    "contacts": case.label,
                    "motion": case.motion,
                    "compared": [a, b],
                    "max_median": float(np.median(mx)),
                    "max_all": float(mx.max()),
                    "rms_median": float(np.median(rms)),
                }
            )
        if case.motion == "still":
            out["forces"][case.label] = {k: v[1] for k, v in sol.items()}
    names = [OURS, EXACT, TSID_REG, TSID_0, TSID_MU]
    print("\nNormal force per contact at rest (still) [N]\n")
    header("contacts", "contact", *names)
    for label, forces in out["forces"].items():
        for contact in CASES[label]:
            cells = [f"{forces[n][contact]:.1f}" if forces.get(n) else "" for n in names]
            print(f"| {label} | {contact} | " + " | ".join(cells) + " |")
    return out


# --------------------------------------------------------------------------- 3. the QP alone
def capture(robot, contacts, n: int):
    """``n`` QPs (H, g, A_eq, b_eq, C, lo, up, box_lo, box_up) of the sway, built as the
    controller's `compute` builds them (`humanoid_control.wbc.problem.build`)."""
    sway = states(robot, contacts, "sway", n)
    ctrl, _ = standing(robot, contacts)
    s, contacts_ = ctrl.settings, list(ctrl.contacts.values())
    layout = Layout(contacts_, ctrl.nv, ctrl.n_act, s.reg_acceleration, s.reg_force)
    out = []
    for q, v, ref in sway:
        ctrl.com.set_reference(*ref)
        ctrl.dyn.update(q, v)
        qp = build(layout, ctrl.dyn, ctrl.tasks, contacts_, ctrl.tau_max, ctrl.joint_bounds.bounds(q[7:], v[6:]))
        out.append(tuple(np.array(m, copy=True) for m in qp[:9]))
    return out


def _finite(b, sign):
    """The solver's infinity where the controller writes ±`INFINITY`."""
    b = np.array(b, float)
    b[np.abs(b) >= INFINITY] = sign * 1e30
    return b


def daqp_form(H, g, A, b, C, lo, up, box_lo, box_up):
    """DAQP's arguments: bounds on every variable first, then the equality and inequality rows."""
    n, ne, ni = len(g), len(b), len(lo)
    sense = np.r_[np.zeros(n), np.full(ne, 5), np.zeros(ni)].astype(np.int32)
    return (H, g, np.vstack([A, C]), _finite(np.r_[box_up, b, up], 1), _finite(np.r_[box_lo, b, lo], -1), sense)


def quadprog_form(H, g, A, b, C, lo, up, box_lo, box_up):
    """quadprog's (G, a, Cᵀ, b, meq): min ½ xᵀGx − aᵀx, Cᵀx ≥ b, the first meq rows equalities."""
    rows, rhs = [A], [b]
    for M, l, u in ((C, lo, up), (np.eye(len(g)), box_lo, box_up)):
        lk, uk = np.abs(l) < INFINITY, np.abs(u) < INFINITY
        rows += [M[lk], -M[uk]]
        rhs += [l[lk], -u[uk]]
    return (H, -g, np.vstack(rows).T.copy(), np.concatenate(rhs), len(b))


class ProxQPWarm:
    """ProxQP 0.8 (dense, box constraints), one solver per problem size warm-started from its last
    solution, stopped on 1e-6 residuals and duality gap, infeasible only below 1e-9: the settings
    a whole-body QP needs of it (its default 1e-4 infeasibility threshold refuses feasible
    problems, and residuals alone stop short of the minimum)."""

    def __init__(self):
        self._solvers = {}

    def solve(self, H, g, A, b, C, lo, up, box_lo, box_up):
        import proxsuite

        key = (H.shape[0], A.shape[0], C.shape[0])
        qp = self._solvers.get(key)
        if qp is None:
            qp = self._solvers[key] = proxsuite.proxqp.dense.QP(*key, box_constraints=True)
            st = qp.settings
            st.eps_abs, st.eps_rel, st.max_iter = 1e-6, 0.0, 1000
            st.initial_guess = proxsuite.proxqp.InitialGuess.WARM_START_WITH_PREVIOUS_RESULT
            st.check_duality_gap, st.eps_duality_gap_abs, st.eps_duality_gap_rel = True, 1e-6, 0.0
            st.eps_primal_inf = st.eps_dual_inf = 1e-9
            qp.init(H, g, A, b, C, lo, up, box_lo, box_up)
        else:
            qp.update(H, g, A, b, C, lo, up, box_lo, box_up)
        qp.solve()
        ok = qp.results.info.status == proxsuite.proxqp.QPSolverOutput.PROXQP_SOLVED
        return qp.results.x.copy(), ok


def qp_table(robot, n: int, reps: int) -> list:
    import daqp

    try:
        import quadprog
    except ImportError:
        quadprog = None
    print(f"\n## 3. The QP alone ({n} QPs of the sway per case, captured with problem.build)\n")
    header(
        "contacts",
        "QP size (n, eq, in)",
        "solver",
        "median [µs]",
        "p90 [µs]",
        "max [µs]",
        "/ ours",
        "max abs Δa to ours [rad/s²]",
        "max abs Δτ to ours [N·m]",
        "failed",
    )
    nv, n_act = robot.nv, robot.nv - 6
    out = []
    for label, contacts in CASES.items():
        log(f"... QP capture: {label}")
        qps = capture(robot, contacts, n)
        size = f"{qps[0][0].shape[0]}, {qps[0][2].shape[0]}, {qps[0][4].shape[0]}"
        solvers = {"ours: QPSolver (DAQP 0.11, hot start)": None, "DAQP 0.11 (cold)": [daqp_form(*qp) for qp in qps]}
        solvers["ProxQP 0.8 (warm start)"] = "prox"
        if quadprog is not None:
            solvers["quadprog 0.1.14 (cold)"] = [quadprog_form(*qp) for qp in qps]
        times = {k: [] for k in solvers}
        x = {k: [None] * n for k in solvers}
        failed = dict.fromkeys(solvers, 0)
        ours, prox = QPSolver(), ProxQPWarm()
        bounds = np.linspace(0, n, reps + 1).astype(int)
        for r in range(reps):
            for name, forms in solvers.items() if r % 2 == 0 else reversed(solvers.items()):
                for k in range(bounds[r], bounds[r + 1]):
                    t0 = time.perf_counter()
                    if forms is None:
                        res = ours.solve(*qps[k])
                        sol, ok = res.x, res.solved
                    elif forms == "prox":
                        sol, ok = prox.solve(*qps[k])
                    elif name.startswith("DAQP"):
                        sol, _, flag, _ = daqp.solve(*forms[k])
                        ok = flag == 1
                    else:
                        try:
                            sol, ok = quadprog.solve_qp(*forms[k])[0], True
                        except ValueError:
                            sol, ok = None, False
                    times[name].append(time.perf_counter() - t0)
                    x[name][k] = np.asarray(sol) if ok else None
                    failed[name] += not ok
        ref = x["ours: QPSolver (DAQP 0.11, hot start)"]
        base = stats_us(times["ours: QPSolver (DAQP 0.11, hot start)"])[0]
        for name in solvers:
            st = stats_us(times[name])
            da, dtau = [], []
            for qp, a, b in zip(qps, x[name], ref):
                if a is not None and b is not None:  # the torques are the QP's last n_act rows of C x plus h_a
                    da.append(np.abs(a - b)[:nv].max())
                    dtau.append(np.abs(qp[4][-n_act:] @ (a - b)).max())
            da, dtau = (float(max(d)) if d else float("nan") for d in (da, dtau))
            print(
                f"| {label} | {size} | {name} | {st[0]:.0f} | {st[1]:.0f} | {st[2]:.0f} | {st[0] / base:.2f}x | "
                f"{da:.2g} | {dtau:.2g} | {failed[name]} |"
            )
            out.append({"contacts": label, "solver": name, "us": st, "max_da": da, "max_dtau": dtau})
    if quadprog is None:
        install = ".venv/bin/pip install quadprog==0.1.14"
        print(f"| | | quadprog | skipped: not installed ({install}) | | | | | | |")
    return out


# --------------------------------------------------------------------------- 4. closed loop
def make_motions(folder: Path, quick: bool) -> dict:
    """{name: file} of the acceptance motions, made in ``folder`` with the CLI (module docstring)."""
    out = {}
    for name, (file, args, in_quick) in MOTION_FILES.items():
        if quick and not in_quick:
            continue
        path = folder / file
        t0 = time.perf_counter()
        cmd = [sys.executable, "-m", "humanoid_stack.cli", *args, "--output", str(path)]
        res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if res.returncode != 0 or not path.exists():
            tail = (res.stderr.strip() or res.stdout.strip() or "no output").splitlines()[-1]
            log(f"... {name}: humanoid-stack {' '.join(args)} failed (exit code {res.returncode}): {tail}")
            out[name] = None
            continue
        log(f"... {name}: made in {time.perf_counter() - t0:.0f} s (humanoid-stack {' '.join(args)})")
        out[name] = path
    return out


def closed_loop_table(quick: bool) -> list:
    from humanoid_execution.run import Push, RunSettings, execute

    print("\n## 4. Closed loop in the simulator (whole-body controller at 1 kHz, dt = 1 ms)\n")
    rows, reports = [], {}
    with tempfile.TemporaryDirectory(prefix="wbc-bench-") as tmp:
        motions = make_motions(Path(tmp), quick)
        header(
            "motion",
            "motion [s]",
            "simulated [s]",
            "wall [s]",
            "real-time factor",
            "controller median [µs]",
            "simulator step median [µs]",
            "controller share of wall",
            "simulator share of wall",
            "success",
        )
        cases = [(name, path, RunSettings()) for name, path in motions.items()]
        for name, (source, t, force, duration) in PUSHED.items():
            if source in motions:
                cases.append((name, motions[source], RunSettings(pushes=[Push(t, force, duration)])))
        for name, path, settings in cases:
            if path is None:
                print(f"| {name} | not made (see the progress lines) | | | | | | | | |")
                continue
            shown = [0.0]

            def progress(t, end, name=name, shown=shown):
                if t - shown[0] >= 2.0 or t >= end - 1e-9:
                    shown[0] = t
                    log(f"... {name}: {t:.1f} / {end:.1f} s simulated")

            run = execute(path, settings, progress=progress)
            r = run.report
            reports[name] = r
            step = 1e6 * float(np.median(run.log.step_time))
            share, sim_share = (
                float(np.sum(getattr(run.log, k))) / r.run_time if r.run_time > 0 else float("nan")
                for k in ("cycle_time", "step_time")
            )
            ok = "yes" if r.success else f"no: {r.reason}"
            print(
                f"| {name} | {run.reference.duration:.2f} | {r.duration:.2f} | {r.run_time:.1f} | "
                f"{r.realtime_factor:.2f} | {r.cycle_median * 1e6:.0f} | {step:.0f} | {share * 100:.0f} % | "
                f"{sim_share * 100:.0f} % | {ok} |"
            )
            rows.append(
                {
                    "motion": name,
                    "motion_s": float(run.reference.duration),
                    "simulated_s": r.duration,
                    "wall_s": r.run_time,
                    "realtime_factor": r.realtime_factor,
                    "cycle_median_us": r.cycle_median * 1e6,
                    "step_median_us": step,
                    "controller_share": share,
                    "simulator_share": sim_share,
                    "success": bool(r.success),
                    "reason": r.reason,
                    "report": r.as_dict(),
                }
            )
    report_table(reports)
    return rows


def _worst(contacts, kind) -> str:
    """The largest position error [mm] and angle error [deg] of the contacts of ``kind``."""
    rows = [c for c in contacts if c.kind == kind]
    if not rows:
        return "-"
    return f"{max(c.position_error for c in rows) * 1e3:.1f} mm, {np.degrees(max(c.angle_error for c in rows)):.1f}°"


def report_table(reports: dict) -> None:
    """Each run's report (`humanoid_control.wbc.report.ExecutionReport`), one row per motion."""
    print("\n### What each run did (its report)\n")
    header(
        "motion",
        "success",
        "CoM RMS / max [mm]",
        "worst landing",
        "worst final contact",
        "smallest CoP margin [mm]",
        "largest force-to-cone ratio",
        "largest torque / limit",
        "cycles at a torque limit",
        "late / early contacts",
    )
    for name, r in reports.items():
        ok = "yes" if r.success else f"no: {r.reason}"
        print(
            f"| {name} | {ok} | {r.com_rms * 1e3:.1f} / {r.com_max * 1e3:.1f} | {_worst(r.contacts, 'landing')} | "
            f"{_worst(r.contacts, 'final')} | {r.min_cop_margin * 1e3:.1f} ({r.min_cop_location}) | "
            f"{r.max_cone_ratio:.2f} ({r.max_cone_location}) | {r.max_torque_ratio * 100:.0f} % | "
            f"{r.saturated_share * 100:.1f} % | {len(r.late_contacts)} / {len(r.early_contacts)} |"
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cycles", type=int, default=2000, help="cycles per case, at least 2000 (default 2000)")
    ap.add_argument("--reps", type=int, default=5, help="interleaved repetitions the cycles are cut into (default 5)")
    ap.add_argument("--quick", action="store_true", help="closed loop: the walk and the flat plan only")
    ap.add_argument("--no-closed-loop", action="store_true", help="skip the closed-loop table")
    ap.add_argument("--no-qp", action="store_true", help="skip the QP solver table")
    ap.add_argument("--json", default=None, metavar="OUT.json", help="write the numbers as JSON")
    a = ap.parse_args()
    if a.cycles < 2000 or a.reps < 1:
        ap.error("--cycles must be at least 2000 and --reps at least 1")
    tsid_note = wbc_tsid.probe()
    versions = f"tsid {wbc_tsid.VERSION}" if tsid_note is None else f"tsid: {tsid_note}"
    import proxsuite

    print(
        f"python {platform.python_version()}, numpy {np.__version__}, pinocchio {pin.__version__}, "
        f"proxsuite {proxsuite.__version__}, {versions}; {platform.machine()}, {os.cpu_count()} cores; "
        "single-threaded BLAS"
    )
    robot = load_robot("hrp2")
    out = {"cycles": a.cycles, "reps": a.reps}
    out.update(cycle_tables(robot, a.cycles, a.reps, tsid_note))
    if not a.no_qp:
        out["qp"] = qp_table(robot, CAPTURED, a.reps)
    if not a.no_closed_loop:
        out["closed_loop"] = closed_loop_table(a.quick)
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1, default=float))


if __name__ == "__main__":
    main()
