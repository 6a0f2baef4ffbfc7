"""Table 5.1 analogue (Chardonnet 2009, §5.3, Table 5.1; acceptance test 000 E1): time per solve
of every solver on HRP-2 standing with 16 contact points, Pinocchio's ADMM/PGS on the same
problems, printed as Markdown (and optionally JSON).

    .venv/bin/python benchmarks/solver_table.py [--reps 200] [--rounds 5] [--json OUT.json]

Problems (all W = dt Λ, dt = 1 ms, 16 points = the 4 corners + 4 edge midpoints of each sole):
  rigid      all joints locked (the stiff-PD limit): one rigid body on 16 points, from rest,
             μ = 0.983 (measured foot–floor μ, Chardonnet 2009, §5.1.2.1): sticking, hyperstatic;
  articulated  the whole tree, joints at rest with gravity-compensation torques (rnea), from
             rest, μ = 0.983: the body sags, some points slide;
  pushed     the rigid case with the base moving at (0.3, 0.1, 0) m/s, μ = 0.4 (§3.1.6.1):
             every point sliding.
"nsgs_newton (plain GS)" is nsgs_newton without its verified active-set steps
(docs/solvers.md §4), for a before/after ratio in the same run.
Each solver runs cold (f = 0) and warm (from the solution of the previous-step-like problem:
v_free − J dt M⁻¹ τ, τ random ±0.1 N·m on the joints; rigid: v_free·(1 − 1e-3)). Same
tolerances for all (our SolverSettings defaults; Pinocchio gets the same absolute
complementarity/feasibility numbers, its own measure), residuals are OUR true residuals.
Timing: per round every solver `reps` times, interleaved; median over rounds (noisy machine).
Thesis Table 5.1 (ms, 2009 PC, frictionless LCPs): AMELIFGS 0.058, AMELIFGSNEWTON 0.347,
PROJECTION 0.182, AMELIFLCP 0.072 (Chardonnet 2009, Table 5.1).
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pinocchio as pin  # noqa: E402

from humanoid_model import load_robot  # noqa: E402
from humanoid_sim.delassus.cholesky import delassus_cholesky  # noqa: E402
from humanoid_sim.solvers import ContactProblem, SolverSettings, get_solver  # noqa: E402
from humanoid_sim.stages.contacts import ContactSet, contact_jacobian  # noqa: E402

DT = 1e-3
THESIS_MS = {"nsgs": 0.057611, "nsgs_newton": 0.347008, "projection": 0.181587, "lemke_lcp (frictionless)": 0.071642}
SOLVERS = [
    ("nsgs", {}),
    ("nsgs_newton", {}),
    ("nsgs_newton (plain GS)", {}),
    ("projection", {}),
    ("lemke_lcp (frictionless)", {"frictionless": True}),
    ("lemke_lcp (8 facets)", {}),
    ("pinocchio_admm", {}),
    ("pinocchio_pgs", {}),
]


def sole_points_16(robot, data, q):
    model = robot.model
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    ja, pts, nrm = [], [], []
    for name in ("r_sole", "l_sole"):
        loc = robot.contact_locations[name]
        fid = model.getFrameId(loc.body)
        oMf = data.oMf[fid]
        hull = np.asarray(loc.hull, float)
        c = hull.mean(axis=0)
        order = np.argsort(np.arctan2(hull[:, 1] - c[1], hull[:, 0] - c[0]))
        hull = hull[order]
        local = np.vstack([hull, 0.5 * (hull + np.roll(hull, -1, axis=0))])
        for p in local:
            ja.append(model.frames[fid].parentJoint)
            pts.append(oMf.act(p))
            nrm.append(oMf.rotation @ np.asarray(loc.normal, float))
    return ContactSet.make(ja, np.array(pts), np.array(nrm))


def problems():
    robot = load_robot("hrp2")
    model, data = robot.model, robot.model.createData()
    q = robot.q("half-sitting")
    cs = sole_points_16(robot, data, q)
    J = contact_jacobian(model, data, cs, q)
    m = cs.m
    zero = np.zeros(model.nv)
    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    g = pin.rnea(model, data, q, zero, zero)
    out = {}
    # rigid: locked joints
    Jb, Mb = J[:, :6], M[:6, :6]
    Wr = DT * Jb @ np.linalg.solve(Mb, Jb.T)
    ab = np.linalg.solve(Mb, -g[:6])
    vr = Jb @ (DT * ab)
    out["rigid"] = (ContactProblem(Wr, vr, np.full(m, 0.983)), vr * (1 - 1e-3))
    # articulated
    Lam, _ = delassus_cholesky(model, data, q, J)
    tau = g.copy()
    tau[:6] = 0.0
    a = pin.aba(model, data, q, zero, tau)
    va = J @ (DT * a)
    dtau = np.zeros(model.nv)
    dtau[6:] = np.random.default_rng(0).uniform(-0.1, 0.1, model.nv - 6)
    va_prev = J @ (DT * pin.aba(model, data, q, zero, tau - dtau))
    out["articulated"] = (ContactProblem(DT * Lam, va, np.full(m, 0.983)), va_prev)
    # pushed
    v0 = np.array([0.3, 0.1, 0.0, 0.0, 0.0, 0.0])
    vp = Jb @ (v0 + DT * ab)
    out["pushed"] = (ContactProblem(Wr, vp, np.full(m, 0.4)), Jb @ (v0 * (1 - 1e-3) + DT * ab))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", type=str, default=None)
    args = ap.parse_args(argv)
    probs = problems()
    base = SolverSettings()
    results = {}
    for pname, (prob, vprev) in probs.items():
        prev = ContactProblem(prob.W_eff, vprev, prob.mu)
        runs = {}
        for label, kw in SOLVERS:
            name = label.split(" ")[0]
            s = base.with_(**kw)
            # "(plain GS)": the thesis iteration without the verified active-set steps
            solver = get_solver(name, active_set=False) if "plain GS" in label else get_solver(name)
            warm = solver.solve(prev, settings=s).impulses
            runs[label] = (solver, s, warm)
        times = {(lab, w): [] for lab in runs for w in ("cold", "warm")}
        info = {}
        for lab, (solver, s, warm) in runs.items():  # compile / first calls
            for w, ws in (("cold", None), ("warm", warm)):
                r = solver.solve(prob, warm_start=ws, settings=s)
                info[(lab, w)] = r
        for _ in range(args.rounds):
            for lab, (solver, s, warm) in runs.items():
                for w, ws in (("cold", None), ("warm", warm)):
                    t0 = time.perf_counter()
                    for _ in range(args.reps):
                        solver.solve(prob, warm_start=ws, settings=s)
                    times[(lab, w)].append((time.perf_counter() - t0) / args.reps * 1e6)
        results[pname] = {
            f"{lab}|{w}": dict(
                us=statistics.median(times[(lab, w)]),
                us_range=[min(times[(lab, w)]), max(times[(lab, w)])],
                iterations=info[(lab, w)].iterations,
                converged=info[(lab, w)].converged,
                complementarity=info[(lab, w)].residuals["complementarity"],
                penetration=info[(lab, w)].residuals["penetration"],
                natural_map=info[(lab, w)].residuals["natural_map"],
                sliding=info[(lab, w)].residuals.get("sliding_contacts", 0),
                sum_fn=float(info[(lab, w)].impulses[0::3].sum()),
            )
            for lab in runs
            for w in ("cold", "warm")
        }
    print(
        f"# Solver table (Table 5.1 analogue): HRP-2 half-sitting, 16 sole points, dt = 1 ms; "
        f"median of {args.rounds} rounds x {args.reps} solves\n"
    )
    for pname, res in results.items():
        print(f"## {pname}\n")
        print(
            "| solver | start | us/solve | / nsgs | iterations | converged | compl. [N m/s] | "
            "penetr. [m/s] | natural map [N] | sliding | sum f_n [N] | thesis ms |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        ref = {w: res[f"nsgs|{w}"]["us"] for w in ("cold", "warm")}
        for key, r in res.items():
            lab, w = key.split("|")
            th = THESIS_MS.get(lab, "")
            print(
                f"| {lab} | {w} | {r['us']:.1f} | {r['us'] / ref[w]:.2f} | {r['iterations']} | "
                f"{r['converged']} | {r['complementarity']:.1e} | {r['penetration']:.1e} | "
                f"{r['natural_map']:.1e} | {r['sliding']} | {r['sum_fn']:.2f} | {th} |"
            )
        na, ad = res["nsgs_newton|cold"]["us"], res["pinocchio_admm|cold"]["us"]
        naw, adw = res["nsgs_newton|warm"]["us"], res["pinocchio_admm|warm"]["us"]
        pg, pgw = res["nsgs_newton (plain GS)|cold"]["us"], res["nsgs_newton (plain GS)|warm"]["us"]
        print(
            f"\nnsgs_newton / pinocchio_admm: cold {na / ad:.2f}, warm {naw / adw:.2f} (target <= 1); "
            f"plain GS / pinocchio_admm: cold {pg / ad:.2f}, warm {pgw / adw:.2f}\n"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
