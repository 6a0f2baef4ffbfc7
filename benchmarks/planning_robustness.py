"""How often the contact planner finds a plan (docs/contact_planner.md "Robustness"): per scene,
the nominal start over ``--seeds`` seeds (one where the search has no random candidates: a seed
changes nothing there), then ``--perturbations`` starts moved by a few
millimetres and degrees (seed 0), one search each (and with ``--motion`` its motion: the run
succeeds only when the motion is made, and its unclear segments are counted). Prints the success
rates, the search times (median, worst) and the failures grouped by reason.

A perturbed start moves the scene robot's placement (or its absolute base pose, for a seated or
crouching start) by (dx, dy) uniform in ±`SHIFT` and turns it by a yaw uniform in ±`TURN` about
the vertical, drawn from `numpy.random.default_rng(1000 + i)`: the whole robot moves, so the
contacts of the start stance stay on their surfaces (the supports are at least 30 cm wide where
the scenes start). Numbers chosen: ±5 mm and ±2 deg ("a few millimetres and degrees").

    .venv/bin/python benchmarks/planning_robustness.py [--cases table_can stairs ...] [--seeds 10]
        [--perturbations 10] [--time-limit S] [--motion] [--json OUT.json]

The cases are `benchmarks/planning.py`'s (`CASES`), each with its scene's algorithm and time limit
unless ``--time-limit`` is given. Wall-clock times on whatever machine runs it, one run at a time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from planning import CASES  # noqa: E402

from humanoid_model import load_robot  # noqa: E402
from humanoid_model.exceptions import HumanoidStackError  # noqa: E402
from humanoid_model.scene import load_scene  # noqa: E402
from humanoid_planner.motion import MotionSettings  # noqa: E402
from humanoid_planner.planning import problem_for  # noqa: E402
from humanoid_planner.planning import run as plan_run  # noqa: E402

SHIFT = 0.005  # [m] the start's horizontal shift bound (chosen)
TURN = np.radians(2.0)  # [rad] the start's yaw bound (chosen)
DEFAULT_CASES = ("flat", "table_can", "stairs", "stairs_bip", "glass", "chair_table", "under_table")


def perturbed(scene, i: int):
    """``scene`` with its robot moved by the i-th perturbation (module docstring)."""
    rng = np.random.default_rng(1000 + i)
    dx, dy = rng.uniform(-SHIFT, SHIFT, 2)
    yaw = rng.uniform(-TURN, TURN)
    return replace(scene, robot=scene.robot.moved(dx, dy, yaw)), (dx, dy, yaw)


def _random_candidates(scene, robot, goal) -> bool:
    """Whether the case's search draws random candidates (the only thing a seed changes)."""
    return problem_for(scene, robot, goal).settings.candidates == "random"


def one_run(scene, robot, goal, seed, time_limit, motion):
    """A row: success, search time, nodes, the reason of a failure, the unclear segments."""
    t0 = time.perf_counter()
    try:
        problem = problem_for(scene, robot, goal, time_limit=time_limit, seed=seed)
    except HumanoidStackError as exc:
        return {"success": False, "time": 0.0, "reason": f"refused: {exc}", "unclear": None, "generated": 0}
    if motion:
        result = plan_run(problem, MotionSettings())
        plan, ok, reason = result.plan, result.success, result.reason
        unclear = list(result.motion.unclear) if result.motion is not None else None
    else:
        plan = problem.planner.plan(problem.start, problem.start_q)
        ok, reason, unclear = plan.success, plan.reason, None
    return {
        "success": bool(ok),
        "time": plan.time if plan is not None else time.perf_counter() - t0,
        "generated": int(plan.generated),
        "reason": "" if ok else reason,
        "unclear": unclear,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", nargs="+", default=list(DEFAULT_CASES), help="case labels of benchmarks/planning.py")
    ap.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 at the nominal start (default 10)")
    ap.add_argument("--perturbations", type=int, default=10, help="perturbed starts, seed 0 (default 10)")
    ap.add_argument("--time-limit", type=float, default=None, help="search time limit [s] (default: the scene's)")
    ap.add_argument("--motion", action="store_true", help="also make each plan's motion (counts unclear segments)")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows to this JSON file")
    args = ap.parse_args(argv)
    known = {c[0]: c for c in CASES}
    unknown = [c for c in args.cases if c not in known]
    if unknown:
        ap.error(f"unknown case {unknown[0]!r}; cases: {', '.join(known)}")
    results = {}
    for label in args.cases:
        _, scene_name, robot_name, goal = known[label]
        scene = load_scene(scene_name)
        robot = load_robot(robot_name or (scene.robot.name if scene.robot is not None else "hrp2"))
        rows = []
        seeds = args.seeds if _random_candidates(scene, robot, goal) else min(args.seeds, 1)
        if seeds < args.seeds:
            print(f"  {label}: search boxes, no random candidates: one seed (the others plan the same)", flush=True)
        runs = [("seed", k, scene) for k in range(seeds)]
        runs += [("perturbation", i, perturbed(scene, i)[0]) for i in range(args.perturbations)]
        for kind, k, sc in runs:
            seed = k if kind == "seed" else 0
            row = {"kind": kind, "index": k, **one_run(sc, robot, goal, seed, args.time_limit, args.motion)}
            rows.append(row)
            status = "ok" if row["success"] else f"FAILED ({row['reason']})"
            extra = f", unclear {row['unclear']}" if row["unclear"] else ""
            print(f"  {label} {kind} {k}: {status}, {row['time']:.1f} s, {row['generated']} nodes{extra}", flush=True)
        results[label] = rows
    print_table(results, args)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1))
        print(f"wrote {args.json}")


def print_table(results, args):
    print()
    print("| case | nominal start, seeds | perturbed starts | search time median, worst [s] | failures |")
    print("|---|---|---|---|---|")
    for label, rows in results.items():
        seeds = [r for r in rows if r["kind"] == "seed"]
        pert = [r for r in rows if r["kind"] == "perturbation"]
        times = [r["time"] for r in rows if r["success"]]
        span = f"{statistics.median(times):.1f}, {max(times):.1f}" if times else "-"
        why = Counter(_short(r["reason"]) for r in rows if not r["success"])
        fails = "; ".join(f"{n}× {w}" for w, n in why.most_common()) or "none"
        ok_s = sum(r["success"] for r in seeds)
        ok_p = sum(r["success"] for r in pert)
        print(f"| {label} | {ok_s}/{len(seeds)} | {ok_p}/{len(pert)} | {span} | {fails} |")
    if args.motion:
        print()
        print("| case | runs with unclear segments | segments |")
        print("|---|---|---|")
        for label, rows in results.items():
            unclear = [r["unclear"] for r in rows if r["unclear"]]
            print(f"| {label} | {len(unclear)}/{sum(r['success'] for r in rows)} | {unclear or 'none'} |")


def _short(reason: str) -> str:
    """A failure's reason without its run-specific counts (time limit, list empty, refusal...)."""
    return reason.split(" (")[0][:120]


if __name__ == "__main__":
    main()
