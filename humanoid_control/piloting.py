"""Interactive piloting without ROS: a `PilotSession`
holds a kinematic structure, its frame targets (inverse mode: gizmos, poses) or joint targets
(direct mode: sliders), and runs one solver cycle per `step`; `PilotLoop` runs it in a thread at
a rate (the thesis's >= 25 Hz, Flückiger 1998, §5.1.1). It is the one piloting
engine: `humanoid-stack pilot` runs it in a `PilotLoop` beside the viewer, and the `pilot` node
(`humanoid_ros.pilot`) steps it on its timer, its twists through `HeldTwist` and `move`.

    from humanoid_control.kinematics import load_structure
    from humanoid_control.piloting import PilotLoop, PilotSession
    session = PilotSession(load_structure("hrp2"))       # gizmo frames: the hands
    session.set_target("r_hand", pin.SE3(R, p))          # inverse mode (a gizmo dragged)
    state = session.step()                               # q, report, dexterity, residual, loop gap
    session.set_control("direct"); session.set_joint("CHEST_JOINT0", 0.3)

Each cycle solves the structure's closures (level 1: HRP-2's welded feet, the hybrid robot's
loop), the CoM (level 1, a floating structure standing on closures), the commands (level 2: one
`FrameTarget` per gizmo frame in inverse mode, one `JointTask` over the joints moved so far in
direct mode, Flückiger 1998, §3.4.3.3) and the posture (level 3). Bad input (a NaN pose, an unknown
frame or joint, a command for the other mode) is refused: the call returns False, ``refused`` and
``last_refusal`` say why, and the loop goes on with the previous targets.

Two options set how a cycle meets its goals. ``max_step`` (`MAX_STEP`) rate-limits the solver's
targets toward the goals (a gizmo or a slider can jump); None makes the goal the target at once
(the node: a twist's increments are small, a ~/target is reached as fast as the joint limits
allow). ``corrections`` (`CORRECTIONS`) solves again while a loop is open; the node takes 0: one
solve per cycle, so the joint step between two published commands is one solver step and a
stretched arm holding an unreachable target creeps by one step per cycle. Each cycle's `PilotState`
says whether the commands are reached (``tracking``), getting closer (``approaching``) or not
(``out_of_reach``), against ``tolerance``.

What a session commands stays within bounds whatever its input (`humanoid_control.pilot_limits`):
a frame's goal at most `TARGET_BOUND` from the frame and a joint's within its limits (counted in
``bounded``, ``last_bound``); every step of the configuration within the joints' URDF speed limits
and the acceleration ``acceleration`` (the solver's step scaled down, its direction kept); a cycle
whose solve fails or is not finite holds the last configuration, drops the goals to where the
frames are and says so in the state's ``fault`` (counted in ``faults``). A `reset` after the start
(``travel``) moves there within the same limits instead of jumping.
"""

from __future__ import annotations

import collections
import functools
import math
import threading
import time
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics import SOLVERS, ComTask, FrameTarget, JointTask, PostureTask
from humanoid_control.kinematics.prioritized import PrioritizedSettings
from humanoid_control.kinematics.targets import moved
from humanoid_control.pilot_devices import (
    COMMAND_FRAMES,
    SPEED_SPHERE_SCALE,
    HeldTwist,
    command_axes,
    gizmo_target,
    speed_spheres,
)
from humanoid_control.pilot_jerk import JerkFilter
from humanoid_control.pilot_limits import (
    ACCELERATION,
    POSITION_MARGIN,
    TARGET_BOUND,
    StepLimiter,
    bounded_goal,
    bounded_increment,
    bounded_joint,
    finite_configuration,
    speed_limits,
)
from humanoid_control.pilot_loop import PilotLoop
from humanoid_model.validation import did_you_mean, finite_number, integer

__all__ = [
    "CONTROL_MODES",
    "COMMAND_FRAMES",
    "SPEED_SPHERE_SCALE",
    "PilotSession",
    "PilotState",
    "PilotLoop",
    "HeldTwist",
    "TRACKING_STATES",
    "TRACKING_TOLERANCE",
    "tracking_state",
    "default_frames",
    "close_loops",
    "command_axes",
    "gizmo_target",
    "speed_spheres",
    "loop_gap",
    "approach",
    "frame_gap",
    "balance_tasks",
]

