"""Plan files the bridge executes, read into a `Trajectory` of the robot's joints.

* **GAIT.json** (``humanoid-stack gait``): ``joint_names`` and ``trajectory: {t, joint_positions,
  base_pose}`` (docs/gait.md); or ``phases: [{t, q, joint_names?, base?}]`` with joint rows
  (phases whose times restart are shifted to follow the previous one, a repeated junction sample
  is dropped).
* **Simulator recordings** (``humanoid-stack simulate --output``): the JSON Lines stream (format /2,
  docs/recording.md: header with ``joints.names``, one frame per line with ``t`` and
  ``joints.positions``) or a format /1 document (``t``, ``joints: {names, positions}``). A run cut
  off mid-way gives its complete frames. The recorded velocities are measurements, not
  commands: only positions are read (linear interpolation).
* **Configurations** ``{"t", "q", "joint_names"?}`` (the viewer's first layout): rows of the robot's
  ``nq`` values (base then joints) or of the joints alone.
* **PLAN.json** (``humanoid-stack plan``, format `humanoid_model.contact_plan.FORMAT`,
  docs/planning.md): its ``trajectory`` (``t``, ``q`` rows of base + joints, ``joint_names``),
  read by the shared `parse_contact_plan`; a plan without a motion (``success`` false) is refused
  with its reason, as is a file naming another plan format. A motion with segments projected
  without collision rows (``trajectory.unclear_segments``: no clear path was found there, and the
  robot may pass through an obstacle or itself, docs/contact_planner.md "Limitations") is
  refused too, naming them, unless ``allow_unclear`` (the robot bridge's ``allow_unclear_motion``)
  says to send it anyway; a note then names them.

Floating-base plans (a base pose in the file, or a simulator recording of a free-standing robot)
give the joint part only: the base pose is not a command a joint controller can take, and the
notes say so. The reader is the bridge's own (humanoid_control may not import humanoid_viewer,
the same layer); it reads only times and joint positions.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from humanoid_control.bridge.trajectory import Trajectory
from humanoid_control.exceptions import BridgeError
from humanoid_model.contact_plan import FORMAT as PLAN_FORMAT
from humanoid_model.contact_plan import is_contact_plan, parse_contact_plan
from humanoid_model.documents import IncompleteLine, read_document, read_json_lines
from humanoid_model.validation import short

__all__ = ["load_plan", "STREAM_FORMAT"]

STREAM_FORMAT = "humanoid_stack.sim_recording/2"  # humanoid_sim.recording.FORMAT (same layer: not imported)
HEADER_LIMIT = 1 << 20  # [bytes] (chosen, as the viewer's reader) a longer first line is no stream header
REPEAT_TOL = 1e-12  # [s] a phase's first sample this close to the previous end repeats it (gait writer)


def _err(src, field, why) -> BridgeError:
    return BridgeError(f"{src}: field '{field}' {why}")


def _names(value, src, field) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise _err(src, field, f"must be a list of joint names; value {short(value)}")
    return value


def _matrix(value, src, field, rows, cols=None) -> np.ndarray:
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise _err(src, field, f"must be rows of numbers; value {short(value)}") from None
    if a.ndim != 2 or a.shape[0] != rows or (cols is not None and a.shape[1] != cols):
        want = f"{rows} rows" + (f" of {cols} values" if cols is not None else "")
        raise _err(src, field, f"must be {want}; value shape {a.shape}")
    return a


def _times(value, src, field) -> np.ndarray:
    try:
        t = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise _err(src, field, f"must be a list of times [s]; value {short(value)}") from None
    if t.size == 0:
        raise _err(src, field, "is empty")
    return t


def _stream_header(path: Path):
    try:
        with open(path, "rb") as f:
            first = f.readline(HEADER_LIMIT)
        header = json.loads(first.decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    return header if isinstance(header, dict) and header.get("format") == STREAM_FORMAT else None


def _read_stream(path: Path, header: dict, notes: list[str]):
    src = str(path)
    joints = header.get("joints")
    if not isinstance(joints, dict):
        raise BridgeError(f"{src}: line 1: field 'joints.names': missing (a recording without a robot)")
    names = _names(joints.get("names"), src, "joints.names")
    ts, rows = [], []
    for number, frame in read_json_lines(path, "recording", BridgeError, first=2):
        if isinstance(frame, IncompleteLine):
            notes.append(f"{src}: line {number} is cut short (the run was cut off): its complete frames are used")
            break
        if isinstance(frame, dict) and "stats" in frame and "t" not in frame:
            break
        if not isinstance(frame, dict) or "t" not in frame or not isinstance(frame.get("joints"), dict):
            raise BridgeError(f"{src}: line {number}: field 'joints.positions': a frame needs 't' and joints")
        ts.append(frame["t"])
        rows.append(frame["joints"].get("positions"))
    if not ts:
        raise BridgeError(f"{src}: field 't': no complete frame")
    return names, _times(ts, src, "t"), _matrix(rows, src, "joints.positions", len(ts), len(names)), True


def _simulator_doc(doc, src):
    joints = doc["joints"]
    if not isinstance(joints, dict):
        raise _err(src, "joints", f"must be {{names, positions}}; value {short(joints)}")
    names = _names(joints.get("names"), src, "joints.names")
    t = _times(doc["t"], src, "t")
    return names, t, _matrix(joints.get("positions"), src, "joints.positions", len(t), len(names)), True


def _gait_trajectory(doc, src):
    tr = doc["trajectory"]
    names = _names(tr.get("joint_names", doc.get("joint_names")), src, "joint_names")
    if "t" not in tr or "joint_positions" not in tr:
        raise _err(src, "trajectory", "must hold 't' and 'joint_positions'")
    t = _times(tr["t"], src, "trajectory.t")
    P = _matrix(tr["joint_positions"], src, "trajectory.joint_positions", len(t), len(names))
    return names, t, P, "base_pose" in tr


def _gait_phases(doc, src):
    phases = doc["phases"]
    if not isinstance(phases, list) or not phases:
        raise _err(src, "phases", f"must be a non-empty list; value {short(phases)}")
    names, ts, rows, base = None, [], [], False
    end = None
    for i, ph in enumerate(phases):
        where = f"phases[{i}]"
        if not isinstance(ph, dict) or "t" not in ph or "q" not in ph:
            raise _err(src, where, "must hold 't' and 'q'")
        ph_names = _names(ph.get("joint_names", doc.get("joint_names")), src, f"{where}.joint_names")
        if names is not None and ph_names != names:
            raise _err(src, f"{where}.joint_names", "must be the same in every phase")
        names = ph_names
        t = _times(ph["t"], src, f"{where}.t")
        q = _matrix(ph["q"], src, f"{where}.q", len(t), len(names))
        base = base or "base" in ph
        if end is not None and t[0] < end - REPEAT_TOL:
            t = t + (end - t[0])
        if end is not None and abs(t[0] - end) <= REPEAT_TOL:
            t, q = t[1:], q[1:]
        if t.size:
            end = t[-1]
            ts.append(t)
            rows.append(q)
    return names, np.concatenate(ts), np.vstack(rows), base


def _configurations(doc, robot, src):
    t = _times(doc["t"], src, "t")
    rows = _matrix(doc["q"], src, "q", len(t))
    names = doc.get("joint_names")
    names = robot.joint_names if names is None else _names(names, src, "joint_names")
    width = rows.shape[1]
    if width == len(names):
        return names, t, rows, False
    if width == len(names) + 7 or (doc.get("joint_names") is None and width == robot.nq):
        if doc.get("joint_names") is None and robot.nq != len(names) + 7:
            raise _err(src, "q", "full configurations of a robot with continuous joints: give the joints alone")
        return names, t, rows[:, 7:], True
    raise _err(src, "q", f"rows must be {len(names)} joint values or {len(names) + 7} (base + joints); value {width}")


def _contact_plan(doc, src, allow_unclear: bool, notes: list[str]):
    plan = parse_contact_plan(doc, src, BridgeError)
    if not plan.success:
        raise _err(src, "success", f"is false: the planner found no motion ({plan.reason or 'no reason given'})")
    unclear = plan.unclear_segments
    if unclear and not allow_unclear:
        raise _err(
            src,
            "trajectory.unclear_segments",
            f"is {unclear}: those segments of the motion were projected without collision rows and may pass "
            "through an obstacle or the robot itself; replan, or send it anyway with the robot bridge's "
            "parameter allow_unclear_motion (load_plan's allow_unclear)",
        )
    if unclear:
        notes.append(f"{src}: segments {unclear} of the motion may touch (sent: allow_unclear_motion)")
    return plan.joint_names, plan.trajectory_t, plan.trajectory_q[:, 7:], True


def load_plan(path, robot, allow_unclear: bool = False) -> tuple[Trajectory, list[str]]:
    """(the joint trajectory of the plan file ``path``, notes) for ``robot`` (a
    `humanoid_model.robot.Robot`; its joint names are checked later, by `validate`). Every failure
    to read is a `BridgeError` naming the file and the field. ``allow_unclear``: send a PLAN.json
    whose motion has segments without collision rows (module docstring) instead of refusing it."""
    path = Path(path)
    src = str(path)
    notes: list[str] = []
    header = _stream_header(path)
    if header is not None:
        names, t, P, floating = _read_stream(path, header, notes)
        kind = "simulator recording"
    else:
        doc = read_document(path, "plan file", BridgeError, "JSON")
        if not isinstance(doc, dict):
            raise BridgeError(f"{src}: expected a JSON object (GAIT.json, a recording or PLAN.json); got {short(doc)}")
        fmt = doc.get("format")
        if is_contact_plan(doc):
            (names, t, P, floating), kind = _contact_plan(doc, src, allow_unclear, notes), "PLAN.json"
        elif isinstance(fmt, str) and "plan" in fmt.lower():
            raise _err(src, "format", f"{fmt!r}: not a plan format the bridge reads (PLAN.json is {PLAN_FORMAT!r})")
        elif isinstance(doc.get("trajectory"), dict):
            (names, t, P, floating), kind = _gait_trajectory(doc, src), "GAIT.json"
        elif "phases" in doc:
            (names, t, P, floating), kind = _gait_phases(doc, src), "GAIT.json phases"
        elif "t" in doc and "q" in doc:
            (names, t, P, floating), kind = _configurations(doc, robot, src), "configurations"
        elif "t" in doc and "joints" in doc:
            (names, t, P, floating), kind = _simulator_doc(doc, src), "simulator recording (/1)"
        else:
            raise BridgeError(
                f"{src}: not a plan: expected 'trajectory' or 'phases' (GAIT.json), 't' + 'joints' "
                "(simulator recording) or 't' + 'q' (configurations)"
            )
        if isinstance(doc.get("robot"), str) and robot is not None and doc["robot"] != robot.name:
            notes.append(f"{src}: written for robot '{doc['robot']}', sent to '{robot.name}'")
    if t[0] != 0.0 and np.isfinite(t[0]):
        notes.append(f"{src}: times shifted by {-t[0]:+.6g} s so that the plan starts at t = 0")
        t = t - t[0]
    if floating:
        notes.append(f"{src}: floating-base plan ({kind}): only the joint part is sent, the base motion is not")
    notes.insert(0, f"{src}: {kind}, {len(t)} points, {len(names)} joints, {t[-1]:.6g} s")
    return Trajectory(names, t, P, source=src), notes
