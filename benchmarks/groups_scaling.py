"""Collision groups (Chardonnet 2009, §3.2.5, Fig. 3.16; acceptance test 000 A5): k = 1…30 cubes
(1 kg, 0.1 m) resting on the floor, 4 contacts each, one group (a single dense Λ of
size 12k, as in the thesis's reference) versus k groups; time of Λ + solve per step and of the
whole step, with exponents fitted over k ∈ [5, 30].

    .venv/bin/python benchmarks/groups_scaling.py [--steps 200] [--reps 3] [--json OUT.json]

Targets (acceptance test 000 A5): k groups exponent ≤ 1.3 (the test accepts [0.8, 1.3]); one
group ≥ 1.5.
Cubes are 0.3 m apart on a line (they never touch), mu = 0.4; each run settles 50 steps first.
"""

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from humanoid_sim.step_stats import STAGES  # noqa: E402
from humanoid_sim.world import World  # noqa: E402

KS = (1, 2, 5, 10, 15, 20, 25, 30)


def scene(k, folder):
    rows = [
        f"  - {{name: c{i}, shape: box, size: [0.1, 0.1, 0.1], mass: 1.0, friction: 0.4, "
        f"pose: {{xyz: [{0.3 * i}, 0, 0.05]}}}}"
        for i in range(k)
    ]
    p = Path(folder) / f"cubes{k}.yaml"
    p.write_text(
        "gravity: [0, 0, -9.81]\nground: {height: 0.0, friction: 0.4}\nfree_bodies:\n" + "\n".join(rows) + "\n"
    )
    return p


def measure(w, steps):
    """(median Λ + solve [µs], median step [µs]) of ``steps`` steps (`StepStats` samples)."""
    w.step_stats.drain()
    w.step_stats.keep_samples(steps)
    w.step(steps)
    S = w.step_stats.drain().samples
    i_d, i_s = 1 + STAGES.index("delassus"), 1 + STAGES.index("solve")
    return 1e6 * float(np.median(S[:, i_d] + S[:, i_s])), 1e6 * float(np.median(S[:, 0]))


def fit(ks, ts):
    ks, ts = np.asarray(ks, float), np.asarray(ts, float)
    sel = ks >= 5
    return float(np.polyfit(np.log(ks[sel]), np.log(ts[sel]), 1)[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp()
    worlds = {}
    for k in KS:
        for merge in (False, True):
            w = World.from_scene(scene(k, tmp), merge_groups=merge)
            w.step(50)
            worlds[(k, merge)] = w
    res = {key: [] for key in worlds}
    for _ in range(args.reps):
        for key, w in worlds.items():
            res[key].append(measure(w, args.steps))
    table = {}
    print("| cubes | contacts | k groups: Λ+solve [µs] | step [µs] | one group: Λ+solve [µs] | step [µs] |")
    print("|---|---|---|---|---|---|")
    for k in KS:
        a = [statistics.median(r[i] for r in res[(k, False)]) for i in (0, 1)]
        b = [statistics.median(r[i] for r in res[(k, True)]) for i in (0, 1)]
        table[k] = {"k_groups": a, "one_group": b, "contacts": int(worlds[(k, False)].last.batch.m)}
        print(f"| {k} | {table[k]['contacts']} | {a[0]:.1f} | {a[1]:.1f} | {b[0]:.1f} | {b[1]:.1f} |")
    exps = {
        "k_groups_delassus_solve": fit(KS, [table[k]["k_groups"][0] for k in KS]),
        "one_group_delassus_solve": fit(KS, [table[k]["one_group"][0] for k in KS]),
        "k_groups_step": fit(KS, [table[k]["k_groups"][1] for k in KS]),
        "one_group_step": fit(KS, [table[k]["one_group"][1] for k in KS]),
    }
    print("fitted exponents over k in [5, 30]: " + ", ".join(f"{k} {v:.2f}" for k, v in exps.items()))
    doc = {"benchmark": "groups_scaling", "table": table, "exponents": exps}
    print(json.dumps(doc))
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
