"""`humanoid-stack plan`: multi-contact planning (stances with witness postures, then the motion),
written to PLAN.json (docs/planning.md)."""

from __future__ import annotations

HELP = "contact planner: stances, witness postures and the motion through them, written to PLAN.json"
DESCRIPTION = """\
Plan a sequence of stances (sets of contacts, each proved feasible by a witness posture of the
posture generator) from the scene's robot posture to a goal, by best-first search (bfp) or
Contacts-VBFP (vbfp), then the motion through the witness postures (posture-generator projections,
2 cm normal approach and leave segments, sinusoidal time law with a joint-speed cap), and write
PLAN.json: the stances (contacts with their world frames, witness postures, support polygons), the
transitions, the trajectory (t, q, joint names) and the statistics (nodes, posture-generator calls
by outcome code). Method: Escande 2008, ch. 5-6 and §7.1; format: docs/planning.md.

A progress line shows the nodes generated and expanded, the best potential and the elapsed time.
No plan within the time limit (or no plan at all): exit 1 with the reason on one line; PLAN.json
is still written, with its statistics. Bad input: exit 2 with the reason.

Scenes with a planning problem: flat (walk to --goal X,Y, default 0.4,0) and every scene with a
planning section (table_can, stairs, under_table, chair_table, glass: docs/scenes.md).
--set KEY=VALUE overrides one planner setting (docs/contact_planner.md "Numbers chosen"; the value is
JSON: numbers, true/false, strings in quotes). A scene's settings for one robot (BIP on the
stairs) are in its planning section's robot_settings.

examples:
  humanoid-stack plan flat --goal 0.8,0 --output PLAN.json --stats
  humanoid-stack plan flat --algorithm bfp --time-limit 30
  humanoid-stack plan stairs --robot bip --set density=8 --set seed=3
  humanoid-stack view --replay PLAN.json
"""


def add_arguments(parser):
    parser.add_argument("scene", metavar="SCENE", help="scene name (config/scenes/NAME.yaml) or YAML file")
    parser.add_argument("--robot", default=None, metavar="ROBOT", help="robot (default: the scene's, else hrp2)")
    parser.add_argument(
        "--goal", default=None, metavar="X,Y", help="goal point [m] of the scene's problem (flat: where the CoM goes)"
    )
    parser.add_argument(
        "--algorithm",
        default=None,
        choices=["vbfp", "bfp"],
        help="search (default: the problem's: the scene's planning section, else vbfp)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="S",
        help="search time limit [s] (default: the scene's planning section, else 120)",
    )
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="random seed of the candidates (default 0)")
    parser.add_argument("--output", "-o", default="PLAN.json", metavar="FILE", help="plan file (default PLAN.json)")
    parser.add_argument("--stats", action="store_true", help="print the posture-generator calls by outcome code")
    parser.add_argument(
        "--steps",
        type=int,
        default=20,
        metavar="K",
        help="projections per transition, k (default 20, Escande 2008, §7.3.3)",
    )
    parser.add_argument(
        "--no-motion-collision",
        action="store_true",
        help="project the motion without collision rows (the thesis's projections: faster, may touch obstacles)",
    )
    parser.add_argument(
        "--joint-speed", type=float, default=10.0, metavar="DEG_S", help="joint-speed cap [deg/s] (default 10)"
    )
    parser.add_argument("--dt", type=float, default=0.005, metavar="S", help="trajectory period [s] (default 0.005)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a planner setting over the problem's (JSON value; repeatable), e.g. --set placed_candidates=true",
    )


def parse_settings(items) -> dict:
    """``["KEY=VALUE", ...]`` -> {KEY: JSON value}, KEY a `PlannerSettings` field; `ConfigError`
    naming the item otherwise."""
    import json
    from dataclasses import fields

    from humanoid_model.exceptions import ConfigError
    from humanoid_model.validation import did_you_mean
    from humanoid_planner.contact import PlannerSettings

    known = sorted(f.name for f in fields(PlannerSettings))
    out = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"plan: option '--set' must be KEY=VALUE; value {item!r}")
        if key not in known:
            raise ConfigError(
                f"plan: option '--set': unknown planner setting '{key}'{did_you_mean(key, known)}; value {item!r}"
            )
        try:
            out[key] = json.loads(text)
        except ValueError:
            raise ConfigError(
                f"plan: option '--set {key}': the value must be JSON (a number, true/false, a quoted string); "
                f"value {text!r}"
            ) from None
    return out


