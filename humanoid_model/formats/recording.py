"""The simulator recording (``humanoid-stack simulate --output RUN.jsonl``, docs/recording.md):
its format name, its writer and its reader.

Format /2 (`FORMAT`) is a JSON Lines stream: a header line, one line per recorded frame, an end
line with the run's statistics. Format /1 (the older format, still read; held in memory until the
end of the run) is one JSON object of the same data gathered per field: ``t``, ``bodies.NAME.position``, ...,
``joints: {names, positions, ...}``, ``contacts``, ``stats`` (one list entry per frame).

    with RecordingWriter(path) as out:          # the simulator's `humanoid_sim.runtime.recording.Recorder`
        out.write_header(scene=..., scene_name=..., robot=..., dt=..., record_every=..., contacts=True,
                         plan=plan_field("PLAN.json", stances))   # optional: an executed plan's stances
        out.write_frame(t, bodies, joints, contacts)
        out.write_end(stats)

    header = recording_stream_header(path)      # None: not a stream (a JSON document)
    stream = read_recording_stream(path, RecordingError)   # gathered into the /1 layout
    rec = parse_recording_document(stream.doc, str(path), RecordingError)
    rec.plan.stances if rec.plan is not None else None          # the planned stances (`PlanStance`)

Every malformed field or line raises the caller's error class with one line naming the file and
the field (or the line), the wording of `humanoid_model.formats.fields`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from humanoid_model.documents import IncompleteLine, read_json_lines
from humanoid_model.exceptions import ConfigError
from humanoid_model.files import open_input
from humanoid_model.formats import fields
from humanoid_model.formats.plan import PlanStance, parse_stance
from humanoid_model.validation import finite_number, short

__all__ = [
    "FORMAT",
    "FLUSH_PERIOD",
    "HEADER_LIMIT",
    "RecordingWriter",
    "RecordingStream",
    "RecordedContact",
    "RecordingDocument",
    "RecordedPlan",
    "plan_field",
    "recording_stream_header",
    "check_recording_version",
    "DOCUMENT_FORMAT",
    "read_recording_stream",
    "parse_recording_document",
    "read_contacts",
    "read_soles",
    "read_plan",
    "is_recording_document",
]

FAMILY = "humanoid_stack.sim_recording/"  # the name of every version of the format, before its number
FORMAT = FAMILY + "2"  # the JSON Lines stream written here
DOCUMENT_FORMAT = FAMILY + "1"  # the older one JSON document, kept in memory until the end (still read)
# [s wall clock] (chosen) longest time a frame waits in the write buffer: a killed run loses at most
# the frames of this last second
FLUSH_PERIOD = 1.0
HEADER_LIMIT = 1 << 20  # [bytes] (chosen) a first line longer than this is no stream header
GATHER_DEPTH = 2  # mappings of a frame gathered key by key (bodies -> name -> field); deeper values are leaves


# ---------------------------------------------------------------------- writer
def _r(x, nd=9):
    return np.round(np.asarray(x, float), nd).tolist()


def _rounded(v):
    """A contact entry's value rounded like the body states (lists to 1e-9, numbers to 1e-12)."""
    return _r(v) if isinstance(v, list) else (round(v, 12) if isinstance(v, float) else v)


