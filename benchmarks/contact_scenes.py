"""Benchmark of the contact planner on the thesis's scenes (issue 9 "Scenes to plan"; 001_escande.md
§7.2, A15, A17-A21): each scene planned from its ``planning`` section (`scene_planning`), by BFP
and by Contacts-VBFP, for HRP-2 and (stairs) BIP. Prints a Markdown table: success, wall time,
nodes generated and expanded, PG calls, stances, the reason of a failure, and the ratio of the
nodes BFP and VBFP generated (A15: the thesis's 3-5x, :523); then the PG calls by purpose and
outcome (Table 7.1 style) per run. Every plan found is checked by `check_plan`.

Run:  .venv/bin/python benchmarks/contact_scenes.py [--scenes table_can stairs stairs@bip under_table]
          [--algorithms bfp vbfp] [--time-limit 600] [--workers 1] [--json OUT.json]
``SCENE@ROBOT`` plans a scene for another robot. Timings are wall-clock on whatever machine runs
it (not a test); OpenBLAS single-threaded per PG call.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from humanoid_model import load_robot  # noqa: E402
from humanoid_model.scene import load_scene  # noqa: E402
from humanoid_planner.contact import check_plan, scene_planning  # noqa: E402

DEFAULT_SCENES = ["table_can", "stairs", "stairs@bip", "under_table"]


def run(name: str, algorithm: str, time_limit: float, workers: int) -> dict:
    scene_name, _, robot_name = name.partition("@")
    scene = load_scene(scene_name)
    robot = load_robot(robot_name) if robot_name else None
    sp = scene_planning(scene, robot, algorithm=algorithm, time_limit=time_limit, workers=workers)
    t0 = time.perf_counter()
    plan = sp.plan()
    wall = time.perf_counter() - t0
    problems = check_plan(sp.planner, plan) if plan.success else []
    return {
        "scene": name,
        "algorithm": algorithm,
        "success": plan.success,
        "time_s": round(wall, 2),
        "generated": plan.generated,
        "expanded": plan.expanded,
        "pg_calls": plan.stats.total_calls,
        "stances": len(plan.nodes),
        "checked": "ok" if plan.success and not problems else "; ".join(problems[:2]),
        "reason": plan.reason,
        "plan": [[(c.location, c.surface) for c in n.stance] for n in plan.nodes],
        "pg": [(p, o, n, round(t, 4)) for p, o, n, t in plan.stats.table()],
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", nargs="+", default=DEFAULT_SCENES)
    ap.add_argument("--algorithms", nargs="+", default=["bfp", "vbfp"])
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    rows = []
    print("| scene | algorithm | success | time [s] | generated | expanded | PG calls | stances | check | reason |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in a.scenes:
        for alg in a.algorithms:
            r = run(name, alg, a.time_limit, a.workers)
            rows.append(r)
            print(
                f"| {name} | {alg} | {r['success']} | {r['time_s']} | {r['generated']} | {r['expanded']} | "
                f"{r['pg_calls']} | {r['stances']} | {r['checked']} | {r['reason']} |",
                flush=True,
            )
    print("\nA15, nodes generated BFP / VBFP:")
    for name in a.scenes:
        by = {r["algorithm"]: r for r in rows if r["scene"] == name}
        if {"bfp", "vbfp"} <= set(by) and by["vbfp"]["generated"]:
            print(
                f"  {name}: {by['bfp']['generated']} / {by['vbfp']['generated']} = "
                f"{by['bfp']['generated'] / by['vbfp']['generated']:.2f}"
            )
    for r in rows:
        print(
            f"\n{r['scene']} {r['algorithm']}: "
            + ", ".join(f"{p}/{o} {n} x {1000 * t:.1f} ms" for p, o, n, t in r["pg"])
        )
        if r["success"]:
            print("  stances: " + " -> ".join("+".join(f"{loc}@{s}" for loc, s in st) for st in r["plan"]))
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