def parse_goal(text):
    """``"X,Y"`` -> (x, y) [m]; `ConfigError` otherwise."""
    import math

    from humanoid_model.exceptions import ConfigError

    parts = text.split(",")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) != 2 or not all(math.isfinite(v) for v in values):
        raise ConfigError(f"plan: option '--goal' must be X,Y: two finite numbers [m]; value {text!r}")
    return tuple(values)


def _check(args):
    import math

    from humanoid_model.exceptions import ConfigError

    if args.time_limit is not None and not (math.isfinite(args.time_limit) and args.time_limit > 0):
        raise ConfigError(f"plan: option '--time-limit' must be a finite number > 0 [s]; value {args.time_limit}")
    if args.seed < 0:
        raise ConfigError(f"plan: option '--seed' must be an integer >= 0; value {args.seed}")
    if args.steps < 1:
        raise ConfigError(f"plan: option '--steps' must be an integer >= 1; value {args.steps}")
    from pathlib import Path

    folder = Path(args.output).parent
    if not folder.is_dir():
        raise ConfigError(f"plan: option '--output': folder '{folder}' does not exist")
    for name in ("joint_speed", "dt"):
        v = getattr(args, name)
        if not (math.isfinite(v) and v > 0):
            raise ConfigError(f"plan: option '--{name.replace('_', '-')}' must be a finite number > 0; value {v}")


class ProgressLine:
    """The progress line: rewritten in place on a terminal, else one line per ``every`` seconds."""

    def __init__(self, stream, every: float = 1.0):
        self.stream, self.every = stream, every
        self.tty = stream.isatty()
        self.last = -every
        self.text = ""

    def __call__(self, p):
        self.text = (
            f"nodes {p.generated} generated, {p.expanded} expanded; best potential {p.best:.4g}; {p.elapsed:.1f} s"
        )
        if self.tty:
            print("\r" + self.text, end="", file=self.stream, flush=True)
        elif p.elapsed - self.last >= self.every:
            self.last = p.elapsed
            print(self.text, file=self.stream, flush=True)

    def end(self):
        if self.tty and self.text:
            print(file=self.stream, flush=True)


def run(args) -> int:
    import math
    import sys

    _check(args)
    goal = parse_goal(args.goal) if args.goal is not None else None
    settings = parse_settings(args.set)

    from humanoid_model.formats.plan import write_plan
    from humanoid_model.robot import load_robot
    from humanoid_model.scene import load_scene
    from humanoid_planner.motion import MotionSettings
    from humanoid_planner.planning import format_histogram, histogram, plan_document, problem_for
    from humanoid_planner.planning import run as plan_run

    scene = load_scene(args.scene)
    robot_name = args.robot or (scene.robot.name if scene.robot is not None else "hrp2")
    robot = load_robot(robot_name)
    given = {"algorithm": args.algorithm, "time_limit": args.time_limit, "seed": args.seed}
    problem = problem_for(scene, robot, goal, **{**given, **settings})
    motion = MotionSettings(
        steps=args.steps, dt=args.dt, joint_speed=math.radians(args.joint_speed), collision=not args.no_motion_collision
    )
    line = ProgressLine(sys.stdout)
    result = plan_run(problem, motion, progress=None if args.quiet else line)
    line.end()
    out = write_plan(args.output, plan_document(result))
    plan = result.plan
    if args.stats:
        print(format_histogram(histogram(result.stat_entries("search")), "posture-generator calls of the search:"))
        if result.motion_stats.total_calls:
            print(format_histogram(histogram(result.stat_entries("motion")), "posture-generator calls of the motion:"))
    if not result.success:
        print(f"humanoid-stack plan: no plan: {result.reason} (statistics in {out})", file=sys.stderr)
        return 1
    m = result.motion
    if m.unclear and motion.collision:
        print(
            f"humanoid-stack plan: warning: segments {m.unclear} of the motion were projected without collision "
            'rows (no clear path found: the motion may touch there; docs/planning.md, "Motion")',
            file=sys.stderr,
        )
    print(
        f"wrote {out}: {len(plan.nodes)} stances, {plan.generated} nodes generated, {plan.expanded} expanded, "
        f"search {plan.time:.2f} s; motion {m.t[-1]:.2f} s long ({len(m.t)} samples), computed in {m.time:.2f} s"
    )
    return 0