class RecordingWriter:
    """Writes the JSON Lines recording ``path`` line by line: the header, the frames (positions and
    velocities rounded to 1e-9, quaternions and times to 1e-12, torques to 1e-6), the end line.
    The folder must exist (none is created on the user's behalf, as `humanoid_model.files`). The
    write buffer is flushed at least every `FLUSH_PERIOD` seconds of wall time, so a run cut off
    leaves a file that reads up to its last complete line; a stream is not written atomically, so
    a reader tells a cut-off run by its missing end line (or a last line cut short), never by the
    file's presence. A failure to write (or a non-finite value) raises ``error`` naming the field
    'output'."""

    def __init__(self, path, error=ConfigError):
        self.path, self._error_class = Path(path), error
        folder = self.path.parent if str(self.path.parent) else Path(".")
        if not folder.is_dir():
            raise self._error(f"folder {str(folder)!r} does not exist (create it first)")
        try:
            self._file = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 (closed by close())
        except OSError as exc:
            raise self._error(exc) from None
        self._flushed = time.monotonic()

    def _error(self, exc):
        return self._error_class(f"recording: cannot write field 'output' = {str(self.path)!r}: {exc}")

    def _write(self, obj):
        try:
            self._file.write(json.dumps(obj, allow_nan=False) + "\n")
            now = time.monotonic()
            if now - self._flushed >= FLUSH_PERIOD:
                self._file.flush()
                self._flushed = now
        except (OSError, ValueError) as exc:  # ValueError: a non-finite value (allow_nan=False)
            raise self._error(exc) from None

    def write_header(
        self, *, scene, scene_name, robot, dt, record_every, contacts: bool, joint_names=None, soles=None, plan=None
    ) -> None:
        """The header line: the scene file (or name) and its name, the robot's name (None: free
        bodies only), ``dt`` [s], ``record_every``, whether frames hold ``contacts``, the actuated
        ``joint_names`` (with a robot), the FEM ``soles`` (name -> {body, triangles}) and the
        ``plan``: an executed contact plan's stances (`plan_field`; None: no plan)."""
        header = {
            "format": FORMAT,
            "scene": scene,
            "scene_name": scene_name,
            "robot": robot,
            "dt": dt,
            "record_every": record_every,
            "contacts": bool(contacts),
        }
        if joint_names:
            header["joints"] = {"names": list(joint_names)}
        if soles is not None:
            header["soles"] = soles
        if plan is not None:
            header["plan"] = plan
        self._write(header)

    def write_frame(self, t, bodies: dict, joints=None, contacts=None, soles=None) -> None:
        """One frame line: time ``t`` [s]; ``bodies`` name -> (position, quaternion xyzw, linear
        velocity, angular velocity); ``joints`` (positions, velocities, torques) or None;
        ``contacts`` a list of {body_a, body_b, point, normal, force, gap} or None (not recorded);
        ``soles`` name -> world points (V, 3) [m] of the deformed surface, or None."""
        frame = {"t": round(float(t), 12)}
        frame["bodies"] = {
            name: {
                "position": _r(p),
                "quaternion": _r(quat, 12),
                "linear_velocity": _r(v),
                "angular_velocity": _r(w),
            }
            for name, (p, quat, v, w) in bodies.items()
        }
        if joints is not None:
            positions, velocities, torques = joints
            frame["joints"] = {"positions": _r(positions), "velocities": _r(velocities), "torques": _r(torques, 6)}
        if contacts is not None:
            frame["contacts"] = [{k: _rounded(v) for k, v in c.items()} for c in contacts]
        if soles is not None:
            frame["soles"] = {k: _r(v) for k, v in soles.items()}
        self._write(frame)

    def write_end(self, stats: dict) -> None:
        """The end line ``{"stats": ...}`` of a run that completed (docs/recording.md)."""
        self._write({"stats": stats})

    def flush(self) -> None:
        try:
            self._file.flush()
        except OSError as exc:
            raise self._error(exc) from None
        self._flushed = time.monotonic()

    @property
    def closed(self) -> bool:
        return self._file.closed

    def close(self) -> None:
        """Close the file (closing twice does nothing)."""
        if self._file.closed:
            return
        try:
            self._file.close()
        except OSError as exc:
            raise self._error(exc) from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def plan_field(source, stances) -> dict:
    """The header's ``plan`` field (docs/recording.md) of the plan file ``source`` and its
    ``stances`` (`humanoid_model.formats.plan.PlanStance`), each at its time ``t`` [s] on the
    recording's clock (None: not known): ``{source, stances: [{t, kind, changed, contacts:
    [{location, surface, position, quaternion, hull}], support_polygon}]}`` in the world frame
    [m], the PLAN.json stance layout without the witness postures; positions rounded to 1e-9,
    quaternions and times to 1e-12."""
    return {
        "source": str(source),
        "stances": [
            {
                "t": None if s.t is None else round(float(s.t), 12),
                "kind": s.kind,
                "changed": s.changed,
                "contacts": [
                    {
                        "location": c.location,
                        "surface": c.surface,
                        "position": _r(c.position),
                        "quaternion": _r(c.quaternion, 12),
                        "hull": _r(c.hull),
                    }
                    for c in s.contacts
                ],
                "support_polygon": _r(s.support_polygon),
            }
            for s in stances
        ],
    }


