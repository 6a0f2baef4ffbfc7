"""Recordings the viewer replays: any JSON with times ``t`` plus robot configurations.

`load_recording(path, robot)` accepts three layouts (documented in ``docs/viewer.md``):

1. **Configurations**: ``{"t": [...], "q": [[...], ...]}``. Each row is a full configuration
   (``nq`` values: base xyz, base quaternion xyzw, joints in model order) or the actuated joints
   alone (``nq - 7`` values; the base stays at the default posture's pose). With an optional
   ``joint_names`` list, rows are ``7 + len(joint_names)`` (base + those joints) or
   ``len(joint_names)`` values, and the other joints keep the default posture.
2. **Simulator** (issue 3's ``humanoid-stack simulate`` output): ``t``, ``joints: {names,
   positions}`` and ``bodies: {NAME: {position: [[x, y, z], ...], quaternion: [[x, y, z, w], ...]}}``;
   the body named like the robot, its root link, ``base``, ``base_link`` or ``root_joint`` is the
   robot base, every other body is a free body (moved when the scene has a free body of that name).
   ``joints`` may be absent (a scene of free bodies only).
3. **Gait** (issue 4's ``humanoid-stack gait`` output): either the concatenated samples
   ``trajectory: {t, joint_positions, base_pose}`` with the top-level ``joint_names`` (used first
   when present; ``base_pose`` rows are ``[x, y, z, qx, qy, qz, qw]``), or
   ``phases: [{t, q, joint_names?, base?}, ...]``
   with ``joint_names`` per phase or at the top level and an optional base pose per step
   (``base``: rows ``[x, y, z, qx, qy, qz, qw]`` or ``{position, quaternion}``). Phases are
   concatenated; a phase whose times restart below the previous phase's end is shifted to follow it.

Any layout may carry ``contacts``: per recorded step a list of ``{point, normal, force}`` in the
world frame [m], [N] (``force`` a 3-vector, or a scalar magnitude along ``normal``), and ``scene`` /
``robot`` names used when the command line gives none.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pinocchio as pin

from humanoid_model.validation import finite_number, finite_rows, finite_vector, short
from humanoid_viewer.exceptions import RecordingError

BASE_BODY_NAMES = ("base", "base_link", "root_joint", "robot")


@dataclass
class Contact:
    """One recorded contact in the world frame: point [m], unit normal, force [N] (3,)."""

    point: np.ndarray
    normal: np.ndarray
    force: np.ndarray


@dataclass
class Recording:
    """A replay: N times, robot configurations, free-body poses and contacts.

    Attributes:
        t: (N,) non-decreasing times [s].
        q: (N, nq) robot configurations, or None (free bodies only).
        bodies: free-body name -> ((N, 3) positions [m], (N, 4) quaternions xyzw).
        contacts: per step a list of `Contact`, or None when the file has no ``contacts``.
        source: the file path.
        scene, robot: names given in the file (or None).
    """

    t: np.ndarray
    q: np.ndarray | None
    bodies: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    contacts: list[list[Contact]] | None = None
    source: str = ""
    scene: str | None = None
    robot: str | None = None

    def __len__(self) -> int:
        return len(self.t)

    @property
    def duration(self) -> float:
        """Last time minus first time [s]."""
        return float(self.t[-1] - self.t[0]) if len(self.t) else 0.0

    def index_at(self, time: float) -> int:
        """Index of the last recorded step at or before ``time`` (clamped to the recording)."""
        i = int(np.searchsorted(self.t, time, side="right")) - 1
        return min(max(i, 0), len(self.t) - 1)


# ---------------------------------------------------------------------- helpers
def _err(src, fieldname, msg) -> RecordingError:
    return RecordingError(f"{src}: field '{fieldname}': {msg}")


def _matrix(value, src, fieldname, width=None, rows=None) -> np.ndarray:
    """``rows`` (None: any number) rows of ``width`` finite numbers (shared wording)."""
    return finite_rows(value, width, src, fieldname, rows=rows, error=RecordingError)


def _vector(value, src, fieldname, width) -> np.ndarray:
    """``width`` finite numbers (shared wording)."""
    return finite_vector(value, width, src, fieldname, RecordingError)


def _times(value, src, fieldname="t") -> np.ndarray:
    """Non-empty, non-decreasing finite times [s]."""
    t = finite_vector(value, None, src, fieldname, RecordingError)
    if t.size == 0:
        raise _err(src, fieldname, "is empty")
    if np.any(np.diff(t) < 0):
        i = int(np.argmax(np.diff(t) < 0))
        raise _err(src, fieldname, f"times decrease at index {i + 1} ({t[i]} -> {t[i + 1]})")
    return t


def _normalise_quats(quats, src, fieldname) -> np.ndarray:
    norms = np.linalg.norm(quats, axis=1)
    if np.any(norms < 1e-9):
        raise _err(src, fieldname, f"zero quaternion at row {int(np.argmax(norms < 1e-9))}")
    return quats / norms[:, None]


def _joint_setter(robot, names: Sequence[str], src, fieldname):
    """Index arrays (idx_q of each named joint) and a flag per joint for continuous (cos, sin)."""
    model = robot.model
    idx, cont = [], []
    for name in names:
        if not isinstance(name, str) or not model.existJointName(name) or name == model.names[1]:
            raise _err(src, fieldname, f"joint '{name}' is not a joint of robot '{robot.name}'")
        j = model.joints[model.getJointId(name)]
        if j.nv != 1:
            raise _err(src, fieldname, f"joint '{name}' has {j.nv} DOF; only 1-DOF joints can be replayed")
        idx.append(j.idx_q)
        cont.append(j.nq == 2)
    return np.array(idx, dtype=int), np.array(cont, dtype=bool)


def _fill(robot, base: np.ndarray | None, joints: np.ndarray, names, src, fieldname) -> np.ndarray:
    """Full configurations (N, nq) from base rows (N, 7) or None and joint rows (N, k)."""
    idx, cont = _joint_setter(robot, names, src, fieldname)
    q0 = robot.q()
    q = np.tile(q0, (len(joints), 1))
    if base is not None:
        q[:, :3] = base[:, :3]
        q[:, 3:7] = _normalise_quats(base[:, 3:7], src, fieldname)
    simple = ~cont
    q[:, idx[simple]] = joints[:, simple]
    for k in np.flatnonzero(cont):
        q[:, idx[k]] = np.cos(joints[:, k])
        q[:, idx[k] + 1] = np.sin(joints[:, k])
    return q


def _rows_to_q(robot, rows: np.ndarray, names: Sequence[str] | None, src, fieldname) -> np.ndarray:
    """Rows of base+joints or joints only, for ``names`` (None: the model's full q or actuated joints)."""
    if names is None:
        if rows.shape[1] == robot.model.nq:
            q = rows.copy()
            q[:, 3:7] = _normalise_quats(q[:, 3:7], src, fieldname)
            return q
        names = list(robot.joint_names)
        if rows.shape[1] == len(names) and robot.model.nq == 7 + len(names):
            return _fill(robot, None, rows, names, src, fieldname)
        raise _err(
            src,
            fieldname,
            f"rows have {rows.shape[1]} values; robot '{robot.name}' needs nq = "
            f"{robot.model.nq} (base + joints) or {len(names)} (joints only)",
        )
    k = len(names)
    if rows.shape[1] == 7 + k:
        return _fill(robot, rows[:, :7], rows[:, 7:], names, src, fieldname)
    if rows.shape[1] == k:
        return _fill(robot, None, rows, names, src, fieldname)
    raise _err(
        src,
        fieldname,
        f"rows have {rows.shape[1]} values; with {k} joint_names expected {k} "
        f"(joints only) or {7 + k} (base xyz + quaternion xyzw + joints)",
    )


def _pose_rows(value, src, fieldname, n) -> tuple[np.ndarray, np.ndarray]:
    """``{position: (n, 3), quaternion: (n, 4)}`` -> (positions [m], quaternions xyzw as given)."""
    if not isinstance(value, dict):
        raise _err(src, fieldname, f"expected {{position, quaternion}}, got {short(value)}")
    for key in ("position", "quaternion"):
        if key not in value:
            raise _err(src, f"{fieldname}.{key}", "missing")
    pos = _matrix(value["position"], src, f"{fieldname}.position", 3, n)
    return pos, _matrix(value["quaternion"], src, f"{fieldname}.quaternion", 4, n)


def _base_rows(value, src, fieldname, n) -> np.ndarray:
    """Base poses (n, 7): rows ``[x, y, z, qx, qy, qz, qw]`` or ``{position, quaternion}``."""
    if isinstance(value, dict):
        return np.hstack(_pose_rows(value, src, fieldname, n))
    return _matrix(value, src, fieldname, 7, n)


def _contacts(value, src, n) -> list[list[Contact]]:
    if not isinstance(value, list) or len(value) != n:
        got = f"{len(value)} entries" if isinstance(value, list) else short(value)
        raise _err(src, "contacts", f"expected one list of contacts per recorded step ({n}), got {got}")
    out = []
    for i, step in enumerate(value):
        if not isinstance(step, list):
            raise _err(src, f"contacts[{i}]", f"expected a list of {{point, normal, force}}, got {short(step)}")
        row = []
        for j, c in enumerate(step):
            where = f"contacts[{i}][{j}]"
            if not isinstance(c, dict):
                raise _err(src, where, f"expected {{point, normal, force}}, got {short(c)}")
            for key in ("point", "force"):
                if key not in c:
                    raise _err(src, f"{where}.{key}", "missing")
            point = _vector(c["point"], src, f"{where}.point", 3)
            normal = _vector(c.get("normal", [0.0, 0.0, 1.0]), src, f"{where}.normal", 3)
            nn = np.linalg.norm(normal)
            normal = normal / nn if nn > 1e-12 else np.array([0.0, 0.0, 1.0])
            f = c["force"]
            if isinstance(f, (int, float)) and not isinstance(f, bool):
                force = finite_number(f, src, f"{where}.force", error=RecordingError) * normal
            else:
                force = _vector(f, src, f"{where}.force", 3)
            row.append(Contact(point=point, normal=normal, force=force))
        out.append(row)
    return out


def _root_link(robot) -> str | None:
    model = robot.model
    for f in model.frames:
        if f.parentJoint == 1 and f.type == pin.FrameType.BODY:
            return f.name
    return None


# ---------------------------------------------------------------------- the three layouts
def _parse_configurations(doc, robot, src):
    t = _times(doc["t"], src)
    if robot is None:
        raise _err(src, "q", "robot configurations need a robot: give ROBOT on the command line")
    rows = _matrix(doc["q"], src, "q", rows=len(t))
    names = doc.get("joint_names")
    return t, _rows_to_q(robot, rows, names, src, "q"), {}


def _parse_simulator(doc, robot, src):
    t = _times(doc["t"], src)
    n = len(t)
    bodies_doc = doc.get("bodies", {}) or {}
    if not isinstance(bodies_doc, dict):
        raise _err(src, "bodies", f"expected a mapping name -> {{position, quaternion}}, got {short(bodies_doc)}")
    bodies = {}
    for name, b in bodies_doc.items():
        pos, quat = _pose_rows(b, src, f"bodies.{name}", n)
        bodies[str(name)] = (pos, _normalise_quats(quat, src, f"bodies.{name}.quaternion"))
    q = None
    if "joints" in doc:
        joints = doc["joints"]
        if robot is None:
            raise _err(src, "joints", "joint positions need a robot: give ROBOT on the command line")
        if not isinstance(joints, dict):
            raise _err(src, "joints", f"expected {{names, positions}}, got {short(joints)}")
        for key in ("names", "positions"):
            if key not in joints:
                raise _err(src, f"joints.{key}", "missing")
        names = joints["names"]
        if not isinstance(names, list):
            raise _err(src, "joints.names", f"expected a list of joint names, got {short(names)}")
        pos = _matrix(joints["positions"], src, "joints.positions", len(names), n)
        base_name = next((k for k in (robot.name, _root_link(robot), *BASE_BODY_NAMES) if k in bodies), None)
        base = None
        if base_name is not None:
            bp, bq = bodies.pop(base_name)
            base = np.hstack([bp, bq])
        q = _fill(robot, base, pos, names, src, "joints.names")
    return t, q, bodies


def _parse_gait(doc, robot, src):
    phases = doc["phases"]
    if not isinstance(phases, list) or not phases:
        raise _err(src, "phases", f"expected a non-empty list of phases, got {short(phases)}")
    if robot is None:
        raise _err(src, "phases", "gait configurations need a robot: give ROBOT on the command line")
    ts, qs = [], []
    end = None
    for i, ph in enumerate(phases):
        where = f"phases[{i}]"
        if not isinstance(ph, dict):
            raise _err(src, where, f"expected {{t, q, joint_names}}, got {short(ph)}")
        for key in ("t", "q"):
            if key not in ph:
                raise _err(src, f"{where}.{key}", "missing")
        t = _times(ph["t"], src, f"{where}.t")
        names = ph.get("joint_names", doc.get("joint_names"))
        if names is None:
            raise _err(src, f"{where}.joint_names", "missing (give it per phase or at the top level)")
        rows = _matrix(ph["q"], src, f"{where}.q", rows=len(t))
        if "base" in ph:
            if rows.shape[1] != len(names):
                raise _err(
                    src,
                    f"{where}.q",
                    f"with a 'base' the rows hold the {len(names)} joints only, got {rows.shape[1]} values",
                )
            base = _base_rows(ph["base"], src, f"{where}.base", len(t))
            rows = np.hstack([base, rows])
        q = _rows_to_q(robot, rows, names, src, f"{where}.q")
        if end is not None and t[0] < end - 1e-12:
            t = t + (end - t[0])
        end = t[-1]
        ts.append(t)
        qs.append(q)
    return np.concatenate(ts), np.vstack(qs), {}


def _parse_gait_trajectory(doc, robot, src):
    """The gait writer's concatenated samples: ``trajectory: {t, joint_positions, base_pose}``."""
    tr = doc["trajectory"]
    if robot is None:
        raise _err(src, "trajectory", "gait configurations need a robot: give ROBOT on the command line")
    for key in ("t", "joint_positions"):
        if key not in tr:
            raise _err(src, f"trajectory.{key}", "missing")
    names = tr.get("joint_names", doc.get("joint_names"))
    if not isinstance(names, list):
        raise _err(src, "joint_names", f"missing or not a list of joint names: {short(names)}")
    t = _times(tr["t"], src, "trajectory.t")
    rows = _matrix(tr["joint_positions"], src, "trajectory.joint_positions", len(names), len(t))
    base = _base_rows(tr["base_pose"], src, "trajectory.base_pose", len(t)) if "base_pose" in tr else None
    return t, _fill(robot, base, rows, names, src, "joint_names"), {}


def parse_recording(doc, robot=None, source: str = "<recording>") -> Recording:
    """Build a `Recording` from a decoded JSON document (see the module docstring for layouts)."""
    src = source
    if not isinstance(doc, dict):
        raise RecordingError(f"{src}: expected a JSON object with 't' and configurations, got {short(doc)}")
    if isinstance(doc.get("trajectory"), dict):
        t, q, bodies = _parse_gait_trajectory(doc, robot, src)
    elif "phases" in doc:
        t, q, bodies = _parse_gait(doc, robot, src)
    elif "t" not in doc:
        raise _err(src, "t", "missing: a recording needs 't' (times [s]) plus 'q', 'joints'/'bodies' or 'phases'")
    elif "q" in doc:
        t, q, bodies = _parse_configurations(doc, robot, src)
    elif "joints" in doc or "bodies" in doc:
        t, q, bodies = _parse_simulator(doc, robot, src)
    else:
        raise _err(src, "q", "missing: give 'q' (configurations), 'joints' + 'bodies' (simulator) or 'phases' (gait)")
    contacts = _contacts(doc["contacts"], src, len(t)) if "contacts" in doc else None
    scene = doc.get("scene") if isinstance(doc.get("scene"), str) else None
    robot_name = doc.get("robot") if isinstance(doc.get("robot"), str) else None
    return Recording(t=t, q=q, bodies=bodies, contacts=contacts, source=src, scene=scene, robot=robot_name)


def read_recording_json(path) -> dict:
    """Decode a replay file; errors name the file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise RecordingError(f"{path}: cannot read the replay file ({exc.strerror})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordingError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None


def load_recording(path, robot=None) -> Recording:
    """Read and parse a replay file for ``robot`` (a `humanoid_model.Robot`, or None)."""
    return parse_recording(read_recording_json(path), robot, str(path))
