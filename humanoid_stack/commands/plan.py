"""`humanoid-stack plan`: multi-contact planning (stances with witness postures, then the motion),
written to PLAN.json (docs/planning.md)."""

from __future__ import annotations

import math

from humanoid_model.exceptions import ConfigError
from humanoid_planner.bounds import MAX_DT, MAX_MOTION_STEPS, MAX_SAMPLES, MAX_SEED, MAX_TIME_LIMIT, MIN_DT, MIN_SPEED

INTERRUPTED = "no plan file written (one left at the output path by an earlier run was removed)"
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
is still written, with its statistics. Bad input: exit 2 with the reason. Once the options are
checked, a file already at the output path is removed, and PLAN.json is written (atomically) when
the run ends: after Ctrl-C (exit 130, one line) or an error, no file is there to be taken for this
run's plan.

Bounds (docs/planning.md): --steps 1..200, --dt 0.0001..0.1 s, --joint-speed and
--base-rotation-speed at least 0.0573 deg/s (1e-3 rad/s), --base-speed at least 0.001 m/s, at
most 200,000 motion samples; --time-limit up to 86400 s, --seed 0..4294967295;
--set: workers <= 64, max_candidates <= 1000, max_expanded <= 100000, density <= 1000 per m,
the posture generator's iteration counts (solver.max_iterations, ...) <= 10000.

Scenes with a planning problem: flat (walk to --goal X,Y, default 0.4,0) and every scene with a
planning section (table_can, stairs, under_table, chair_table, glass: docs/scenes.md).
--set KEY=VALUE overrides one planner setting (docs/contact_planner.md "Numbers chosen"; the value is
JSON: numbers, true/false, strings in quotes). A scene's settings for one robot (HRP-2's
thesis settings on the stairs) are in its planning section's robot_settings; any other robot gets
the section's own (docs/robots.md "How to bring a new robot").

