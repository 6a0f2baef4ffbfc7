"""Delassus benchmark (Chardonnet 2009, §3.2.4, Fig. 3.12; acceptance test 000 A3): time of the
three recursive algorithms (initial / Chang–Khatib / new) and of the Cholesky paths on HRP-2,
standing (2 soles, 8 points) and same-branch (right hand + right forearm, 8 points), with the
operation counts of our counters and of the thesis's Tables 3.1–3.3.

    .venv/bin/python benchmarks/delassus.py [--reps 2000] [--rounds 7] [--json OUT.json]

Timing: `rounds` rounds, each times every method over `reps` calls, interleaved; the table gives
the median per call over rounds and ratios taken within each round (noisy machine). "recursion"
= RecursiveDelassus.compute (Ω + projection, after the shared `prepare`: joint Jacobians and
the free-motion articulated inertias, timed separately); "cholesky" = crba + tree LᵀDL + W.
Targets (acceptance test 000 A3): new ≤ 1.1 × Chang–Khatib, initial / new ≥ 3 (thesis ≈ 6.5,
§3.2.4).
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from humanoid_model import load_robot  # noqa: E402
from humanoid_sim.delassus.cholesky import delassus_cholesky, delassus_dense, delassus_pinocchio  # noqa: E402
from humanoid_sim.delassus.recursive import (  # noqa: E402
    THESIS_HRP2_STANDING,
    THESIS_SAME_BRANCH,
    RecursiveDelassus,
    thesis_operation_counts,
)
from humanoid_sim.stages.contacts import contact_jacobian, contacts_from_locations  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", type=str, default=None)
    args = ap.parse_args(argv)
    robot = load_robot("hrp2")
    model, data = robot.model, robot.model.createData()
    q = robot.q("half-sitting")
    cases = {
        "standing (2 soles, m=8)": ("r_sole", "l_sole"),
        "same branch (r_hand + r_forearm, m=8)": ("r_hand", "r_forearm"),
    }
    rd = RecursiveDelassus(model)
    rd.prepare(data, q)
    out = {}
    for case, names in cases.items():
        cs = contacts_from_locations(robot, data, q, names)
        J = contact_jacobian(model, data, cs, q)
        W0 = delassus_dense(model, data, q, J)
        fns = {
            "initial": lambda cs=cs: rd.compute(cs, "initial"),
            "chang_khatib": lambda cs=cs: rd.compute(cs, "chang_khatib"),
            "new": lambda cs=cs: rd.compute(cs, "new"),
            "auto": lambda cs=cs: rd.compute(cs, "auto"),
            "prepare (shared)": lambda: rd.prepare(data, q),
            "cholesky (default)": lambda J=J: delassus_cholesky(model, data, q, J),
            "pinocchio computeMinv": lambda J=J: delassus_pinocchio(model, data, q, J),
            "dense inverse": lambda J=J: delassus_dense(model, data, q, J),
            "contact_jacobian": lambda cs=cs: contact_jacobian(model, data, cs, q),
        }
        errs = {}
        for k in ("initial", "chang_khatib", "new"):
            L, _ = rd.compute(cs, k)
            errs[k] = float(np.linalg.norm(L - W0) / np.linalg.norm(W0))
        errs["cholesky (default)"] = float(
            np.linalg.norm(delassus_cholesky(model, data, q, J)[0] - W0) / np.linalg.norm(W0)
        )
        times = {k: [] for k in fns}
        ratios = {"new/chang_khatib": [], "initial/new": []}
        for f in fns.values():
            f()
        for _ in range(args.rounds):
            per = {}
            for k, f in fns.items():
                t0 = time.perf_counter()
                for _ in range(args.reps):
                    f()
                per[k] = (time.perf_counter() - t0) / args.reps * 1e6
                times[k].append(per[k])
            ratios["new/chang_khatib"].append(per["new"] / per["chang_khatib"])
            ratios["initial/new"].append(per["initial"] / per["new"])
        counts = {k: rd.predict_counts(cs, k) for k in ("initial", "chang_khatib", "new")}
        rd.compute(cs, "auto")
        out[case] = dict(
            us={k: statistics.median(v) for k, v in times.items()},
            ratios={k: statistics.median(v) for k, v in ratios.items()},
            ratio_ranges={k: [min(v), max(v)] for k, v in ratios.items()},
            counts=counts,
            selected=rd.last_method,
            rel_err=errs,
        )
    th = {
        "standing": thesis_operation_counts(**THESIS_HRP2_STANDING),
        "same branch": thesis_operation_counts(**THESIS_SAME_BRANCH),
    }
    print(
        f"# Delassus on HRP-2 half-sitting ({model.njoints - 1} joints, nv = {model.nv}); "
        f"median of {args.rounds} rounds x {args.reps} calls\n"
    )
    for case, r in out.items():
        print(f"## {case}: selector -> {r['selected']}\n")
        print("| method | us/call | ops (mul/div + add/sub) | rel. error vs brute force |")
        print("|---|---|---|---|")
        for k, t in r["us"].items():
            c = r["counts"].get(k)
            cs_ = f"{c[0]} + {c[1]} = {sum(c)}" if c else ""
            e = r["rel_err"].get(k)
            print(f"| {k} | {t:.2f} | {cs_} | {'' if e is None else f'{e:.1e}'} |")
        print()
        for k, v in r["ratios"].items():
            lo, hi = r["ratio_ranges"][k]
            print(f"- {k}: {v:.2f} (range {lo:.2f}-{hi:.2f})")
        print()
    print("## Thesis Tables 3.1-3.3 (formulas, thesis parameters)\n")
    print("| case | initial | Chang-Khatib | new |")
    print("|---|---|---|---|")
    for case, d in th.items():
        print(f"| {case} | {d.get('initial', ('-',) * 3)[2]} | {d['chang_khatib'][2]} | {d['new'][2]} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"cases": out, "thesis": th}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
