"""Interactive piloting without ROS (issue 10, "Piloting node and the viewer"): a `PilotSession`
holds a kinematic structure, its frame targets (inverse mode: gizmos, poses) or joint targets
(direct mode: sliders), and runs one solver cycle per `step`; `PilotLoop` runs it in a thread at
a rate (the thesis's >= 25 Hz, 002_fluckiger.md:506, 002_fluckiger.md:639).

    from humanoid_control.kinematics import load_structure
    from humanoid_control.piloting import PilotLoop, PilotSession
    session = PilotSession(load_structure("hrp2"))       # gizmo frames: the hands
    session.set_target("r_hand", pin.SE3(R, p))          # inverse mode (a gizmo dragged)
    state = session.step()                               # q, report, dexterity, residual, loop gap
    session.set_control("direct"); session.set_joint("CHEST_JOINT0", 0.3)

Each cycle solves the structure's closures (level 1: HRP-2's welded feet, the hybrid robot's
loop), the CoM (level 1, a floating structure standing on closures), the commands (level 2: one
`FrameTarget` per gizmo frame in inverse mode, one `JointTask` over the joints moved so far in
direct mode, 002_fluckiger.md:237) and the posture (level 3). Bad input (a NaN pose, an unknown
frame or joint, a command for the other mode) is refused: the call returns False, ``refused`` and
``last_refusal`` say why, and the loop goes on with the previous targets.

Gizmo axes (`command_axes`, A16, 002_fluckiger.md:245-253): a gizmo sits at the driven frame's
origin with the axes of the command frame (world, the frame's own "tool" axes, or the camera's
"view" axes); `gizmo_target` turns its dragged pose into the absolute target, rotations pivoting
about the frame's origin (Pinocchio's LOCAL_WORLD_ALIGNED semantics, as `FrameTarget.move`).
"""

from __future__ import annotations

import collections
import threading
import time
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics import SOLVERS, ComTask, FrameTarget, JointTask, PostureTask
from humanoid_model.validation import did_you_mean, finite_number

