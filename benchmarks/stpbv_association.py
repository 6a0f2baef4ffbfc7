"""The STP-BV association's Voronoi condition over many queries (Escande 2008, §4.5.5; acceptance
test 001 A7): the thesis's timing runs, geodesic-like spheres (radius 20 cm, 162 vertices),
r = 1 cm, R = 10 m, random pose pairs moved by ~2 deg / 2 mm and ~20 deg / 2 cm steps, each query
warm-started from the previous one of its walk. At every witness point of every query the normal
must lie in the Voronoi region (normal cone) of the smooth feature reached: the witness is
certified as the volume's support point along the normal by `stpbv_certificate.is_support_point`
(the KKT conditions, from the vertices alone). The thesis: the condition fails in under 0.01 % of
the queries before its single correction step, 0 % after.

    .venv/bin/python benchmarks/stpbv_association.py [--queries 100000] [--walks 100] [--seed 7]

``--walks`` walks are solved side by side (one `pair_distances` call per step of all the walks);
``--queries`` per step size. Prints, per step size: queries, violations (and their share), the
largest optimality residual |(a - b) - d n|, the penetrating queries and the time per query. The
test `test_posture_stpbv.py::test_association_meets_the_voronoi_condition` runs 150 per size.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pinocchio as pin  # noqa: E402

from humanoid_planner.posture.geometry.stpbv_build import build_stpbv  # noqa: E402
from humanoid_planner.posture.geometry.stpbv_certificate import is_support_point  # noqa: E402
from humanoid_planner.posture.geometry.stpbv_distance import StpBVPack, pair_distances  # noqa: E402

RADIUS = 0.2  # [m] the spheres' radius (§4.5.5: diameter 40 cm)
VERTICES = 162  # the geodesic sphere's vertex count (§4.5.5)
SMALL, BIG = 0.01, 10.0  # [m] r and R (§4.5.5)
STEPS = ((2.0, 0.002), (20.0, 0.02))  # [deg], [m] the two step sizes (§4.5.5)
BOX = ([-0.1, -0.1, 0.25], [0.1, 0.1, 0.6])  # [m] (chosen, as the test) the moving sphere's centre stays here


def sphere_points(n, seed=5):
    """``n`` points on the sphere of radius RADIUS (random directions: the test's cloud)."""
    P = np.random.default_rng(seed).normal(size=(n, 3))
    return P / np.linalg.norm(P, axis=1)[:, None] * RADIUS


def run(queries, walks, seed):
    vol = build_stpbv(sphere_points(VERTICES), SMALL, BIG)
    pack = StpBVPack([vol] * (2 * walks))
    pairs = np.array([[2 * k + 1, 2 * k] for k in range(walks)])
    rng = np.random.default_rng(seed)
    Rs = np.repeat(np.eye(3)[None], 2 * walks, 0)
    ts = np.zeros((2 * walks, 3))
    ts[1::2] = [0.0, 0.0, 0.45]
    pair_distances(pack, pairs, Rs, ts)  # compile / load the kernels
    rows = []
    for deg, metres in STEPS:
        n, bad, done, worst, pen, spent = None, 0, 0, 0.0, 0, 0.0
        while done < queries:
            Rs[1::2] = Rs[1::2] @ np.array([pin.exp3(w) for w in rng.normal(scale=np.radians(deg), size=(walks, 3))])
            ts[1::2] = np.clip(ts[1::2] + rng.normal(scale=metres, size=(walks, 3)), *BOX)
            t0 = time.perf_counter()
            d, a, b, n, _, _ = pair_distances(pack, pairs, Rs, ts, n)
            spent += time.perf_counter() - t0
            for k in range(walks):
                for body, u, x in ((2 * k + 1, -n[k], a[k]), (2 * k, n[k], b[k])):
                    bad += not is_support_point(vol, Rs[body].T @ u, Rs[body].T @ (x - ts[body]))
            worst = max(worst, float(np.linalg.norm((a - b) - d[:, None] * n, axis=1).max()))
            pen += int((d < 0).sum())
            done += walks
            if done % (10 * walks) == 0:
                print(f"{deg:g} deg: {done} queries, {bad} violations", file=sys.stderr, flush=True)
        rows.append(
            {
                "step": f"{deg:g} deg / {1000 * metres:g} mm",
                "queries": done,
                "witnesses_not_support_points": bad,
                "share": bad / (2 * done),
                "max_optimality_residual_m": worst,
                "penetrating": pen,
                "query_us": 1e6 * spent / done,
            }
        )
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=100_000, help="queries per step size")
    ap.add_argument("--walks", type=int, default=100, help="walks solved side by side")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    if args.queries < 1 or args.walks < 1:
        ap.error("--queries and --walks must be positive")
    rows = run(args.queries, args.walks, args.seed)
    print(
        "| step | queries | witnesses failing the condition | share | max abs((a - b) - d n) [m] | penetrating "
        "| µs per query |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['step']} | {r['queries']} | {r['witnesses_not_support_points']} | {100 * r['share']:.4f} % | "
            f"{r['max_optimality_residual_m']:.1e} | {r['penetrating']} | {r['query_us']:.0f} |"
        )
    print(json.dumps({"benchmark": "stpbv_association", "rows": rows}))


if __name__ == "__main__":
    main()
