"""Recordings the viewer replays: any JSON with times ``t`` plus robot configurations.

`load_recording(path, robot)` accepts four layouts (documented in ``docs/viewer.md``):

1. **Configurations**: ``{"t": [...], "q": [[...], ...]}``. Each row is a full configuration
   (``nq`` values: base xyz, base quaternion xyzw, joints in model order) or the actuated joints
   alone (``nq - 7`` values; the base stays at the default posture's pose). With an optional
   ``joint_names`` list, rows are ``7 + len(joint_names)`` (base + those joints) or
   ``len(joint_names)`` values, and the other joints keep the default posture.
2. **Simulator** (``humanoid-stack simulate`` output): the JSON Lines recording (format /2, a
   header line, one line per frame, an end line; gathered into the /1 layout by
   `read_recording_document`, which replays a run cut off mid-way up to its last complete frame
   with a warning) or a format /1 JSON document: ``t``, ``joints: {names,
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

4. **Contact plan** (``humanoid-stack plan``'s PLAN.json, format
   `humanoid_model.contact_plan.FORMAT`, docs/planning.md): its ``trajectory`` (``t``, ``q`` rows
   of base + joints of ``joint_names``) and its ``stances`` (`Recording.stances`: contact frames,
   support polygons, witness postures and their times), read by the shared `parse_contact_plan`.

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

from humanoid_model.contact_plan import is_contact_plan, parse_contact_plan
from humanoid_model.documents import IncompleteLine, read_document, read_json_lines
from humanoid_model.validation import finite_number, finite_rows, finite_vector, short
from humanoid_viewer.exceptions import RecordingError, RecordingWarning

BASE_BODY_NAMES = ("base", "base_link", "root_joint", "robot")
# [s, m, rad, N] (chosen) every number of a replay lies within ±1e9: far beyond any time, coordinate,
# angle or force of a recording (the simulator refuses forces above 1e6 N), small enough that
# differences, norms and the browser's float32 (max 3.4e38) stay finite. 1e308 passed the finite
# check and failed later with a message naming neither the file nor the field (issue 14 §6).
REPLAY_BOUND = 1e9
STREAM_FORMAT = "humanoid_stack.sim_recording/2"  # written by humanoid_sim.runtime.recording (not imported: same layer)
HEADER_LIMIT = 1 << 20  # [bytes] (chosen) a first line longer than this is no stream header


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
        stances: a contact plan's stances (`humanoid_model.contact_plan.PlanStance`, with the
            time ``t`` of their witness postures), or None for other recordings.
        soles: FEM soles of a simulator recording: name -> (surface triangles (T, 3) vertex
            indices, (N, V, 3) world points [m] of the deformed surface per step); empty otherwise.
    """

    t: np.ndarray
    q: np.ndarray | None
    bodies: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    contacts: list[list[Contact]] | None = None
    source: str = ""
    scene: str | None = None
    robot: str | None = None
    stances: list | None = None
    soles: dict = field(default_factory=dict)

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
    return finite_rows(value, width, src, fieldname, rows=rows, error=RecordingError, bound=REPLAY_BOUND)


def _vector(value, src, fieldname, width) -> np.ndarray:
    """``width`` finite numbers (shared wording)."""
    return finite_vector(value, width, src, fieldname, RecordingError, bound=REPLAY_BOUND)


def _times(value, src, fieldname="t") -> np.ndarray:
    """Non-empty, non-decreasing finite times [s]."""
    t = finite_vector(value, None, src, fieldname, RecordingError, bound=REPLAY_BOUND)
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
    """Per named joint: its idx_q and its kind, 0 one value, 1 a continuous joint's angle (stored
    (cos, sin)), 2 a ball joint's quaternion (four values x y z w, `humanoid_model.spherical_joints`)."""
    model = robot.model
    idx, kind = [], []
    for name in names:
        if not isinstance(name, str) or not model.existJointName(name) or name == model.names[1]:
            raise _err(src, fieldname, f"joint '{name}' is not a joint of robot '{robot.name}'")
        j = model.joints[model.getJointId(name)]
        ball = j.shortname() == "JointModelSpherical"
        if j.nv != 1 and not ball:
            raise _err(src, fieldname, f"joint '{name}' has {j.nv} DOF; only 1-DOF and ball joints can be replayed")
        idx.append(j.idx_q)
        kind.append(2 if ball else int(j.nq == 2))
    return np.array(idx, dtype=int), np.array(kind, dtype=int)


def _width(robot, names, src, fieldname) -> int:
    """Values per row for the joints ``names``: one each, four for a ball joint (its quaternion)."""
    return int(sum(4 if k == 2 else 1 for k in _joint_setter(robot, names, src, fieldname)[1]))


