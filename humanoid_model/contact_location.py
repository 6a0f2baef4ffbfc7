"""A robot's contact locations (Escande 2008, §5.3.1.1): the `ContactLocation` quintuple, read from
the robot's sidecar (`contact_from_yaml`, ``contacts:`` in ``urdf/NAME.yaml``) or, for a URDF
without one, derived from its feet's collision geometry (`default_sole_contacts`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pinocchio as pin

from humanoid_model.collision_geometry import extent_points
from humanoid_model.exceptions import ModelError
from humanoid_model.planar_polygon import clip, convex_hull
from humanoid_model.validation import finite_number, finite_rows, finite_vector

__all__ = [
    "CONTACT_KINDS",
    "DISC_SIDES",
    "ON_SURFACE",
    "ContactLocation",
    "SOLE_CONTACT_BAND",
    "contact_from_yaml",
    "default_sole_contacts",
    "sole_face",
    "touching_polygon",
]

CONTACT_KINDS = ("sole", "hand", "hand_side", "knee", "thigh", "forearm", "heel", "toe")
ON_SURFACE = 0.01  # [m] (chosen) a planned contact frame farther from its surface's plane is not on it
DISC_SIDES = (
    16  #: sides of the polygon inscribed in a disc hull (`ContactLocation.with_disc`; chosen: 2 % of the area off)
)


#: m, a foot geometry's points this close above its lowest point are the sole's face (chosen: a flat
#: floor's contact patch by coal's patch tolerance, 1 mm, the simulator's `PATCH_TOLERANCE`: what touches
#: when the foot stands flat; the geometry higher up, a rounded edge or a sphere's side, touches only a
#: tilted foot)
SOLE_CONTACT_BAND = 0.001


def sole_face(points) -> np.ndarray:
    """The face a foot stands on, from the points (k, 3) [m] of its collision geometry in a frame whose
    z is the sole's inward normal: the convex hull (m, 2) in x, y of the points within
    `SOLE_CONTACT_BAND` of the lowest (a mesh's flat bottom, the bottom poles of contact spheres). A
    foot's bounding box is not its sole: forces put at its corners tip the foot over the face's edge."""
    pts = np.asarray(points, float)
    return convex_hull(pts[pts[:, 2] <= pts[:, 2].min() + SOLE_CONTACT_BAND, :2])


@dataclass(frozen=True)
class ContactLocation:
    """A robot contact location (Escande 2008, §5.3.1.1, the quintuple (r, P, n, d, h)).

    Attributes:
        name: identifier, e.g. ``r_sole``.
        body: Pinocchio frame (link) name the contact is attached to.
        point: reference point in the body frame [m], shape (3,).
        normal: unit inward normal in the body frame (points into the robot body), shape (3,).
        tangent: unit tangent direction in the body frame, orthogonal to ``normal``, shape (3,).
        hull: convex-hull points of the contact surface in the body frame [m], shape (k, 3).
        kind: one of ``CONTACT_KINDS``.
    """

    name: str
    body: str
    point: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray
    hull: np.ndarray
    kind: str

    def with_disc(self, diameter: float, sides: int = DISC_SIDES) -> ContactLocation:
        """A copy whose hull is a disc of ``diameter`` [m] about ``point`` in the contact plane (a
        regular ``sides``-gon inscribed in it): the thesis's chair stand-up modelled the feet so for
        stability, as discs of 2 cm diameter (Escande 2008, §7.3.2: a larger stability margin than
        the soles give)."""
        d = finite_number(
            diameter,
            f"contact location {self.name!r}",
            "disc diameter",
            minimum=0.0,
            strict=True,
            unit="m",
            error=ModelError,
        )
        n, t = np.asarray(self.normal, float), np.asarray(self.tangent, float)
        b = np.cross(n, t)
        a = 2 * np.pi * np.arange(sides) / sides
        hull = np.asarray(self.point, float) + 0.5 * d * (np.cos(a)[:, None] * t + np.sin(a)[:, None] * b)
        return dataclasses.replace(self, hull=hull)


def contact_from_yaml(model: pin.Model, spec, path: Path, name: str) -> ContactLocation:
    """The contact location ``name`` of a robot sidecar (``contacts:`` in ``path``) on ``model``."""
    where = f"{path}: contacts.{name}"
    if not isinstance(spec, dict):
        raise ModelError(f"{where}: expected a mapping")
    for key in ("body", "point", "normal", "tangent", "hull"):
        if key not in spec:
            raise ModelError(f"{where}: missing field '{key}'")
    body = spec["body"]
    if not model.existFrame(body):
        raise ModelError(f"{where}.body: unknown frame/link '{body}'")
    source, field = str(path), f"contacts.{name}"
    normal = finite_vector(spec["normal"], 3, source, f"{field}.normal", ModelError)
    tangent = finite_vector(spec["tangent"], 3, source, f"{field}.tangent", ModelError)
    if np.linalg.norm(normal) < 1e-9 or np.linalg.norm(tangent) < 1e-9:
        raise ModelError(f"{where}: normal and tangent must be non-zero")
    normal = normal / np.linalg.norm(normal)
    tangent = tangent / np.linalg.norm(tangent)
    if abs(normal @ tangent) > 1e-6:
        raise ModelError(f"{where}: tangent {tangent.tolist()} is not orthogonal to normal {normal.tolist()}")
    hull = finite_rows(spec["hull"], 3, source, f"{field}.hull", error=ModelError)
    if len(hull) < 1:
        raise ModelError(f"{where}.hull: expected at least one [x, y, z] point")
    kind = spec.get("kind", "sole")
    if kind not in CONTACT_KINDS:
        raise ModelError(f"{where}.kind: '{kind}' is not one of {', '.join(CONTACT_KINDS)}")
    return ContactLocation(
        name=name,
        body=body,
        point=finite_vector(spec["point"], 3, source, f"{field}.point", ModelError),
        normal=normal,
        tangent=tangent,
        hull=hull,
        kind=kind,
    )


def default_sole_contacts(model, collision, q, urdf_path) -> dict[str, ContactLocation]:
    """Sole contact locations from the lowest link's collision geometry on each side (y > 0, y <= 0);
    none (``{}``) when the collision geometry is not on both sides: a robot without feet.

    The sole is the face that link's collision geometry stands on (`sole_face` in the link frame: G1's
    four contact spheres give the quadrilateral of their bottom poles, not the bounding box of the
    spheres, 5-10 mm wider), with the inward normal +z of the link frame (valid for the usual humanoid
    convention where the link frames are parallel to the world at the zero posture).
    """
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    lowest = {}  # side -> (z_min, joint id)
    per_joint_pts = {}
    for g in collision.geometryObjects:
        pts = extent_points(g)
        per_joint_pts.setdefault(g.parentJoint, []).append(pts)
        oM = data.oMi[g.parentJoint]
        world = (oM.rotation @ pts.T).T + oM.translation
        side = "l" if oM.translation[1] > 0 else "r"
        zmin = world[:, 2].min()
        if side not in lowest or zmin < lowest[side][0] - 1e-9:
            lowest[side] = (zmin, g.parentJoint)
    if set(lowest) != {"l", "r"}:
        return {}  # no foot on each side: a robot without feet (an arm, a chain) is a valid robot
    contacts = {}
    for side, (_, jid) in lowest.items():
        pts = np.vstack(per_joint_pts[jid])
        face = sole_face(pts)
        hull = np.c_[face, np.full(len(face), pts[:, 2].min())]
        body = model.frames[_joint_body_frame(model, jid)].name
        # express in the body frame: a body frame attached to the joint with identity placement
        contacts[f"{side}_sole"] = ContactLocation(
            name=f"{side}_sole",
            body=body,
            point=hull.mean(axis=0),
            normal=np.array([0.0, 0.0, 1.0]),
            tangent=np.array([1.0, 0.0, 0.0]),
            hull=hull,
            kind="sole",
        )
    return contacts


def _joint_body_frame(model, jid) -> int:
    """Id of the BODY frame attached to joint ``jid`` with identity placement."""
    for fid, frame in enumerate(model.frames):
        if (
            frame.parentJoint == jid
            and frame.type == pin.FrameType.BODY
            and np.allclose(frame.placement.homogeneous, np.eye(4))
        ):
            return fid
    raise ModelError(f"no body frame at joint '{model.names[jid]}'")


def touching_polygon(contact, surface, hull, src: str, error=ModelError) -> np.ndarray:
    """The part (k, 2) of a location's surface ``hull`` (k, 2, its contact frame [m]) that lies on
    the scene's ``surface`` when placed as the plan's ``contact`` says (its ``rotation`` and
    ``position``; the planner's support polygon clips the contacts the same way, Escande 2008,
    §5.3.1: a foot may overhang a step's edge). ``error`` with one line for a contact frame farther
    than `ON_SURFACE` from the surface's plane, or a hull that does not overlap the surface."""
    R, p = contact.rotation, np.asarray(contact.position, float)
    local = (np.asarray(surface.vertices, float) - p) @ R  # the surface in the contact frame
    if np.max(np.abs(local[:, 2])) > ON_SURFACE:
        raise error(
            f"{src}: contact {contact.location!r} is not on surface {contact.surface!r}: its frame is "
            f"{np.max(np.abs(local[:, 2])) * 1e3:.0f} mm from the surface's plane"
        )
    part = clip(hull, convex_hull(local[:, :2]))
    if len(part) < 3:
        raise error(f"{src}: contact {contact.location!r} does not lie on surface {contact.surface!r}")
    return part
