"""Time per step versus the number of contacts (Chardonnet 2009, §3.1.6.2, Fig. 3.7; acceptance
test 000 E2): HRP-2 standing on 'flat' with m = 8, 16, 32, 50 and 66 sole points (4, 8, 16, 25 and
33 perimeter points per sole patch, `World(patch_points=k)`; 66 stands in for the thesis's 67,
§3.1.6.2, because both soles get the same count), dt = 1 ms, default solver, fitted exponent
of time ∝ m^p for the whole step and per stage. The worlds run the contacts, Delassus and solve
stages one by one (`World.pipeline` off: `humanoid_sim.contact_pipeline` would time the three as
one call, charged to the solve stage).

    .venv/bin/python benchmarks/contact_scaling.py [--steps 500] [--reps 3] [--json OUT.json]

Timing: all sizes interleaved in every repetition; per-step medians, then the median over
repetitions (noisy machine). The thesis expects super-linear, roughly quadratic growth and
collision > contact forces, with Λ dominant inside the contact forces (§3.1.6.2).
"""

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from humanoid_sim.step_stats import STAGES  # noqa: E402
from humanoid_sim.world import World  # noqa: E402

PER_SOLE = (4, 8, 16, 25, 33)


def measure(w, steps):
    """(median step [µs], median per stage [µs]) of ``steps`` steps (`StepStats` samples)."""
    w.step_stats.drain()
    w.step_stats.keep_samples(steps)
    w.step(steps)
    med = np.median(w.step_stats.drain().samples, axis=0)
    return 1e6 * float(med[0]), dict(zip(STAGES, 1e6 * med[1:]))


def fit(ms, ts):
    return float(np.polyfit(np.log(ms), np.log(ts), 1)[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--solver", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    worlds = {}
    for k in PER_SOLE:
        w = World.from_scene("flat", solver=args.solver, patch_points=k if k > 4 else 0)
        w.pipeline = False  # the contacts, Delassus and solve stages timed one by one, not as one call
        w.step(300)
        worlds[k] = w
    res = {k: [] for k in PER_SOLE}
    for _ in range(args.reps):
        for k, w in worlds.items():
            res[k].append(measure(w, args.steps))
    rows = []
    for k in PER_SOLE:
        m = worlds[k].last.batch.m
        t = statistics.median(r[0] for r in res[k])
        st = {s: statistics.median(r[1][s] for r in res[k]) for s in STAGES}
        rows.append((m, t, st))
    ms = np.array([r[0] for r in rows], float)
    print("| contacts | step [µs] | " + " | ".join(STAGES) + " |")
    print("|---|---|" + "---|" * len(STAGES))
    for m, t, st in rows:
        print(f"| {m} | {t:.1f} | " + " | ".join(f"{st[s]:.1f}" for s in STAGES) + " |")
    exps = {"step": fit(ms, [r[1] for r in rows])}
    for s in ("collision", "contacts", "delassus", "solve"):
        exps[s] = fit(ms, [max(r[2][s], 1e-3) for r in rows])
    print("fitted exponents p (time ∝ m^p): " + ", ".join(f"{k} {v:.2f}" for k, v in exps.items()))
    doc = {
        "benchmark": "contact_scaling",
        "rows": [{"contacts": int(m), "step_us": t, "stages_us": st} for m, t, st in rows],
        "exponents": exps,
    }
    print(json.dumps(doc))
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
