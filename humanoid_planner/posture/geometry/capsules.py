"""Bounding capsules of a robot's bodies, built from its collision model (any URDF), and the
self-collision pair filter. docs/posture_generator.md "Collision".

**Fitting.** The collision geometries of one moving body (all geometry objects attached to one
joint, fixed-joint links included) give a point cloud in that joint's frame: a box's 8 corners,
a cylinder's two end circles (16-gons circumscribing them, radius r / cos(pi / 16), so the
polygon contains the circle), a mesh's or a convex's vertices; any other shape (sphere, capsule,
cone, ellipsoid, height field...) its local axis-aligned bounding box's 8 corners (coal's
``computeLocalAABB``), the fallback that makes every URDF work. The capsule axis is the cloud's
first principal direction (through its centroid); the radius is the largest distance of a point
from that line; the segment [a, b] is the shortest one along the axis whose capsule contains
every point (a point at axial coordinate t and radial distance rho lies inside iff
t in [a - sqrt(r^2 - rho^2), b + sqrt(r^2 - rho^2)]). The capsule therefore contains the
geometry: a capsule distance >= 0 implies the bodies' own geometries are apart, a conservative
bound (our choice: the thesis builds STP-BVs on the convex hulls, Escande 2008, §4.4).

**Pairs.** Every pair of capsules except (1) adjacent bodies: a body and its nearest ancestor
that has geometry (consecutive bodies are the joint limits' business, Escande 2008, §3.4.3; a
joint without geometry between them, like HRP-2's shoulder LINK1, does not make them
non-adjacent), and (2) pairs closer than the margin at the reference posture (the robot's
default posture): bodies that overlap by design (MoveIt's and HPP's "collision at default"
filter). Everything else is checked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_planner.exceptions import PlanningError

from .segment_distance import capsule_distances

__all__ = [
    "Capsule",
    "capsule_frame",
    "capsule_world",
    "fit_capsule",
    "adjacent_pairs",
    "enclosing_points",
    "joint_clouds",
    "robot_capsules",
    "self_collision_pairs",
]

_CIRCLE_SIDES = 16  # polygon sides circumscribing a cylinder's end circles (chosen: < 2 % extra radius)


@dataclass(frozen=True)
class Capsule:
    """Points within ``radius`` [m] of the segment [``a``, ``b``] (3,) [m] given in the frame of
    joint ``joint`` (its id in the model) named ``body`` (the joint's name)."""

    body: str
    joint: int
    a: np.ndarray
    b: np.ndarray
    radius: float

    @property
    def length(self) -> float:
        return float(np.linalg.norm(self.b - self.a))


def enclosing_points(geometry) -> np.ndarray:
    """(k, 3) points [m] in the shape's own frame whose convex hull contains it (module docstring).
    An enclosure, unlike `humanoid_model.collision_geometry.extent_points` (points on the geometry,
    for its extent): a cylinder's rings circumscribe its circles, a sphere or a capsule gives its
    bounding box's corners."""
    kind = type(geometry).__name__
    if kind == "Box":
        h = np.asarray(geometry.halfSide, float)
        return np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * h
    if kind == "Cylinder":
        ang = 2 * np.pi * np.arange(_CIRCLE_SIDES) / _CIRCLE_SIDES
        rho = geometry.radius / np.cos(np.pi / _CIRCLE_SIDES)
        ring = np.column_stack([rho * np.cos(ang), rho * np.sin(ang), np.zeros_like(ang)])
        h = geometry.halfLength
        return np.vstack([ring + [0, 0, -h], ring + [0, 0, h]])
    for attr in ("vertices", "points"):  # BVH meshes, convex polytopes
        if hasattr(geometry, attr):
            try:
                pts = np.asarray(getattr(geometry, attr)(), float).reshape(-1, 3)
            except (TypeError, ValueError, RuntimeError):
                continue
            if len(pts):
                return pts
    geometry.computeLocalAABB()
    lo, hi = np.asarray(geometry.aabb_local.min_), np.asarray(geometry.aabb_local.max_)
    return np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])


