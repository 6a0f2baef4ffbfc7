"""The job kinds of a sweep (docs/sweeps.md): ``simulate``, ``plan`` and ``execute``, each a
library call on one job's arguments that returns the job's measured outputs.

A job is a mapping of a kind's `ARGUMENTS` (every one present: the defaults filled in by
`humanoid_execution.sweep.grid`) plus ``scene`` overrides (``scene.PATH`` axes: `load_scene`'s
overrides), ``planner`` settings (``planner.KEY``: `PlannerSettings` fields) and ``solver``
settings (``solver.KEY``: `humanoid_sim.solvers.SolverSettings` fields). `run_jobs` runs a list of
them as Ray tasks (`humanoid_execution.sweep.tasks`).

Outputs (`OUTPUTS`, units in the names):
- simulate: ``fell`` (the base tilted beyond `FALL_TILT` or dropped below `FALL_HEIGHT` of its
  start height above the ground: the closed loop's rules, `humanoid_sim.runtime.closed_loop`),
  ``fell_at_s``, the base's and the CoM's final heights, the median step time, the solver's
  iterations per step and unconverged solves;
- plan: ``success`` and ``reason``, the search's time and nodes generated and expanded, the stances,
  the posture-generator calls, the motion's length and its unclear segments (``motion: true``);
- execute: ``success``, ``fell`` and ``reason``, the motion's duration, the CoM's tracking error,
  the smallest centre-of-pressure margin, the largest torque ratio and the real-time factor.
Every row also has ``wall_s``, the job's wall time (set by `run_jobs`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import finite_number, finite_vector, integer, message

__all__ = ["JobKind", "KINDS", "GROUPS", "job", "run_jobs", "simulate_job", "plan_job", "execute_job"]

#: (chosen) base heights sampled every this many simulator steps for ``fell`` (10 ms at 1 ms)
FALL_EVERY = 10


def _text(value, source, name):
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(message(source, name, "a non-empty text", value))
    return value


def _number(minimum=None, maximum=None, strict=False, unit=""):
    def check(value, source, name):
        return finite_number(value, source, name, minimum, maximum, strict, unit)

    return check


def _integer(minimum=0, maximum=2**32 - 1):
    def check(value, source, name):
        return integer(value, source, name, minimum, maximum=maximum)

    return check


def _choice(*options):
    def check(value, source, name):
        if value not in options:
            raise ConfigError(message(source, name, f"one of {', '.join(map(str, options))}", value))
        return value

    return check


def _boolean(value, source, name):
    if not isinstance(value, bool):
        raise ConfigError(message(source, name, "true or false", value))
    return value


def _vector(n):
    def check(value, source, name):
        return [float(x) for x in finite_vector(value, n, source, name)]

    return check


def _solver(value, source, name):
    from humanoid_sim.solvers import SOLVERS

    if value not in SOLVERS:
        raise ConfigError(message(source, name, f"a contact solver ({', '.join(SOLVERS)})", value))
    return value


@dataclass(frozen=True)
class Argument:
    """A job argument: its ``default`` (None: optional, no value), and ``check(value, source,
    name)`` returning the checked value or raising `ConfigError`; ``path``: a file name, made
    absolute relative to the sweep file's folder."""

    default: object
    check: Callable
    path: bool = False


@dataclass(frozen=True)
class JobKind:
    """A job kind: ``run(job) -> outputs``, its ``arguments`` (name -> `Argument`; a job without a
    ``required`` one is refused), the dotted axis ``groups`` it takes (``scene``, ``planner``,
    ``solver``), the ``outputs`` columns in order and the ``plotted`` ones."""

    run: Callable
    arguments: dict
    outputs: tuple
    plotted: tuple
    required: tuple = ()
    groups: tuple = field(default_factory=tuple)


def _fall(q, h0: float, ground: float) -> bool:
    """The closed loop's fall rules (`humanoid_sim.runtime.closed_loop.base_fall`) on a free-flyer
    configuration ``q`` (base xyz, quaternion xyzw)."""
    from humanoid_sim.runtime.closed_loop import base_fall

    x, y = q[3], q[4]
    tilt = math.acos(max(-1.0, min(1.0, 1.0 - 2.0 * (x * x + y * y))))  # R[2, 2] of the quaternion
    return bool(base_fall(q[2], ground, tilt, h0))