examples:
  humanoid-stack plan flat --goal 0.8,0 --output PLAN.json --stats
  humanoid-stack plan flat --algorithm bfp --time-limit 30
  humanoid-stack plan flat --goal 0.8,0 --dynamic WALK.json && humanoid-stack execute WALK.json
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
        help=f"search time limit [s], at most {MAX_TIME_LIMIT:g} (default: the scene's planning section, else 120)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="N", help=f"random seed of the candidates, 0..{MAX_SEED} (default 0)"
    )
    parser.add_argument("--output", "-o", default="PLAN.json", metavar="FILE", help="plan file (default PLAN.json)")
    parser.add_argument("--stats", action="store_true", help="print the posture-generator calls by outcome code")
    parser.add_argument(
        "--dynamic",
        default=None,
        metavar="FILE",
        help="also write the plan's dynamic walk at robot speed to FILE, a WALK.json for execute (HRP-2, stances "
        'on the soles: docs/planning.md, "Dynamic motion")',
    )
    parser.add_argument(
        "--time-optimal",
        action="store_true",
        help="retime the motion along its path as fast as each stance's contacts carry it (TOPP-RA under the "
        'contact wrench cones; docs/planning.md, "Time-optimal motion"): the plan at robot speed for execute',
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=20,
        metavar="K",
        help=f"projections per transition, k: 1..{MAX_MOTION_STEPS} (default 20, Escande 2008, §7.3.3)",
    )
    parser.add_argument(
        "--no-motion-collision",
        action="store_true",
        help="project the motion without collision rows (the thesis's projections: faster, may touch obstacles)",
    )
    parser.add_argument(
        "--plan-time",
        type=float,
        metavar="S",
        help="seconds of the path planner on a segment the projections cannot keep clear "
        '(docs/planning.md, "Motion"; default 60, 0: none)',
    )
    parser.add_argument(
        "--joint-speed",
        type=float,
        default=10.0,
        metavar="DEG_S",
        help=f"joint-speed cap [deg/s], at least {math.degrees(MIN_SPEED):.4f} (default 10)",
    )
    parser.add_argument(
        "--base-speed",
        type=float,
        default=0.1,
        metavar="M_S",
        help=f"base-speed cap [m/s], at least {MIN_SPEED:g} (default 0.1)",
    )
    parser.add_argument(
        "--base-rotation-speed",
        type=float,
        default=10.0,
        metavar="DEG_S",
        help=f"base-rotation-speed cap [deg/s], at least {math.degrees(MIN_SPEED):.4f} (default 10)",
    )
    parser.add_argument(
        "--dt",
        type=float,
        default=0.005,
        metavar="S",
        help=f"trajectory period [s], {MIN_DT:g}..{MAX_DT:g} (default 0.005; at most {MAX_SAMPLES} samples)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a planner setting over the problem's (JSON value; repeatable; checked as the options are), "
        "e.g. --set placed_candidates=true",
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


#: the planner settings given as options, and their options
OPTIONS = {"algorithm": "--algorithm", "time_limit": "--time-limit", "seed": "--seed"}


class _OptionError(ConfigError):
    """A check's failure worded as the command's: ``plan: option '--X' must be ...``."""

    def __init__(self, text: str):
        super().__init__(text.replace("plan: field '--", "plan: option '--", 1))


def _check(args):
    """The options and the --set values checked by the rules the planner applies
    (`humanoid_planner.contact.settings_check`, `humanoid_planner.motion.MotionSettings`), before
    anything loads: (the options' settings, the --set settings, the motion settings)."""
    from pathlib import Path

    from humanoid_model.validation import finite_number, integer
    from humanoid_planner.contact.settings_check import check_settings
    from humanoid_planner.motion import MotionSettings

    source, E = "plan", _OptionError
    given = {k: getattr(args, k) for k in OPTIONS if getattr(args, k) is not None}
    given = check_settings(given, source, E, field=OPTIONS.get)
    settings = check_settings(parse_settings(args.set), source, E, field=lambda k: f"--set {k}")
    # the motion's options, with MotionSettings's bounds (humanoid_planner.bounds), in the options' units
    integer(args.steps, source, "--steps", 1, E, MAX_MOTION_STEPS)
    finite_number(args.dt, source, "--dt", MIN_DT, MAX_DT, unit="s", error=E)
    finite_number(args.joint_speed, source, "--joint-speed", math.degrees(MIN_SPEED), unit="deg/s", error=E)
    finite_number(args.base_speed, source, "--base-speed", MIN_SPEED, unit="m/s", error=E)
    if args.plan_time is not None:
        finite_number(args.plan_time, source, "--plan-time", 0.0, unit="s", error=E)
    finite_number(
        args.base_rotation_speed, source, "--base-rotation-speed", math.degrees(MIN_SPEED), unit="deg/s", error=E
    )
    for option, path in (("--output", args.output), ("--dynamic", args.dynamic)):
        folder = Path(path).parent if path is not None else Path(".")
        if not folder.is_dir():
            raise ConfigError(f"plan: option '{option}': folder '{folder}' does not exist")
    if args.dynamic is not None and args.robot not in (None, "hrp2"):
        raise ConfigError(f"plan: option '--dynamic': only hrp2 has a walking structure; value --robot {args.robot}")
    motion = MotionSettings(
        steps=args.steps,
        dt=args.dt,
        joint_speed=math.radians(args.joint_speed),
        base_speed=args.base_speed,
        base_rotation_speed=math.radians(args.base_rotation_speed),
        collision=not args.no_motion_collision,
        **({} if args.plan_time is None else {"plan_time": args.plan_time}),
    )
    return given, settings, motion


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

    def note(self, text: str):
        """A line of its own (the path check's) above the progress line."""
        if self.tty:
            print("\r\033[K" + text, file=self.stream, flush=True)
            if self.text:
                print(self.text, end="", file=self.stream, flush=True)
        else:
            print(text, file=self.stream, flush=True)

    def end(self):
        if self.tty and self.text:
            print(file=self.stream, flush=True)


def run(args) -> int:
    import sys

    from humanoid_model.files import clear_output

    given, settings, motion = _check(args)
    goal = parse_goal(args.goal) if args.goal is not None else None
    clear_output(args.output, "plan file", ConfigError)  # no older PLAN.json left to be taken for this run's
    if args.dynamic is not None:
        clear_output(args.dynamic, "WALK.json", ConfigError)

    from humanoid_model.formats.plan import write_plan
    from humanoid_model.robot import load_robot
    from humanoid_model.scene import load_scene
    from humanoid_planner.planning import format_histogram, histogram, plan_document, problem_for
    from humanoid_planner.planning import run as plan_run

    scene = load_scene(args.scene)
    robot_name = args.robot or (scene.robot.name if scene.robot is not None else "hrp2")
    robot = load_robot(robot_name)
    given.setdefault("algorithm", None)  # None: the problem's own
    given.setdefault("time_limit", None)
    problem = problem_for(scene, robot, goal, **{**given, **settings})
    line = ProgressLine(sys.stdout)
    result = plan_run(problem, motion, progress=None if args.quiet else line, notes=None if args.quiet else line.note)
    line.end()
    doc, retimed, no_retime = plan_document(result), None, None
    if args.time_optimal and result.success:
        from humanoid_model.exceptions import PlanningError
        from humanoid_planner.motion.contact_topp import ToppSettings, retime_plan

        try:
            retimed = retime_plan(doc, robot, scene, ToppSettings(knots=motion.steps))
            doc = retimed.doc
        except PlanningError as exc:
            no_retime = str(exc)
    out = write_plan(args.output, doc)
    plan = result.plan
    if args.stats:
        print(format_histogram(histogram(result.stat_entries("search")), "posture-generator calls of the search:"))
        if result.motion_stats.total_calls:
            print(format_histogram(histogram(result.stat_entries("motion")), "posture-generator calls of the motion:"))
    if not result.success:
        print(f"humanoid-stack plan: no plan: {result.reason} (statistics in {out})", file=sys.stderr)
        return 1
    m = result.motion
    if plan.reason:  # the search found no plan with a clear motion and returned its first one
        print(f"humanoid-stack plan: warning: {plan.reason}", file=sys.stderr)
    if m.unclear and motion.collision:
        print(
            f"humanoid-stack plan: warning: segments {m.unclear} of the motion were projected without collision "
            'rows (no clear path found: the motion may touch there; docs/planning.md, "Motion")',
            file=sys.stderr,
        )
    for p in m.planned:
        print(f"motion: segment {p.index}: {p.summary()}")
    restarted = f" in {plan.restarts + 1} searches" if plan.restarts else ""
    print(
        f"wrote {out}: {len(plan.nodes)} stances, {plan.generated} nodes generated, {plan.expanded} expanded"
        f"{restarted}, search {plan.time:.2f} s; motion {m.t[-1]:.2f} s long ({len(m.t)} samples), "
        f"computed in {m.time:.2f} s"
    )
    if no_retime is not None:
        print(
            f"humanoid-stack plan: no time-optimal motion (the quasi-static one written): {no_retime}", file=sys.stderr
        )
        return 1
    if retimed is not None:
        print("\n".join(retimed.lines()))
    return _dynamic(args, problem, result, scene.name) if args.dynamic is not None else 0


def _dynamic(args, problem, result, scene: str) -> int:
    """Write the plan's dynamic walk (`humanoid_execution.dynamic_walk`) to ``args.dynamic``."""
    import sys
    import time

    from humanoid_execution.dynamic_walk import dynamic_walk
    from humanoid_model.exceptions import PlanningError
    from humanoid_model.formats.trajectory import write_trajectory_file

    start = time.perf_counter()
    try:
        walk = dynamic_walk(problem.planner, result.plan, problem.start_q, progress=None if args.quiet else print)
    except PlanningError as exc:
        print(f"humanoid-stack plan: no dynamic walk: {exc}", file=sys.stderr)
        return 1
    walk.doc["scene"] = scene
    out = write_trajectory_file(args.dynamic, walk.doc, "WALK.json", ConfigError)
    print(
        f"wrote {out}: dynamic walk {walk.motion.duration:.2f} s long ({len(walk.motion.t)} postures), computed in "
        f"{time.perf_counter() - start:.2f} s; largest IK error: sole {1e3 * walk.ik.foot_error.max():.3f} mm, "
        f"CoM {1e3 * walk.ik.com_error.max():.3f} mm"
    )
    return 0
