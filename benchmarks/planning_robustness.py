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
        [--perturbations 10] [--time-limit S] [--motion] [--workers N | --address HOST:PORT] [--json OUT.json]

The cases are `benchmarks/planning.py`'s (`CASES`), each with its scene's algorithm and time limit
unless ``--time-limit`` is given. Each run is a ``plan`` job of the sweep engine
(`humanoid_execution.sweep`, docs/sweeps.md; the perturbation as its ``start_shift``): one at a time in
this process by default, so that a search's time is its own; ``--workers N`` runs N at a time on an
embedded local Ray, ``--address`` on a Ray cluster. Wall-clock times on whatever machine runs it.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from planning import CASES  # noqa: E402

from humanoid_execution.sweep.jobs import job, run_jobs  # noqa: E402
from humanoid_model import load_robot  # noqa: E402
from humanoid_model.scene import load_scene  # noqa: E402
from humanoid_planner.planning import problem_for  # noqa: E402

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


def row(outcome) -> dict:
    """A run's row from its plan job: success, search time, nodes, the reason of a failure (a refused
    problem: its error), the unclear segments."""
    if not outcome.ok:
        return {"success": False, "time": 0.0, "reason": f"refused: {outcome.error}", "unclear": None, "generated": 0}
    r = outcome.value
    keys = ("success", "generated", "reason", "unclear")
    return {"time": r["search_s"], **{k: r[k] for k in keys}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", nargs="+", default=list(DEFAULT_CASES), help="case labels of benchmarks/planning.py")
    ap.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 at the nominal start (default 10)")
    ap.add_argument("--perturbations", type=int, default=10, help="perturbed starts, seed 0 (default 10)")
    ap.add_argument("--time-limit", type=float, default=None, help="search time limit [s] (default: the scene's)")
    ap.add_argument("--motion", action="store_true", help="also make each plan's motion (counts unclear segments)")
    ap.add_argument("--workers", type=int, default=1, help="searches at a time (default 1: in this process)")
    ap.add_argument("--address", default=None, help="a Ray cluster's HOST:PORT to run the searches on")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows to this JSON file")
    args = ap.parse_args(argv)
    known = {c[0]: c for c in CASES}
    unknown = [c for c in args.cases if c not in known]
    if unknown:
        ap.error(f"unknown case {unknown[0]!r}; cases: {', '.join(known)}")
    runs, jobs, notes = [], [], {}
    for label in args.cases:
        _, scene_name, robot_name, goal = known[label]
        scene = load_scene(scene_name)
        robot = load_robot(robot_name or (scene.robot.name if scene.robot is not None else "hrp2"))
        seeds = args.seeds if _random_candidates(scene, robot, goal) else min(args.seeds, 1)
        if seeds < args.seeds:  # printed before the case's first run
            notes[label] = f"  {label}: search boxes, no random candidates: one seed (the others plan the same)"
        base = {"scene": scene_name, "robot": robot_name, "goal": goal, "time_limit": args.time_limit}
        base["motion"] = args.motion
        for k in range(seeds):
            runs.append((label, "seed", k))
            jobs.append(job("plan", {**base, "seed": k}))
        for i in range(args.perturbations):
            dx, dy, yaw = perturbed(scene, i)[1]
            runs.append((label, "perturbation", i))
            jobs.append(job("plan", {**base, "start_shift": [dx, dy, math.degrees(yaw)]}))

    def report(i, outcome):
        label, kind, k = runs[i]
        if label in notes:
            print(notes.pop(label), flush=True)
        r = row(outcome)
        status = "ok" if r["success"] else f"FAILED ({r['reason']})"
        extra = f", unclear {r['unclear']}" if r["unclear"] else ""
        print(f"  {label} {kind} {k}: {status}, {r['time']:.1f} s, {r['generated']} nodes{extra}", flush=True)

    serial = args.workers == 1 and args.address is None
    options = {"workers": args.workers, "address": args.address, "serial": serial, "progress": False}
    outcomes = run_jobs("plan", jobs, on_result=report, **options)
    results = {label: [] for label in args.cases}
    for (label, kind, k), outcome in zip(runs, outcomes, strict=True):
        results[label].append({"kind": kind, "index": k, **row(outcome)})
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
