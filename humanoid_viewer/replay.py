"""Recordings the viewer replays: any JSON with times ``t`` plus robot configurations.

`load_recording(path, robot)` accepts four layouts (documented in ``docs/viewer.md``), each read
by its format's reader in `humanoid_model.formats` (this module turns what they return into the
robot's configurations):

1. **Configurations** (`humanoid_model.formats.configurations`): ``{"t": [...], "q": [[...], ...]}``.
   Each row is a full configuration (``nq`` values: base xyz, base quaternion xyzw, joints in
   model order) or the actuated joints alone (``nq - 7`` values; the base stays at the default
   posture's pose). With an optional ``joint_names`` list, rows are ``7 + len(joint_names)``
   (base + those joints) or ``len(joint_names)`` values, and the other joints keep the default
   posture.
2. **Simulator** (``humanoid-stack simulate`` output, `humanoid_model.formats.recording`): the
   JSON Lines recording (format /2, a header line, one line per frame, an end line; gathered into
   the /1 layout by `read_recording_document`, which replays a run cut off mid-way up to its last
   complete frame with a warning) or a format /1 JSON document: ``t``, ``joints: {names,
   positions}`` and ``bodies: {NAME: {position: [[x, y, z], ...], quaternion: [[x, y, z, w], ...]}}``;
   the body named like the robot, its root link, ``base``, ``base_link`` or ``root_joint`` is the
   robot base, every other body is a free body (moved when the scene has a free body of that name).
   ``joints`` may be absent (a scene of free bodies only).
3. **Gait** (``humanoid-stack gait`` and ``humanoid-stack walk`` output,
   `humanoid_model.formats.trajectory`): either the concatenated samples ``trajectory: {t,
   joint_positions, base_pose}`` with the top-level ``joint_names`` (used first when present;
   ``base_pose`` rows are ``[x, y, z, qx, qy, qz, qw]``), or ``phases: [{t, q, joint_names?,
   base?}, ...]`` with ``joint_names`` per phase or at the top level and an optional base pose per
   step (``base``: rows ``[x, y, z, qx, qy, qz, qw]`` or ``{position, quaternion}``). Phases are
   concatenated; a phase whose times restart below the previous phase's end is shifted to follow it.
4. **Contact plan** (``humanoid-stack plan``'s PLAN.json, `humanoid_model.formats.plan`,
   docs/planning.md): its ``trajectory`` (``t``, ``q`` rows of base + joints of ``joint_names``)
   and its ``stances`` (`Recording.stances`: contact frames, support polygons, witness postures
   and their times). A simulator recording of an executed plan (``humanoid-stack execute``) carries
   the plan's stances too (its header's ``plan``), drawn the same way at their times in the run.

Any layout may carry ``contacts``: per recorded step a list of ``{point, normal, force}`` in the
world frame [m], [N] (``force`` a 3-vector, or a scalar magnitude along ``normal``), and ``scene`` /
``robot`` names used when the command line gives none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from humanoid_model.formats import fields
from humanoid_model.formats.configurations import parse_configurations
from humanoid_model.formats.detect import document_kind, read_format_file
from humanoid_model.formats.plan import parse_contact_plan
from humanoid_model.formats.recording import RecordedContact, parse_recording_document, read_contacts, read_soles
from humanoid_model.formats.trajectory import parse_phases, parse_trajectory, unconverged_phases
from humanoid_model.validation import short
from humanoid_viewer.exceptions import RecordingError, RecordingWarning

BASE_BODY_NAMES = ("base", "base_link", "root_joint", "robot")


def _duration(t) -> float:
    return float(t[-1] - t[0]) if len(t) else 0.0


def index_at(t, time: float) -> int:
    """Index of the last of the times ``t`` at or before ``time`` [s] (clamped to them): the frame a
    replay shows at ``time`` (`Recording` and `humanoid_viewer.bag_replay.BagRecording`)."""
    i = int(np.searchsorted(t, time, side="right")) - 1
    return min(max(i, 0), len(t) - 1)


@dataclass
class Recording:
    """A replay: N times, robot configurations, free-body poses and contacts.

    Attributes:
        t: (N,) non-decreasing times [s].
        q: (N, nq) robot configurations, or None (free bodies only).
        bodies: free-body name -> ((N, 3) positions [m], (N, 4) quaternions xyzw).
        contacts: per step a list of `RecordedContact`, or None when the file has no ``contacts``.
        source: the file path.
        scene, robot: names given in the file (or None).
        stances: a contact plan's stances (`humanoid_model.formats.plan.PlanStance`, with the
            time ``t`` of their witness postures), the planned stances of a simulator recording of
            an executed plan (header field ``plan``: their times on the run's clock, no witness
            postures), or None for other recordings.
        soles: FEM soles of a simulator recording: name -> (surface triangles (T, 3) vertex
            indices, (N, V, 3) world points [m] of the deformed surface per step); empty otherwise.
    """

    t: np.ndarray
    q: np.ndarray | None
    bodies: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    contacts: list[list[RecordedContact]] | None = None
    source: str = ""
    scene: str | None = None
    robot: str | None = None
    stances: list | None = None
    soles: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.t)

    duration = property(lambda self: _duration(self.t), doc="Last time minus first time [s].")

    def index_at(self, time: float) -> int:
        """Index of the last recorded step at or before ``time`` (clamped to the recording)."""
        return index_at(self.t, time)

    @property
    def nq(self) -> int | None:
        """Values per robot configuration, or None (free bodies only)."""
        return None if self.q is None else int(self.q.shape[1])

    def frame(self, i: int):
        """(q (nq,) or None, free bodies name -> (position, quaternion xyzw), contacts (a list of
        `RecordedContact`, or None when not recorded), soles name -> (triangles, points)) of step
        ``i``: what the replay player draws (`humanoid_viewer.bag_replay.BagRecording` has the same)."""
        return (
            None if self.q is None else self.q[i],
            {name: (pos[i], quat[i]) for name, (pos, quat) in self.bodies.items()},
            None if self.contacts is None else self.contacts[i],
            {name: (tri, pts[i]) for name, (tri, pts) in self.soles.items()},
        )


# ---------------------------------------------------------------------- robot configurations
def _err(src, fieldname, msg) -> RecordingError:
    return RecordingError(f"{src}: field '{fieldname}': {msg}")


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


def _unit(quats, src, fieldname) -> np.ndarray:
    return fields.unit_quaternions(quats, src, fieldname, RecordingError)


def _fill(robot, base: np.ndarray | None, joints: np.ndarray, names, src, fieldname, base_field=None) -> np.ndarray:
    """Full configurations (N, nq) from base rows (N, 7) or None and joint rows (N, `_width`);
    ``base_field`` names the base rows in errors (default ``fieldname``)."""
    idx, kind = _joint_setter(robot, names, src, fieldname)
    q0 = robot.q()
    q = np.tile(q0, (len(joints), 1))
    if base is not None:
        q[:, :3] = base[:, :3]
        q[:, 3:7] = _unit(base[:, 3:7], src, base_field or fieldname)
    col = np.cumsum([0] + [4 if k == 2 else 1 for k in kind])
    for k, (i, c) in enumerate(zip(idx, col[:-1])):
        if kind[k] == 0:
            q[:, i] = joints[:, c]
        elif kind[k] == 1:
            q[:, i] = np.cos(joints[:, c])
            q[:, i + 1] = np.sin(joints[:, c])
        else:
            q[:, i : i + 4] = _unit(joints[:, c : c + 4], src, fieldname)
    return q


def _rows_to_q(robot, rows: np.ndarray, names: Sequence[str] | None, src, fieldname) -> np.ndarray:
    """Rows of base+joints or joints only, for ``names`` (None: the model's full q or actuated joints)."""
    if names is None:
        if rows.shape[1] == robot.model.nq:
            q = rows.copy()
            q[:, 3:7] = _unit(q[:, 3:7], src, fieldname)
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


def _root_link(robot) -> str | None:
    model = robot.model
    for f in model.frames:
        if f.parentJoint == 1 and f.type == pin.FrameType.BODY:
            return f.name
    return None


def _need_robot(robot, src, fieldname, what):
    if robot is None:
        raise _err(src, fieldname, f"{what} need a robot: give ROBOT on the command line")


# ---------------------------------------------------------------------- the layouts
def _from_configurations(doc, robot, src):
    conf = parse_configurations(doc, src, RecordingError)
    _need_robot(robot, src, "q", "robot configurations")
    return conf.t, _rows_to_q(robot, conf.q, conf.joint_names, src, "q")


def _from_simulator(doc, robot, src):
    """(t, q or None, free bodies, contacts, soles, planned stances or None) of a simulator
    recording (/1 layout); the stances are an executed contact plan's (header field ``plan``)."""
    rec = parse_recording_document(doc, src, RecordingError)
    bodies, q = dict(rec.bodies), None
    if rec.joint_names is not None:
        _need_robot(robot, src, "joints", "joint positions")
        names, n = rec.joint_names, len(rec.t)
        width = _width(robot, names, src, "joints.names")
        pos = fields.rows(rec.joint_positions, src, "joints.positions", RecordingError, width, n)
        base_name = next((k for k in (robot.name, _root_link(robot), *BASE_BODY_NAMES) if k in bodies), None)
        base = None
        if base_name is not None:
            bp, bq = bodies.pop(base_name)
            base = np.hstack([bp, bq])
        q = _fill(robot, base, pos, names, src, "joints.names", f"bodies.{base_name}.quaternion")
    return rec.t, q, bodies, rec.contacts, rec.soles, rec.plan.stances if rec.plan is not None else None


def _from_phases(doc, robot, src):
    phases = parse_phases(doc, src, RecordingError)
    _need_robot(robot, src, "phases", "gait configurations")
    qs = []
    for i, ph in enumerate(phases):
        rows = ph.q if ph.base is None else np.hstack([ph.base, ph.q])
        qs.append(_rows_to_q(robot, rows, ph.joint_names, src, f"phases[{i}].q"))
    return np.concatenate([ph.t for ph in phases]), np.vstack(qs)


def _from_trajectory(doc, robot, src):
    """The gait writer's concatenated samples: ``trajectory: {t, joint_positions, base_pose}``."""
    tr = parse_trajectory(doc, src, RecordingError)
    _need_robot(robot, src, "trajectory", "gait configurations")
    q = _fill(robot, tr.base_pose, tr.joint_positions, tr.joint_names, src, "joint_names", "trajectory.base_pose")
    return tr.t, q


def _from_contact_plan(doc, robot, src) -> Recording:
    """A PLAN.json: its trajectory and stances (a plan without a motion cannot be replayed)."""
    plan = parse_contact_plan(doc, src, RecordingError)
    if not plan.success:
        raise _err(src, "success", f"false: the planner found no motion to replay ({plan.reason or 'no reason'})")
    _need_robot(robot, src, "trajectory", "robot configurations")
    q = _rows_to_q(robot, plan.trajectory_q, plan.joint_names, src, "trajectory.q")
    return Recording(t=plan.trajectory_t, q=q, source=src, scene=plan.scene, robot=plan.robot, stances=plan.stances)


def parse_recording(doc, robot=None, source: str = "<recording>") -> Recording:
    """Build a `Recording` from a decoded JSON document (see the module docstring for layouts)."""
    src = source
    if not isinstance(doc, dict):
        raise RecordingError(f"{src}: expected a JSON object with 't' and configurations, got {short(doc)}")
    kind = document_kind(doc)
    if kind == "plan":
        return _from_contact_plan(doc, robot, src)
    bodies, contacts, soles, stances = {}, None, None, None
    if kind == "trajectory":
        t, q = _from_trajectory(doc, robot, src)
    elif kind == "phases":
        t, q = _from_phases(doc, robot, src)
    elif "t" not in doc:
        raise _err(src, "t", "missing: a recording needs 't' (times [s]) plus 'q', 'joints'/'bodies' or 'phases'")
    elif kind == "configurations":
        t, q = _from_configurations(doc, robot, src)
    elif kind == "recording":
        t, q, bodies, contacts, soles, stances = _from_simulator(doc, robot, src)
    else:
        raise _err(src, "q", "missing: give 'q' (configurations), 'joints' + 'bodies' (simulator) or 'phases' (gait)")
    if kind != "recording":  # any layout may carry contacts and soles
        contacts = read_contacts(doc, src, len(t), RecordingError)
        soles = read_soles(doc, src, len(t), RecordingError)
    scene = doc.get("scene") if isinstance(doc.get("scene"), str) else None
    robot_name = doc.get("robot") if isinstance(doc.get("robot"), str) else None
    return Recording(
        t=t,
        q=q,
        bodies=bodies,
        contacts=contacts,
        source=src,
        scene=scene,
        robot=robot_name,
        stances=stances,
        soles=soles,
    )


def read_recording_document(path, warn=None) -> dict:
    """The decoded replay file ``path``: a JSON document, or a JSON Lines recording of
    ``humanoid-stack simulate`` (format /2, docs/recording.md) gathered into the layout of a /1
    document (``t``, ``bodies``, ``joints``, ``contacts``, ``stats``) by
    `humanoid_model.formats.recording.read_recording_stream`. Every failure is one
    `RecordingError` naming the file (and the line or field). A recording cut off mid-run (a last
    line cut short, or no end line) gives its complete frames and one message to ``warn`` (a
    callable taking the text; default: `warnings.warn` with `RecordingWarning`); so does a gait
    with a phase its solver did not converge on (`humanoid_model.formats.trajectory.unconverged_phases`)."""
    doc, stream = read_format_file(path, "replay file", RecordingError)
    if stream is not None and not stream.complete:
        t_end = f" up to t = {doc['t'][-1]:g} s" if isinstance(doc["t"][-1], (int, float)) else ""
        why = f"line {stream.cut} is cut short" if stream.cut is not None else "no end line"
        _warn(warn, f"{path}: {why} (the run was cut off): replaying the {stream.frames} complete frames{t_end}")
    bad = unconverged_phases(doc, str(path), RecordingError) if stream is None else []
    if bad:
        names = ", ".join(name for _, name in bad)
        _warn(
            warn,
            f"{path}: the gait solver did not converge on {names}: replaying its last iterate there, not a solved "
            "gait (the robot bridge refuses this file unless allow_unconverged_gait)",
        )
    return doc


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
