"""The time-optimal retiming of contact plans (docs/planning.md, "Time-optimal motion"): for each
case, the plan's quasi-static motion at the thesis's caps (10 deg/s), the retimed motion's
duration, their ratio, the retiming's computing time and the CoP margins it used, in one run.

    .venv/bin/python benchmarks/time_optimal.py [--cases flat stairs table_can flat_talos flat_g1]
                                                [--margins 0.02 0.035]

Printed, not asserted (the execution in the simulator is test/execution/test_stairs_time_optimal.py).
"""

from __future__ import annotations

import argparse
import time

CASES = {  # name: (scene, goal, robot: None the scene's, else example-robot-data's path)
    "flat": ("flat", (0.8, 0.0), None),
    "stairs": ("stairs", None, None),
    "table_can": ("table_can", None, None),
    "flat_talos": ("flat", (0.2, 0.0), "talos_data/robots/talos_reduced.urdf"),
    "flat_g1": ("flat", (0.2, 0.0), "g1_description/urdf/g1_29dof_rev_1_0.urdf"),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--margins", nargs="+", type=float, default=[0.02, 0.035], help="the planner's CoM margin [m]")
    args = ap.parse_args(argv)

    from humanoid_model.paths import example_robot
    from humanoid_model.robot import load_robot
    from humanoid_model.scene import load_scene
    from humanoid_planner.motion import MotionSettings
    from humanoid_planner.motion.contact_topp import ToppSettings, retime_plan
    from humanoid_planner.planning import plan_document, problem_for, run

    rows = []
    for case in args.cases:
        scene_name, goal, erd = CASES[case]
        scene = load_scene(scene_name)
        if erd is not None:
            path = example_robot(erd)
            if path is None:
                print(f"{case}: skipped (the robots extra, example-robot-data, is not installed)")
                continue
            robot = load_robot(str(path))
        else:
            robot = load_robot(scene.robot.name if scene.robot is not None else "hrp2")
        for margin in args.margins:
            start = time.perf_counter()
            result = run(problem_for(scene, robot, goal, margin=margin), MotionSettings())
            planning = time.perf_counter() - start
            if not result.success:
                rows.append((case, margin, "no plan", result.reason, "", "", "", "", ""))
                continue
            doc = plan_document(result)
            try:
                r = retime_plan(doc, robot, scene, ToppSettings())
            except Exception as exc:  # noqa: BLE001 - reported in the table
                rows.append((case, margin, f"{planning:.1f}", str(exc)[:60], "", "", "", "", ""))
                continue
            small = sorted(
                {g.margin for g in r.segments if g.margin is not None and g.margin < ToppSettings().cop_margin}
            )
            kept = sum(g.margin is None for g in r.segments)
            rows.append(
                (
                    case,
                    margin,
                    f"{planning:.1f}",
                    f"{len(r.segments)}",
                    f"{r.before:.1f}",
                    f"{r.after:.1f}",
                    f"{r.before / r.after:.1f}",
                    f"{r.time:.2f}",
                    ", ".join(
                        ([f"CoP margins {small} on some"] if small else [])
                        + ([f"{kept} kept the plan's timing"] if kept else [])
                    ),
                )
            )
            print(rows[-1], flush=True)
    print()
    print(
        "| case | planner CoM margin [m] | planning [s] | pieces | quasi-static [s] | time-optimal [s] | ratio "
        "| retiming [s] | pieces slowed |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(str(x) for x in row) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