__all__ = [
    "CONTROL_MODES",
    "COMMAND_FRAMES",
    "SPEED_SPHERE_SCALE",
    "PilotSession",
    "PilotState",
    "PilotLoop",
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
COMMAND_FRAMES = ("world", "tool", "view")
#: [m per rad/s] (chosen) radius of a joint-speed sphere per unit joint speed (A20,
#: 002_fluckiger.md:692: radius proportional to |q̇_i|): 1 rad/s draws a 5 cm sphere, a hand's size
SPEED_SPHERE_SCALE = 0.05
#: (chosen) largest motion of a command per cycle: [m] of a frame's origin, [rad] of its rotation
#: or of a joint. A gizmo or a slider can jump; its target is approached at these speeds (25 cm/s,
#: 2.5 rad/s and 1.25 rad/s at 25 Hz) so that each solver cycle stays a small, linearised step
#: (a 7 cm jump of HRP-2's hand in one cycle let a welded foot slip by 1 mm; measured)
MAX_STEP = {"linear": 0.01, "angular": 0.1, "joint": 0.05}
#: (chosen) extra solver cycles within one display cycle while a loop is open by more than
#: LOOP_TOLERANCE: the thesis asks at least one solve per display cycle (002_fluckiger.md:639)
CORRECTIONS = 3
LOOP_TOLERANCE = 1e-6  # [m] (chosen) ten times below A7's 0.01 mm (002_fluckiger.md:679)
CLOSE_STEPS = 10  # solver cycles at most to close the loops of the initial configuration (chosen)
CLOSE_TOLERANCE = 1e-9  # [m] loops counted closed (chosen: A4's 1e-6 mm, 002_fluckiger.md:676)


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
    robot's initial gap of 2.914 mm closes in 3, 002_fluckiger.md:676), at most ``steps``."""
    solve = solve or SOLVERS["prioritized"]
    q = np.array(q, float)
    for _ in range(steps):
        if not structure.closures or loop_gap(structure, q)[0] < CLOSE_TOLERANCE:
            break
        q, _ = solve(structure, q)
    return q


def command_axes(command_frame: str, frame_rotation, camera_rotation=None) -> np.ndarray:
    """Rotation (3, 3) of a gizmo's axes in the world: the world's (``world``), the driven frame's
    (``tool``) or the camera's (``view``; world axes until a camera is known)."""
    if command_frame == "world" or (command_frame == "view" and camera_rotation is None):
        return np.eye(3)
    if command_frame == "tool":
        return np.array(frame_rotation, float)
    if command_frame == "view":
        return np.array(camera_rotation, float)
    raise KinematicsError(
        f"pilot: field 'command_frame' must be one of {', '.join(COMMAND_FRAMES)}; value {command_frame!r}"
    )


def gizmo_target(axes0, target0: pin.SE3, position, rotation) -> pin.SE3:
    """The absolute target of a gizmo placed at ``target0``'s origin with axes ``axes0`` (3, 3)
    and dragged to (``position`` (3,), ``rotation`` (3, 3)): the origin follows the gizmo, and the
    gizmo's rotation, taken about its own origin, turns the target (R = Rg·Rg0ᵀ·R0)."""
    R = np.asarray(rotation, float) @ np.asarray(axes0, float).T @ target0.rotation
    return pin.SE3(R, np.asarray(position, float))


def speed_spheres(structure, q, speeds, scale: float = SPEED_SPHERE_SCALE, data=None) -> list:
    """[(joint, centre (3,) [m], radius [m])] per 1-DOF joint: a sphere at the joint's origin of
    radius ``scale`` × |q̇_i| (A20, 002_fluckiger.md:692). ``speeds`` (nv,) [rad/s] or [m/s]
    (`SolveReport.joint_speeds`)."""
    model = structure.model
    data = model.createData() if data is None else data
    pin.forwardKinematics(model, data, q)
    speeds = np.abs(np.asarray(speeds, float))
    out = []
    for name in structure.joint_names:
        jid = model.getJointId(name)
        iv = structure.joint_index(name)[1]
        out.append((name, data.oMi[jid].translation.copy(), float(scale * speeds[iv])))
    return out


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


@dataclass
class PilotState:
    """One cycle's result. ``q`` (nq,) solved configuration; ``report`` the last solve's
    `SolveReport`; ``dexterity`` σmax/σmin of J_aug (A19, 002_fluckiger.md:691); ``residual``
    [m] largest gap between a command's goal (the gizmo, the slider) and the result: a frame's
    |Δp| + length_scale·|Δθ| of what its mode drives, a joint's |Δq| (× length_scale when
    revolute); ``loop_gap`` (position [m], rotation [rad]); ``speeds`` (nv,) |q̇| over the cycle
    [rad/s] or [m/s]; ``solves`` solver calls this cycle; ``solve_s`` their time [s]."""

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


class PilotSession:
    """The piloting state of one structure (see the module docstring). Thread-safe: the setters
    run in the viewer's threads, `step` in the loop's.

    A command sets a goal (``goals``: the gizmo's pose, the slider's value); each cycle moves the
    solver's target toward it by at most `MAX_STEP`, then solves (and solves again, at most
    `CORRECTIONS` times, while a loop is open by more than `LOOP_TOLERANCE`).

    Args:
        structure: a `KinematicStructure` (`load_structure`).
        frames: gizmo frames (default `default_frames`); an unknown name is a `KinematicsError`.
        mode: what of each frame follows its gizmo: ``pose`` (6-D), ``position`` or ``orientation``.
        solver: ``prioritized`` (default) or ``svd`` (`humanoid_control.kinematics.SOLVERS`).
        rate: cycles per second [Hz]: the joint speeds are the step times the rate.
    """

    def __init__(self, structure, frames=None, mode="pose", solver="prioritized", rate=25.0):
        s = self.structure = structure
        if solver not in SOLVERS:
            raise KinematicsError(f"pilot: field 'solver' must be one of {', '.join(SOLVERS)}; value {solver!r}")
        self.solver = solver
        self._solve = SOLVERS[solver]
        self.rate = finite_number(rate, "pilot", "rate", minimum=0.0, strict=True, unit="Hz", error=KinematicsError)
        self.frames = list(default_frames(s) if frames is None else frames)
        for f in self.frames:
            s.frame_id(f, "pilot frame")
        self.mode = mode
        self.max_step = dict(MAX_STEP)
        self._lock = threading.RLock()
        self._data = s.model.createData()
        self.q = close_loops(s, s.q0, self._solve)
        self.com = balance_tasks(s)
        self.posture = PostureTask(s, q_ref=self.q)
        self.targets = {f: FrameTarget(s, f, mode=mode) for f in self.frames}
        self.goals: dict[str, pin.SE3] = {}
        self.joint_goals: dict[str, float] = {}
        self.joint_task: JointTask | None = None
        self.control = "inverse"
        self._hold_frames()
        self.cycles = self.refused = 0
        self.last_refusal = ""
        self.state: PilotState | None = None
        self.solve_times: collections.deque = collections.deque(maxlen=200)

    # ------------------------------------------------------------------ commands
    def refuse(self, text: str) -> bool:
        """Count and keep a refusal (``refused``, ``last_refusal``); returns False."""
        with self._lock:
            self.refused += 1
            self.last_refusal = text
        return False

    def _hold_frames(self):
        """Every gizmo frame's target and goal at its current placement (the robot does not jump)."""
        pin.framesForwardKinematics(self.structure.model, self._data, self.q)
        for f, t in self.targets.items():
            t.target = self._data.oMf[t.fid].copy()
            self.goals[f] = t.target.copy()

    def placement(self, frame: str) -> pin.SE3:
        """World placement of ``frame`` at the current configuration (a copy)."""
        with self._lock:
            return self.structure.placement(self.q, frame)

    def goal(self, frame: str) -> pin.SE3:
        """The goal of gizmo frame ``frame`` (a copy)."""
        with self._lock:
            return self.goals[frame].copy()

    def set_target(self, frame: str, pose) -> bool:
        """Inverse mode: gizmo frame ``frame`` goes to ``pose`` (a ``pin.SE3``, or a point for the
        position mode). False (refused, ``last_refusal`` says why) for an unknown frame, a NaN
        pose or direct mode."""
        if frame not in self.targets:
            return self.refuse(
                f"pilot: unknown gizmo frame {frame!r}{did_you_mean(str(frame), self.targets)} "
                f"(gizmo frames: {', '.join(self.targets) or 'none'})"
            )
        with self._lock:
            if self.control != "inverse":
                return self.refuse(
                    f"pilot: frame {frame!r} moved in direct mode; switch to inverse mode to drag frames"
                )
            check = FrameTarget(self.structure, frame, target=self.goals[frame], mode=self.mode)
            try:
                check.set_target(pose)  # the target's own checks (finite, shape): refused here, not in the loop
            except KinematicsError as exc:
                return self.refuse(str(exc))
            self.goals[frame] = check.target
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

    def reset(self) -> None:
        """Back to the initial configuration (loops closed), inverse mode."""
        with self._lock:
            self.q = close_loops(self.structure, self.structure.q0, self._solve)
            self.set_control("inverse")  # the rest posture: the initial one again

    # ------------------------------------------------------------------ cycle
    def _commands(self) -> list:
        if self.control == "inverse":
            return list(self.targets.values())
        return [self.joint_task] if self.joint_task is not None else []

    def tasks(self) -> tuple:
        """The tasks of this cycle (besides the closures the solver adds)."""
        return (*self.com, *self._commands(), self.posture)

    def _advance(self):
        """Move each solver target toward its goal by at most `MAX_STEP`."""
        m = self.max_step
        if self.control == "inverse":
            for f, t in self.targets.items():
                t.target = approach(t.target, self.goals[f], m["linear"], m["angular"])
        elif self.joint_task is not None:
            now = self.joint_task.target
            goal = np.array([self.joint_goals[j] for j in self.joint_task.joints])
            self.joint_task.target = now + np.clip(goal - now, -m["joint"], m["joint"])

    def _residual(self, q) -> float:
        """Largest gap between a command's goal and ``q`` (see `PilotState`)."""
        s, L = self.structure, self.structure.length_scale
        worst = 0.0
        if self.control == "inverse":
            pin.framesForwardKinematics(s.model, self._data, q)
            for f, t in self.targets.items():
                worst = max(worst, frame_gap(self._data.oMf[t.fid], self.goals[f], self.mode, L)[0])
        else:
            for j, x in self.joint_goals.items():
                iq, iv = s.joint_index(j)
                worst = max(worst, abs(q[iq] - x) * (1.0 if s.prismatic_v[iv] else L))
        return worst

    def step(self) -> PilotState:
        """One display cycle: targets toward their goals, one solve (plus corrections while a loop
        is open); returns (and keeps in ``state``) its `PilotState`."""
        with self._lock:
            self._advance()
            tasks = self.tasks()
            q0 = self.q
            t0 = time.perf_counter()
            q, report = self._solve(self.structure, q0, *tasks)
            solves = 1
            gap = loop_gap(self.structure, q, self._data)
            while gap[0] > LOOP_TOLERANCE and solves <= CORRECTIONS:
                q, report = self._solve(self.structure, q, *tasks)
                gap = loop_gap(self.structure, q, self._data)
                solves += 1
            dt = time.perf_counter() - t0
            self.q = q
            self.cycles += 1
            self.solve_times.append(dt)
            self.state = PilotState(
                q=q.copy(),
                report=report,
                dexterity=report.dexterity,
                residual=self._residual(q),
                loop_gap=gap,
                speeds=np.abs(pin.difference(self.structure.model, q0, q)) * self.rate,
                cycles=self.cycles,
                solves=solves,
                solve_s=dt,
                control=self.control,
            )
            return self.state


class PilotLoop:
    """Runs ``session.step`` every 1/``session.rate`` seconds in a daemon thread (deadlines on a
    monotonic clock: a slow cycle is not made up by a burst) and calls ``on_cycle(state)`` after
    each. An exception in a cycle is kept in ``last_error`` and counted in ``errors``; the loop
    goes on. `stop` ends it."""

    def __init__(self, session: PilotSession, on_cycle=None):
        self.session, self.on_cycle = session, on_cycle
        self.errors, self.last_error = 0, ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pilot-loop", daemon=True)

    def start(self) -> PilotLoop:
        self._thread.start()
        return self

    def _run(self):
        period = 1.0 / self.session.rate
        deadline = time.monotonic()
        while not self._stop.is_set():
            try:
                state = self.session.step()
                if self.on_cycle is not None:
                    self.on_cycle(state)
            except Exception as exc:  # noqa: BLE001 - a cycle's failure is reported, the loop stays up
                self.errors += 1
                self.last_error = str(exc) if isinstance(exc, KinematicsError) else repr(exc)
            deadline = max(deadline + period, time.monotonic())
            self._stop.wait(max(0.0, deadline - time.monotonic()))

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)
