"""The contact planner's plan file, PLAN.json (``humanoid-stack plan``, docs/planning.md): its format
name, its writer (the planner's `humanoid_planner.planning.plan_document` fills it) and its reader,
shared by the viewer's replay, the robot bridge and the planner's node.

    doc = plan_document(scene=..., robot=..., stances=[stance_entry(...)], ...)
    write_plan("PLAN.json", doc)
    plan = parse_contact_plan(read_document(path, "plan file", BridgeError, "JSON"), str(path), BridgeError)
    plan.trajectory_t, plan.trajectory_q, plan.joint_names, plan.stances[0].contacts[0].position

A plan document is a JSON object with ``"format": FORMAT`` and

- ``scene``, ``robot``; the request: ``algorithm``, ``seed``, ``time_limit``, ``goal``;
  ``success`` and ``reason``;
- ``stances``: a list of {``contacts``: [{``location``, ``surface``, ``x``, ``y``, ``theta``,
  ``body``, ``position`` (3,), ``quaternion`` (4, xyzw), ``hull`` (k, 3)?}], ``witness_q``,
  ``support_polygon`` (m, 2), ``t``?, ``kind``?, ``changed``?, ``potential``?};
- ``transitions``, ``goal_q``, ``stats`` (kept as given);
- ``trajectory``: {``t`` (N,) [s], ``q`` (N, 7 + k) rows of base xyz [m], base quaternion xyzw and
  the k joint angles [rad] of ``joint_names``, rounded to 1e-10 (`DIGITS`), ``joint_names`` (k,),
  ``dt`` [s], ``unclear_segments``? (the segment indices projected without collision rows, -1 the
  lead-in from the start posture to the first witness, docs/planning.md; absent: none)}.

A contact's ``position`` and ``quaternion`` are the world pose of its contact frame (E, d_E, b_E,
n_E): the point and the axes (d_E, b_E, n_E) as a rotation (Escande 2008, §3.4.1). A plan that found
no stance sequence (``success`` false) has empty ``stances`` and ``trajectory.t``.
Every malformed field raises the caller's error class with the shared wording
(`humanoid_model.validation`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pinocchio as pin

from humanoid_model.exceptions import PlanningError
from humanoid_model.files import write_text
from humanoid_model.formats.fields import BOUND
from humanoid_model.validation import finite_number, finite_rows, finite_vector, short

__all__ = [
    "FORMAT",
    "DIGITS",
    "contact_entry",
    "stance_entry",
    "transition_entry",
    "plan_document",
    "write_plan",
    "PlanContact",
    "PlanStance",
    "ContactPlanDocument",
    "is_contact_plan",
    "parse_stance",
    "parse_contact_plan",
]

FORMAT = "humanoid_stack.contact_plan/1"
DIGITS = 10  # (chosen) trajectory values rounded to 1e-10 [m, rad]: 40 % smaller files, far below any tolerance
AXIS_LENGTH = 0.1  # [m] (chosen, display only) drawn length of a contact frame's axes: a hand's size


# ---------------------------------------------------------------------- writer
def contact_entry(*, location, surface, x, y, theta, body, position, quaternion, hull) -> dict:
    """One ``stances[].contacts[]`` entry: the ``location`` on ``surface`` at (``x``, ``y``) [m],
    ``theta`` [rad], the robot link ``body``, the contact frame's world ``position`` (3,) [m] and
    ``quaternion`` (4, xyzw), the placed ``hull`` (k, 3) [m] of the contact surface."""
    return {
        "location": location,
        "surface": surface,
        "x": x,
        "y": y,
        "theta": theta,
        "body": body,
        "position": [float(v) for v in position],
        "quaternion": [float(v) for v in quaternion],
        "hull": np.asarray(hull).tolist(),
    }


def stance_entry(*, contacts: list, witness_q, support_polygon, t, kind, changed, potential) -> dict:
    """One ``stances[]`` entry: its `contact_entry` list, the ``witness_q`` row (base + joints, the
    trajectory's layout), the ``support_polygon`` (m, 2) [m], the witness's time ``t`` [s] in the
    trajectory (None without a motion), ``kind`` (root / added / released), the location
    ``changed`` (None for the root) and the ``potential``."""
    return {
        "contacts": contacts,
        "witness_q": list(witness_q),
        "support_polygon": np.asarray(support_polygon).tolist(),
        "t": t,
        "kind": kind,
        "changed": changed,
        "potential": float(potential),
    }


def transition_entry(*, start: int, kind, location, surface, t) -> dict:
    """One ``transitions[]`` entry: from stance ``start`` to the next, the contact ``location`` on
    ``surface`` added or released (``kind``) and the segment's times ``t`` [s, s]."""
    return {"from": start, "to": start + 1, "kind": kind, "location": location, "surface": surface, "t": list(t)}


def plan_document(
    *,
    scene,
    robot,
    algorithm,
    seed,
    time_limit,
    goal,
    success: bool,
    reason: str,
    stances: list,
    transitions: list,
    goal_q,
    t,
    q,
    joint_names,
    dt,
    unclear_segments,
    stats: dict,
) -> dict:
    """The PLAN.json document (module docstring): ``t`` [s] and ``q`` the trajectory (rows of base +
    joints, rounded to `DIGITS`), ``goal_q`` a row or None, ``dt`` [s] or None; a run without a
    plan has ``success`` false, its ``reason``, no stances and an empty trajectory."""
    return {
        "format": FORMAT,
        "scene": scene,
        "robot": robot,
        "algorithm": algorithm,
        "seed": seed,
        "time_limit": float(time_limit),
        "goal": goal,
        "success": success,
        "reason": reason,
        "stances": stances,
        "transitions": transitions,
        "goal_q": goal_q,
        "trajectory": {
            "t": [float(v) for v in t],
            "q": [[round(v, DIGITS) for v in row] for row in q],
            "joint_names": list(joint_names),
            "dt": dt,
            "unclear_segments": list(unclear_segments),
        },
        "stats": stats,
    }


def write_plan(path, doc: dict, error=PlanningError) -> Path:
    """Write ``doc`` to ``path`` (JSON, compact rows) atomically (`humanoid_model.files.write_text`:
    the folder must exist; a failed write, a full disk for instance, leaves the path as it was and
    no partial file); returns the path. ``error`` when it cannot be written."""
    return write_text(path, json.dumps(doc, separators=(",", ":")) + "\n", "plan file", error)


# ---------------------------------------------------------------------- reader
@dataclass
class PlanContact:
    """One contact of a stance: ``location`` on ``surface`` at (``x``, ``y``) [m], ``theta`` [rad];
    ``body`` the robot link; the contact frame's world ``position`` [m] and ``quaternion`` (xyzw);
    ``hull`` (k, 3) world points of the contact surface (may be empty)."""

    location: str
    surface: str
    x: float
    y: float
    theta: float
    body: str
    position: np.ndarray
    quaternion: np.ndarray
    hull: np.ndarray

    @property
    def rotation(self) -> np.ndarray:
        """The contact frame's axes (d_E, b_E, n_E) as the columns of a rotation (3, 3)."""
        x, y, z, w = self.quaternion
        return pin.Quaternion(w, x, y, z).normalized().toRotationMatrix()


@dataclass
class PlanStance:
    """A stance: its ``contacts``, the ``witness_q`` row (7 + k) in the trajectory's layout (empty
    in a simulator recording's planned stances), the horizontal ``support_polygon`` (m, 2) [m] and
    the time ``t`` [s] of the witness in the trajectory (None when not given)."""

    contacts: list[PlanContact]
    witness_q: np.ndarray
    support_polygon: np.ndarray
    t: float | None = None
    kind: str = ""
    changed: str | None = None

    def frame_segments(self, axis_length: float = AXIS_LENGTH) -> np.ndarray:
        """(3 c, 2, 3) start/end points [m] of the contact frames' axes d_E, b_E, n_E (in that
        order per contact), for drawing (red, green, blue by convention)."""
        out = [(c.position, c.position + axis_length * c.rotation[:, a]) for c in self.contacts for a in range(3)]
        return np.array(out, float).reshape(-1, 2, 3)

    def polygon_loop(self) -> np.ndarray:
        """(m + 1, 3) the support polygon closed on its first vertex, at the height [m] of the lowest
        contact (the polygon is horizontal, Escande 2008, §3.4.4); (0, 3) without a polygon."""
        if len(self.support_polygon) == 0:
            return np.zeros((0, 3))
        z = min(float(c.position[2]) for c in self.contacts)
        loop = np.vstack([self.support_polygon, self.support_polygon[:1]])
        return np.column_stack([loop, np.full(len(loop), z)])


@dataclass
class ContactPlanDocument:
    """A parsed PLAN.json (module docstring); ``doc`` is the whole decoded document."""

    scene: str | None
    robot: str | None
    success: bool
    reason: str
    stances: list[PlanStance]
    trajectory_t: np.ndarray
    trajectory_q: np.ndarray
    joint_names: list[str]
    unclear_segments: list[int] = field(default_factory=list)
    stats: dict = field(default_factory=dict)
    doc: dict = field(default_factory=dict)


def is_contact_plan(doc) -> bool:
    """Whether the decoded document ``doc`` says it is a contact plan."""
    return isinstance(doc, dict) and doc.get("format") == FORMAT


def _fail(error, src, fieldname, requirement, value):
    raise error(f"{src}: field '{fieldname}' must be {requirement}; value {short(value)}")


def _dict(value, src, fieldname, error) -> dict:
    if not isinstance(value, dict):
        _fail(error, src, fieldname, "a mapping", value)
    return value


def _list(value, src, fieldname, error) -> list:
    if not isinstance(value, list):
        _fail(error, src, fieldname, "a list", value)
    return value


def _text(value, src, fieldname, error) -> str:
    if not isinstance(value, str) or not value:
        _fail(error, src, fieldname, "a non-empty string", value)
    return value


def _contact(c, src, where, error) -> PlanContact:
    c = _dict(c, src, where, error)
    for key in ("location", "surface", "position", "quaternion"):
        if key not in c:
            raise error(f"{src}: field '{where}.{key}' is missing")
    num = {k: finite_number(c.get(k, 0.0), src, f"{where}.{k}", error=error) for k in ("x", "y", "theta")}
    quat = finite_vector(c["quaternion"], 4, src, f"{where}.quaternion", error, BOUND)
    if np.linalg.norm(quat) < 1e-9:
        _fail(error, src, f"{where}.quaternion", "a non-zero quaternion (xyzw)", c["quaternion"])
    hull = c.get("hull", [])
    hull = np.zeros((0, 3)) if hull == [] else finite_rows(hull, 3, src, f"{where}.hull", error=error, bound=BOUND)
    return PlanContact(
        _text(c["location"], src, f"{where}.location", error),
        _text(c["surface"], src, f"{where}.surface", error),
        num["x"],
        num["y"],
        num["theta"],
        str(c.get("body", "")),
        finite_vector(c["position"], 3, src, f"{where}.position", error, BOUND),
        quat / np.linalg.norm(quat),
        hull,
    )


def parse_stance(s, src, where: str, error, width: int | None = None) -> PlanStance:
    """The `PlanStance` of the stance entry ``s`` (field ``where`` of ``src``): its contacts, its
    ``witness_q`` of ``width`` (7 + k) values (None: not read, an empty row: the stances a
    simulator recording carries, `humanoid_model.formats.recording`), its support polygon, time,
    kind and changed location; ``error`` for any malformed field."""
    s = _dict(s, src, where, error)
    contacts = [
        _contact(c, src, f"{where}.contacts[{j}]", error)
        for j, c in enumerate(_list(s.get("contacts"), src, f"{where}.contacts", error))
    ]
    if not contacts:
        _fail(error, src, f"{where}.contacts", "a non-empty list", s.get("contacts"))
    if width is None:
        q = np.zeros(0)
    elif "witness_q" not in s:
        raise error(f"{src}: field '{where}.witness_q' is missing")
    else:
        q = finite_vector(s["witness_q"], width, src, f"{where}.witness_q", error, BOUND)
    poly = s.get("support_polygon", [])
    poly = (
        np.zeros((0, 2))
        if poly == []
        else finite_rows(poly, 2, src, f"{where}.support_polygon", error=error, bound=BOUND)
    )
    t = s.get("t")
    t = None if t is None else finite_number(t, src, f"{where}.t", minimum=0.0, unit="s", error=error)
    changed = s.get("changed")
    return PlanStance(contacts, q, poly, t, str(s.get("kind", "")), changed if isinstance(changed, str) else None)


def parse_contact_plan(doc, src: str, error) -> ContactPlanDocument:
    """The `ContactPlanDocument` of the decoded PLAN.json ``doc`` read from ``src``; ``error`` (a
    `HumanoidStackError` class) for any malformed field."""
    if not is_contact_plan(doc):
        _fail(error, src, "format", f"{FORMAT!r}", doc.get("format") if isinstance(doc, dict) else doc)
    tr = _dict(doc.get("trajectory"), src, "trajectory", error)
    names = tr.get("joint_names")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        _fail(error, src, "trajectory.joint_names", "a list of joint names", names)
    width = 7 + len(names)
    t = finite_vector(tr.get("t"), None, src, "trajectory.t", error, BOUND)
    if np.any(np.diff(t) < 0):
        i = int(np.argmax(np.diff(t) < 0))
        _fail(error, src, "trajectory.t", "non-decreasing times [s]", f"{t[i]} -> {t[i + 1]} at index {i + 1}")
    q = tr.get("q")
    q = (
        np.zeros((0, width))
        if q == [] and t.size == 0
        else finite_rows(q, width, src, "trajectory.q", len(t), error, BOUND)
    )
    unclear = tr.get("unclear_segments", [])
    if not isinstance(unclear, list) or not all(isinstance(k, int) and not isinstance(k, bool) for k in unclear):
        _fail(error, src, "trajectory.unclear_segments", "a list of segment indices", unclear)
    stances = [
        parse_stance(s, src, f"stances[{i}]", error, width)
        for i, s in enumerate(_list(doc.get("stances", []), src, "stances", error))
    ]
    success = doc.get("success", bool(stances))
    if not isinstance(success, bool):
        _fail(error, src, "success", "true or false", success)
    if success and (not stances or t.size == 0):
        _fail(error, src, "stances", "non-empty with a non-empty trajectory when 'success' is true", len(stances))
    stats = doc.get("stats", {})
    return ContactPlanDocument(
        doc.get("scene") if isinstance(doc.get("scene"), str) else None,
        doc.get("robot") if isinstance(doc.get("robot"), str) else None,
        success,
        str(doc.get("reason", "")),
        stances,
        t,
        q,
        list(names),
        list(unclear),
        stats if isinstance(stats, dict) else {},
        doc,
    )
