"""Contact planning benchmark (docs/planning.md): per scene, BFP against
Contacts-VBFP, the planning time, nodes generated and expanded and stances, for a fixed seed and
over several seeds (median and worst); then the physical check of the plans: every witness
posture placed in the simulator (`humanoid_sim.World` of the scene), held by PD at its own joint
angles for 1 s, counts as standing when its base moves < 1 cm; the PD's feedforward is the World's
gravity compensation (``--hold gravity``) or the contact-consistent one of the witness's stance
(``--hold contacts``, `humanoid_sim.runtime.contact_gravity`); both by default, for comparison.

Every posture-generator call of a case's runs (all algorithms and seeds) is recorded
(`call_log.recording`) and printed as the call-time distribution by outcome code, Table 7.1's
form (Escande 2008, §7.5.2; acceptance test 001 A24): calls, share, median and mean CPU time per
code, and the median of the successes against the 20 ms target (chosen; thesis: 0.74 s mean over
all calls, 0.335 s for the successes, Table 7.1). ``--projection`` adds the constraint projection
alone on the common IK problem (benchmarks/README.md) beside HPP in the same run
(`posture_solvers.projection_table`, benchmarks/peers/projection_hpp.py; ``--hpp-python``, else
$HPP_PYTHON, else ``.venv-hpp/bin/python`` names HPP's interpreter; without HPP its row says
"skipped" and how to install it).

The scenes come from a list (``CASES``: label, scene, robot, goal); a scene without a planning
problem yet (`humanoid_planner.planning.problem_for` refuses it) is skipped with its reason, so
the same script covers the scenes as they land. Thesis anchors: can on table 5 s (Escande 2008,
§5.4.1), stairs 12 s and 22 stances (§5.4.2); our targets (chosen): can and stairs <= 10 s, under
the table <= 5 min, chair and glass <= 10 min; VBFP 3-5x fewer nodes than BFP (§6.2.2).

    .venv/bin/python benchmarks/planning.py [--cases flat stairs ...] [--seeds 5] [--algorithms vbfp bfp]
        [--time-limit 600] [--no-physics] [--physics-cases stairs table_can flat] [--hold gravity contacts]
        [--projection [--hpp-python .venv-hpp/bin/python]] [--json OUT.json]

Times are wall clock on whatever machine runs it (a 2-core shared machine gives upper bounds).
The search time excludes the motion; the physical check needs no motion (witness postures only).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from humanoid_model import load_robot
from humanoid_model.exceptions import HumanoidStackError
from humanoid_model.scene import load_scene
from humanoid_planner.planning import problem_for
from humanoid_planner.posture import Outcome
from humanoid_planner.posture.solver.call_log import CallLog, recording

CASES = [
    # label, scene, robot (None: the scene's), goal (None: the problem's)
    ("flat", "flat", None, None),
    ("flat_0.8", "flat", None, (0.8, 0.0)),
    ("table_can", "table_can", None, None),
    ("stairs", "stairs", None, None),
    ("stairs_bip", "stairs", "bip", None),
    ("under_table", "under_table", None, None),
    ("chair_table", "chair_table", None, None),
    ("glass", "glass", None, None),
]
PHYSICS_CASES = ("stairs", "table_can", "flat")  # the physical check: stairs and can (flat: a sanity case)
HOLD = 1.0  # [s] the physical check's hold time (chosen)
STAND = 0.01  # [m] the physical check's base-motion bound (chosen)
HOLDS = ("gravity", "contacts")  # the physical check's feedforward torques (`stand_check`)
PG_TARGET = 0.020  # [s] the posture generator's median success time on HRP-2 (target, chosen)
THESIS_PG = (0.74, 0.335)  # [s] the thesis's mean PG call and mean success (Escande 2008, §7.5.2, Table 7.1)


def candidate_overrides(scene, robot, algorithm) -> dict:
    """VBFP's lazy brothers need search boxes (`PlannerSettings`): a scene whose BFP draws random
    candidates (the stairs, Escande 2008, §5.3.4, strategy 2) runs VBFP on box candidates."""
    spec = getattr(scene, "planning", None)
    if algorithm != "vbfp" or spec is None:
        return {}
    settings = {**spec.settings, **spec.robot_settings.get(robot.name, {})}
    return {"candidates": "box"} if settings.get("candidates") == "random" else {}


def plan_once(scene, robot, goal, algorithm, seed, time_limit):
    """(row, plan) of one search (no motion)."""
    extra = candidate_overrides(scene, robot, algorithm)
    problem = problem_for(scene, robot, goal, algorithm=algorithm, time_limit=time_limit, seed=seed, **extra)
    t0 = time.perf_counter()
    plan = problem.planner.plan(problem.start, problem.start_q)
    row = {
        "algorithm": algorithm,
        "seed": seed,
        "success": bool(plan.success),
        "time": time.perf_counter() - t0,
        "generated": int(plan.generated),
        "expanded": int(plan.expanded),
        "stances": len(plan.nodes),
        "pg_calls": int(plan.stats.total_calls),
        "reason": plan.reason,
        "candidates": extra.get("candidates", "scene's"),
    }
    return row, plan


def stand_check(scene, robot, nodes, hold=HOLD, dt=1e-3, mode="contacts", self_collision=True):
    """Per witness (``nodes``: plan nodes, each with ``stance`` and ``q`` (nq,)): (base
    displacement [m] after ``hold`` s in the scene's world from rest, PD at the witness's joint
    angles, or inf when the simulation failed; the feedforward torque (n,) [N m], None for
    ``gravity``). ``mode``: ``gravity`` (the World's gravity compensation: the free-floating
    model's g(q), each subtree held from the base) or ``contacts`` (the contact-consistent
    feedforward of `humanoid_sim.runtime.contact_gravity`: the weight carried by the stance's contacts,
    each in the friction cone of its planner surface). ``self_collision`` False: the World without
    the robot's self-collision (a diagnostic: witnesses whose links overlap in the simulator's
    geometry)."""
    from humanoid_sim.runtime.contact_gravity import contact_gravity
    from humanoid_sim.world import World

    world = World(scene, robot, dt=dt, gravity_compensation=mode == "gravity", self_collision=self_collision)
    start = world.get_state()
    model = robot.model.copy()
    model.gravity.linear = np.asarray(scene.gravity, float)
    mu = {s.name: s.friction for s in scene.surfaces}
    out = []
    for node in nodes:
        q = node.q
        tau = None
        if mode == "contacts":
            contacts = [(robot.contact_locations[c.location], mu[c.surface]) for c in node.stance.contacts]
            try:
                tau = contact_gravity(model, q, contacts).tau
            except HumanoidStackError as exc:  # no forces hold the witness: reported, counted as fallen
                print(f"witness {len(out)}: {exc}", flush=True)
                out.append((float("inf"), None))
                continue
        world.set_state(start)
        world.q[: robot.model.nq] = q
        world.q_start[: robot.model.nq] = q
        world.v[:] = 0.0
        world.actuator.set_position(q[7:], tau_ff=tau)
        base = world.q[:3].copy()
        try:
            world.step(int(round(hold / dt)))
            out.append((float(np.linalg.norm(world.q[:3] - base)), tau))
        except HumanoidStackError:
            out.append((float("inf"), tau))  # the simulation failed: counted as fallen
    return out


def summary(rows):
    ok = [r for r in rows if r["success"]]
    if not ok:
        return {"successes": 0, "runs": len(rows)}
    times, nodes = [r["time"] for r in ok], [r["generated"] for r in ok]
    return {
        "successes": len(ok),
        "runs": len(rows),
        "time_median": statistics.median(times),
        "time_worst": max(times),
        "generated_median": statistics.median(nodes),
        "generated_worst": max(nodes),
        "stances_median": statistics.median(r["stances"] for r in ok),
    }


def call_distribution(log: CallLog) -> dict:
    """The PG calls of ``log`` by outcome code (Table 7.1): per code its name, count, share, median
    and mean CPU time [s], and the median CPU time of the successes (None without any)."""
    n = len(log)
    rows = []
    for outcome in sorted({c.outcome for c in log.calls}):
        cpu = log.times(outcome, cpu=True)
        rows.append(
            {
                "code": int(outcome),
                "name": outcome.name,
                "count": int(cpu.size),
                "share": cpu.size / n,
                "cpu_median": float(np.median(cpu)),
                "cpu_mean": float(np.mean(cpu)),
            }
        )
    ok = log.times(Outcome.SUCCESS, cpu=True)
    all_cpu = log.times(cpu=True)
    return {
        "calls": n,
        "by_outcome": rows,
        "success_cpu_median": float(np.median(ok)) if ok.size else None,
        "cpu_mean": float(np.mean(all_cpu)) if n else None,
    }


def print_calls(results):
    """Per case, the PG call-time distribution by outcome code (`call_distribution`)."""
    for label, case in results.items():
        d = case.get("calls")
        if not d or not d["calls"]:
            continue
        print(f"\n# {label}: posture-generator calls by outcome code (Table 7.1; every run of the case)")
        print("| code | outcome | calls | share | median CPU [ms] | mean CPU [ms] |")
        print("|---|---|---|---|---|---|")
        for r in d["by_outcome"]:
            print(
                f"| {r['code']} | {r['name']} | {r['count']} | {100 * r['share']:.1f} % | "
                f"{1e3 * r['cpu_median']:.1f} | {1e3 * r['cpu_mean']:.1f} |"
            )
        med = d["success_cpu_median"]
        verdict = "-" if med is None else ("within" if med <= PG_TARGET else "over")
        print(
            f"all calls: mean {1e3 * d['cpu_mean']:.1f} ms CPU (thesis {1e3 * THESIS_PG[0]:.0f} ms); successes: median "
            + ("-" if med is None else f"{1e3 * med:.1f} ms CPU")
            + f" ({verdict} the {1e3 * PG_TARGET:.0f} ms target; thesis mean {1e3 * THESIS_PG[1]:.0f} ms)"
        )


def seeded() -> bool:
    """Whether the planner takes a seed (`PlannerSettings.seed`); without one every seed plans the same."""
    import dataclasses

    from humanoid_planner.contact import PlannerSettings

    return "seed" in {f.name for f in dataclasses.fields(PlannerSettings)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", default=[c[0] for c in CASES], help="case labels (CASES)")
    ap.add_argument("--algorithms", nargs="+", default=["vbfp", "bfp"])
    ap.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 per case and algorithm (default 5)")
    ap.add_argument("--time-limit", type=float, default=600.0, help="search time limit per run [s]")
    ap.add_argument("--no-physics", action="store_true", help="skip the physical check")
    ap.add_argument("--physics-cases", nargs="+", default=list(PHYSICS_CASES))
    ap.add_argument(
        "--hold",
        nargs="+",
        choices=HOLDS,
        default=list(HOLDS),
        help="the physical check's feedforward: gravity (the World's), contacts (contact-consistent); default both",
    )
    ap.add_argument(
        "--no-self-collision",
        dest="self_collision",
        action="store_false",
        help="diagnostic: the physical check's World without the robot's self-collision",
    )
    ap.add_argument(
        "--projection",
        action="store_true",
        help="also the projection on the common IK problem beside HPP (posture_solvers.py, benchmarks/README.md)",
    )
    ap.add_argument(
        "--hpp-python",
        default=None,
        help="HPP's interpreter for --projection (default: $HPP_PYTHON, else .venv-hpp/bin/python if it exists)",
    )
    ap.add_argument("--json", default=None, help="also write the results to this JSON file")
    a = ap.parse_args(argv)
    if not seeded():
        print("note: the planner has no seed setting: every seed runs the same search (the spread is timing only)")
    results, robots = {}, {}
    for label, scene_name, robot_name, goal in CASES:
        if label not in a.cases:
            continue
        try:
            scene = load_scene(scene_name)
            name = robot_name or (scene.robot.name if scene.robot is not None else "hrp2")
            robot = robots.setdefault(name, load_robot(name))
            problem_for(scene, robot, goal)
        except HumanoidStackError as exc:
            print(f"skip {label}: {exc}", flush=True)
            continue
        case = results[label] = {"scene": scene_name, "robot": name, "runs": {}, "physics": None}
        first = None
        log = CallLog()
        for alg in a.algorithms:
            rows = []
            for seed in range(a.seeds):
                with recording(log):
                    row, plan = plan_once(scene, robot, goal, alg, seed, a.time_limit)
                rows.append(row)
                print(
                    f"{label} {alg} seed {seed}: success {row['success']}, {row['time']:.2f} s, "
                    f"{row['generated']} generated, {row['expanded']} expanded, {row['stances']} stances"
                    + (f", {row['candidates']} candidates" if row["candidates"] != "scene's" else "")
                    + (f" ({row['reason']})" if not row["success"] else ""),
                    flush=True,
                )
                if first is None and plan.success and seed == 0:
                    first = plan
            case["runs"][alg] = {"seed0": rows[0], "seeds": summary(rows), "rows": rows}
        case["calls"] = call_distribution(log)
        if not a.no_physics and label in a.physics_cases and first is not None:
            case["physics"] = {}
            for mode in a.hold:
                moved = [
                    m for m, _ in stand_check(scene, robot, first.nodes, mode=mode, self_collision=a.self_collision)
                ]
                case["physics"][mode] = {
                    "witnesses": len(moved),
                    "standing": int(sum(m < STAND for m in moved)),
                    "base_motion_max": max(moved),
                    "base_motion": moved,
                }
                print(f"{label}, hold {mode}: {sum(m < STAND for m in moved)}/{len(moved)} witnesses stand", flush=True)
    print_tables(results, a.seeds)
    print_calls(results)
    if a.projection:
        from posture_solvers import projection_table  # this folder's script (sys.path[0] when run)

        projection_table(load_robot("hrp2"), load_scene("flat").surface("floor"), a.hpp_python)
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))


def print_tables(results, seeds):
    print("\n| case | algorithm | success (seed 0) | time [s] | generated | expanded | stances | PG calls |")
    print("|---|---|---|---|---|---|---|---|")
    for label, case in results.items():
        for alg, r in case["runs"].items():
            s = r["seed0"]
            print(
                f"| {label} | {alg} | {s['success']} | {s['time']:.2f} | {s['generated']} | {s['expanded']} | "
                f"{s['stances']} | {s['pg_calls']} |"
            )
    print(f"\n| case | algorithm | successes / {seeds} seeds | time median / worst [s] | generated median / worst |")
    print("|---|---|---|---|---|")
    for label, case in results.items():
        for alg, r in case["runs"].items():
            s = r["seeds"]
            if s["successes"]:
                print(
                    f"| {label} | {alg} | {s['successes']} | {s['time_median']:.2f} / {s['time_worst']:.2f} | "
                    f"{s['generated_median']:g} / {s['generated_worst']} |"
                )
            else:
                print(f"| {label} | {alg} | 0 | - | - |")
    rows = [(label, mode, p) for label, c in results.items() if c["physics"] for mode, p in c["physics"].items()]
    if rows:
        print(
            f"\n| case | hold | witness postures | standing (base < {100 * STAND:g} cm after {HOLD:g} s) | "
            "worst base motion [m] |"
        )
        print("|---|---|---|---|---|")
        for label, mode, p in rows:
            print(f"| {label} | {mode} | {p['witnesses']} | {p['standing']} | {p['base_motion_max']:.3g} |")


if __name__ == "__main__":
    main()