def simulate_job(job: dict) -> dict:
    """The simulator on the job's scene (`humanoid-stack simulate` without a recording)."""
    import dataclasses

    import numpy as np
    import pinocchio as pin

    from humanoid_model.scene import load_scene
    from humanoid_sim.world import World

    np.random.seed(job["seed"])  # the simulator is deterministic: a seed only reaches code that draws
    scene = load_scene(job["scene"], job["scene_overrides"])
    robot = job["robot"]
    if robot is not None and robot.lower() == "none":
        scene, robot = dataclasses.replace(scene, robot=None), None
    world = World.from_scene(
        scene, robot=robot, solver=job["solver"], dt=job["dt"], solver_settings=job["solver_settings"] or None
    )
    steps = max(1, round(job["duration"] / job["dt"]))
    has_base = world.robot is not None and world.robot.model.nq > world.robot.model.nv  # a free flyer
    ground = scene.ground.height if scene.ground is not None else 0.0
    h0 = float(world.q[2]) - ground if has_base else 0.0
    fell_at = None
    done = 0
    while done < steps:
        n = min(FALL_EVERY, steps - done)
        world.step(n)
        done += n
        if has_base and fell_at is None and _fall(world.q, h0, ground):
            fell_at = world.t
    s = world.stats()
    out = {
        "fell": None,
        "fell_at_s": None,
        "base_z_end_m": None,
        "com_z_end_m": None,
        "steps": steps,
        "median_step_ms": 1e3 * s["median_step_time"],
        "iterations_per_step": s["iterations_total"] / steps,
        "unconverged_solves": int(s["unconverged_solves"]),
    }
    if world.robot is not None:
        com = pin.centerOfMass(world.model, world.model.createData(), world.q)
        out["com_z_end_m"] = float(com[2])
    if has_base:
        out.update(fell=fell_at is not None, fell_at_s=fell_at, base_z_end_m=float(world.q[2]))
    return out


def plan_job(job: dict) -> dict:
    """The contact planner on the job's scene (`humanoid-stack plan`; the search alone, or with
    ``motion`` its motion too), from the scene's start moved by ``start_shift`` (dx, dy [m], yaw
    [deg])."""
    import dataclasses

    from humanoid_model.robot import load_robot
    from humanoid_model.scene import load_scene
    from humanoid_planner.motion import MotionSettings
    from humanoid_planner.planning import problem_for
    from humanoid_planner.planning import run as plan_run

    scene = load_scene(job["scene"], job["scene_overrides"])
    if job["start_shift"] is not None:
        if scene.robot is None:
            raise ConfigError(message(str(scene.source), "start_shift", "given for a scene with a robot", None))
        dx, dy, yaw = job["start_shift"]
        scene = dataclasses.replace(scene, robot=scene.robot.moved(dx, dy, math.radians(yaw)))
    robot = load_robot(job["robot"] or (scene.robot.name if scene.robot is not None else "hrp2"))
    goal = tuple(job["goal"]) if job["goal"] is not None else None
    settings = {"algorithm": job["algorithm"], "time_limit": job["time_limit"], "seed": job["seed"], **job["planner"]}
    problem = problem_for(scene, robot, goal, **settings)
    motion_s, unclear = None, None
    if job["motion"]:
        result = plan_run(problem, MotionSettings())
        plan, success, reason = result.plan, result.success, result.reason
        if result.motion is not None:
            motion_s, unclear = float(result.motion.t[-1]), list(result.motion.unclear)
    else:
        plan = problem.planner.plan(problem.start, problem.start_q)
        success, reason = plan.success, plan.reason
    return {
        "success": bool(success),
        "reason": "" if success else reason,
        "search_s": float(plan.time),
        "generated": int(plan.generated),
        "expanded": int(plan.expanded),
        "stances": len(plan.nodes),
        "pg_calls": int(plan.stats.total_calls),
        "motion_s": motion_s,
        "unclear": unclear,
    }