def _fill(robot, base: np.ndarray | None, joints: np.ndarray, names, src, fieldname, base_field=None) -> np.ndarray:
    """Full configurations (N, nq) from base rows (N, 7) or None and joint rows (N, `_width`);
    ``base_field`` names the base rows in errors (default ``fieldname``)."""
    idx, kind = _joint_setter(robot, names, src, fieldname)
    q0 = robot.q()
    q = np.tile(q0, (len(joints), 1))
    if base is not None:
        q[:, :3] = base[:, :3]
        q[:, 3:7] = _normalise_quats(base[:, 3:7], src, base_field or fieldname)
    col = np.cumsum([0] + [4 if k == 2 else 1 for k in kind])
    for k, (i, c) in enumerate(zip(idx, col[:-1])):
        if kind[k] == 0:
            q[:, i] = joints[:, c]
        elif kind[k] == 1:
            q[:, i] = np.cos(joints[:, c])
            q[:, i + 1] = np.sin(joints[:, c])
        else:
            q[:, i : i + 4] = _normalise_quats(joints[:, c : c + 4], src, fieldname)
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
    k = _width(robot, names, src, fieldname)  # len(names), a ball joint counting its quaternion's four
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
                force = (
                    finite_number(f, src, f"{where}.force", -REPLAY_BOUND, REPLAY_BOUND, unit="N", error=RecordingError)
                    * normal
                )
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
        pos = _matrix(joints["positions"], src, "joints.positions", _width(robot, names, src, "joints.names"), n)
        base_name = next((k for k in (robot.name, _root_link(robot), *BASE_BODY_NAMES) if k in bodies), None)
        base = None
        if base_name is not None:
            bp, bq = bodies.pop(base_name)
            base = np.hstack([bp, bq])
        q = _fill(robot, base, pos, names, src, "joints.names", f"bodies.{base_name}.quaternion")
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
    return t, _fill(robot, base, rows, names, src, "joint_names", "trajectory.base_pose"), {}


def _parse_contact_plan(doc, robot, src) -> Recording:
    """A PLAN.json: its trajectory and stances (a plan without a motion cannot be replayed)."""
    plan = parse_contact_plan(doc, src, RecordingError)
    if not plan.success:
        raise _err(src, "success", f"false: the planner found no motion to replay ({plan.reason or 'no reason'})")
    if robot is None:
        raise _err(src, "trajectory", "robot configurations need a robot: give ROBOT on the command line")
    q = _rows_to_q(robot, plan.trajectory_q, plan.joint_names, src, "trajectory.q")
    return Recording(t=plan.trajectory_t, q=q, source=src, scene=plan.scene, robot=plan.robot, stances=plan.stances)


def parse_recording(doc, robot=None, source: str = "<recording>") -> Recording:
    """Build a `Recording` from a decoded JSON document (see the module docstring for layouts)."""
    src = source
    if not isinstance(doc, dict):
        raise RecordingError(f"{src}: expected a JSON object with 't' and configurations, got {short(doc)}")
    if is_contact_plan(doc):
        return _parse_contact_plan(doc, robot, src)
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
    # an empty list: no contacts recorded (format /1 files of `simulate --no-contacts`)
    has_contacts = "contacts" in doc and not (doc["contacts"] == [] and len(t) > 0)
    contacts = _contacts(doc["contacts"], src, len(t)) if has_contacts else None
    scene = doc.get("scene") if isinstance(doc.get("scene"), str) else None
    robot_name = doc.get("robot") if isinstance(doc.get("robot"), str) else None
    soles = _soles(doc, src, len(t)) if "soles" in doc else {}
    return Recording(t=t, q=q, bodies=bodies, contacts=contacts, source=src, scene=scene, robot=robot_name, soles=soles)


def _soles(doc, src, n) -> dict:
    """``soles`` (name -> per frame the world points of its deformed surface) with
    ``sole_triangles`` (name -> rows of vertex indices; from the stream's header): name ->
    (triangles (T, 3) int, points (N, V, 3) [m]) (docs/recording.md)."""
    frames, tris = doc["soles"], doc.get("sole_triangles")
    if not isinstance(frames, dict) or not isinstance(tris, dict):
        raise _err(src, "soles", "expected sole name -> points per frame, with the header's triangles")
    out = {}
    for name, per_frame in frames.items():
        if name not in tris:
            raise _err(src, f"soles.{name}", "has no surface triangles in the header")
        if not isinstance(per_frame, list) or len(per_frame) != n:
            raise _err(src, f"soles.{name}", f"expected {n} frames of points, got {short(per_frame)}")
        first = _matrix(per_frame[0], src, f"soles.{name}", 3)
        pts = np.array([_matrix(p, src, f"soles.{name}", 3, len(first)) for p in per_frame])
        tri = np.asarray(_matrix(tris[name], src, f"sole_triangles.{name}", 3), dtype=int)
        if tri.size and (tri.min() < 0 or tri.max() >= len(first)):
            raise _err(src, f"sole_triangles.{name}", f"vertex indices outside 0..{len(first) - 1}")
        out[str(name)] = (tri, pts)
    return out