CONTROL_MODES = ("inverse", "direct")
#: (chosen) largest motion of a command per cycle: [m] of a frame's origin, [rad] of its rotation
#: or of a joint. A gizmo or a slider can jump; its target is approached at these speeds (25 cm/s,
#: 2.5 rad/s and 1.25 rad/s at 25 Hz) so that each solver cycle stays a small, linearised step
#: (a 7 cm jump of HRP-2's hand in one cycle let a welded foot slip by 1 mm; measured)
MAX_STEP = {"linear": 0.01, "angular": 0.1, "joint": 0.05}
#: (chosen) extra solver cycles within one display cycle while a loop is open by more than
#: LOOP_TOLERANCE: the thesis solves once per display cycle (Flückiger 1998, §5.5.3, Fig. 5-10)
CORRECTIONS = 3
LOOP_TOLERANCE = 1e-6  # [m] (chosen) ten times below the 0.01 mm loop bound of acceptance test 002 A7
#: [m] (chosen: the 1 mm hand tracking of the piloting node) the commands count as reached ("tracking")
#: when the residual is at most this
TRACKING_TOLERANCE = 1e-3
TRACKING_STATES = ("tracking", "approaching", "out_of_reach")
CLOSE_STEPS = 10  # solver cycles at most to close the loops of the initial configuration (chosen)
CLOSE_TOLERANCE = 1e-9  # [m] loops counted closed (chosen: the 1e-6 mm of acceptance test 002 A4)


def default_frames(structure) -> list[str]:
    """The gizmo frames of a structure: its sidecar's source-bound frames (HRP-2: both hands; a
    MAD robot: its sensor frames), else the last body frame of each leaf joint (a bare URDF's end
    effectors)."""
    if structure.sources:
        return list(structure.sources)
    model = structure.model
    parents = set(model.parents[1:])
    leaves = [j for j in range(1, model.njoints) if j not in parents]
    out = []
    for j in leaves:
        body = [f.name for f in model.frames if f.parentJoint == j and f.type == pin.FrameType.BODY]
        if body:
            out.append(body[-1])
    return out


def loop_gap(structure, q, data=None) -> tuple[float, float]:
    """Largest closure gap at ``q``: position [m] and rotation [rad] (0, 0 without closures)."""
    data = structure.model.createData() if data is None else data
    pin.framesForwardKinematics(structure.model, data, q)
    pos = rot = 0.0
    for c in structure.closures.values():
        a = data.oMf[c.fa]
        b = c.anchor if c.fb is None else data.oMf[c.fb]
        pos = max(pos, float(np.linalg.norm(a.translation - b.translation)))
        if c.dim == 6:
            rot = max(rot, float(np.linalg.norm(pin.log3(b.rotation.T @ a.rotation))))
    return pos, rot


def close_loops(structure, q, solve=None, steps: int = CLOSE_STEPS) -> np.ndarray:
    """``q`` with the structure's loops closed: solver cycles on the closures alone (the hybrid
    robot's initial gap of 2.914 mm closes in 3, acceptance test 002 A4), at most ``steps``."""
    solve = solve or SOLVERS["prioritized"]
    q = np.array(q, float)
    for _ in range(steps):
        if not structure.closures or loop_gap(structure, q)[0] < CLOSE_TOLERANCE:
            break
        q, _ = solve(structure, q)
    return q


def frame_gap(M: pin.SE3, T: pin.SE3, mode: str, length_scale: float) -> tuple[float, float, float]:
    """(residual [m], position error [m], rotation error [rad]) of a frame at ``M`` against its
    target ``T``: the residual counts what ``mode`` drives (pose, position, orientation), the
    rotation times ``length_scale`` (the solvers' units, docs/kinematics.md)."""
    pos = float(np.linalg.norm(M.translation - T.translation))
    rot = float(np.linalg.norm(pin.log3(T.rotation.T @ M.rotation)))
    res = pos if mode != "orientation" else 0.0
    res += length_scale * rot if mode != "position" else 0.0
    return res, pos, rot


def balance_tasks(structure) -> list:
    """[`ComTask`] for a floating structure standing on closures (HRP-2 on its welded feet: the
    CoM x-y kept where it is), else []."""
    return [ComTask(structure)] if structure.floating and structure.closures else []


