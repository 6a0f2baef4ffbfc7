"""The joint trajectory files: GAIT.json (``humanoid-stack gait``, BIP's optimal gait, docs/gait.md)
and WALK.json (``humanoid-stack walk``, HRP-2's walking pattern, docs/walking.md). Their writer and
their reader.

Both hold ``robot``, ``joint_names`` (the URDF's actuated joints) and the concatenated samples
``trajectory: {t, joint_positions, base_pose, base_pose_format}`` (absolute times [s], joint
angles [rad], base poses ``[x, y, z, qx, qy, qz, qw]`` in the world, z up). GAIT.json adds
``params``, ``method``, ``phases`` (per phase its solution in the gait model's coordinates and
whether the solver converged, `gait_phase`) and ``total_energy``; WALK.json adds ``walking`` (the pattern: parameters,
footsteps, CoM, ZMP, feet, support). A file without ``trajectory`` may give ``phases: [{t, q,
joint_names?, base?}]`` of joint rows instead (`parse_phases`).

    doc = gait_document(robot="bip", ..., trajectory=trajectory_samples(t, positions, base_poses))
    write_trajectory_file("GAIT.json", doc)
    samples = parse_trajectory(doc, "GAIT.json", BridgeError)   # joint_names, t, joint_positions, base_pose
    unconverged_phases(doc, "GAIT.json", BridgeError)           # [(index, name)] of the phases not solved

Every malformed field raises the caller's error class naming the file and the field (the wording
of `humanoid_model.formats.fields`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from humanoid_model.exceptions import ConfigError
from humanoid_model.files import write_text
from humanoid_model.formats import fields
from humanoid_model.validation import short

__all__ = [
    "BASE_POSE_FORMAT",
    "RESTART_TOL",
    "trajectory_samples",
    "gait_phase",
    "gait_document",
    "walk_document",
    "write_trajectory_file",
    "TrajectorySamples",
    "GaitPhase",
    "is_trajectory_document",
    "is_phases_document",
    "parse_trajectory",
    "parse_phases",
    "unconverged_phases",
]

BASE_POSE_FORMAT = "x y z qx qy qz qw (world, z up)"
RESTART_TOL = 1e-12  # [s] a phase starting this far or more below the previous phase's end restarts its times


# ---------------------------------------------------------------------- writer
def _list(x):
    return np.asarray(x).tolist() if isinstance(x, np.ndarray) else x


def trajectory_samples(t, joint_positions, base_pose) -> dict:
    """The ``trajectory`` entry: times ``t`` (N,) [s], ``joint_positions`` (N, k) [rad] in the
    order of ``joint_names``, ``base_pose`` (N, 7) ``[x, y, z, qx, qy, qz, qw]`` (world, z up)."""
    return {
        "t": _list(t),
        "joint_positions": _list(joint_positions),
        "base_pose": _list(base_pose),
        "base_pose_format": BASE_POSE_FORMAT,
    }


def gait_phase(
    *,
    name,
    kind,
    method,
    duration,
    t_start,
    t,
    coordinates,
    q,
    qd,
    tau_names,
    tau,
    contact_forces: dict,
    energy,
    closure_residual_max,
    root_leg,
    origin_x,
    checks: dict,
    converged: bool,
) -> dict:
    """One ``phases[]`` entry of GAIT.json (docs/gait.md): the phase's ``name``, ``kind`` (ds / ss),
    ``method``, whether its solver ``converged`` (false: the rows are the solver's last iterate,
    not a solution; readers that execute a gait refuse it, `unconverged_phases`), ``duration``
    [s], ``t_start`` [s] in the walk, its local times ``t`` [s], the gait model's ``coordinates``
    with their values ``q`` and velocities ``qd``, the torques ``tau`` of ``tau_names`` [N m], the
    ``contact_forces`` (name -> rows) [N], ``energy`` [J], ``closure_residual_max`` [m],
    ``root_leg``, ``origin_x`` [m] and the a-posteriori ``checks``."""
    return {
        "name": name,
        "kind": kind,
        "method": method,
        "converged": bool(converged),
        "duration": duration,
        "t_start": t_start,
        "t": _list(t),
        "coordinates": coordinates,
        "q": _list(q),
        "qd": _list(qd),
        "tau_names": tau_names,
        "tau": _list(tau),
        "contact_forces": {k: np.asarray(v).tolist() for k, v in contact_forces.items()},
        "energy": energy,
        "closure_residual_max": closure_residual_max,
        "root_leg": root_leg,
        "origin_x": origin_x,
        "checks": dict(checks.items()),
    }


def gait_document(*, robot, params, method, phases: list, total_energy, joint_names, trajectory: dict) -> dict:
    """GAIT.json: the ``robot``, the gait model's ``params`` name, the ``method``, the `gait_phase`
    entries, ``total_energy`` [J], the URDF's ``joint_names`` and the `trajectory_samples`."""
    return {
        "robot": robot,
        "params": params,
        "method": method,
        "phases": phases,
        "total_energy": total_energy,
        "joint_names": list(joint_names),
        "trajectory": trajectory,
    }


def walk_document(*, robot, joint_names, trajectory: dict, walking: dict | None = None) -> dict:
    """WALK.json: the ``robot``, the URDF's ``joint_names``, the `trajectory_samples` and, when
    given, the walking pattern under ``walking``."""
    doc = {"robot": robot, "joint_names": list(joint_names), "trajectory": trajectory}
    if walking:
        doc["walking"] = walking
    return doc


