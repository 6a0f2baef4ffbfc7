"""The automatic guide (Escande 2008, §6.4; acceptance test 001 A23) on the chair scene, then the
contact planning guided by it. The PRM of `humanoid_planner.contact.prm_guide` samples the
root in a box, its orientation by von Mises-Fisher about the sitting start's, the posture between
the sitting start and half-sitting, projects each sample on C_guide and links it; the guide is the
roadmap's shortest path from the chair scene's sitting witness to HRP-2 standing at y = 2.3 m
(the goal region is y_pelvis > 2 m). Every guide configuration is re-checked (collision-free at
the PRM's lax margin, its contacts within eps_contact, stable by the cone LP); the guide then
replaces the scene's hand-given key postures (`scene_planning(..., guide=...)`) and the stand-up
is planned; the plan is checked by `check_plan`. Prints one line per stage.

Run:  .venv/bin/python benchmarks/prm_guide.py [--samples 400] [--seed 0] [--time-limit 1200] [--json OUT.json]

The sampling box (chosen): root x in [-0.2, 0.35] m (between the chair's back and the table's
edge: a standing robot's root is never over the table), y in [-0.1, 2.4] m, z in [0.35, 0.70] m
(sitting to standing). Wall-clock on whatever machine runs it (the thesis: guide in 10 min,
planning about 3h30, Escande 2008, §6.4.4).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from humanoid_model.scene import load_scene  # noqa: E402
from humanoid_planner.contact import check_plan, scene_planning  # noqa: E402
from humanoid_planner.contact.prm_guide import PrmGuide  # noqa: E402
from humanoid_planner.planning.problem import placed  # noqa: E402

BOX = ([-0.2, -0.1, 0.35], [0.35, 2.4, 0.70])  # [m] (module docstring)
GOAL_XY = (0.05, 2.3)  # [m] standing there, facing +x: past the goal line y = 2 m
LOCATIONS = ["l_sole", "r_sole", "l_thigh", "r_thigh", "l_hand", "r_hand"]  # the bodies the PRM may put in contact


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=1200.0)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    scene = load_scene("chair_table")
    sp = scene_planning(scene)
    feas, robot = sp.planner.feas, sp.robot
    start = feas.transition(sp.start.contacts, sp.start.contacts, sp.start_q).q
    goal = placed(robot.q(), *GOAL_XY, 0.0)
    prm = PrmGuide(robot, list(scene.surfaces), feas.obstacles, LOCATIONS, [start, robot.q()])
    t0 = time.perf_counter()
    roadmap = prm.plan(start, goal, BOX, seed=a.seed, max_samples=a.samples)
    prm_time = time.perf_counter() - t0
    guide = roadmap.guide
    ok = all(prm.in_guide(q) for q in guide)
    out = {"prm_time_s": round(prm_time, 1), "roadmap_nodes": len(roadmap.nodes), "guide": len(guide), "in_c_guide": ok}
    print(
        f"PRM guide: {len(roadmap.nodes)} roadmap nodes, guide of {len(guide)} configurations, "
        f"{prm_time:.1f} s, every one in C_guide: {ok}",
        flush=True,
    )
    if guide:
        print("  roots: " + " -> ".join(f"({q[0]:.2f}, {q[1]:.2f}, {q[2]:.2f})" for q in guide), flush=True)
        sp = scene_planning(scene, guide=np.array(guide[1:]), time_limit=a.time_limit)
        t0 = time.perf_counter()
        plan = sp.plan()
        problems = check_plan(sp.planner, plan) if plan.success else []
        out.update(
            plan_success=plan.success,
            plan_time_s=round(time.perf_counter() - t0, 1),
            generated=plan.generated,
            expanded=plan.expanded,
            pg_calls=plan.stats.total_calls,
            stances=len(plan.nodes),
            check="ok" if plan.success and not problems else "; ".join(problems[:2]) or plan.reason,
        )
        print(
            f"guided chair plan: success {plan.success}, {out['plan_time_s']} s, {plan.generated} generated, "
            f"{plan.expanded} expanded, {plan.stats.total_calls} PG calls, {len(plan.nodes)} stances, "
            f"check {out['check']}",
            flush=True,
        )
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