def approach(current: pin.SE3, goal: pin.SE3, linear: float, angular: float) -> pin.SE3:
    """``current`` moved toward ``goal`` by at most ``linear`` [m] and ``angular`` [rad] (straight
    line, rotation about one axis); ``goal`` itself when within reach."""
    dp = goal.translation - current.translation
    n = float(np.linalg.norm(dp))
    p = current.translation + (dp if n <= linear else dp * (linear / n))
    w = pin.log3(current.rotation.T @ goal.rotation)
    a = float(np.linalg.norm(w))
    R = current.rotation @ pin.exp3(w if a <= angular else w * (angular / a))
    return pin.SE3(R, p)


def tracking_state(before: float, residual: float, tolerance: float) -> str:
    """How a cycle went, from the residual before it (the new goals against the previous
    configuration) and after it [m]: ``tracking`` (reached: residual <= ``tolerance``),
    ``approaching`` (the gap closed by more than ``tolerance``) or ``out_of_reach`` (not getting
    closer: the solver holds the closest pose it reached)."""
    if residual <= tolerance:
        return "tracking"
    if before - residual > tolerance:
        return "approaching"
    return "out_of_reach"


@dataclass
class PilotState:
    """One cycle's result. ``q`` (nq,) solved configuration; ``report`` the last solve's
    `SolveReport`; ``dexterity`` σmax/σmin of J_aug (Flückiger 1998, Fig. 6-8); ``residual``
    [m] largest gap between a command's goal (the gizmo, the slider) and the result: a frame's
    |Δp| + length_scale·|Δθ| of what its mode drives, a joint's |Δq| (× length_scale when
    revolute); ``loop_gap`` (position [m], rotation [rad]); ``speeds`` (nv,) |q̇| over the cycle
    [rad/s] or [m/s]; ``solves`` solver calls this cycle; ``solve_s`` their time [s];
    ``tracking`` one of `TRACKING_STATES` (`tracking_state`); ``errors`` {gizmo frame: (position
    error [m], rotation error [rad])} against its goal (inverse mode, else empty); ``scale`` the
    part of the solver's step the joint limits let through (1: all of it; `StepLimiter`);
    ``fault`` why the cycle held the last configuration ("" when it did not); ``command`` the jerk
    filter's joint positions to send (``joint_names`` order; `JerkFilter`), None when it is off."""

    q: np.ndarray
    report: object
    dexterity: float
    residual: float
    loop_gap: tuple
    speeds: np.ndarray
    cycles: int
    solves: int
    solve_s: float
    control: str
    tracking: str = "tracking"
    errors: dict = field(default_factory=dict)
    scale: float = 1.0
    fault: str = ""
    command: np.ndarray | None = None


