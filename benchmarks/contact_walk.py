"""Benchmark of the contact planner on the flat scene (docs/contact_planner.md): HRP-2 walks
from half-sitting until the CoM is in x = X ± 0.1 m, |y| <= 0.1 m and both soles' contact
points are in x = X - 0.1 .. X + 0.2 m, both soles in the stance (the problem of
test/planner/contact/test_contact_plan.py, X = 0.4 m there). Prints, per algorithm, success, nodes generated and
expanded, PG calls, stances, wall time, and the PG calls by (purpose, outcome) with mean times.

Run:  .venv/bin/python benchmarks/contact_walk.py [--goal-x 0.4 0.8] [--max-candidates 6] [--json OUT.json]
(--json adds each run's time and mean PG call time over the same-run yardstick, benchmarks/reference_work.py)
Timings are wall-clock on whatever machine runs it (not a test); OpenBLAS single-threaded.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from humanoid_model import load_robot  # noqa: E402
from humanoid_model.scene import load_scene  # noqa: E402
from humanoid_planner.contact import ContactPlanner, MixedPotential, PlannerSettings, Stance  # noqa: E402
from humanoid_planner.posture import ComRegion, PointRegion  # noqa: E402

SOLES = ("l_sole", "r_sole")


def run(robot, floor, x, algorithm, max_candidates):
    L = robot.contact_locations
    goal = [ComRegion(robot.model, (x - 0.1, x + 0.1), (-0.1, 0.1))]
    goal += [PointRegion(robot.model, L[n].body, L[n].point, (x - 0.1, x + 0.2), (-0.3, 0.3)) for n in SOLES]
    s = PlannerSettings(
        algorithm=algorithm,
        locations=("l_sole", "r_sole", "l_hand", "r_hand"),
        forbidden=(("hand", "floor"),),
        max_expanded=60,
        max_candidates=max_candidates,
    )
    pl = ContactPlanner(robot, [floor], goal, MixedPotential(robot.model, (x, 0.0), robot.q()), s, goal_contacts=SOLES)
    return pl.plan(Stance(pl.feas.contacts_at(robot.q(), SOLES, "floor")), robot.q())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--goal-x", type=float, nargs="+", default=[0.4, 0.8])
    ap.add_argument("--algorithms", nargs="+", default=["vbfp", "bfp"])
    ap.add_argument("--max-candidates", type=int, default=PlannerSettings().max_candidates)
    ap.add_argument("--json", default=None, help="also write the runs and the same-run yardstick (reference_work.py)")
    a = ap.parse_args(argv)
    robot, floor = load_robot("hrp2"), load_scene("flat").surface("floor")
    print("| goal x [m] | algorithm | success | generated | expanded | PG calls | stances | time [s] |")
    print("|---|---|---|---|---|---|---|---|")
    details, runs = [], {}
    for x in a.goal_x:
        for alg in a.algorithms:
            p = run(robot, floor, x, alg, a.max_candidates)
            runs[f"walk_{x}_{alg}"] = {
                "success": bool(p.success),
                "time_s": p.time,
                "pg_calls": p.stats.total_calls,
                "pg_mean_ms": 1e3 * p.stats.total_time / max(p.stats.total_calls, 1),
            }
            print(
                f"| {x} | {alg} | {p.success} | {p.generated} | {p.expanded} | {p.stats.total_calls} | "
                f"{len(p.nodes)} | {p.time:.2f} |"
            )
            details.append((x, alg, p.stats.table()))
    for x, alg, table in details:
        print(f"\n{alg}, goal x {x} m: " + ", ".join(f"{pu}/{o} {n} x {1000 * t:.1f} ms" for pu, o, n, t in table))
    if a.json:
        from benchmarks.reference_work import reference_ms

        ref = reference_ms()
        for r in runs.values():
            r["time_over_reference"] = 1e3 * r["time_s"] / ref
            r["pg_mean_over_reference"] = r["pg_mean_ms"] / ref
        Path(a.json).write_text(json.dumps({"benchmark": "contact_walk", "reference_ms": ref, **runs}, indent=1))


if __name__ == "__main__":
    main()