def write_trajectory_file(path, doc: dict, kind: str = "trajectory file", error=ConfigError) -> Path:
    """Write ``doc`` as JSON to ``path`` atomically (`humanoid_model.files.write_text`: the folder
    must exist, a failed write leaves no partial file); returns the path. ``kind`` names the file
    in messages ("GAIT.json"), ``error`` is raised when it cannot be written."""
    return write_text(path, json.dumps(doc), kind, error)


# ---------------------------------------------------------------------- reader
@dataclass
class TrajectorySamples:
    """The ``trajectory`` of a file, checked: ``joint_names`` (k), times ``t`` (N,) non-decreasing
    [s], ``joint_positions`` (N, k) [rad], ``base_pose`` (N, 7) as written (quaternions not
    normalised) or None when the file gives none."""

    joint_names: list[str]
    t: np.ndarray
    joint_positions: np.ndarray
    base_pose: np.ndarray | None


@dataclass
class GaitPhase:
    """One phase of a ``phases`` file, checked: times ``t`` (N,) [s] (shifted to follow the previous
    phase when they restart below its end), rows ``q`` (N, w) of the joints ``joint_names`` (with
    a ``base``: the joints only; without: the joints alone or base + joints, as the reader's robot
    decides), ``base`` (N, 7) base poses or None."""

    t: np.ndarray
    q: np.ndarray
    joint_names: list[str]
    base: np.ndarray | None


def is_trajectory_document(doc) -> bool:
    """Whether ``doc`` holds the concatenated samples (``trajectory`` a mapping)."""
    return isinstance(doc, dict) and isinstance(doc.get("trajectory"), dict)


def is_phases_document(doc) -> bool:
    """Whether ``doc`` holds ``phases`` (and no `trajectory` samples, which are read first)."""
    return isinstance(doc, dict) and "phases" in doc and not is_trajectory_document(doc)


def _names(value, src, field, error) -> list[str]:
    if value is None:
        fields.missing(error, src, field)
    return fields.joint_names(value, src, field, error)


def parse_trajectory(doc: dict, src, error) -> TrajectorySamples:
    """The checked ``trajectory`` of ``doc`` read from ``src``; ``joint_names`` is the
    trajectory's own or the top-level one."""
    tr = doc["trajectory"]
    fields.require(tr, ("t", "joint_positions"), src, "trajectory.", error)
    names = _names(tr.get("joint_names", doc.get("joint_names")), src, "joint_names", error)
    t = fields.times(tr["t"], src, "trajectory.t", error)
    rows = fields.rows(tr["joint_positions"], src, "trajectory.joint_positions", error, len(names), len(t))
    base = fields.base_rows(tr["base_pose"], src, "trajectory.base_pose", len(t), error) if "base_pose" in tr else None
    return TrajectorySamples(names, t, rows, base)


def parse_phases(doc: dict, src, error) -> list[GaitPhase]:
    """The checked ``phases`` of ``doc`` read from ``src``, one after the other: a phase whose
    times restart below the previous phase's end is shifted to follow it. ``joint_names`` is the
    phase's own or the top-level one; ``base`` (optional) rows ``[x, y, z, qx, qy, qz, qw]`` or
    ``{position, quaternion}``, and then ``q`` holds the joints only."""
    phases = doc["phases"]
    if not isinstance(phases, list) or not phases:
        fields.fail(error, src, "phases", f"expected a non-empty list of phases, got {short(phases)}")
    out, end = [], None
    for i, ph in enumerate(phases):
        where = f"phases[{i}]"
        if not isinstance(ph, dict):
            fields.fail(error, src, where, f"expected {{t, q, joint_names}}, got {short(ph)}")
        fields.require(ph, ("t", "q"), src, f"{where}.", error)
        t = fields.times(ph["t"], src, f"{where}.t", error)
        names = ph.get("joint_names", doc.get("joint_names"))
        if names is None:
            fields.missing(error, src, f"{where}.joint_names", " (give it per phase or at the top level)")
        names = fields.joint_names(names, src, f"{where}.joint_names", error)
        rows = fields.rows(ph["q"], src, f"{where}.q", error, n=len(t))
        base = None
        if "base" in ph:
            if rows.shape[1] != len(names):
                fields.fail(
                    error,
                    src,
                    f"{where}.q",
                    f"with a 'base' the rows hold the {len(names)} joints only, got {rows.shape[1]} values",
                )
            base = fields.base_rows(ph["base"], src, f"{where}.base", len(t), error)
        if end is not None and t[0] < end - RESTART_TOL:
            t = t + (end - t[0])
        end = t[-1]
        out.append(GaitPhase(t, rows, names, base))
    return out


def unconverged_phases(doc, src, error) -> list[tuple[int, str]]:
    """(index, name) of each phase of ``doc``'s ``phases`` that its solver did not converge on: its
    ``converged`` is false (or, in a file without that field, its ``checks.success``). A phase with
    neither field (a ``phases`` file of another tool) counts as converged. ``error`` when a
    ``converged`` is not a boolean."""
    phases = doc.get("phases") if isinstance(doc, dict) else None
    if not isinstance(phases, list):
        return []
    out = []
    for i, ph in enumerate(phases):
        if not isinstance(ph, dict):
            continue
        if "converged" in ph:
            ok = ph["converged"]
            if not isinstance(ok, bool):
                fields.fail(error, src, f"phases[{i}].converged", f"expected true or false, got {short(ok)}")
        else:
            checks = ph.get("checks")
            ok = checks.get("success", True) if isinstance(checks, dict) else True
        if ok is False:
            out.append((i, str(ph.get("name", f"phase {i}"))))
    return out