class PilotSession:
    """The piloting state of one structure (see the module docstring). Thread-safe: the setters
    run in the viewer's or the node's threads, `step` in the loop's.

    A command sets a goal (``goals``: the gizmo's pose, the slider's value); each cycle moves the
    solver's target toward it by at most ``max_step`` (`MAX_STEP`; None: the target is the goal at
    once), then solves (and solves again, at most ``corrections`` times, while a loop is open by
    more than `LOOP_TOLERANCE`).

    Args:
        structure: a `KinematicStructure` (`load_structure`).
        frames: gizmo frames (default `default_frames`); an unknown name is a `KinematicsError`.
        mode: what of each frame follows its gizmo: ``pose`` (6-D), ``position`` or ``orientation``.
        solver: ``prioritized`` (default) or ``svd`` (`humanoid_control.kinematics.SOLVERS`); either
            keeps the joints `POSITION_MARGIN` inside their limits (``svd`` by clipping its step).
        rate: cycles per second [Hz]: the joint speeds are the step times the rate.
        held: frames that are not commanded but held where they are (6-D, level 2, after the
            commands; the piloting node holds the frames whose sidecar source is active).
        max_step: {"linear" [m], "angular" [rad], "joint" [rad]} per cycle, or None.
        corrections: extra solves per cycle at most while a loop is open (`CORRECTIONS`; the
            piloting node: 0, one solve per cycle).
        tolerance: [m] the residual that counts as reached (``tracking``, `tracking_state`).
        acceleration: [rad/s²] or [m/s²] every joint's acceleration limit (`ACCELERATION`); the
            speed limits are the URDF's (`speed_limits`).
        jerk: [rad/s³] the jerk limit of the command filter (`humanoid_control.pilot_jerk`), None: off.
    """

    def __init__(
        self,
        structure,
        frames=None,
        mode="pose",
        solver="prioritized",
        rate=25.0,
        held=(),
        max_step=MAX_STEP,
        corrections=CORRECTIONS,
        tolerance=TRACKING_TOLERANCE,
        acceleration=ACCELERATION,
        jerk=None,
    ):
        s = self.structure = structure
        if solver not in SOLVERS:
            raise KinematicsError(f"pilot: field 'solver' must be one of {', '.join(SOLVERS)}; value {solver!r}")
        self.solver = solver
        self._solve = SOLVERS[solver]
        if solver == "prioritized":  # joints saturated POSITION_MARGIN inside their limits
            self._solve = functools.partial(self._solve, settings=PrioritizedSettings(limit_margin=POSITION_MARGIN))
        elif solver == "svd":  # the thesis's method has no limits: its step clipped POSITION_MARGIN inside them
            self._solve = functools.partial(self._solve, clamp=True, limit_margin=POSITION_MARGIN)
        self.rate = finite_number(rate, "pilot", "rate", minimum=0.0, strict=True, unit="Hz", error=KinematicsError)
        self.frames = list(default_frames(s) if frames is None else frames)
        for f in (*self.frames, *held):
            s.frame_id(f, "pilot frame")
        self.mode = mode
        self.max_step = None if max_step is None else dict(max_step)
        self.corrections = integer(corrections, "pilot", "corrections", minimum=0, error=KinematicsError)
        self.tolerance = finite_number(
            tolerance, "pilot", "tolerance", minimum=0.0, strict=True, unit="m", error=KinematicsError
        )
        accel = finite_number(
            acceleration, "pilot", "acceleration", minimum=0.0, strict=True, unit="rad/s²", error=KinematicsError
        )
        self.limiter = StepLimiter(s.model, speed_limits(s), accel, 1.0 / self.rate)
        self.jerk_filter = None if jerk is None else JerkFilter.for_structure(s, accel, jerk, self.rate)
        self._lock = threading.RLock()
        self._data = s.model.createData()
        self.com = balance_tasks(s)
        self.posture = PostureTask(s)
        self.targets = {f: FrameTarget(s, f, mode=mode) for f in self.frames}
        self.held = {f: FrameTarget(s, f) for f in held}
        self.goals: dict[str, pin.SE3] = {}
        self.joint_goals: dict[str, float] = {}
        self.joint_task: JointTask | None = None
        self.control = "inverse"
        self.cycles = self.refused = self.bounded = self.faults = 0
        self.last_refusal = self.last_bound = self.last_fault = ""
        self.state: PilotState | None = None
        self.solve_times: collections.deque = collections.deque(maxlen=200)
        self.reset()

    # ------------------------------------------------------------------ commands
    def refuse(self, text: str) -> bool:
        """Count and keep a refusal (``refused``, ``last_refusal``); returns False."""
        with self._lock:
            self.refused += 1
            self.last_refusal = text
        return False

    def _hold_frames(self):
        """Every gizmo frame's target and goal, and every held frame's target, at its current
        placement (the robot does not jump)."""
        pin.framesForwardKinematics(self.structure.model, self._data, self.q)
        for f, t in self.targets.items():
            t.target = self._data.oMf[t.fid].copy()
            self.goals[f] = t.target.copy()
        for t in self.held.values():
            t.target = self._data.oMf[t.fid].copy()

    def placement(self, frame: str) -> pin.SE3:
        """World placement of ``frame`` at the current configuration (a copy)."""
        with self._lock:
            return self.structure.placement(self.q, frame)

    def goal(self, frame: str) -> pin.SE3:
        """The goal of gizmo frame ``frame`` (a copy)."""
        with self._lock:
            return self.goals[frame].copy()

    def _bound(self, text: str) -> None:
        self.bounded += 1
        self.last_bound = text

    def _set_goal(self, frame: str, goal: pin.SE3) -> None:
        """The goal of ``frame``, at most `TARGET_BOUND` from where the frame is (`bounded_goal`)."""
        goal, cut = bounded_goal(self.structure.placement(self.q, frame), goal)
        if cut:
            p = np.round(goal.translation, 4).tolist()
            self._bound(f"pilot: the goal of frame {frame!r} is bounded to {TARGET_BOUND:g} m from the frame: {p}")
        self.goals[frame] = goal
        if self.max_step is None:  # no rate limit: the solver's target is the goal now
            self.targets[frame].target = goal.copy()

    def _inverse_frame(self, frame: str) -> str:
        """ "" when gizmo frame ``frame`` may be commanded now, else the refusal text."""
        if frame not in self.targets:
            return (
                f"pilot: unknown gizmo frame {frame!r}{did_you_mean(str(frame), self.targets)} "
                f"(gizmo frames: {', '.join(self.targets) or 'none'})"
            )
        if self.control != "inverse":
            return f"pilot: frame {frame!r} moved in direct mode; switch to inverse mode to drag frames"
        return ""

    def set_target(self, frame: str, pose) -> bool:
        """Inverse mode: gizmo frame ``frame`` goes to ``pose`` (a ``pin.SE3``, or a point for the
        position mode). False (refused, ``last_refusal`` says why) for an unknown frame, a NaN
        pose or direct mode."""
        with self._lock:
            problem = self._inverse_frame(frame)
            if problem:
                return self.refuse(problem)
            check = FrameTarget(self.structure, frame, target=self.goals[frame], mode=self.mode)
            try:
                check.set_target(pose)  # the target's own checks (finite, shape): refused here, not in the loop
            except KinematicsError as exc:
                return self.refuse(str(exc))
            self._set_goal(frame, check.target)
        return True

    def move(self, frame: str, increment, command_frame: str = "world", camera=None) -> bool:
        """Inverse mode: the goal of gizmo frame ``frame`` moves by ``increment`` [dx dy dz, drx
        dry drz] ([m], [rad]) in ``command_frame`` axes (`COMMAND_FRAMES`; ``view``: the axes of
        the camera rotation ``camera`` (3, 3), world axes without one), rotating about the goal's
        origin (`FrameTarget.move`). False (refused) for an unknown frame, a NaN increment or
        direct mode."""
        with self._lock:
            problem = self._inverse_frame(frame)
            if problem:
                return self.refuse(problem)
            try:
                inc, cut = bounded_increment(increment)
                if cut:
                    self._bound(f"pilot: an increment of frame {frame!r} is bounded to {TARGET_BOUND:g} m and pi rad")
                if command_frame == "view":  # the camera's axes in the world, about the frame's origin
                    axes = command_axes(command_frame, None, camera)
                    inc, command_frame = np.concatenate([axes @ inc[:3], axes @ inc[3:]]), "world"
                goal = moved(self.goals[frame], inc, command_frame, f"frame target '{frame}'")
            except (KinematicsError, ValueError) as exc:
                return self.refuse(str(exc))
            self._set_goal(frame, goal)
        return True

    def set_joint(self, joint: str, value) -> bool:
        """Direct mode: joint ``joint`` is driven to ``value`` [rad] or [m] (the loops stay closed:
        the other joints follow). False (refused) for an unknown joint, a NaN value or inverse mode."""
        with self._lock:
            if self.control != "direct":
                return self.refuse(
                    f"pilot: joint {joint!r} moved in inverse mode; switch to direct mode to use sliders"
                )
            try:
                iq = self.structure.joint_index(joint, "pilot slider")[0]
                x = finite_number(value, f"pilot slider '{joint}'", "value", error=KinematicsError)
            except KinematicsError as exc:
                return self.refuse(str(exc))
            x = self._bounded_joint(joint, x)[0]
            if joint not in self.joint_goals:  # a new joint: driven from where it is
                targets = (
                    {j: float(v) for j, v in zip(self.joint_task.joints, self.joint_task.target)}
                    if self.joint_task
                    else {}
                )
                targets[joint] = float(self.q[iq])
                self.joint_task = JointTask(self.structure, targets, name="sliders")
            self.joint_goals[joint] = x
        return True

    def _bounded_joint(self, joint: str, x: float) -> tuple[float, bool]:
        """(``x`` within the joint's limits, or `TARGET_BOUND` of its value without limits; cut)."""
        s = self.structure
        iq = s.joint_index(joint)[0]
        k = np.flatnonzero(s.lim_q == iq)
        lo, hi = (float(s.lower[k[0]]), float(s.upper[k[0]])) if k.size else (None, None)
        x2, cut = bounded_joint(x, lo, hi, float(self.q[iq]))
        if cut:
            self._bound(f"pilot: the goal of joint {joint!r} is bounded to {x2:.6g}: value {x:.6g}")
        return x2, cut

    def set_control(self, control: str) -> bool:
        """``inverse`` (gizmos drive frames; their goals restart where the frames are) or
        ``direct`` (sliders drive joints; none is driven until moved). The posture task's rest
        configuration becomes the current one: the pose set in one mode is kept in the other."""
        if control not in CONTROL_MODES:
            return self.refuse(f"pilot: field 'control' must be one of {', '.join(CONTROL_MODES)}; value {control!r}")
        with self._lock:
            self.control = control
            self.joint_goals, self.joint_task = {}, None
            self.posture.set_target(self.q[self.posture.iq])  # the rest posture: where the robot is now
            if control == "inverse":
                self._hold_frames()
        return True

    def reset(self, q=None, travel: bool = False) -> None:
        """Back to the initial configuration, or to ``q`` (nq,): the world closures (HRP-2's
        welded feet) anchored where their frames are there, the loops closed, the CoM task, the
        rest posture and every frame taken there; inverse mode. ``travel``: the commanded
        configuration stays where it is and the next cycles move it there, within the joint limits
        (a robot being driven must not jump); else it is there at once (a start)."""
        with self._lock:
            s = self.structure
            here = self.q if travel and hasattr(self, "q") else None
            q = s.q0 if q is None else np.asarray(q, float)
            for c in s.closures.values():
                if c.anchor is not None:
                    c.anchor = s.placement(q, c.frame_a)
            self.q = close_loops(s, q, self._solve)
            for t in self.com:
                t.set_target(s.com(self.q)[:2])
            self.set_control("inverse")  # the rest posture and the frames: here
            if here is None:
                self.limiter.reset()  # at rest there
                if self.jerk_filter is not None:
                    self.jerk_filter.reset(self.q)
            else:
                self.q = here

    def configuration(self, joints) -> np.ndarray:
        """The structure's initial configuration with ``joints`` {name: value} [rad] or [m] set
        (1-DOF joints of the structure), clipped to the joint limits."""
        s = self.structure
        q = s.q0.copy()
        for n, x in joints.items():
            q[s.joint_index(n)[0]] = x
        q[s.lim_q] = np.clip(q[s.lim_q], s.lower, s.upper)
        return q

    def known_joints(self, names, positions) -> dict[str, float]:
        """{name: position} of the structure's joints among ``names`` whose ``positions`` are
        finite (a measured joint state; other joints ignored)."""
        s = self.structure
        return {n: float(x) for n, x in zip(names, positions) if s.has_joint(n) and math.isfinite(x)}

    def lead(self, joints) -> float | None:
        """Largest |commanded - ``joints``| over the joints given ({name: value} [rad] or [m]);
        None for none: how far the command is ahead of a measured robot."""
        if not joints:
            return None
        with self._lock:
            s = self.structure
            return max(abs(self.q[s.joint_index(n)[0]] - x) for n, x in joints.items())

    def warm_up(self) -> None:
        """One solve of the current tasks, its result discarded: the first solve of a process
        costs ~1 s (lazy imports, LAPACK set-up; measured), paid here rather than in a cycle."""
        with self._lock:
            self._solve(self.structure, self.q, *self.tasks())

    # ------------------------------------------------------------------ cycle
    def _commands(self) -> list:
        if self.control == "inverse":
            return list(self.targets.values())
        return [self.joint_task] if self.joint_task is not None else []

    def tasks(self) -> tuple:
        """The tasks of this cycle (besides the closures the solver adds)."""
        return (*self.com, *self._commands(), *self.held.values(), self.posture)

    def _advance(self):
        """Move each solver target toward its goal by at most ``max_step`` (to it without one)."""
        m = self.max_step
        if self.control == "inverse":
            for f, t in self.targets.items():
                t.target = (
                    self.goals[f].copy() if m is None else approach(t.target, self.goals[f], m["linear"], m["angular"])
                )
        elif self.joint_task is not None:
            now = self.joint_task.target
            goal = np.array([self.joint_goals[j] for j in self.joint_task.joints])
            self.joint_task.target = goal if m is None else now + np.clip(goal - now, -m["joint"], m["joint"])

    def _residual(self, q) -> tuple[float, dict]:
        """(largest gap between a command's goal and ``q`` (see `PilotState`), {gizmo frame:
        (position error [m], rotation error [rad])})."""
        s, L = self.structure, self.structure.length_scale
        worst, errors = 0.0, {}
        if self.control == "inverse":
            pin.framesForwardKinematics(s.model, self._data, q)
            for f, t in self.targets.items():
                gap, pos, rot = frame_gap(self._data.oMf[t.fid], self.goals[f], self.mode, L)
                worst, errors[f] = max(worst, gap), (pos, rot)
        else:
            for j, x in self.joint_goals.items():
                iq, iv = s.joint_index(j)
                worst = max(worst, abs(q[iq] - x) * (1.0 if s.prismatic_v[iv] else L))
        return worst, errors

    def _drop_goals(self) -> None:
        """Every command's goal where the structure is now (after a fault: nothing pulls it on)."""
        if self.control == "inverse":
            self._hold_frames()
        elif self.joint_task is not None:
            now = {j: float(self.q[self.structure.joint_index(j)[0]]) for j in self.joint_task.joints}
            self.joint_goals = {j: now[j] for j in self.joint_goals}
            self.joint_task.target = np.array([now[j] for j in self.joint_task.joints])

    def _solve_cycle(self, q0, tasks):
        """(q, report, solves, fault): one solve plus the corrections; ``fault`` the reason when
        the solve failed or its configuration is not finite ("" else)."""
        q, report, solves = q0, None, 0
        try:
            while solves == 0 or (
                loop_gap(self.structure, q, self._data)[0] > LOOP_TOLERANCE and solves <= self.corrections
            ):
                q, report = self._solve(self.structure, q, *tasks)
                solves += 1
                if not finite_configuration(q):
                    return q0, report, solves, "pilot: the solve returned a non-finite configuration"
        except Exception as exc:  # noqa: BLE001 - a failed solve holds the command, the loop goes on
            why = exc if isinstance(exc, KinematicsError) else repr(exc)
            return q0, report, solves, f"pilot: the solve failed: {why}"
        return q, report, solves, ""

    def _limited(self, q0, solved) -> tuple[np.ndarray, float, bool]:
        """`StepLimiter.limit` of the step to ``solved``; a scaled step opens the loops by its
        curvature, so they are closed again (at most ``corrections`` closure-only solves), the
        result limited again each time."""
        q, scale, braked = self.limiter.limit(q0, solved, keep=False)
        for _ in range(self.corrections if scale < 1.0 or braked else 0):
            if loop_gap(self.structure, q, self._data)[0] <= LOOP_TOLERANCE:
                break
            try:
                closed = self._solve(self.structure, q)[0]
            except Exception:  # noqa: BLE001 - the limited step stands, loops a little open
                break
            if not finite_configuration(closed):
                break
            q = self.limiter.limit(q0, closed, keep=False)[0]
        self.limiter.keep_step(q0, q)
        return q, scale, braked

    def step(self) -> PilotState:
        """One display cycle: targets toward their goals, one solve (plus corrections while a loop
        is open), the step limited to the joints' speed and acceleration limits (`StepLimiter`);
        returns (and keeps in ``state``) its `PilotState`. A failed or non-finite solve holds the
        command (braking the previous step at the acceleration limit) and drops the goals to where
        the frames are (``fault``)."""
        with self._lock:
            self._advance()
            tasks = self.tasks()
            q0 = self.q
            before = self._residual(q0)[0]
            t0 = time.perf_counter()
            solved, report, solves, fault = self._solve_cycle(q0, tasks)
            dt = time.perf_counter() - t0
            q, scale, braked = self._limited(q0, solved)  # a fault: solved is q0, the step brakes
            self.q = q
            if fault:
                self.faults, self.last_fault = self.faults + 1, fault
                report = self.state.report if self.state is not None else None
                self._drop_goals()
            self.cycles += 1
            self.solve_times.append(dt)
            residual, errors = self._residual(q)
            tracking = tracking_state(before, residual, self.tolerance)
            held_back = (scale < 1.0 or braked) and tracking == "out_of_reach"  # by the limits, not the reach?
            if held_back and tracking_state(before, self._residual(solved)[0], self.tolerance) != "out_of_reach":
                tracking = "approaching"
            self.state = PilotState(
                q=q.copy(),
                report=report,
                dexterity=report.dexterity if report is not None else math.nan,
                residual=residual,
                loop_gap=loop_gap(self.structure, q, self._data),
                speeds=np.abs(pin.difference(self.structure.model, q0, q)) * self.rate,
                cycles=self.cycles,
                solves=solves,
                solve_s=dt,
                control=self.control,
                tracking=tracking,
                errors=errors,
                scale=scale,
                fault=fault,
                command=None if self.jerk_filter is None else self.jerk_filter.update(q),
            )
            return self.state