def read_recording_document(path, warn=None) -> dict:
    """The decoded replay file ``path``: a JSON document, or a JSON Lines recording of
    ``humanoid-stack simulate`` (format /2, docs/recording.md) gathered into the layout of a /1
    document (``t``, ``bodies``, ``joints``, ``contacts``, ``stats``). Every failure is one
    `RecordingError` naming the file (and the line or field). A recording cut off mid-run (a last
    line cut short, or no end line) gives its complete frames and one message to ``warn`` (a
    callable taking the text; default: `warnings.warn` with `RecordingWarning`)."""
    path = Path(path)
    header = _stream_header(path)
    if header is None:
        return read_document(path, "replay file", RecordingError, "JSON")
    return _read_stream(path, header, warn)


def _stream_header(path: Path):
    """The header of a JSON Lines recording (its first line), or None when ``path`` is not one."""
    try:
        with open(path, "rb") as f:
            first = f.readline(HEADER_LIMIT)
    except OSError:
        return None  # read_document reports it
    try:
        header = json.loads(first.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return header if isinstance(header, dict) and header.get("format") == STREAM_FORMAT else None


def _read_stream(path: Path, header: dict, warn) -> dict:
    """A format /2 recording gathered frame by frame into the /1 layout (see read_recording_document)."""
    doc = {k: header[k] for k in ("format", "scene", "scene_name", "robot") if k in header}
    if isinstance(header.get("soles"), dict):  # FEM soles: each sole's surface triangles
        doc["sole_triangles"] = {k: v.get("triangles") for k, v in header["soles"].items() if isinstance(v, dict)}
    names = header.get("joints", {}).get("names") if isinstance(header.get("joints"), dict) else None
    columns: dict = {}
    frames, end, cut = 0, None, None
    for number, value in read_json_lines(path, "recording", RecordingError, first=2):
        if isinstance(value, IncompleteLine):
            cut = number
            break
        if end is not None:
            raise RecordingError(f"{path}: line {number}: a line after the end line (the 'stats' line {end})")
        if isinstance(value, dict) and "stats" in value and "t" not in value:
            doc["stats"], end = value["stats"], number
            continue
        if not isinstance(value, dict) or "t" not in value:
            raise RecordingError(f"{path}: line {number}: field 't': a frame needs its time 't'; got {short(value)}")
        _gather(columns, value, path, number, frames)
        frames += 1
    doc.update(columns)
    if frames == 0:
        why = f"line {cut} is cut short" if cut is not None else "the file ends"
        raise RecordingError(f"{path}: field 't': no complete frame to replay ({why}: the run was cut off early)")
    if "joints" in doc:
        if names is None:
            raise RecordingError(f"{path}: line 1: field 'joints.names': missing from the header line")
        doc["joints"] = {"names": names, **doc["joints"]}
    if cut is not None or end is None:
        t_end = f" up to t = {doc['t'][-1]:g} s" if isinstance(doc["t"][-1], (int, float)) else ""
        why = f"line {cut} is cut short" if cut is not None else "no end line"
        _warn(warn, f"{path}: {why} (the run was cut off): replaying the {frames} complete frames{t_end}")
    return doc


GATHER_DEPTH = 2  # mappings of a frame gathered key by key (bodies -> name -> field); deeper values are leaves


def _gather(columns: dict, frame: dict, path, number: int, index: int, prefix: str = "", depth: int = 0):
    """Append each leaf of ``frame`` to the list of the same key path in ``columns``; every frame
    has the keys of the first one (frame ``index``, line ``number``)."""
    if index == 0:
        for key, value in frame.items():
            if isinstance(value, dict) and depth < GATHER_DEPTH:
                columns[key] = {}
                _gather(columns[key], value, path, number, 0, f"{prefix}{key}.", depth + 1)
            else:
                columns[key] = [value]
        return
    if frame.keys() != columns.keys():
        missing = sorted(set(columns) - set(frame)) or sorted(set(frame) - set(columns))
        raise RecordingError(
            f"{path}: line {number}: field '{prefix}{missing[0]}': "
            f"{'missing' if missing[0] in columns else 'not in the first frame'}"
        )
    for key, value in frame.items():
        col = columns[key]
        if isinstance(col, dict):
            if not isinstance(value, dict):
                where = f"{path}: line {number}: field '{prefix}{key}'"
                raise RecordingError(f"{where}: expected a mapping, got {short(value)}")
            _gather(col, value, path, number, index, f"{prefix}{key}.", depth + 1)
        else:
            col.append(value)


def _warn(warn, text: str):
    if warn is not None:
        warn(text)
    else:
        import warnings

        warnings.warn(text, RecordingWarning, stacklevel=3)


def load_recording(path, robot=None, warn=None) -> Recording:
    """Read and parse a replay file for ``robot`` (a `humanoid_model.Robot`, or None); ``warn``:
    see `read_recording_document`."""
    return parse_recording(read_recording_document(path, warn), robot, str(path))