# ---------------------------------------------------------------------- reader: the stream
@dataclass
class RecordingStream:
    """A format /2 recording read back: ``doc`` its frames gathered into the /1 layout (with the
    header's ``format``, ``scene``, ``scene_name``, ``robot``, ``plan``, ``joints.names`` and the
    soles' ``sole_triangles``, and ``stats`` from the end line), ``frames`` the number of complete
    frames, ``cut`` the number of a last line cut short (None: none) and ``end`` the end line's
    number (None: no end line). A run cut off mid-way has ``cut`` or no ``end``."""

    doc: dict
    frames: int
    cut: int | None = None
    end: int | None = None

    @property
    def complete(self) -> bool:
        return self.cut is None and self.end is not None


class _NotRead(Exception):
    """A file `recording_stream_header` could not open as a regular file (the document reader reports why)."""


def _first_line_object(path) -> dict | None:
    """The first line of ``path`` decoded as a JSON object, or None (not one, or unreadable: the
    JSON document reader reports that)."""
    try:
        with open_input(path, "recording", _NotRead, limit=None) as f:
            first = f.readline(HEADER_LIMIT)
    except (OSError, _NotRead):
        return None
    try:
        header = json.loads(first.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return header if isinstance(header, dict) else None


def recording_stream_header(path) -> dict | None:
    """The header of the JSON Lines recording ``path`` (its first line), or None when ``path`` is
    not one (or cannot be read: the JSON document reader reports that)."""
    header = _first_line_object(path)
    return header if header is not None and header.get("format") == FORMAT else None


def check_recording_version(path, error) -> None:
    """``error`` when the first line of ``path`` names a simulator recording format of another
    version than the ones read here (`FORMAT`, the stream; `DOCUMENT_FORMAT`, the /1 document):
    the message names it and the known ones, instead of the JSON reader's "not valid JSON" on a
    stream of lines."""
    header = _first_line_object(path)
    fmt = header.get("format") if header is not None else None
    if isinstance(fmt, str) and fmt.startswith(FAMILY) and fmt not in (FORMAT, DOCUMENT_FORMAT):
        raise error(
            f"{path}: line 1: field 'format': recording format {short(fmt)} is not one this version reads "
            f"(it reads {FORMAT!r}, JSON Lines, and {DOCUMENT_FORMAT!r}, one JSON document): "
            "a recording of another version of humanoid-stack"
        )


def read_recording_stream(
    path, error, header: dict | None = None, keys: Collection[str] | None = None
) -> RecordingStream:
    """The format /2 recording ``path`` gathered frame by frame (`RecordingStream`); ``keys``: the
    frame fields to gather besides ``t`` (None: all). ``error`` for a line that is not JSON, a
    frame without ``t``, a frame whose fields differ from the first one's, a line after the end
    line, a header without the joint names its frames need, or no complete frame at all."""
    path = Path(path)
    header = recording_stream_header(path) if header is None else header
    if header is None:
        raise error(f"{path}: line 1: not a recording header (format {FORMAT!r})")
    doc = {k: header[k] for k in ("format", "scene", "scene_name", "robot", "plan") if k in header}
    if isinstance(header.get("soles"), dict):  # FEM soles: each sole's surface triangles
        doc["sole_triangles"] = {k: v.get("triangles") for k, v in header["soles"].items() if isinstance(v, dict)}
    names = header.get("joints", {}).get("names") if isinstance(header.get("joints"), dict) else None
    columns: dict = {}
    frames, end, cut = 0, None, None
    for number, value in read_json_lines(path, "recording", error, first=2):
        if isinstance(value, IncompleteLine):
            cut = number
            break
        if end is not None:
            raise error(f"{path}: line {number}: a line after the end line (the 'stats' line {end})")
        if isinstance(value, dict) and "stats" in value and "t" not in value:
            doc["stats"], end = value["stats"], number
            continue
        if not isinstance(value, dict) or "t" not in value:
            raise error(f"{path}: line {number}: field 't': a frame needs its time 't'; got {short(value)}")
        if keys is not None:
            value = {k: v for k, v in value.items() if k == "t" or k in keys}
        _gather(columns, value, path, number, frames, error)
        frames += 1
    doc.update(columns)
    if frames == 0:
        why = f"line {cut} is cut short" if cut is not None else "the file ends"
        raise error(f"{path}: field 't': no complete frame to replay ({why}: the run was cut off early)")
    if "joints" in doc:
        if names is None:
            raise error(f"{path}: line 1: field 'joints.names': missing from the header line")
        doc["joints"] = {"names": names, **doc["joints"]}
    return RecordingStream(doc, frames, cut, end)


def _gather(columns: dict, frame: dict, path, number: int, index: int, error, prefix: str = "", depth: int = 0):
    """Append each leaf of ``frame`` to the list of the same key path in ``columns``; every frame
    has the keys of the first one (frame ``index``, line ``number``)."""
    if index == 0:
        for key, value in frame.items():
            if isinstance(value, dict) and depth < GATHER_DEPTH:
                columns[key] = {}
                _gather(columns[key], value, path, number, 0, error, f"{prefix}{key}.", depth + 1)
            else:
                columns[key] = [value]
        return
    if frame.keys() != columns.keys():
        missing = sorted(set(columns) - set(frame)) or sorted(set(frame) - set(columns))
        raise error(
            f"{path}: line {number}: field '{prefix}{missing[0]}': "
            f"{'missing' if missing[0] in columns else 'not in the first frame'}"
        )
    for key, value in frame.items():
        col = columns[key]
        if isinstance(col, dict):
            if not isinstance(value, dict):
                raise error(f"{path}: line {number}: field '{prefix}{key}': expected a mapping, got {short(value)}")
            _gather(col, value, path, number, index, error, f"{prefix}{key}.", depth + 1)
        else:
            col.append(value)


# ---------------------------------------------------------------------- reader: the /1 layout
@dataclass
class RecordedContact:
    """One recorded contact in the world frame: point [m], unit normal, force [N] (3,)."""

    point: np.ndarray
    normal: np.ndarray
    force: np.ndarray


@dataclass
class RecordedPlan:
    """The contact plan a recording executes (the header's ``plan``): its file ``source`` and its
    ``stances`` (`humanoid_model.formats.plan.PlanStance` without witness postures, each ``t`` [s]
    on the recording's clock, or None)."""

    source: str
    stances: list[PlanStance]


@dataclass
class RecordingDocument:
    """A recording in the /1 layout, checked: ``t`` (N,) non-decreasing times [s]; ``bodies`` name
    -> ((N, 3) positions [m], (N, 4) unit quaternions xyzw), the robot base among them under the
    robot's name; ``joint_names`` and ``joint_positions`` (N, columns: one per joint, four for a
    ball joint's quaternion) or None (free bodies only); ``contacts`` per frame a list of
    `RecordedContact` or None (not recorded); ``soles`` name -> (triangles (T, 3), points (N, V, 3) [m]);
    ``plan`` an executed contact plan's stances (`RecordedPlan`) or None; ``scene``, ``robot`` the
    names given (or None); ``stats`` the end line's (or None)."""

    t: np.ndarray
    bodies: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    joint_names: list[str] | None = None
    joint_positions: np.ndarray | None = None
    contacts: list[list[RecordedContact]] | None = None
    soles: dict = field(default_factory=dict)
    plan: RecordedPlan | None = None
    scene: str | None = None
    robot: str | None = None
    stats: dict | None = None


def is_recording_document(doc) -> bool:
    """Whether the decoded JSON document ``doc`` has the recording's /1 layout (``t`` with
    ``joints`` or ``bodies``)."""
    return isinstance(doc, dict) and "t" in doc and ("joints" in doc or "bodies" in doc)


def parse_recording_document(doc: dict, src, error, keys: Collection[str] | None = None) -> RecordingDocument:
    """The checked `RecordingDocument` of ``doc`` (the /1 layout, a gathered stream's too) read from
    ``src``; ``keys``: the fields to read besides ``t`` (None: all of ``bodies``, ``joints``,
    ``contacts``, ``soles``, ``plan``)."""

    def wanted(key):
        return key in doc and (keys is None or key in keys)

    t = fields.times(doc["t"], src, "t", error)
    n = len(t)
    out = RecordingDocument(t=t)
    if wanted("bodies"):
        bodies_doc = doc["bodies"] or {}
        if not isinstance(bodies_doc, dict):
            why = f"expected a mapping name -> {{position, quaternion}}, got {short(bodies_doc)}"
            fields.fail(error, src, "bodies", why)
        for name, b in bodies_doc.items():
            pos, quat = fields.pose_rows(b, src, f"bodies.{name}", n, error)
            out.bodies[str(name)] = (pos, fields.unit_quaternions(quat, src, f"bodies.{name}.quaternion", error))
    if wanted("joints"):
        joints = doc["joints"]
        if not isinstance(joints, dict):
            fields.fail(error, src, "joints", f"expected {{names, positions}}, got {short(joints)}")
        fields.require(joints, ("names", "positions"), src, "joints.", error)
        out.joint_names = fields.joint_names(joints["names"], src, "joints.names", error)
        out.joint_positions = fields.rows(joints["positions"], src, "joints.positions", error, n=n)
    if keys is None or "contacts" in keys:
        out.contacts = read_contacts(doc, src, n, error)
    if keys is None or "soles" in keys:
        out.soles = read_soles(doc, src, n, error)
    if keys is None or "plan" in keys:
        out.plan = read_plan(doc, src, error)
    out.scene = doc.get("scene") if isinstance(doc.get("scene"), str) else None
    out.robot = doc.get("robot") if isinstance(doc.get("robot"), str) else None
    out.stats = doc.get("stats") if isinstance(doc.get("stats"), dict) else None
    return out


def read_contacts(doc: dict, src, n: int, error) -> list[list[RecordedContact]] | None:
    """The ``contacts`` of ``doc`` (any replay layout may carry them): per frame (``n``) a list of
    ``{point, normal?, force}`` in the world frame [m], [N], ``force`` a 3-vector or a scalar
    magnitude along the (unit) normal (default +z); None when absent or ``[]`` (no contacts
    recorded: the format /1 files of `simulate --no-contacts`)."""
    if "contacts" not in doc or (doc["contacts"] == [] and n > 0):
        return None
    value = doc["contacts"]
    if not isinstance(value, list) or len(value) != n:
        got = f"{len(value)} entries" if isinstance(value, list) else short(value)
        fields.fail(error, src, "contacts", f"expected one list of contacts per recorded step ({n}), got {got}")
    out = []
    for i, step in enumerate(value):
        if not isinstance(step, list):
            fields.fail(error, src, f"contacts[{i}]", f"expected a list of {{point, normal, force}}, got {short(step)}")
        row = []
        for j, c in enumerate(step):
            where = f"contacts[{i}][{j}]"
            if not isinstance(c, dict):
                fields.fail(error, src, where, f"expected {{point, normal, force}}, got {short(c)}")
            fields.require(c, ("point", "force"), src, f"{where}.", error)
            point = fields.vector(c["point"], src, f"{where}.point", 3, error)
            normal = fields.vector(c.get("normal", [0.0, 0.0, 1.0]), src, f"{where}.normal", 3, error)
            nn = np.linalg.norm(normal)
            normal = normal / nn if nn > 1e-12 else np.array([0.0, 0.0, 1.0])
            f = c["force"]
            if isinstance(f, (int, float)) and not isinstance(f, bool):
                bound = fields.BOUND
                force = finite_number(f, src, f"{where}.force", -bound, bound, unit="N", error=error) * normal
            else:
                force = fields.vector(f, src, f"{where}.force", 3, error)
            row.append(RecordedContact(point=point, normal=normal, force=force))
        out.append(row)
    return out


def read_soles(doc: dict, src, n: int, error) -> dict:
    """The FEM soles of ``doc``: ``soles`` (name -> per frame the world points of its deformed
    surface) with ``sole_triangles`` (name -> rows of vertex indices; from the stream's header):
    name -> (triangles (T, 3) int, points (N, V, 3) [m]) (docs/recording.md); {} when absent."""
    if "soles" not in doc:
        return {}
    frames, tris = doc["soles"], doc.get("sole_triangles")
    if not isinstance(frames, dict) or not isinstance(tris, dict):
        fields.fail(error, src, "soles", "expected sole name -> points per frame, with the header's triangles")
    out = {}
    for name, per_frame in frames.items():
        if name not in tris:
            fields.fail(error, src, f"soles.{name}", "has no surface triangles in the header")
        if not isinstance(per_frame, list) or len(per_frame) != n:
            fields.fail(error, src, f"soles.{name}", f"expected {n} frames of points, got {short(per_frame)}")
        first = fields.rows(per_frame[0], src, f"soles.{name}", error, 3)
        pts = np.array([fields.rows(p, src, f"soles.{name}", error, 3, len(first)) for p in per_frame])
        tri = np.asarray(fields.rows(tris[name], src, f"sole_triangles.{name}", error, 3), dtype=int)
        if tri.size and (tri.min() < 0 or tri.max() >= len(first)):
            fields.fail(error, src, f"sole_triangles.{name}", f"vertex indices outside 0..{len(first) - 1}")
        out[str(name)] = (tri, pts)
    return out


def read_plan(doc: dict, src, error) -> RecordedPlan | None:
    """The ``plan`` of ``doc`` (`plan_field`'s layout, docs/recording.md) checked: ``source`` a
    string, ``stances`` a list of stances (`humanoid_model.formats.plan.parse_stance`: contacts
    with their location, surface, position, quaternion and hull, the support polygon, the time),
    their times non-decreasing; None when absent."""
    if "plan" not in doc:
        return None
    value = doc["plan"]
    if not isinstance(value, dict):
        fields.fail(error, src, "plan", f"expected {{source, stances}}, got {short(value)}")
    fields.require(value, ("stances",), src, "plan.", error)
    source = value.get("source", "")
    if not isinstance(source, str):
        fields.fail(error, src, "plan.source", f"expected the plan file's name, got {short(source)}")
    if not isinstance(value["stances"], list):
        fields.fail(error, src, "plan.stances", f"expected a list of stances, got {short(value['stances'])}")
    stances = [parse_stance(s, src, f"plan.stances[{i}]", error) for i, s in enumerate(value["stances"])]
    timed = [(i, s.t) for i, s in enumerate(stances) if s.t is not None]
    for (_, t0), (i, t1) in zip(timed, timed[1:]):
        if t1 < t0:
            fields.fail(error, src, f"plan.stances[{i}].t", f"times decrease ({t0} -> {t1})")
    return RecordedPlan(source, stances)
