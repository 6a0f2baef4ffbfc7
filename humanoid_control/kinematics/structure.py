"""A kinematic structure from a URDF plus its sidecar: `load_structure(path_or_name)`.

The thesis turns a text file into a tree of links plus constraint arcs (Flückiger 1998, §3.4.1, §5.3.2):
here the tree is a Pinocchio model (fixed base, or a free-flyer ``root_joint`` for a humanoid),
the extra frames are Pinocchio operational frames, and the arcs are the structure's closures and
source bindings. The constraint lists are kept and changed only by `add_closure`,
`remove_closure`, `bind` and `select` (the thesis rebuilds them only on a structural or sensor
change, §5.5.3.2, and reconfigures its Jacobian at run time, §3.4.3.3): a
foot gaining or losing ground contact, a two-hand grasp, an input device switched, all without
rebuilding the model. A structure owns its model and data, so several can share one scene.

    from humanoid_control.kinematics import load_structure
    s = load_structure("hrp2")               # urdf/kinematics/hrp2.kin.yaml, or a path to NAME.kin.yaml
    s.q0, s.closures, s.sources, s.driven_frames()
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics.closures import make_closure
from humanoid_control.kinematics.sidecar import NONE, SUFFIX, WORLD, KinSidecar, read_kin_sidecar
from humanoid_model.exceptions import HumanoidStackError
from humanoid_model.mesh_paths import resolve_urdf_paths
from humanoid_model.paths import resolve, urdf_dir
from humanoid_model.robot import check_joint_count
from humanoid_model.urdf_description import read_urdf, resolve_robot_path
from humanoid_model.validation import did_you_mean

__all__ = ["KinematicStructure", "load_structure", "build_structure", "shipped_structures", "ROOT_JOINT"]

ROOT_JOINT = "root_joint"
MIN_LENGTH_SCALE = 1e-3  # [m/rad] (chosen) floor of the automatic length scale (a point-like structure)
LIMIT_TOLERANCE = 1e-9  # [rad] or [m] (chosen) an initial value this far outside its limits is accepted


def shipped_structures() -> dict[str, Path]:
    """{name: sidecar} of ``urdf/kinematics/NAME.kin.yaml``."""
    folder = urdf_dir() / "kinematics"
    return {p.name[: -len(SUFFIX)]: p for p in sorted(folder.glob(f"*{SUFFIX}"))}


class KinematicStructure:
    """A Pinocchio model with extra frames, closures, source bindings, limits and an initial
    configuration (see `load_structure`). Attributes: ``name``, ``source`` (the sidecar),
    ``model``, ``data`` (reused by the solvers), ``q0`` (nq,), ``length_scale`` [m/rad],
    ``closures`` {name: `Weld` | `Ball`}, ``sources`` {frame: [source names]}, ``active``
    {frame: active source}, ``joint_names`` (1-DOF joints), ``lim_q``/``lim_v`` (indices of the
    bounded joints in q and v) with ``lower``/``upper`` [rad] or [m]."""

    def __init__(self, name: str, source: str, model: pin.Model, q0: np.ndarray, floating: bool):
        self.name, self.source, self.model, self.floating = name, source, model, floating
        self.data = model.createData()
        self.q0 = np.array(q0, dtype=float)
        self.closures: dict = {}
        self.sources: dict[str, list[str]] = {}
        self.active: dict[str, str] = {}
        self.length_scale = 1.0
        joints = [(n, model.joints[i]) for i, n in enumerate(model.names) if i > 0]
        self.joint_names = [n for n, j in joints if j.nq == 1 and j.nv == 1]
        self._joint = {n: (j.idx_q, j.idx_v) for n, j in joints if j.nq == 1 and j.nv == 1}
        self.prismatic_v = np.zeros(model.nv, dtype=bool)
        for _, j in joints:
            if j.nq == 1 and "Prismatic" in j.shortname():
                self.prismatic_v[j.idx_v] = True
        # columns in metres (prismatic joints, free-flyer translation) are scaled by length_scale
        self._metre_columns = self.prismatic_v.copy()
        if floating:
            self._metre_columns[:3] = True
        self.refresh_limits()

    # -------------------------------------------------------------------------------- names
    def is_world(self, name: str) -> bool:
        return name == WORLD

    def frame_id(self, name: str, context: str = "") -> int:
        """Pinocchio id of frame ``name`` (a link, joint or extra frame), else `KinematicsError`."""
        if not isinstance(name, str) or not self.model.existFrame(name):
            names = [f.name for f in self.model.frames]
            where = f"{context}: " if context else ""
            raise KinematicsError(f"{self.source}: {where}unknown frame '{name}'{did_you_mean(name, names)}")
        return self.model.getFrameId(name)

    def has_joint(self, name) -> bool:
        """Whether ``name`` is a 1-DOF joint of the structure (one `joint_index` gives)."""
        return name in self._joint

    def joint_index(self, name: str, context: str = "") -> tuple[int, int]:
        """(index in q, index in v) of the 1-DOF joint ``name``, else `KinematicsError`."""
        if name not in self._joint:
            where = f"{context}: " if context else ""
            raise KinematicsError(
                f"{self.source}: {where}unknown joint '{name}'{did_you_mean(name, self.joint_names)}"
                " (1-DOF joints only)"
            )
        return self._joint[name]

    # -------------------------------------------------------------------------------- limits
    def refresh_limits(self) -> None:
        """Re-read the bounded joints from ``model.lower/upperPositionLimit`` (after editing them)."""
        lq, lv, lo, hi = [], [], [], []
        for n in self.joint_names:
            iq, iv = self._joint[n]
            a, b = self.model.lowerPositionLimit[iq], self.model.upperPositionLimit[iq]
            if np.isfinite(a) and np.isfinite(b) and a < b and (abs(a) < 1e10 and abs(b) < 1e10):
                lq.append(iq), lv.append(iv), lo.append(a), hi.append(b)
        self.lim_q, self.lim_v = np.array(lq, dtype=int), np.array(lv, dtype=int)
        self.lower, self.upper = np.array(lo, float), np.array(hi, float)

    @property
    def col_scale(self) -> np.ndarray:
        """(nv,) the solvers' column scaling: ``length_scale`` for columns in metres (prismatic
        joints, free-flyer translation), 1 for radians, so every unknown is in radian units."""
        return np.where(self._metre_columns, self.length_scale, 1.0)

    # --------------------------------------------------------------------------- kinematics
    def compute(self, q, data=None, com: bool = False):
        """Update ``data`` (default ``self.data``) at ``q``: placements, joint Jacobians, frames,
        and the CoM and its Jacobian when ``com``. Returns the data."""
        data = self.data if data is None else data
        pin.computeJointJacobians(self.model, data, q)  # includes the forward kinematics
        pin.updateFramePlacements(self.model, data)
        if com:
            pin.jacobianCenterOfMass(self.model, data, False)  # from the placements just computed
        return data

    def placement(self, q, frame: str) -> pin.SE3:
        """World placement of ``frame`` at ``q`` (a copy)."""
        data = self.model.createData()
        pin.framesForwardKinematics(self.model, data, q)
        return data.oMf[self.frame_id(frame)].copy()

    def com(self, q) -> np.ndarray:
        """Centre of mass (3,) [m] at ``q`` (the URDF's inertials)."""
        return pin.centerOfMass(self.model, self.model.createData(), q).copy()

    # ------------------------------------------------------------------- runtime changes
    def add_closure(self, name: str, kind: str, frame_a: str, frame_b: str = WORLD, q=None, anchor=None):
        """Add a loop closure (``kind`` weld or ball) without rebuilding the model. With
        ``frame_b`` = "world", frame_a is held at ``anchor`` (a ``pin.SE3``; default its placement
        at ``q``, or at ``q0``): a foot gaining ground contact."""
        if name in self.closures:
            raise KinematicsError(f"{self.source}: closure '{name}' exists already")
        if kind not in ("weld", "ball"):
            raise KinematicsError(f"{self.source}: closure '{name}': type must be weld or ball; value {kind!r}")
        if anchor is None and q is not None and frame_b == WORLD:
            anchor = self.placement(q, frame_a)
        self.closures[name] = make_closure(self, name, kind, frame_a, frame_b, anchor)
        return self.closures[name]

    def remove_closure(self, name: str):
        """Remove closure ``name`` (a foot lifting off); returns it."""
        if name not in self.closures:
            raise KinematicsError(f"{self.source}: unknown closure '{name}'{did_you_mean(name, self.closures)}")
        return self.closures.pop(name)

    def bind(self, frame: str, sources: list[str]) -> None:
        """Set the input sources of ``frame`` (first one active; ``none`` = not driven)."""
        self.frame_id(frame, f"sources.{frame}")
        if not sources or not all(isinstance(s, str) and s for s in sources):
            raise KinematicsError(
                f"{self.source}: sources of '{frame}' must be a non-empty list of names; value {sources!r}"
            )
        self.sources[frame] = list(sources)
        self.active[frame] = sources[0]

    def select(self, frame: str, source: str) -> None:
        """Make ``source`` (one of the frame's list) the active source of ``frame``."""
        if frame not in self.sources:
            raise KinematicsError(f"{self.source}: frame '{frame}' has no sources{did_you_mean(frame, self.sources)}")
        if source not in self.sources[frame]:
            raise KinematicsError(
                f"{self.source}: source '{source}' is not among those of '{frame}' ({', '.join(self.sources[frame])})"
            )
        self.active[frame] = source

    def driven_frames(self) -> dict[str, str]:
        """{frame: active source} of the frames whose active source is not ``none``."""
        return {f: s for f, s in self.active.items() if s != NONE}


# ----------------------------------------------------------------------------------- loading
def load_structure(path_or_name, urdf_text: str | None = None) -> KinematicStructure:
    """The structure of a sidecar file ``NAME.kin.yaml`` or a shipped name (``hrp2``:
    ``urdf/kinematics/hrp2.kin.yaml``). Errors are `KinematicsError` naming the file and field.
    ``urdf_text``: the robot's URDF text (a node's /robot_description) instead of the sidecar's
    ``urdf`` file, which then gives only the posture that ``initial`` may name."""
    path = resolve(
        path_or_name, shipped_structures(), "kinematic structure", (SUFFIX, ".yaml"), KinematicsError,
        file_kind="kinematic sidecar file",
    )  # fmt: skip
    side = read_kin_sidecar(path)
    if urdf_text is None:
        return build_structure(side)
    return build_structure(side, urdf_text, postures=_urdf_path(side) if isinstance(side.initial, str) else None)


def _urdf_path(side: KinSidecar) -> Path:
    try:
        return resolve_robot_path(
            side.urdf, base=side.base_dir, context=f"{side.source}: field 'urdf'", error=KinematicsError
        )
    except HumanoidStackError as exc:
        raise KinematicsError(str(exc)) from None


def build_structure(side: KinSidecar, urdf_text: str | None = None, postures: Path | None = None) -> KinematicStructure:
    """The structure of a checked sidecar (``urdf_text`` instead of its file when given: the MAD
    converter's output in memory; ``postures``: then the URDF file whose sidecar has the posture
    that ``initial`` names)."""
    src = side.source
    urdf_path = postures
    try:  # the project's one validated reader first (inertials, depth, nesting), as load_robot
        if urdf_text is None:
            urdf_path = _urdf_path(side)
            urdf_text = resolve_urdf_paths(urdf_path)
        else:
            read_urdf(urdf_text)
    except HumanoidStackError as exc:
        raise KinematicsError(f"{src}: field 'urdf': {exc}") from None
    try:
        if side.floating:
            model = pin.buildModelFromXML(urdf_text, pin.JointModelFreeFlyer())
        else:
            model = pin.buildModelFromXML(urdf_text)
        check_joint_count(model.nv - (6 if side.floating else 0), src)
    except HumanoidStackError as exc:
        raise KinematicsError(str(exc)) from None
    except (RuntimeError, ValueError) as exc:
        raise KinematicsError(f"{src}: field 'urdf': Pinocchio cannot build the model ({exc})") from None
    name = Path(src).name[: -len(SUFFIX)] if src.endswith(SUFFIX) else Path(src).stem

    _add_frames(model, side)
    q0 = _initial(model, side, urdf_path)
    s = KinematicStructure(name, src, model, q0, side.floating)
    _apply_limits(s, side)
    s.length_scale = side.length_scale or _reach(s)
    for i, c in enumerate(side.closures):
        for key in ("frame_a", "frame_b"):
            f = getattr(c, key)
            if not (key == "frame_b" and f == WORLD) and not model.existFrame(f):
                names = [fr.name for fr in model.frames]
                raise KinematicsError(
                    f"{src}: field 'closures[{i}].{key}' names unknown frame '{f}'{did_you_mean(f, names)}"
                )
        s.add_closure(c.name, c.type, c.frame_a, c.frame_b)
    for frame, names in side.sources.items():
        if not model.existFrame(frame):
            raise KinematicsError(
                f"{src}: field 'sources.{frame}' names unknown frame '{frame}'"
                f"{did_you_mean(frame, [f.name for f in model.frames])}"
            )
        s.bind(frame, names)
    return s


def _add_frames(model: pin.Model, side: KinSidecar) -> None:
    for i, f in enumerate(side.frames):
        if model.existFrame(f.name):
            raise KinematicsError(f"{side.source}: field 'frames[{i}].name' names an existing frame; value '{f.name}'")
        if not model.existFrame(f.parent):
            names = [fr.name for fr in model.frames]
            raise KinematicsError(
                f"{side.source}: field 'frames[{i}].parent' names unknown link or frame '{f.parent}'"
                f"{did_you_mean(f.parent, names)}"
            )
        pid = model.getFrameId(f.parent)
        parent = model.frames[pid]
        local = pin.SE3(pin.rpy.rpyToMatrix(*f.rpy), np.asarray(f.xyz, float))
        model.addFrame(pin.Frame(f.name, parent.parentJoint, pid, parent.placement * local, pin.FrameType.OP_FRAME))


def _initial(model: pin.Model, side: KinSidecar, urdf_path) -> np.ndarray:
    src = side.source
    q = pin.neutral(model)
    values = side.initial
    if isinstance(values, str):
        values = _posture(model, side, urdf_path, values)
    for joint, x in values.items():
        fld = f"initial.{joint}"
        if not model.existJointName(joint) or joint == "universe":
            names = list(model.names[1:])
            raise KinematicsError(f"{src}: field '{fld}' names unknown joint '{joint}'{did_you_mean(joint, names)}")
        j = model.joints[model.getJointId(joint)]
        x = np.atleast_1d(np.asarray(x, float))
        if x.shape[0] != j.nq:
            raise KinematicsError(f"{src}: field '{fld}' must be {j.nq} number(s) for this joint; value {x.tolist()}")
        if j.nq == 7 and abs(np.linalg.norm(x[3:]) - 1.0) > 1e-6:  # free flyer: xyz + quaternion xyzw
            raise KinematicsError(f"{src}: field '{fld}' must end with a unit quaternion xyzw; value {x.tolist()}")
        q[j.idx_q : j.idx_q + j.nq] = x
    return q


def _posture(model, side, urdf_path, name) -> dict:
    """{joint: value} of posture ``name`` of the robot's ``NAME.yaml`` (humanoid_model)."""
    from humanoid_model.robot import load_robot

    if urdf_path is None:
        raise KinematicsError(f"{side.source}: field 'initial': a posture name needs the URDF file; value {name!r}")
    robot = load_robot(urdf_path)
    if name not in robot.postures:
        raise KinematicsError(
            f"{side.source}: field 'initial' names unknown posture '{name}'{did_you_mean(name, robot.postures)}"
            f" (postures: {', '.join(robot.postures)})"
        )
    qp = robot.postures[name]
    out = {n: v for n, v in robot.joint_positions(qp).items() if model.existJointName(n)}
    if side.floating:
        out[ROOT_JOINT] = qp[:7]
    return out


def _apply_limits(s: KinematicStructure, side: KinSidecar) -> None:
    model, src = s.model, side.source
    for kind, table in (("absolute", side.absolute), ("relative", side.relative)):
        for joint, (lo, hi) in table.items():
            if joint not in s._joint:
                raise KinematicsError(
                    f"{src}: field 'limits.{kind}.{joint}' names unknown joint '{joint}'"
                    f"{did_you_mean(joint, s.joint_names)} (1-DOF joints only)"
                )
            iq = s._joint[joint][0]
            base = s.q0[iq] if kind == "relative" else 0.0
            model.lowerPositionLimit[iq], model.upperPositionLimit[iq] = base + lo, base + hi
    s.refresh_limits()
    x = s.q0[s.lim_q]
    bad = np.flatnonzero((x < s.lower - LIMIT_TOLERANCE) | (x > s.upper + LIMIT_TOLERANCE))
    if bad.size:
        k = bad[0]
        joint = next(n for n in s.joint_names if s._joint[n][0] == s.lim_q[k])
        raise KinematicsError(
            f"{src}: field 'initial.{joint}' must be within the joint's limits "
            f"[{s.lower[k]:g}, {s.upper[k]:g}]; value {x[k]:g}"
        )


def _reach(s: KinematicStructure) -> float:
    """Automatic length scale [m/rad]: the largest distance from the root to a joint or frame
    origin at the initial configuration (a rotation of 1 rad moves the far end by about that)."""
    data = s.model.createData()
    pin.framesForwardKinematics(s.model, data, s.q0)
    origin = data.oMi[1].translation if s.floating else np.zeros(3)
    d = [np.linalg.norm(M.translation - origin) for M in list(data.oMi)[1:] + list(data.oMf)]
    return max(MIN_LENGTH_SCALE, float(max(d, default=0.0)))