def fit_capsule(points) -> tuple[np.ndarray, np.ndarray, float]:
    """``(a, b, r)``: a capsule containing ``points`` (k, 3) [m], axis along their first principal direction."""
    P = np.asarray(points, float).reshape(-1, 3)
    c = P.mean(axis=0)
    if len(P) == 1:
        return c.copy(), c.copy(), 0.0
    _, _, Vt = np.linalg.svd(P - c, full_matrices=False)
    u = Vt[0]
    t = (P - c) @ u
    rho = np.linalg.norm((P - c) - t[:, None] * u, axis=1)
    r = float(rho.max())
    slack = np.sqrt(np.maximum(r * r - rho * rho, 0.0))
    lo, hi = float(np.min(t + slack)), float(np.max(t - slack))
    if lo > hi:  # every point fits in a sphere of radius r around a point of the axis
        mid = 0.5 * (lo + hi)
        return c + mid * u, c + mid * u, float(max(r, np.max(np.linalg.norm(P - (c + mid * u), axis=1))))
    return c + lo * u, c + hi * u, r


def joint_clouds(model: pin.Model, collision_model: pin.GeometryModel) -> dict[int, np.ndarray]:
    """Joint id -> (k, 3) points [m] in that joint's frame whose convex hull contains all the
    collision geometry attached to it (`enclosing_points` of each geometry object, placed), for the
    joints carrying geometry, in joint order. The bounding volumes (capsules, STP-BVs) are built
    from these clouds."""
    clouds: dict[int, list] = {}
    for g in collision_model.geometryObjects:
        pts = enclosing_points(g.geometry)
        clouds.setdefault(int(g.parentJoint), []).append(pts @ g.placement.rotation.T + g.placement.translation)
    if not clouds:
        raise PlanningError(f"robot {model.name!r}: field 'collision_model' must have geometry to build volumes")
    return {j: np.vstack(clouds[j]) for j in sorted(clouds)}


def robot_capsules(model: pin.Model, collision_model: pin.GeometryModel) -> list[Capsule]:
    """One capsule per joint carrying collision geometry (module docstring), in joint order."""
    return [Capsule(model.names[j], j, *fit_capsule(P)) for j, P in joint_clouds(model, collision_model).items()]


def capsule_world(capsules, data) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(A, B, R, O)``: the capsules' endpoints (k, 3), radii (k,) and joint origins (k, 3) in the
    world, from ``data.oMi`` (joint placements updated)."""
    Ms = [data.oMi[c.joint] for c in capsules]
    Rs = np.array([M.rotation for M in Ms])
    O = np.array([M.translation for M in Ms])
    A = np.einsum("kij,kj->ki", Rs, np.array([c.a for c in capsules])) + O
    B = np.einsum("kij,kj->ki", Rs, np.array([c.b for c in capsules])) + O
    return A, B, np.array([c.radius for c in capsules]), O


def adjacent_pairs(model, bodies) -> set:
    """frozensets of the joint ids of adjacent ``bodies`` (anything with a ``joint`` id): a body and
    its nearest ancestor that carries geometry (module docstring)."""
    joints = {c.joint for c in bodies}
    pairs = set()
    for j in joints:
        p = model.parents[j]
        while p > 0 and p not in joints:
            p = model.parents[p]
        if p in joints:
            pairs.add(frozenset((j, p)))
    return pairs


def self_collision_pairs(model, capsules, q_ref, margin: float) -> np.ndarray:
    """(m, 2) index pairs into ``capsules`` to check: all pairs but the adjacent ones and those
    closer than ``margin`` [m] at ``q_ref`` (module docstring)."""
    adjacent = adjacent_pairs(model, capsules)
    cand = np.array(
        [
            (i, k)
            for i in range(len(capsules))
            for k in range(i + 1, len(capsules))
            if frozenset((capsules[i].joint, capsules[k].joint)) not in adjacent
        ],
        int,
    ).reshape(-1, 2)
    if not len(cand):
        return cand
    data = model.createData()
    pin.forwardKinematics(model, data, np.asarray(q_ref, float))
    A, B, R, _ = capsule_world(capsules, data)
    i, k = cand[:, 0], cand[:, 1]
    d = capsule_distances(A[i], B[i], R[i], A[k], B[k], R[k])[0]
    return cand[d >= margin]


def capsule_frame(capsule):
    """coal's frame of ``capsule`` in its joint frame: ``(R, centre)``, centred between the
    endpoints, z along b - a (any frame for a sphere)."""
    u = capsule.b - capsule.a
    L = np.linalg.norm(u)
    R = np.eye(3)
    if L > 1e-12:
        z = u / L
        x = np.cross([0.0, 1.0, 0.0], z) if abs(z[1]) < 0.9 else np.cross([1.0, 0.0, 0.0], z)
        x /= np.linalg.norm(x)
        R = np.column_stack([x, np.cross(z, x), z])
    return R, 0.5 * (capsule.a + capsule.b)