def execute_job(job: dict) -> dict:
    """A motion file in closed loop (`humanoid-stack execute` without a recording)."""
    from humanoid_execution.run import RunSettings, execute

    settings = RunSettings(
        controller=job["controller"],
        scene=job["scene"],
        extra_time=job["extra_time"],
        model_error=job["model_error"],
        seed=job["seed"],
        retime=job["retime"],
    )
    run = execute(job["motion"], settings)
    r = run.report
    return {
        "success": bool(r.success),
        "fell": bool(run.log.fell),
        "reason": r.reason,
        "duration_s": float(r.duration),
        "com_rms_mm": 1e3 * r.com_rms,
        "com_max_mm": 1e3 * r.com_max,
        "min_cop_margin_mm": 1e3 * r.min_cop_margin,
        "max_torque_ratio": float(r.max_torque_ratio),
        "realtime_factor": float(r.realtime_factor),
    }


_SCENE = Argument(None, _text, path=True)
_SEED = Argument(0, _integer())

KINDS: dict[str, JobKind] = {
    "simulate": JobKind(
        simulate_job,
        {
            "scene": _SCENE,
            "robot": Argument(None, _text),
            "duration": Argument(1.0, _number(0.0, 3600.0, strict=True, unit="s")),
            "dt": Argument(1e-3, _number(0.0, 0.01, strict=True, unit="s")),
            "solver": Argument(None, _solver),
            "seed": _SEED,
        },
        ("fell", "fell_at_s", "base_z_end_m", "com_z_end_m", "steps", "median_step_ms", "iterations_per_step")
        + ("unconverged_solves",),
        ("com_z_end_m", "median_step_ms", "wall_s"),
        required=("scene",),
        groups=("scene", "solver"),
    ),
    "plan": JobKind(
        plan_job,
        {
            "scene": _SCENE,
            "robot": Argument(None, _text),
            "goal": Argument(None, _vector(2)),
            "algorithm": Argument(None, _choice("vbfp", "bfp")),
            "time_limit": Argument(None, _number(0.0, 86400.0, strict=True, unit="s")),
            "seed": _SEED,
            "motion": Argument(False, _boolean),
            "start_shift": Argument(None, _vector(3)),
        },
        ("success", "reason", "search_s", "generated", "expanded", "stances", "pg_calls", "motion_s", "unclear"),
        ("success", "search_s", "generated"),
        required=("scene",),
        groups=("scene", "planner"),
    ),
    "execute": JobKind(
        execute_job,
        {
            "motion": Argument(None, _text, path=True),
            "scene": _SCENE,
            "controller": Argument("wbc", _choice("wbc", "pd")),
            "model_error": Argument(0.0, _number(0.0, 0.9)),
            "seed": _SEED,
            "extra_time": Argument(1.0, _number(0.0, 60.0, unit="s")),
            "retime": Argument(True, _boolean),
        },
        ("success", "fell", "reason", "duration_s", "com_rms_mm", "com_max_mm", "min_cop_margin_mm")
        + ("max_torque_ratio", "realtime_factor"),
        ("success", "com_rms_mm", "wall_s"),
        required=("motion",),
    ),
}


#: a dotted argument's prefix -> the job's mapping it fills
GROUPS = {"scene": "scene_overrides", "planner": "planner", "solver": "solver_settings"}


def job(kind: str, values: dict) -> dict:
    """The complete argument set of a ``kind`` job: its defaults, then ``values`` (checked by the
    caller: `humanoid_execution.sweep.grid`, or a script's own); a dotted name (``scene.PATH``,
    ``planner.KEY``, ``solver.KEY``) goes to its group's mapping."""
    spec = KINDS[kind]
    out = {name: arg.default for name, arg in spec.arguments.items()}
    out.update({group: {} for prefix, group in GROUPS.items() if prefix in spec.groups})
    for name, value in values.items():
        prefix, dot, key = name.partition(".")
        if dot and prefix in GROUPS:
            out[GROUPS[prefix]][key] = value
        elif name in spec.arguments:
            out[name] = value
        else:
            raise ConfigError(message(f"{kind} job", name, f"one of {', '.join(spec.arguments)}", value))
    return out


def run_jobs(kind: str, jobs: Sequence[dict], **options) -> list:
    """The ``jobs`` of ``kind`` as tasks (`humanoid_execution.sweep.tasks.run_tasks` and its
    ``options``): a `TaskOutcome` per job, in order, whose value is the job's outputs."""
    from humanoid_execution.sweep.tasks import run_tasks

    return run_tasks(KINDS[kind].run, [(job,) for job in jobs], **options)
