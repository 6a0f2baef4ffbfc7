"""Plan files the bridge executes, read into a `Trajectory` of the robot's joints.

Each file is read by its format's reader (`humanoid_model.formats`, the viewer's readers too);
this module adds the bridge's stricter rules, checked on what the reader returns:

* **GAIT.json / WALK.json** (``humanoid-stack gait`` / ``walk``, `humanoid_model.formats.trajectory`):
  ``joint_names`` and ``trajectory: {t, joint_positions, base_pose}`` (docs/gait.md); or ``phases:
  [{t, q, joint_names?, base?}]`` with rows of the joints only and the same joint names in every
  phase (phases whose times restart are shifted to follow the previous one by the reader; a
  phase's first sample that repeats the previous phase's last is dropped here). A gait whose
  solver did not converge on a phase (``phases[i].converged`` false, or ``checks.success`` in a
  file without it: `humanoid_model.formats.trajectory.unconverged_phases`) is refused, naming the
  phases: its rows there are the solver's last iterate (a solve stopped by its iteration limit or
  by Ctrl-C), not a motion that meets the gait's constraints; ``allow_unconverged`` (the robot
  bridge's ``allow_unconverged_gait``) sends it anyway, with a note.
* **Simulator recordings** (``humanoid-stack simulate --output``, `humanoid_model.formats.recording`):
  the JSON Lines stream (format /2, docs/recording.md: header with ``joints.names``, one frame per
  line with ``t`` and ``joints.positions``) or a format /1 document (``t``, ``joints: {names,
  positions}``), with one position per joint (no ball joints); a recording without joints is
  refused. A run cut off mid-way gives its complete frames. The recorded velocities are
  measurements, not commands: only positions are read (linear interpolation).
* **Configurations** ``{"t", "q", "joint_names"?}`` (`humanoid_model.formats.configurations`): rows
  of the robot's ``nq`` values (base then joints) or of the joints alone.
* **PLAN.json** (``humanoid-stack plan``, `humanoid_model.formats.plan`, docs/planning.md): its
  ``trajectory`` (``t``, ``q`` rows of base + joints, ``joint_names``); a plan without a motion
  (``success`` false) is refused with its reason, as is a file naming another plan format. A
  motion with segments projected without collision rows (``trajectory.unclear_segments``: no
  clear path was found there, and the robot may pass through an obstacle or itself,
  docs/contact_planner.md "Limitations") is refused too, naming them, unless
  ``allow_unclear`` (the robot bridge's ``allow_unclear_motion``) says to send it anyway; a note
  then names them.

Floating-base plans (a base pose in the file, or a simulator recording of a free-standing robot)
give the joint part only: the base pose is not a command a joint controller can take, and the
notes say so. Only times and joint positions are read.

Only a regular file of at most `PLAN_MAX_BYTES` is read: a FIFO, a device (``/dev/zero``), a
directory or a larger file is refused at once, before any reader opens it
(`humanoid_model.files.open_input`, which never blocks).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from humanoid_control.bridge.trajectory import Trajectory
from humanoid_control.exceptions import BridgeError
from humanoid_model.files import open_input
from humanoid_model.formats.configurations import parse_configurations
from humanoid_model.formats.detect import document_kind, read_format_file
from humanoid_model.formats.plan import FORMAT as PLAN_FORMAT
from humanoid_model.formats.plan import parse_contact_plan
from humanoid_model.formats.recording import parse_recording_document
from humanoid_model.formats.trajectory import parse_phases, parse_trajectory, unconverged_phases
from humanoid_model.validation import short

__all__ = ["load_plan", "read_plan", "plan_trajectory", "PLAN_MAX_BYTES"]

# [bytes] (chosen) the largest plan file read: 50 x BIP's walking GAIT.json (163 kB), 30 s of an
# HRP-2 simulator recording (0.27 MB/s). The robot bridge parses it in its own process, and
# ``json.loads`` keeps the interpreter lock for a whole document (14 ms per MB measured on the
# 2-core test machine): this bound keeps that pause of the bridge's watchdog thread near 0.12 s
PLAN_MAX_BYTES = 8 * 1024 * 1024

REPEAT_TOL = 1e-12  # [s] a phase's first sample this close to the previous end repeats it (gait writer)
NOT_A_PLAN = (
    "not a plan: expected 'trajectory' or 'phases' (GAIT.json), 't' + 'joints' "
    "(simulator recording) or 't' + 'q' (configurations)"
)


def _err(src, field, why) -> BridgeError:
    return BridgeError(f"{src}: field '{field}' {why}")


def _joint_rows(rows: np.ndarray, src, field, cols: int) -> np.ndarray:
    """``rows`` when they hold ``cols`` values each (one per joint)."""
    if rows.shape[1] != cols:
        raise _err(src, field, f"must be {len(rows)} rows of {cols} values; value shape {rows.shape}")
    return rows


def _recording(doc, src, stream, notes: list[str]):
    rec = parse_recording_document(doc, src, BridgeError, keys=("joints",))
    if rec.joint_names is None:  # (a /1 document without joints is no plan: load_plan says so)
        raise BridgeError(f"{src}: line 1: field 'joints.names': missing (a recording without a robot)")
    if stream is not None and stream.cut is not None:
        notes.append(f"{src}: line {stream.cut} is cut short (the run was cut off): its complete frames are used")
    names = rec.joint_names
    return names, rec.t, _joint_rows(rec.joint_positions, src, "joints.positions", len(names)), True


def _gait_trajectory(doc, src):
    tr = parse_trajectory(doc, src, BridgeError)
    return tr.joint_names, tr.t, tr.joint_positions, tr.base_pose is not None


def _gait_phases(doc, src):
    phases = parse_phases(doc, src, BridgeError)
    names, ts, rows, end = phases[0].joint_names, [], [], None
    for i, ph in enumerate(phases):
        if ph.joint_names != names:
            raise _err(src, f"phases[{i}].joint_names", "must be the same in every phase")
        t, q = ph.t, _joint_rows(ph.q, src, f"phases[{i}].q", len(names))
        if end is not None and abs(t[0] - end) <= REPEAT_TOL:
            t, q = t[1:], q[1:]
        if t.size:
            end = t[-1]
            ts.append(t)
            rows.append(q)
    return names, np.concatenate(ts), np.vstack(rows), any(ph.base is not None for ph in phases)


def _configurations(doc, robot, src):
    conf = parse_configurations(doc, src, BridgeError)
    t, rows = conf.t, conf.q
    names = robot.joint_names if conf.joint_names is None else conf.joint_names
    width = rows.shape[1]
    if width == len(names):
        return names, t, rows, False
    if width == len(names) + 7 or (conf.joint_names is None and width == robot.nq):
        if conf.joint_names is None and robot.nq != len(names) + 7:
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


def _convergence(doc, src, allow_unconverged: bool, notes: list[str]) -> None:
    """`BridgeError` when a phase of the gait ``doc`` did not converge, unless ``allow_unconverged``
    (then a note names the phases)."""
    bad = unconverged_phases(doc, src, BridgeError)
    if not bad:
        return
    names = ", ".join(f"{name} (phases[{i}])" for i, name in bad)
    if not allow_unconverged:
        raise _err(
            src,
            f"phases[{bad[0][0]}].converged",
            f"is false: the gait solver did not converge on {names}: the rows there are its last iterate, not "
            "a solved gait; solve it again, or send it anyway with the robot bridge's parameter "
            "allow_unconverged_gait (load_plan's allow_unconverged)",
        )
    notes.append(f"{src}: the gait solver did not converge on {names} (sent: allow_unconverged_gait)")


def read_plan(path) -> tuple[object, object]:
    """(the decoded document, the recording stream or None) of the plan file ``path``: a regular
    file of at most `PLAN_MAX_BYTES`, else `BridgeError` at once (module docstring)."""
    path = Path(path)
    with open_input(path, "plan file", BridgeError, limit=None) as f:  # a regular file, or refused at once
        size = os.fstat(f.fileno()).st_size
    if size > PLAN_MAX_BYTES:
        raise BridgeError(
            f"{path}: {size} bytes, more than the {PLAN_MAX_BYTES} bytes of a plan file the robot bridge reads "
            "(humanoid_control.bridge.plan_files.PLAN_MAX_BYTES)"
        )
    return read_format_file(path, "plan file", BridgeError, keys=("joints",))


def load_plan(
    path, robot, allow_unclear: bool = False, allow_unconverged: bool = False
) -> tuple[Trajectory, list[str]]:
    """(the joint trajectory of the plan file ``path``, notes) for ``robot`` (a
    `humanoid_model.robot.Robot`; its joint names are checked later, by `validate`). Every failure
    to read is a `BridgeError` naming the file and the field. ``allow_unclear``: send a PLAN.json
    whose motion has segments without collision rows (module docstring) instead of refusing it;
    ``allow_unconverged``: send a GAIT.json with a phase its solver did not converge on."""
    doc, stream = read_plan(path)
    return plan_trajectory(doc, str(Path(path)), robot, allow_unclear, allow_unconverged, stream)


def plan_trajectory(
    doc, src: str, robot, allow_unclear: bool = False, allow_unconverged: bool = False, stream=None
) -> tuple[Trajectory, list[str]]:
    """`load_plan` of a decoded plan document ``doc`` (read from ``src``; ``stream`` the
    recording stream it was gathered from, if any): a motion the robot bridge received as a
    message is checked as a file is."""
    notes: list[str] = []
    if stream is not None:
        names, t, P, floating = _recording(doc, src, stream, notes)
        kind = "simulator recording"
    else:
        if not isinstance(doc, dict):
            raise BridgeError(f"{src}: expected a JSON object (GAIT.json, a recording or PLAN.json); got {short(doc)}")
        fmt, layout = doc.get("format"), document_kind(doc)
        if layout == "plan":
            (names, t, P, floating), kind = _contact_plan(doc, src, allow_unclear, notes), "PLAN.json"
        elif isinstance(fmt, str) and "plan" in fmt.lower():
            raise _err(src, "format", f"{fmt!r}: not a plan format the bridge reads (PLAN.json is {PLAN_FORMAT!r})")
        elif layout == "trajectory":
            _convergence(doc, src, allow_unconverged, notes)
            (names, t, P, floating), kind = _gait_trajectory(doc, src), "GAIT.json"
        elif layout == "phases":
            _convergence(doc, src, allow_unconverged, notes)
            (names, t, P, floating), kind = _gait_phases(doc, src), "GAIT.json phases"
        elif layout == "configurations":
            (names, t, P, floating), kind = _configurations(doc, robot, src), "configurations"
        elif layout == "recording" and "joints" in doc:
            (names, t, P, floating), kind = _recording(doc, src, None, notes), "simulator recording (/1)"
        else:
            raise BridgeError(f"{src}: {NOT_A_PLAN}")
        if isinstance(doc.get("robot"), str) and robot is not None and doc["robot"] != robot.name:
            notes.append(f"{src}: written for robot '{doc['robot']}', sent to '{robot.name}'")
    if t[0] != 0.0 and np.isfinite(t[0]):
        notes.append(f"{src}: times shifted by {-t[0]:+.6g} s so that the plan starts at t = 0")
        t = t - t[0]
    if floating:
        notes.append(f"{src}: floating-base plan ({kind}): only the joint part is sent, the base motion is not")
    notes.insert(0, f"{src}: {kind}, {len(t)} points, {len(names)} joints, {t[-1]:.6g} s")
    return Trajectory(names, t, P, source=src), notes
