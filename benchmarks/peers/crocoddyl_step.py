"""The project's side of the Crocoddyl peer (``benchmarks/gait.py --crocoddyl``): the BIP
cyclic step solved by our direct method on the URDF's exact parameters, the same problem written as a
SPEC for ``benchmarks/peers/gait_crocoddyl.py`` (run in ``.venv-crocoddyl``, a subprocess), and the
rows of the comparison table (costs term by term, energies, solve times, residuals).

Both sides use the BIP URDF's dynamics: ours through `urdf_exact_params` (the hand-written planar model
equal to the URDF's to 1e-9, test/planner/gait/test_gait_generated_model.py), Crocoddyl through Pinocchio's URDF
parser.  States and torques cross as URDF joint angles, rates and torques by name.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from humanoid_model.paths import urdf_dir
from humanoid_model.urdf_description import read_sidecar
from humanoid_planner.gait import boundary as bd
from humanoid_planner.gait.cost import Weights
from humanoid_planner.gait.params import urdf_exact_params
from humanoid_planner.gait.phase_sequence import GaitProblem

ROOT = Path(__file__).resolve().parents[2]
PEER_PYTHON = ROOT / ".venv-crocoddyl" / "bin" / "python"
PEER = Path(__file__).resolve().parent / "gait_crocoddyl.py"
TOUCHDOWN = 1e-4  # [m] the toe has landed once it stays within 0.1 mm of the ground (our DS solution)
EPS = 1e-6  # step of the central differences of the affine URDF-angle map (exact up to rounding)

# Crocoddyl-side numbers (chosen; docs/gait.md "Peer: Crocoddyl"): what the project imposes as
# constraints is penalised there: the contact-force bounds with a barrier of weight 1 1/N^2, the
# boundary states with 1e6 (positions, 1/rad^2 or 1/m^2) and 1e4 (rates); reached by a continuation
# x0.01 -> x0.1 -> x1 in these weights (FDDP did not converge when started at x1: 300 iterations,
# cost 57); contact Baumgarte gains (Kp, Kd) = (0, 40 1/s): a contact-velocity error decays in 25 ms
# (with 0 the heel drifted 1.9 mm and FDDP stalled); each phase its own shooting problem from its
# exact initial state, as the thesis and our walk (one problem over DS + SS kept a 30 mrad error at
# the DS end); the 6-D contact's three out-of-plane rows are zero: J M^-1 J^T damping 1e-12
WEIGHTS = {"W_barrier": 1.0, "W_boundary": 1.0e6, "W_boundary_v": 1.0e4}
STAGES = (0.01, 0.1, 1.0)
CONTACT_GAINS = (0.0, 40.0)
DAMPING = 1e-12
MAX_ITER = 300  # FDDP iterations per stage and phase (the converged runs needed at most 230)


def _urdf_state(pb, ph, q, v):
    """A thesis state as URDF joint angles and rates by name, base pitch and rate, and the anchor
    (the DS rear toe, the SS stance heel) at its world position."""
    p, kind, leg = pb.params, ph.kind, ph.root_leg
    j0, p0 = bd.urdf_joint_angles(p, kind, q, leg)
    jp, pp = bd.urdf_joint_angles(p, kind, np.asarray(q) + EPS * np.asarray(v), leg)
    jm, pm = bd.urdf_joint_angles(p, kind, np.asarray(q) - EPS * np.asarray(v), leg)
    return {
        "joints": {n: [j0[n], (jp[n] - jm[n]) / (2 * EPS)] for n in j0},
        "pitch": p0,
        "pitch_rate": (pp - pm) / (2 * EPS),
        "anchor": f"{leg}_toe" if kind == "ds" else f"{leg}_heel",
        "anchor_xz": [ph.origin_x, 0.0],
    }


def _urdf_torques(pb, ph, q, u):
    """URDF joint torques by name [N m] of the thesis torques u: power per joint is kept,
    A^T tau = S_act^T u with A = d(URDF angles)/dq."""
    tree = pb.tree(ph.kind)
    names = list(bd.urdf_joint_angles(pb.params, ph.kind, q, ph.root_leg)[0])
    A = np.zeros((len(names), tree.n))
    for i in range(tree.n):
        e = np.zeros(tree.n)
        e[i] = EPS
        jp = bd.urdf_joint_angles(pb.params, ph.kind, q + e, ph.root_leg)[0]
        jm = bd.urdf_joint_angles(pb.params, ph.kind, q - e, ph.root_leg)[0]
        A[:, i] = [(jp[n] - jm[n]) / (2 * EPS) for n in names]
    tau = np.linalg.lstsq(A.T, tree.S_act.T @ np.asarray(u[: tree.n_tau]), rcond=None)[0]
    return dict(zip(names, tau.tolist()))


def spec_of(pb, ds, ss, warm: bool) -> dict:
    """The SPEC of benchmarks/peers/gait_crocoddyl.py for the cyclic step of `pb` (DS rear leg left)."""
    path = urdf_dir() / "bip.urdf"
    side = read_sidecar(path)
    posture = (side.postures.get(side.default_posture) or {}).get("joints", {}) or {}
    w: Weights = pb.weights
    names = [f"{leg}_{j}" for leg in ("l", "r") for j in bd.URDF_LEG_JOINTS]
    toe = np.abs([pb.ds.point("toe", q)[1] for q in ds.q])
    up = np.flatnonzero(toe > TOUCHDOWN)
    k_td = int(up[-1]) + 1 if len(up) else 0  # the first DS node from which the front toe stays down
    ph_ds, ph_ss = ds.phase, ss.phase
    spec = {
        "urdf": str(path),
        "locked": {n: float(posture.get(n, 0.0)) for n in side.planar_locked_joints},
        "armature": {n: float(side.armature[n]) for n in names if n in side.armature},
        "g": pb.params.g,
        "foot_length": pb.params.foot.l_pied,
        "frames": {"rear_toe": "l_toe", "rear_heel": "l_heel", "front_heel": "r_heel", "front_toe": "r_toe"},
        "grid": {"T_ds": ph_ds.duration, "T_ss": ph_ss.duration, "N_ds": len(ds.t) - 1, "N_ss": len(ss.t) - 1},
        "weights": {
            "W_tau": w.torque_w()[0],
            "W_F": w.force_w()[0],
            "r_a": w.r_a,
            "W_angle": w.r_h / w.s_angle**2,
            "W_vel": w.r_h / w.s_vel**2,
            "W_dist": w.r_h / w.s_dist**2,
            "limits": {n: list(w.limits[n[2:]]) for n in names},  # URDF signs, by joint (hip_pitch, ...)
            "vel_limits": {n: w.vel_limits[n[2:]] for n in names},
            "tau_max": w.tau_max,
            "friction": w.friction,
            "toe_force_max": w.toe_force_cap() if w.toe_force_cap() is not None else 1e10,  # no rate bound there
            "ss_heel_min": w.ss_heel_min,
            "ss_toe_min": w.ss_toe_min,
            **WEIGHTS,
            "contact_gains": list(CONTACT_GAINS),
            "damping": DAMPING,
        },
        "states": {
            "ds0": _urdf_state(pb, ph_ds, ph_ds.q0, ph_ds.v0),
            "ds1": _urdf_state(pb, ph_ds, ph_ds.q1, ph_ds.v1),
            "ss1": _urdf_state(pb, ph_ss, ph_ss.q1, ph_ss.v1),
        },
        "max_iter": MAX_ITER,
        "stages": list(STAGES),
        "split": True,
    }
    spec["grid"]["k_touchdown"] = k_td
    if warm:
        states = [_urdf_state(pb, ph_ds, q, v) for q, v in zip(ds.q[:-1], ds.v[:-1])]
        states += [_urdf_state(pb, ph_ss, q, v) for q, v in zip(ss.q, ss.v)]
        torques = [_urdf_torques(pb, ph_ds, q, u) for q, u in zip(ds.q[:-1], ds.u[:-1])]
        torques += [_urdf_torques(pb, ph_ss, q, u) for q, u in zip(ss.q[:-1], ss.u[:-1])]
        spec["init"] = {"states": states, "torques": torques}
    return spec


def run_peer(spec: dict) -> dict:
    """Run the Crocoddyl script in its venv on `spec`; returns its RESULT (or raises RuntimeError)."""
    if not PEER_PYTHON.exists():
        raise RuntimeError(f"{PEER_PYTHON} is missing: run 'make venv-crocoddyl' first (docs/gait.md)")
    with tempfile.TemporaryDirectory() as tmp:
        s, r = Path(tmp) / "spec.json", Path(tmp) / "result.json"
        s.write_text(json.dumps(spec))
        proc = subprocess.run([str(PEER_PYTHON), str(PEER), str(s), str(r)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"crocoddyl peer failed:\n{proc.stdout}\n{proc.stderr}")
        return json.loads(r.read_text())


def ours_row(label, pb, ds, ss, wall) -> dict:
    """Our solution's criterion by term (trapezoid, the transcription's own rule), energies, residuals."""
    parts = np.zeros(4)  # effort (torques + DS forces), closure, flattening, inequality penalties
    for s in (ds, ss):
        P = np.array([[float(x) for x in s.builder.f_parts(s.q[k], s.v[k], s.u[k])] for k in range(len(s.t))])
        parts += np.trapezoid(P, s.t, axis=0)
    c_ds, c_ss = ds.checks, ss.checks
    w = pb.weights
    f = ds.forces
    viol = max(
        float(np.max(-f["FB1_front_heel_normal"])),
        float(np.max(-f["FB2_front_toe_normal"])),
        float(np.max(-f["NA2_rear_toe_normal"])),
        float(np.max(w.ss_heel_min - ss.forces["NB1_stance_heel_normal"])),
        float(np.max(w.ss_toe_min - ss.forces["NB2_stance_toe_normal"])),
    )
    return {
        "solver": label,
        "criterion": float(parts.sum()),
        "effort": float(parts[0]),
        "flattening": float(parts[2]),
        "penalties": float(parts[3]),
        "closure_term": float(parts[1]),
        "E_ds": c_ds["energy"],
        "E_ss": c_ss["energy"],
        "closure_mm": 1e3 * c_ds["closure_residual_max"],
        "boundary": 0.0,  # fully specified boundary states: bounds of the NLP
        "force_violation": viol,
        "friction_max": max(c_ds["friction_ratio_max"], c_ss["friction_ratio_max"]),
        "stance_min": (c_ss["stance_heel_normal_min"], c_ss["stance_toe_normal_min"]),
        "iterations": f"{ds.iterations} + {ss.iterations}",
        "solve_s": ds.solve_time + ss.solve_time,
        "wall_s": wall,
        "converged": ds.success and ss.success,
    }


def peer_row(label, res, spec) -> dict:
    """The same numbers from the Crocoddyl RESULT (costs are per unit time: times dt, Euler)."""
    nodes = res["nodes"]
    terms = {}
    for nd in nodes:
        for k, c in nd["costs"].items():
            terms[k] = terms.get(k, 0.0) + c * nd["dt"]
    effort = terms.get("torque", 0.0) + terms.get("front_forces", 0.0)
    pen = sum(v for k, v in terms.items() if k.startswith(("above_", "limits_")))
    flat = terms.get("flattening", 0.0)
    E = {"ds": 0.0, "ss": 0.0}
    for nd in nodes:
        x, u = np.array(nd["x"]), np.array(nd["u"])
        nq = len(x) // 2
        E[nd["phase"]] += float(np.sum(np.abs(u[3:] * x[nq + 3 :]))) * nd["dt"]
    f = spec["frames"]
    target = np.array(res["checks"]["ds0"][f["front_heel"]])
    ds_nodes = [nd for nd in nodes if nd["phase"] == "ds"]
    closure = max(float(np.linalg.norm(np.array(nd["frames"][f["front_heel"]]) - target)) for nd in ds_nodes)
    b1 = float(np.max(np.abs(np.array(res["x_ds_end"]) - np.array(res["x_ds1"]))))
    b2 = float(np.max(np.abs(np.array(res["x_end"]) - np.array(res["x_ss1"]))))
    w = spec["weights"]
    fr, viol, smin = 0.0, 0.0, [np.inf, np.inf]
    for nd in nodes:
        for nh, nt, t in nd["forces"].values():
            n = nh + nt
            if n > 1.0:
                fr = max(fr, abs(t) / n)
            lo = (w["ss_heel_min"], w["ss_toe_min"]) if nd["phase"] == "ss" else (0.0, 0.0)
            viol = max(viol, lo[0] - nh, lo[1] - nt)
            if nd["phase"] == "ss":
                smin = [min(smin[0], nh), min(smin[1], nt)]
    return {
        "solver": label,
        "criterion": effort + flat + pen,
        "effort": effort,
        "flattening": flat,
        "penalties": pen,
        "closure_term": 0.0,
        "E_ds": E["ds"],
        "E_ss": E["ss"],
        "closure_mm": 1e3 * closure,
        "boundary": max(b1, b2),
        "friction_max": fr,
        "force_violation": viol,
        "stance_min": tuple(smin),
        "iterations": str(res["iterations"]),
        "solve_s": res["wall_s"],
        "wall_s": res["wall_s"],
        "converged": res["converged"],
        "barrier_terms": {k: v for k, v in terms.items() if k.startswith(("contact_bounds", "landing", "ds_end"))},
        "checks": res["checks"],
    }


def compare_crocoddyl(print_table=True):
    """Our cyclic step (separate phase solves, the walk's default) and Crocoddyl's on the same URDF,
    cold (interpolated boundary states) and warm (from our solution)."""
    t0 = time.perf_counter()
    pb = GaitProblem(urdf_exact_params(), weights=Weights(enforce_contacts=True))
    ds, ss = (pb.solve_phase(ph) for ph in pb.phases("cyclic"))
    rows = [ours_row("ours: direct (IPOPT), phases solved separately", pb, ds, ss, time.perf_counter() - t0)]
    results = {}
    for warm in (False, True):
        spec = spec_of(pb, ds, ss, warm)
        res = run_peer(spec)
        results[warm] = res
        label = "Crocoddyl FDDP (box), " + ("warm start: our solution" if warm else "cold start: interpolated states")
        rows.append(peer_row(label, res, spec))
    if print_table:
        _print(rows, pb, ds, ss, results[False])
    return rows, results


def _print(rows, pb, ds, ss, res):
    print("\n## Cyclic step on the BIP URDF: our direct method vs Crocoddyl\n")
    print(
        "| solver | criterion | effort | flattening | penalties | E_DS [J] | E_SS [J] | closure / heel drift [mm] "
        "| boundary residual | force-bound violation [N] | max abs(T)/N | stance min NB1, NB2 [N] | iterations "
        "| solve [s] | converged |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['solver']} | {r['criterion']:.4f} | {r['effort']:.4f} | {r['flattening']:.4f} | "
            f"{r['penalties']:.2e} | {r['E_ds']:.1f} | {r['E_ss']:.1f} | {r['closure_mm']:.3f} | "
            f"{r['boundary']:.1e} | {r['force_violation']:.2e} | {r['friction_max']:.3f} | "
            f"{r['stance_min'][0]:.2f}, {r['stance_min'][1]:.2f} | "
            f"{r['iterations']} | {r['solve_s']:.1f} | {r['converged']} |"
        )
    # same model: the peer's frames at the boundary states against our model's points
    err = 0.0
    for key, ph, q, names in (
        ("ds0", ds.phase, ds.phase.q0, {"l_toe": "rear_toe", "r_heel": "heel", "r_toe": "toe"}),
        ("ss1", ss.phase, ss.phase.q1, {"l_toe": "swing_toe", "l_heel": "swing_heel"}),
    ):
        tree = pb.tree(ph.kind)
        for frame, point in names.items():
            ours = tree.point(point, q) + np.array([ph.origin_x, 0.0])
            err = max(err, float(np.max(np.abs(np.array(res["checks"][key][frame]) - ours))))
    print(f"\nsame kinematics: the peer's URDF frames vs our model's points at the boundary states: {err:.1e} m")
