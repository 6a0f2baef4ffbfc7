"""A robot's contact locations found from its frames, for a URDF whose sidecar declares none
(docs/robots.md "How to bring a new robot").

`automatic_contacts(model, collision, q)` gives, per side (left: the frame's origin at y > 0 in the
configuration ``q``, the robot's ``zero`` posture; right: y <= 0):

* **soles** ``l_sole`` / ``r_sole``: from a frame whose name holds ``sole`` (``left_sole_link``,
  Talos, and most ROS humanoids), else from a frame whose name holds ``foot`` with no collision
  geometry of its own; the contact plane is the frame's xy plane, the inward normal its +z, the
  tangent its +x, the point its origin. The hull is the face the foot stands on: the convex hull,
  in the frame's x and y, of the points of the foot's collision geometry (the geometry attached to
  the frame's joint) within `contact_location.SOLE_CONTACT_BAND` of its lowest point, when that point reaches the
  plane within `SOLE_PLANE_TOLERANCE`; else the `DEFAULT_SOLE` rectangle centred on the origin.
  A foot mesh's bounding box is not its sole: Talos's foot mesh spans 0.221 × 0.134 m, but on a
  flat floor it touches with a 0.195 × 0.117 m face (its edges are rounded above it), and forces
  put at the box's corners tip the foot over the face's edge. A robot without such frames keeps the rule of
  `humanoid_model.contact_location.default_sole_contacts` (the face the lowest collision geometry on
  each side stands on: G1's ankle links, the bottom poles of their four contact spheres).
* **hands** ``l_hand`` / ``r_hand`` (kind ``hand``): from a frame whose name holds ``palm``, else
  ``hand``, else ``gripper`` (the one nearest the root in the kinematic tree when several match);
  the point its origin, the inward normal its -z (a hand or tool frame's z points out of the palm,
  the approach direction of the ROS convention for tool frames, so the hand pushes along +z,
  where a sole frame's +z points into the foot), the tangent its +x, the hull the
  `DEFAULT_HAND` square centred there: a small patch, a rough default; declare the palm face in the
  sidecar for real work.

Every location is expressed in the link (body frame) its frame is fixed to, so the planner's
contact-body rules (the body's collision capsule against the surface it rests on) see the foot's
and the hand's geometry. No frame, no location: a robot without feet or hands is valid.
"""

from __future__ import annotations

import re

import numpy as np
import pinocchio as pin

from humanoid_model.collision_geometry import extent_points
from humanoid_model.contact_location import ContactLocation, sole_face

__all__ = [
    "DEFAULT_HAND",
    "DEFAULT_SOLE",
    "SOLE_PLANE_TOLERANCE",
    "automatic_contacts",
    "find_frame",
]

DEFAULT_SOLE = (0.20, 0.10)  #: m, length x width of a sole rectangle without foot geometry (chosen: a human-size foot)
DEFAULT_HAND = 0.04  #: m, side of a hand's square patch (chosen: about a palm's centre)
SOLE_PLANE_TOLERANCE = 0.01  #: m, the foot geometry's lowest point this close to the sole plane gives the hull
HAND_PATTERNS = ("palm", "hand", "gripper")  #: name parts of hand frames, in order of preference


def _body_frame(model, jid: int) -> int | None:
    """The BODY frame fixed at joint ``jid`` with identity placement (the joint's link), or None."""
    for fid, f in enumerate(model.frames):
        if f.parentJoint == jid and f.type == pin.FrameType.BODY and np.allclose(f.placement.homogeneous, np.eye(4)):
            return fid
    return None


def _depth(model, jid: int) -> int:
    d = 0
    while jid > 0:
        jid, d = model.parents[jid], d + 1
    return d


def find_frame(model, data, pattern: str, side: str, exclude=()) -> int | None:
    """The id of the frame whose name holds ``pattern`` (case-insensitive, as a word part) on
    ``side`` ("l": y > 0 at the data's configuration, "r": y <= 0), nearest the root (then the
    shortest name, then the first); frames in ``exclude`` and joint frames left out. None if none."""
    rx = re.compile(pattern, re.IGNORECASE)
    found = []
    for fid, f in enumerate(model.frames):
        if fid in exclude or f.type not in (pin.FrameType.BODY, pin.FrameType.OP_FRAME) or not rx.search(f.name):
            continue
        if ("l" if data.oMf[fid].translation[1] > 0 else "r") != side:
            continue
        found.append((_depth(model, f.parentJoint), len(f.name), fid))
    return min(found)[2] if found else None


def _has_geometry(collision, model, fid: int) -> bool:
    return any(g.parentFrame == fid for g in collision.geometryObjects)


def _location(model, fid: int, name: str, kind: str, hull_2d: np.ndarray, inward: float = 1.0):
    """The location of frame ``fid`` (its xy plane, ``inward`` times its +z the inward normal, +x
    tangent, ``hull_2d`` in its x, y) expressed in the link fixed at its joint; None without a link."""
    f = model.frames[fid]
    body = _body_frame(model, f.parentJoint)
    if body is None:
        return None
    M = f.placement  # frame in the joint (= the link's body frame)
    hull = np.c_[hull_2d, np.zeros(len(hull_2d))]
    return ContactLocation(
        name=name,
        body=model.frames[body].name,
        point=M.translation.copy(),
        normal=inward * M.rotation[:, 2],
        tangent=M.rotation[:, 0].copy(),
        hull=(M.rotation @ hull.T).T + M.translation,
        kind=kind,
    )


def _rectangle(lo, hi) -> np.ndarray:
    return np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])


def _sole_hull(model, collision, fid: int) -> np.ndarray:
    """The sole's face in the sole frame's x, y (module docstring): a convex polygon (k, 2)."""
    f = model.frames[fid]
    pts = [extent_points(g) for g in collision.geometryObjects if g.parentJoint == f.parentJoint]
    if pts:
        M = f.placement  # joint frame -> sole frame: R^T (p - t)
        local = (np.vstack(pts) - M.translation) @ M.rotation
        lowest = local[:, 2].min()
        if abs(lowest) <= SOLE_PLANE_TOLERANCE:
            face = sole_face(local)
            if len(face) >= 3 and np.all(np.ptp(face, axis=0) > 1e-3):
                return face
    half = np.array(DEFAULT_SOLE) / 2
    return _rectangle(-half, half)


def automatic_contacts(model, collision, q) -> dict[str, ContactLocation]:
    """The soles and hands found from the frames (module docstring) at configuration ``q``; the soles
    only where both sides have a sole frame (else none: the caller's geometric rule applies)."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, np.asarray(q, float))
    out = {}
    soles = {}
    for side in ("l", "r"):
        fid = find_frame(model, data, "sole", side)
        if fid is None:
            fid = find_frame(model, data, "foot", side)
            fid = None if fid is None or _has_geometry(collision, model, fid) else fid
        soles[side] = fid
    if all(v is not None for v in soles.values()):
        for side, fid in soles.items():
            loc = _location(model, fid, f"{side}_sole", "sole", _sole_hull(model, collision, fid))
            if loc is not None:
                out[loc.name] = loc
    half = DEFAULT_HAND / 2
    for side in ("l", "r"):
        for pattern in HAND_PATTERNS:
            fid = find_frame(model, data, pattern, side)
            if fid is not None:
                loc = _location(model, fid, f"{side}_hand", "hand", _rectangle((-half, -half), (half, half)), -1.0)
                if loc is not None:
                    out[loc.name] = loc
                break
    return out
