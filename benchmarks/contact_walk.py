"""Benchmark of the contact planner on the flat scene (docs/contact_planner.md): HRP-2 walks
from half-sitting until the CoM is in x = X ± 0.1 m, |y| <= 0.1 m and both soles' contact
points are in x = X - 0.1 .. X + 0.2 m, both soles in the stance (the problem of
test/planner/contact/test_contact_plan.py, X = 0.4 m there). Prints, per algorithm, success, nodes generated and
expanded, PG calls, stances, wall time, and the PG calls by (purpose, outcome) with mean times.

Run:  .venv/bin/python benchmarks/contact_walk.py [--goal-x 0.4 0.8] [--max-candidates 6]
Timings are wall-clock on whatever machine runs it (not a test); OpenBLAS single-threaded.
"""

from __future__ import annotations

import argparse

from humanoid_model import load_robot
from humanoid_model.scene import load_scene
from humanoid_planner.contact import ContactPlanner, MixedPotential, PlannerSettings, Stance
from humanoid_planner.posture import ComRegion, PointRegion

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
    a = ap.parse_args(argv)
    robot, floor = load_robot("hrp2"), load_scene("flat").surface("floor")
    print("| goal x [m] | algorithm | success | generated | expanded | PG calls | stances | time [s] |")
    print("|---|---|---|---|---|---|---|---|")
    details = []
    for x in a.goal_x:
        for alg in a.algorithms:
            p = run(robot, floor, x, alg, a.max_candidates)
            print(
                f"| {x} | {alg} | {p.success} | {p.generated} | {p.expanded} | {p.stats.total_calls} | "
                f"{len(p.nodes)} | {p.time:.2f} |"
            )
            details.append((x, alg, p.stats.table()))
    for x, alg, table in details:
        print(f"\n{alg}, goal x {x} m: " + ", ".join(f"{pu}/{o} {n} x {1000 * t:.1f} ms" for pu, o, n, t in table))


if __name__ == "__main__":
    main()
