"""Optimal gait benchmark: energies per phase against Chessé 2002 and solve times of both methods.

    .venv/bin/python benchmarks/gait.py [--quick] [--json OUT.json]
    .venv/bin/python benchmarks/gait.py --generated     # only: hand-written vs generated model
    .venv/bin/python benchmarks/gait.py --cyclic-step   # only: the physics fixes, before/after
    .venv/bin/python benchmarks/gait.py --step-lengths  # only: cyclic steps of 0.3-0.6 m by continuation

Energies J_e = int sum |tau_j phidot_j| dt (Chessé 2002, §III.2.5) of the direct solutions, compared
with the thesis (Chessé 2002, §III.3.2.8): DS 96.3 J, SS 109.5 J, cyclic 205.8 J, start 81.9 J,
pre-stop DS 112.1 J, stop SS 105.1 J, walk 504.9 J, with the +-25 % tolerance of acceptance tests
003 A12-A13 and the orderings E_SS > E_DS, E(pre-stop DS) > E_DS.  Variants: the
thesis-literal parameters with the contact extension (default of the CLI), the thesis-faithful
a-posteriori contact checks, and the URDF (HuMAnS) parameters.  PMP: the DS phase from the direct
solution, from zero co-states (tolerance continuation) and the continuation from reduced
inertias and penalties (x0.5, r_d = 10) to the nominal problem (Chessé 2002, §II.4.7 and §III.4;
acceptance test 003 A20).
Prints Markdown tables; ``--json`` also writes the numbers.

``--generated``: the cyclic step (DS + SS) solved by the direct method twice, on the hand-written
planar models (model.py) and on the same trees built from the BIP URDF through the generated CasADi
dynamics (generated_model.py, ``GaitProblem(model="generated")``), with the URDF parameters made
exact as in test/planner/gait/test_gait_generated_model.py (YAML armature, ankle-cardan inertia on the foot):
the costs agree (target: 1e-6 relative); too slow for the test suite (about 1 min).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from humanoid_planner.gait.cost import Weights  # noqa: E402
from humanoid_planner.gait.phase_sequence import make_problem  # noqa: E402
from humanoid_planner.gait.pmp import (
    solve_pmp_a20,
    solve_pmp_continuation,  # noqa: E402
    solve_pmp_phase,
)

THESIS = {
    "start_ss": 81.9,
    "cyclic_ds": 96.3,
    "cyclic_ss": 109.5,
    "prestop_ds": 112.1,
    "stop_ss": 105.1,
}  # Chessé 2002, §III.3.2.8
THESIS_CYCLIC, THESIS_WALK, THESIS_POWER = 205.8, 504.9, 307.0  # Chessé 2002, §III.3.2.8
TOL = 0.25  # acceptance tests 003 A12-A13 (the thesis does not publish its weights, limits and foot geometry)


def run_walk(label, pb):
    rows = []
    for ph in pb.phases("walk"):
        t0 = time.perf_counter()
        s = pb.solve_phase(ph)
        wall = time.perf_counter() - t0
        c = s.checks
        rows.append(
            {
                "variant": label,
                "phase": ph.name,
                "energy": c["energy"],
                "thesis": THESIS[ph.name],
                "ratio": c["energy"] / THESIS[ph.name],
                "within_25pct": abs(c["energy"] / THESIS[ph.name] - 1) <= TOL,
                "closure_mm": 1e3 * c["closure_residual_max"],
                "friction_max": c["friction_ratio_max"],
                "unilateral": c["unilateral_ok"],
                "ipopt_s": s.solve_time,
                "wall_s": wall,
                "iterations": s.iterations,
                "status": s.status,
                "mean_power": c["mean_power"],
            }
        )
    e = {r["phase"]: r["energy"] for r in rows}
    cyc = e["cyclic_ds"] + e["cyclic_ss"]
    summary = {
        "variant": label,
        "cyclic": cyc,
        "cyclic_power": cyc / 0.67,
        "walk": sum(e.values()),
        "order_ss_gt_ds": e["cyclic_ss"] > e["cyclic_ds"],
        "order_prestop_gt_ds": e["prestop_ds"] > e["cyclic_ds"],
        "cyclic_wall_s": sum(r["wall_s"] for r in rows if r["phase"].startswith("cyclic")),
    }
    return rows, summary


def compare_generated():
    """Direct method on the cyclic step: hand-written vs generated planar models (module docstring)."""
    from humanoid_planner.gait.params import urdf_exact_params
    from humanoid_planner.gait.phase_sequence import GaitProblem

    p = urdf_exact_params()  # the URDF exactly (YAML armature, ankle-cardan inertia on the foot)
    rows = {}
    for model in ("hand", "generated"):
        t0 = time.perf_counter()
        pb = GaitProblem(p, model=model, weights=Weights(enforce_contacts=True))
        build = time.perf_counter() - t0
        for ph in pb.phases("cyclic"):
            s = pb.solve_phase(ph)
            rows[(model, ph.name)] = (s.cost, s.iterations, s.solve_time, build, s.status)
    print("\n## Cyclic step, direct method: hand-written vs generated planar model (BIP URDF)\n")
    print("| phase | cost, hand-written | cost, generated | relative difference | iterations | IPOPT [s] hand / gen. |")
    print("|---|---|---|---|---|---|")
    for name in ("cyclic_ds", "cyclic_ss"):
        h, g = rows[("hand", name)], rows[("generated", name)]
        print(
            f"| {name} | {h[0]:.12f} | {g[0]:.12f} | {abs(g[0] / h[0] - 1):.1e} | {h[1]} / {g[1]} | "
            f"{h[2]:.1f} / {g[2]:.1f} |"
        )
    build = {m: rows[(m, "cyclic_ds")][3] for m in ("hand", "generated")}
    print(f"\nmodel build [s]: hand-written {build['hand']:.2f}, generated {build['generated']:.2f}")
    return rows


def _cyclic_row(label, pb, ds, ss, wall):
    """Numbers of one solved cyclic step: costs, energies, closure, force off the ground, torque
    jumps and rates (docs/gait.md)."""
    from humanoid_planner.gait.multiphase import torque_jumps

    toe = np.array([pb.ds.point("toe", q)[1] for q in ds.q])
    j = torque_jumps(ds, ss)
    rates = [np.abs(np.diff(s.u[:, :6], axis=0)) / np.diff(s.t)[:, None] for s in (ds, ss)]
    inner = max(float(r[1:-1].max()) for r in rates)  # without the first and last interval
    return {
        "variant": label,
        "cost_ds": ds.cost,
        "cost_ss": ss.cost,
        "cost": ds.cost + ss.cost,
        "E_ds": ds.checks["energy"],
        "E_ss": ss.checks["energy"],
        "closure_mm": 1e3 * ds.checks["closure_residual_max"],
        "toe_force_off_ground_max": float(np.max(ds.u[toe > 1e-3, 7], initial=0.0)),
        "toe_off_ground_nodes": int(np.count_nonzero(toe > 1e-3)),
        "jump_ds_ss": j["ds_to_ss"],
        "jump_ss_ds": j["ss_to_ds"],
        "rear_hip_end": (float(ds.u[-2, 2]), float(ds.u[-1, 2])),
        "dt_end_ms": 1e3 * float(ds.t[-1] - ds.t[-2]),
        "rate_max": max(float(r.max()) for r in rates),
        "rate_inner_max": inner,
        "contacts_ok": all(s.checks["unilateral_ok"] and s.checks["friction_ok"] for s in (ds, ss)),
        "wall_s": wall,
    }


def compare_cyclic_step(step_lengths=()):
    """Before/after table of the cyclic step: separate phase solves (the 6 N toe cap alone, then with
    the toe complementarity), then the one multi-phase NLP with continuous torques (without and with
    the torque-rate bound, uniform and end-refined DS grids)."""
    from humanoid_planner.gait.multiphase import solve_cyclic_step

    rows = []
    for label, weights in (
        (
            "separate, 6 N cap, no complementarity",
            Weights(enforce_contacts=True, toe_contact_eps=None, toe_force_rate=None),
        ),
        ("separate, 6 N cap + toe complementarity", Weights(enforce_contacts=True, toe_force_rate=None)),
        (
            "separate, complementarity, no cap, no rate bound",
            Weights(enforce_contacts=True, toe_force_max=None, toe_force_rate=None),
        ),
        ("separate, complementarity + toe-force rate bound (default)", Weights(enforce_contacts=True)),
    ):
        pb = make_problem("thesis", weights=weights)
        t0 = time.perf_counter()
        ds, ss = (pb.solve_phase(ph) for ph in pb.phases("cyclic"))
        rows.append(_cyclic_row(label, pb, ds, ss, time.perf_counter() - t0))
    pb = make_problem("thesis")
    for label, kw in (
        ("one NLP, torque continuity, uniform DS grid", dict(torque_rate=None, grid_ds=None)),
        ("one NLP, continuity + rate bound, uniform DS grid", dict(grid_ds=None)),
        ("one NLP, continuity + rate bound, refined DS grid (default)", dict()),
    ):
        t0 = time.perf_counter()
        ds, ss = solve_cyclic_step(pb, **kw)
        rows.append(_cyclic_row(label, pb, ds, ss, time.perf_counter() - t0))
    print("\n## Cyclic step (thesis parameters, contact extension): separate phases / one NLP\n")
    print(
        "| variant | cost DS + SS | E_DS [J] | E_SS [J] | closure [mm] | max FB2 toe > 1 mm [N] | "
        "jump DS->SS [N m] | jump SS->DS [N m] | rear hip last interval [N m] | max rate [N m/s] | "
        "contacts ok | wall [s] |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        h0, h1 = r["rear_hip_end"]
        print(
            f"| {r['variant']} | {r['cost_ds']:.4f} + {r['cost_ss']:.4f} = {r['cost']:.4f} | {r['E_ds']:.1f} | "
            f"{r['E_ss']:.1f} | {r['closure_mm']:.3f} | {r['toe_force_off_ground_max']:.2f} | {r['jump_ds_ss']:.1f} | "
            f"{r['jump_ss_ds']:.1f} | {h0:.1f} -> {h1:.1f} in {r['dt_end_ms']:.1f} ms | {r['rate_max']:.0f} "
            f"(inner {r['rate_inner_max']:.0f}) | {r['contacts_ok']} | {r['wall_s']:.1f} |"
        )
    return rows


def compare_step_lengths(lengths=(0.4, 0.3, 0.6)):
    """Cyclic steps at other step lengths by continuation from the solved 0.5 m step
    (`continue_step_length`; 0.3 m continues from 0.4 m)."""
    from humanoid_planner.gait.phase_sequence import continue_step_length

    rows, solved = [], {}
    t0 = time.perf_counter()
    _, ref, _ = continue_step_length(0.5, "cyclic")
    solved[0.5] = (ref, time.perf_counter() - t0)
    for L in lengths:
        start = max((k for k in solved if abs(k - L) < abs(0.5 - L) + 1e-9), key=lambda k: -abs(k - L))
        t0 = time.perf_counter()
        if start == 0.5:
            _, sols, _ = continue_step_length(L, "cyclic", reference=solved[0.5][0])
        else:  # from a solved neighbour: one more continuation step
            from humanoid_planner.gait.phase_sequence import make_problem as mp

            pb = mp("thesis", L)
            prev = {s.phase.name: s for s in solved[start][0]}
            sols = [pb.solve_phase(ph, init=prev[ph.name]) for ph in pb.phases("cyclic")]
        solved[L] = (sols, time.perf_counter() - t0)
    print("\n## Cyclic step at other step lengths (continuation from 0.5 m, thesis parameters, contact extension)\n")
    print(
        "| LPAS [m] | mean speed [m/s] | cost DS | cost SS | E_DS [J] | E_SS [J] | closure [mm] | max abs(tau) [N m] "
        "| contacts ok | converged | wall [s] |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for L in sorted(solved):
        (ds, ss), wall = solved[L]
        row = {
            "step_length": L,
            "cost_ds": ds.cost,
            "cost_ss": ss.cost,
            "E_ds": ds.checks["energy"],
            "E_ss": ss.checks["energy"],
            "closure_mm": 1e3 * ds.checks["closure_residual_max"],
            "tau_max": float(max(max(s.checks["max_abs_torque"]) for s in (ds, ss))),
            "contacts_ok": all(s.checks["unilateral_ok"] and s.checks["friction_ok"] for s in (ds, ss)),
            "success": ds.success and ss.success,
            "wall_s": wall,
        }
        rows.append(row)
        print(
            f"| {L:.1f} | {L / (ds.phase.duration + ss.phase.duration):.3f} | {ds.cost:.4f} | {ss.cost:.4f} | "
            f"{row['E_ds']:.1f} | {row['E_ss']:.1f} | {row['closure_mm']:.3f} | {row['tau_max']:.0f} | "
            f"{row['contacts_ok']} | {row['success']} | {wall:.1f} |"
        )
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip the URDF variant and PMP continuation")
    ap.add_argument("--json", default=None)
    ap.add_argument("--generated", action="store_true", help="only the hand-written vs generated model table")
    ap.add_argument("--cyclic-step", action="store_true", help="only the cyclic-step before/after table")
    ap.add_argument("--step-lengths", action="store_true", help="only the cyclic steps of 0.3-0.6 m")
    ap.add_argument(
        "--crocoddyl", action="store_true", help="only: the cyclic step against Crocoddyl (needs make venv-crocoddyl)"
    )
    args = ap.parse_args()
    if args.step_lengths:
        compare_step_lengths()
        return
    if args.generated:
        compare_generated()
        return
    if args.crocoddyl:
        from benchmarks.peers.crocoddyl_step import compare_crocoddyl

        compare_crocoddyl()
        return
    if args.cyclic_step:
        compare_cyclic_step()
        return
    variants = [
        ("thesis+contacts", make_problem("thesis")),
        ("thesis a-posteriori", make_problem("thesis", enforce_contacts=False)),
    ]
    if not args.quick:
        variants.append(("urdf+contacts", make_problem("urdf")))
        # the weight sweep of docs/gait.md (energies): the one weight set found by the sweep that
        # puts both DS energies within 25 % (gamma_F = 1/65 1/N, r_a = r_d = 150; chosen); it does
        # not move the SS energies (no contact forces nor flattening in SS), so the start stays out
        # calibrated on the separate-phase problem: the 6 N toe cap instead of the rate bound, gamma10 = 1e4 (with
        # the rate bound these weights leave a 5.8 mm closure residual in the pre-stop DS, docs/gait.md)
        calibrated = Weights(enforce_contacts=True, gamma_f=1.0 / 65.0, r_a=150.0, toe_force_rate=None, gamma10=1e4)
        pb_cal = make_problem("thesis", weights=calibrated)
        variants.append(("thesis+contacts, DS-calibrated weights (6 N cap)", pb_cal))
        # ... plus a straighter rest posture (hip 0.895 m high instead of 0.88: knee bent 8 deg at
        # the start, 13 deg at the stop, instead of 22/26 deg; start hip 9 cm ahead; chosen by the
        # same sweep): the start and stop energies depend on this unpublished posture
        pb_rest = make_problem("thesis", weights=calibrated)
        pb_rest.rest_hip_height, pb_rest.rest_hip_dx = 0.895, 0.09
        variants.append(("thesis+contacts, DS-calibrated weights (6 N cap), rest hip 0.895 m", pb_rest))
    all_rows, summaries = [], []
    for label, pb in variants:
        rows, summ = run_walk(label, pb)
        all_rows += rows
        summaries.append(summ)
    print("\n## Energies per phase (direct method) vs Chessé 2002\n")
    print(
        "| variant | phase | E [J] | thesis [J] | ratio | within 25 % | closure [mm] | max abs(T)/N "
        "| unilateral | IPOPT [s] | wall [s] |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in all_rows:
        print(
            f"| {r['variant']} | {r['phase']} | {r['energy']:.1f} | {r['thesis']} | "
            f"{r['ratio']:.2f} | {'yes' if r['within_25pct'] else 'no'} | {r['closure_mm']:.4f} | "
            f"{r['friction_max']:.3f} | {r['unilateral']} | {r['ipopt_s']:.2f} | {r['wall_s']:.1f} |"
        )
    print(
        "\n| variant | cyclic [J] (205.8) | power [W] (307) | walk [J] (504.9) | E_SS > E_DS | "
        "E_prestop > E_DS | cyclic wall [s] |"
    )
    print("|---|---|---|---|---|---|---|")
    for s in summaries:
        print(
            f"| {s['variant']} | {s['cyclic']:.1f} | {s['cyclic_power']:.0f} | {s['walk']:.1f} | "
            f"{s['order_ss_gt_ds']} | {s['order_prestop_gt_ds']} | {s['cyclic_wall_s']:.1f} |"
        )
    # PMP: the cyclic DS and SS, thesis-faithful contacts
    pb = make_problem("thesis", weights=Weights(enforce_contacts=False))

    def row(phase, method, sol, t0, ref):
        return {
            "phase": phase,
            "method": method,
            "cost": sol.cost,
            "rel": sol.cost / ref - 1,
            "energy": sol.checks["energy"],
            "wall_s": time.perf_counter() - t0,
            "closure_mm": 1e3 * sol.checks["closure_residual_max"],
        }

    pmp_rows, steps = [], []
    for kind in ("ds", "ss"):
        (ph,) = pb.phases(kind)
        t0 = time.perf_counter()
        direct = pb.solve_phase(ph, N=50)
        pmp_rows.append(row(kind, "direct (N=50)", direct, t0, direct.cost))
        t0 = time.perf_counter()
        pmp_rows.append(row(kind, "PMP from direct", solve_pmp_phase(pb, ph, direct=direct), t0, direct.cost))
        if kind == "ds" and not args.quick:
            t0 = time.perf_counter()
            cont, steps = solve_pmp_continuation(pb, ph, progress=print)
            pmp_rows.append(row(kind, "PMP from zero co-states (tolerance continuation)", cont, t0, direct.cost))
            t0 = time.perf_counter()
            a20, a20_steps = solve_pmp_a20(pb, ph, progress=print)
            label = f"PMP continuation ({len(a20_steps)} steps, inertia x0.5, r_d 10 -> nominal)"
            pmp_rows.append(row(kind, label, a20, t0, direct.cost))
            steps = steps + [dict(st, procedure="A20") for st in a20_steps]
    print("\n## Cyclic DS and SS, thesis-faithful contacts: direct vs PMP\n")
    print("| phase | method | cost | cost / direct - 1 | E [J] | closure [mm] | wall [s] |")
    print("|---|---|---|---|---|---|---|")
    for r in pmp_rows:
        print(
            f"| {r['phase']} | {r['method']} | {r['cost']:.6f} | {r['rel']:+.2e} | "
            f"{r['energy']:.1f} | {r['closure_mm']:.4f} | {r['wall_s']:.1f} |"
        )
    if steps:
        print("\ncontinuation steps:", json.dumps(steps))
    if args.json:
        Path(args.json).write_text(
            json.dumps({"phases": all_rows, "summaries": summaries, "pmp": pmp_rows, "continuation": steps}, indent=1)
        )


if __name__ == "__main__":
    main()
