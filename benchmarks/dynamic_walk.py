"""A contact plan walked at robot speed (docs/planning.md "Dynamic motion"; Chardonnet 2009, §4.18;
acceptance test 000 F4): the flat walk's plan (`plan flat --goal X,0`, HRP-2, VBFP), its
centroidal trajectory and its walking IK, timed, then executed by the whole-body controller in
the simulator. Prints a Markdown table beside the thesis's 4-step walk (10.8 s of motion, about
90 s to generate) and the quasi-static motion of the same plan (the plan command's defaults).

    .venv/bin/python benchmarks/dynamic_walk.py [--goals 0.8 1.2] [--reps 3] [--no-execute] [--crocoddyl]

``--crocoddyl`` (after ``make venv-crocoddyl``) also solves each walk as whole-body optimal control in
Crocoddyl (``benchmarks/peers/walk_problem.py``: the same footsteps, durations and swing paths, our
centre of mass as its target) and prints a second table: its time, iterations and how far its
motion stays from ours.

Timings are wall-clock on whatever machine runs it (not a test): the median of ``--reps`` runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from humanoid_execution.dynamic_walk import com_tracking, dynamic_walk  # noqa: E402
from humanoid_execution.run import execute  # noqa: E402
from humanoid_model import load_robot  # noqa: E402
from humanoid_model.scene import load_scene  # noqa: E402
from humanoid_planner.motion import generate_motion  # noqa: E402
from humanoid_planner.motion.centroidal import optimise_centroidal, phases_from_plan  # noqa: E402
from humanoid_planner.planning.problem import problem_for  # noqa: E402

THESIS = {"motion": 10.8, "generation": 90.0}  # Chardonnet 2009, §4.18: a 4-step walk


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--goals", type=float, nargs="+", default=[0.8], help="walk lengths [m] (default 0.8: 4 steps)")
    ap.add_argument("--reps", type=int, default=3, help="timed repetitions (median)")
    ap.add_argument("--no-execute", action="store_true", help="do not run the walks in the simulator")
    ap.add_argument("--crocoddyl", action="store_true", help="also solve each walk in Crocoddyl (make venv-crocoddyl)")
    args = ap.parse_args()
    peer_rows = []
    robot = load_robot("hrp2")
    mass = float(sum(i.mass for i in robot.model.inertias))
    rows = []
    for goal in args.goals:
        problem = problem_for(load_scene("flat"), robot, goal=(goal, 0.0))
        plan = problem.planner.plan(problem.start, problem.start_q)
        if not plan.success:
            rows.append(f"| {goal} | no plan: {plan.reason} |")
            continue
        quasi = generate_motion(problem.planner.feas, plan.nodes, plan.goal_q, start_q=problem.start_q)
        phases = phases_from_plan(problem.planner.feas, plan.nodes, start_q=problem.start_q)
        opt, gen = [], []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            optimise_centroidal(phases, mass)
            opt.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            walk = dynamic_walk(problem.planner, plan, problem.start_q)
            gen.append(time.perf_counter() - t0)
        c = walk.motion.centroidal
        steps = len(walk.motion.moves)
        run = ""
        if not args.no_execute:
            ex = execute(walk.doc)
            rms, worst = com_tracking(walk, ex.log.t, ex.log.com)
            r = ex.report
            fell = "no fall" if r.success else f"FELL: {r.reason}"
            run = (
                f"{fell}; CoM {1e3 * rms:.1f} mm RMS ({1e3 * worst:.1f} max); torques {100 * r.max_torque_ratio:.0f} %"
            )
        if args.crocoddyl:
            peer_rows += _crocoddyl_rows(robot, walk, goal, statistics.median(gen))
        rows.append(
            f"| {goal} | {len(plan.nodes)} / {steps} | {quasi.t[-1]:.1f} | **{walk.motion.duration:.2f}** | "
            f"{statistics.median(opt):.2f} ({c.iterations} it.) | **{statistics.median(gen):.2f}** | "
            f"{max(c.residual['c'], c.residual['v']):.1e} | {1e3 * walk.ik.foot_error.max():.4f} / "
            f"{1e3 * walk.ik.com_error.max():.4f} | {run} |"
        )
    print(
        "| goal [m] | stances / steps | quasi-static motion [s] | dynamic motion [s] | centroidal optimisation [s] "
        "| generation [s] | dynamics residual [m, m/s] | IK error sole / CoM [mm] | executed |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(
        f"\nthesis (Chardonnet 2009, §4.18): a 4-step flat walk of {THESIS['motion']} s of motion, generated in "
        f"about {THESIS['generation']:.0f} s; its CoM 'close' to the planned one (F4: within 2 cm RMS)"
    )
    print(f"(mass {mass:.2f} kg; median of {args.reps} runs; {np.__name__} {np.__version__})")
    if peer_rows:
        print(
            "\n| goal [m] | solver | generation [s] | iterations | stop | CoM from ours, RMS / max [mm] "
            "| swing sole / held sole off target [mm] | torque / effort | friction cone residual [N] |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        print("\n".join(peer_rows))
    return 0


def _crocoddyl_rows(robot, walk, goal, ours_seconds) -> list[str]:
    """The comparison rows of one walk: ours, then Crocoddyl at the example's weights and at 100 times
    its tracking weights (benchmarks/peers/walk_problem.py)."""
    from benchmarks.peers.walk_problem import com_difference, run_peer, walk_spec
    from humanoid_execution.dynamic_walk import FEET

    feet = {loc: robot.contact_locations[loc].body for loc in FEET}
    rows = [f"| {goal} | ours: centroidal (IPOPT) + walking IK | {ours_seconds:.2f} | | | 0 / 0 | 0.001 (IK) | | |"]
    for tracking in (1.0, 100.0):
        spec = walk_spec(robot, walk, feet, tracking)
        r = run_peer(spec)
        rms, worst = com_difference(spec, r)
        rows.append(
            f"| {goal} | Crocoddyl BoxFDDP, tracking x{tracking:g} | {r['seconds']:.2f} | {r['iterations']} "
            f"| {r['stop']:.1e} | {1e3 * rms:.1f} / {1e3 * worst:.1f} "
            f"| {1e3 * r['swing_error']:.1f} / {1e3 * r['held_error']:.1f} | {r['torque_ratio']:.2f} "
            f"| {r['cone_residual']:.3f} |"
        )
    return rows


if __name__ == "__main__":
    raise SystemExit(main())
