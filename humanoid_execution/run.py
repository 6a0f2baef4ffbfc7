"""A motion executed in closed loop in the simulator, as on a robot: the file's reference and
contact schedule, the whole-body controller in the loop of a `humanoid_sim.world.World`, a
recording, and the report.

    run = execute("PLAN.json", RunSettings(), output="RUN.jsonl", progress=print)
    run.report.success, run.report.lines(), run.world, run.log

Controllers: ``wbc`` (default): `humanoid_control.wbc` (torques at every simulator step, 1 kHz at
dt = 1 ms); ``pd``: the joint trajectory alone, followed by the simulator's PD actuators from the
scene's start: the way the robot bridge drives a position-controlled robot's
joint_trajectory_controller, without balance (the comparison `humanoid-stack execute --controller
pd` shows).

The world is the motion's scene (PLAN.json's ``scene``; WALK.json and GAIT.json: ``flat``) with the
motion's robot, starting where the scene puts it; the motion must start there (within
`START_TOLERANCE`), else it is refused: a plan made for another scene or start. A gait (planar)
starts where its file does, and is walked in 3-D from rest to rest with a lateral sway
(`humanoid_execution.lateral`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import ControlError
from humanoid_control.wbc.controller import WbcSettings, WholeBodyController
from humanoid_control.wbc.executor import ExecutionSettings, MotionExecutor
from humanoid_control.wbc.report import execution_report
from humanoid_control.wbc.sources import motion_reference
from humanoid_execution.lateral import GaitSettings, gait_start_scene, is_gait, lateral_balance
from humanoid_execution.model_error import perturbed_masses
from humanoid_execution.plan_recording import recorded_plan
from humanoid_model.exceptions import ConfigError
from humanoid_model.formats.detect import read_format_file
from humanoid_model.start_posture import sole_lift
from humanoid_model.validation import finite_number, message

__all__ = [
    "RunSettings",
    "Push",
    "Execution",
    "execute",
    "prepare",
    "controller_for",
    "base_link",
    "CONTROLLERS",
    "START_TOLERANCE",
    "MAX_GAIN_SCALE",
]

CONTROLLERS = ("wbc", "pd")
START_TOLERANCE = (0.05, np.radians(10.0))  # (chosen) [m], [rad] base pose of the motion's start vs the scene's robot
EXTRA_TIME = 1.0  # [s] (chosen) the robot stands this long after the motion's end before the report
MAX_GAIN_SCALE = 10.0  # (chosen) 100 Hz servos from the 10 Hz default: omega * dt = 0.63 at the 1 ms step
HOLD_SHOWN = 2.0  # [s] (chosen) a safe hold is simulated this long (the robot must stand), then the run ends


@dataclass
class Push:
    """A push: ``force`` (3,) [N] (world) on ``link`` at ``t`` [s] for ``duration`` [s]."""

    t: float
    force: tuple
    duration: float = 0.1
    link: str = ""


@dataclass
class RunSettings:
    """controller: one of `CONTROLLERS`; scene: a scene name or file (None: the motion's);
    extra_time [s] after the motion; model_error and seed: every mass of the controller's model
    off by a random factor within ±model_error (`humanoid_execution.model_error`); pushes;
    allow_unconverged: execute a gait with an unconverged phase; wbc and execution: the
    controller's and the executor's settings; record_every: recorded steps; record_format: the
    recording's (`humanoid_sim.runtime.recording.FORMATS`; None: by the output's name); retime: slow a plan
    where its dynamics need it (`humanoid_control.wbc.retime`); gait: how a gait is walked in 3-D
    (`humanoid_execution.lateral.GaitSettings`); gain_scale: the ``pd`` controller's PD actuators
    stiffened by this factor of their natural frequency (`humanoid_control.walking_ik.stiffen`; 1: the
    world's gains); through_touches: a robot link touching the environment outside the motion's
    contacts does not end the run (only a base fall does: `humanoid_sim.runtime.closed_loop`); until
    [s]: end the run at this time after the motion's start (None: its end plus ``extra_time``); robot:
    the robot that executes it, a shipped name or a URDF file (None: the motion's ``robot`` field,
    a shipped robot); its name must be the motion's."""

    controller: str = "wbc"
    scene: str | None = None
    extra_time: float = EXTRA_TIME
    model_error: float = 0.0
    seed: int = 0
    pushes: list = field(default_factory=list)
    allow_unconverged: bool = False
    wbc: WbcSettings | None = None
    execution: ExecutionSettings | None = None
    record_every: int = 10
    record_format: str | None = None
    retime: bool = True
    gait: GaitSettings | None = None
    gain_scale: float = 1.0
    through_touches: bool = False
    until: float | None = None
    robot: str | None = None


@dataclass
class Execution:
    """What a run leaves: the ``report`` (`humanoid_control.wbc.report.ExecutionReport`), the
    ``log`` of measurements, the ``world`` after it, the ``executor`` (None for ``pd``) and the
    ``reference``."""

    report: object
    log: object
    world: object
    executor: object
    reference: object


def _scene_name(doc, settings) -> str:
    if settings.scene is not None:
        return settings.scene
    scene = doc.get("scene") if isinstance(doc, dict) else None
    return scene if isinstance(scene, str) and scene else "flat"


def _check_start(world, reference, src: str) -> None:
    """`ControlError` when the motion does not start where the scene puts the robot."""
    q0 = world.q[: world.robot.model.nq]
    qm = reference.q[0]
    dp = float(np.linalg.norm(qm[:3] - q0[:3]))
    R0 = pin.Quaternion(q0[6], q0[3], q0[4], q0[5]).toRotationMatrix()
    Rm = pin.Quaternion(qm[6], qm[3], qm[4], qm[5]).toRotationMatrix()
    da = float(np.linalg.norm(pin.log3(R0.T @ Rm)))
    if dp > START_TOLERANCE[0] or da > START_TOLERANCE[1]:
        raise ControlError(
            f"{src}: the motion starts {dp * 1e3:.0f} mm and {np.degrees(da):.1f} deg from where scene "
            f"{world.scene.name!r} puts the robot (at most {START_TOLERANCE[0] * 1e3:.0f} mm and "
            f"{np.degrees(START_TOLERANCE[1]):.0f} deg): a motion planned for another scene or start"
        )


def _motion_document(path_or_doc, src: str | None) -> tuple[dict, str]:
    """(the decoded motion document, its name in messages) of a motion file or document."""
    if isinstance(path_or_doc, dict):
        return path_or_doc, src or "motion"
    src = str(Path(path_or_doc))
    doc, stream = read_format_file(path_or_doc, "motion file", ControlError)
    if stream is not None or not isinstance(doc, dict):
        raise ControlError(f"{src}: not a motion file (PLAN.json, WALK.json or GAIT.json)")
    return doc, src


def prepare(path_or_doc, settings: RunSettings | None = None, src: str | None = None):
    """(world, controller, executor, reference) of a motion ready to run (`execute` runs them)."""
    from humanoid_model.scene import load_scene
    from humanoid_sim.world import World

    s = settings or RunSettings()
    if s.controller not in CONTROLLERS:
        raise ConfigError(message("execute", "controller", f"one of {list(CONTROLLERS)}", s.controller))
    doc, src = _motion_document(path_or_doc, src)
    scene = load_scene(_scene_name(doc, s))
    planned = doc.get("scene")
    if isinstance(planned, str) and planned and Path(planned).stem != scene.name:
        raise ControlError(f"{src}: the motion was planned in scene {planned!r}, not in {scene.name!r}")
    robot_name = doc.get("robot") if isinstance(doc.get("robot"), str) and doc.get("robot") else None
    if s.robot is not None:
        robot_name = s.robot  # the motion's robot field is checked against it (`controller_for`)
    if is_gait(doc):
        scene = gait_start_scene(scene, doc, src)
    world = World.from_scene(scene, robot=robot_name)
    if world.robot is None:
        raise ControlError(f"{src}: scene {scene.name!r} has no robot and the motion names none")
    controller, executor, reference = controller_for(world, doc, src, s)
    return world, controller, executor, reference


def controller_for(world, doc: dict, src: str, settings: RunSettings | None = None):
    """(controller, executor, reference) of the decoded motion ``doc`` for the robot of ``world``
    as it is now (the simulator node's whole-body controller builds them so, for its running
    world): `ControlError` in one line when the motion is not for this robot and scene or does not
    start where the robot stands. ``executor`` is None for the ``pd`` controller."""
    s = settings or RunSettings()
    robot, scene = world.robot, world.scene
    if robot is None:
        raise ControlError(f"{src}: the world has no robot")
    model = perturbed_masses(robot.model, s.model_error, s.seed) if s.model_error > 0 else None
    wbc = s.wbc or WbcSettings(dt=world.dt, mu=scene.ground.friction if scene.ground is not None else 0.4)
    controller = WholeBodyController(robot, wbc, model=model)
    reference = motion_reference(doc, src, robot, controller, scene, s.allow_unconverged, s.retime)
    if is_gait(doc):
        reference = lateral_balance(reference, controller, s.gait)
    reference.raise_by(sole_lift(world.sole_specs))  # on FEM soles the robot stands their thickness higher
    _check_start(world, reference, src)
    executor = MotionExecutor(controller, reference, s.execution) if s.controller == "wbc" else None
    return controller, executor, reference


def _pd_follow(world, reference, gain_scale: float = 1.0) -> None:
    """The joint trajectory followed by the world's PD actuators (the robot bridge's way), stiffened
    by ``gain_scale``."""
    from humanoid_control.walking_ik import stiffen
    from humanoid_sim.stages.actuators import JointTrajectory

    if gain_scale != 1.0:
        stiffen(world.actuator, gain_scale)
    q = reference.q[:, 7:]
    world.actuator.set_trajectory(JointTrajectory(reference.t - reference.t[0], q), t_start=world.t)


def base_link(robot) -> str:
    """The link carried by the robot's free-flyer joint (its base: HRP-2's waist)."""
    for f in robot.model.frames:
        if f.type == pin.FrameType.BODY and f.parentJoint == 1:
            return f.name
    raise ControlError(f"robot {robot.name!r}: no link on its root joint")


def _push(world, push: Push, default_link: str):
    link = push.link or default_link
    force = np.asarray(push.force, float)
    if force.shape != (3,) or not np.all(np.isfinite(force)):
        raise ConfigError(message("execute", "push force", "3 finite numbers [N]", push.force))
    finite_number(push.t, "execute", "push time", minimum=0.0, unit="s")
    finite_number(push.duration, "execute", "push duration", minimum=0.0, strict=True, unit="s")
    done = [False]

    def before_step(w):
        if not done[0] and w.t >= push.t:
            w.apply_wrench(link, force=force, duration=push.duration)
            done[0] = True

    return before_step


def execute(
    path_or_doc,
    settings: RunSettings | None = None,
    output=None,
    progress: Callable | None = None,
    src=None,
    world=None,
    before_step: Callable | None = None,
) -> Execution:
    """Run a motion file (or decoded document) in closed loop (module docstring) and report.
    ``output``: a recording (JSON Lines or a bag, `humanoid_sim.runtime.recording`) of the run, with a
    contact plan's stances (`humanoid_execution.plan_recording`);
    ``progress(t, end)``: called every 100 steps with the simulated time and the run's end [s];
    ``world``: run in this world as it is (other soles, another robot variant) instead of the scene's;
    ``before_step(world)``: called before each simulator step, after the scripted pushes."""
    from humanoid_sim.runtime.closed_loop import ClosedLoop
    from humanoid_sim.runtime.recording import Recorder

    s = settings or RunSettings()
    finite_number(s.gain_scale, "execute", "gain_scale", minimum=0.0, strict=True, maximum=MAX_GAIN_SCALE)
    if s.gain_scale != 1.0 and s.controller != "pd":
        expected = "1 with the wbc controller (it commands torques)"
        raise ConfigError(message("execute", "gain_scale", expected, s.gain_scale))
    until = None if s.until is None else finite_number(s.until, "execute", "until", minimum=0.0, strict=True, unit="s")
    doc, src = _motion_document(path_or_doc, src)  # decoded once: a plan's stances go into the recording
    if world is None:
        world, controller, executor, reference = prepare(doc, s, src)
    else:
        controller, executor, reference = controller_for(world, doc, src, s)
    robot = world.robot
    used = sorted({ph.location for ph in reference.phases})
    loop = ClosedLoop(
        world, executor, {n: robot.contact_locations[n] for n in used}, fall_on_touch=not s.through_touches
    )
    if executor is None:
        _pd_follow(world, reference, s.gain_scale)
    extra = finite_number(s.extra_time, "execute", "extra_time", minimum=0.0, unit="s")
    duration = reference.duration + extra + world.dt  # the last cycle reads the reference's end
    if until is not None:
        duration = min(duration, until)
    hooks = [_push(world, p, base_link(robot)) for p in s.pushes] + ([before_step] if before_step else [])

    def run_hooks(w):
        for h in hooks:
            h(w)

    held_since = []

    def done():  # a safe hold is shown for HOLD_SHOWN, then the run ends
        if executor is None or executor.state != "holding":
            return False
        held_since.append(world.t) if not held_since else None
        return world.t - held_since[0] >= HOLD_SHOWN

    recorder = None
    if output is not None:  # a contact plan's stances in the header, on the run's clock
        plan = recorded_plan(doc, src, reference, world.t)
        recorder = Recorder(world, output, every=s.record_every, plan=plan, format=s.record_format)
    try:
        log = loop.run(
            duration,
            recorder=recorder,
            progress=(lambda t: progress(t, duration)) if progress is not None else None,
            done=done,
            before_step=run_hooks if hooks else None,
        )
    finally:
        if recorder is not None:
            recorder.close()
    if executor is not None:
        report = execution_report(executor, log)
    else:
        report = _pd_report(reference, log)
    return Execution(report, log, world, executor, reference)


def _pd_report(reference, log):
    """The report of a ``pd`` run: the measurements of `execution_report` without an executor
    (its clock is the simulator's: the trajectory does not wait)."""
    from types import SimpleNamespace

    n = len(log.t)
    clocks = list(np.clip(np.asarray(log.t) - log.t[0] + reference.t[0], reference.t[0], reference.t[-1])) if n else []
    done = n > 0 and clocks[-1] >= reference.t[-1]
    stand_in = SimpleNamespace(
        ref=reference,
        ctrl=SimpleNamespace(contacts={}),
        clocks=clocks,
        state="done" if done else "tracking",
        clock=clocks[-1] if n else reference.t[0],
        reason="",
        late_contacts=[],
        early_contacts=[],
        events=[],
    )
    report = execution_report(stand_in, log)
    if report.success:
        report.reason = "the trajectory was followed without a fall"
    return report
