"""Collision geometry of a world (Chardonnet 2009, §3.1.5): what the collision
stage (`humanoid_sim.collision`) tests, built once from the robot's collision model and the scene.

* **mobile geometries** (`MobileGeom`): shapes attached to a joint of the world's combined
  Pinocchio model (robot links and free-body parts), with their placement in the joint frame;
* **static geometries** (`StaticGeom`): the scene's environment (ground half-space, tilted
  planes, boxes, spheres, cylinders, meshes), fixed in the world.

Shapes are coal objects (`shape_from_scene`). A mobile triangle mesh (a robot link's mesh, a
`mesh` free body) collides as its convex hull (`convex_hull`), as in MuJoCo: coal gives no
penetration depth between two triangle meshes, and a convex shape gets full contact patches
(a mesh box on the ground: its 4 corners). Static meshes stay triangle meshes (terrain may be
non-convex; `humanoid_sim.collision.mesh`). Each shape carries a bounding radius about its origin
(`bounding_radius`) for the broad phase. Materials: free bodies and environment bodies carry
the scene's friction and restitution; robot links carry none (the other body's material is used,
`humanoid_sim.collision.detector.CollisionDetector`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humanoid_model.coal_import import coal
from humanoid_model.exceptions import SceneError

__all__ = [
    "MobileGeom",
    "StaticGeom",
    "shape_from_scene",
    "halfspace",
    "bounding_radius",
    "convex_hull",
    "mobile_geometry",
    "static_geometry",
]


@dataclass
class MobileGeom:
    """A shape attached to joint ``joint`` of the combined model.

    name: geometry name; body: owner (free-body name or robot link name); tree: index of the
    mobile tree (0.. in `World.tree_cols`); placement_R (3, 3), placement_p (3,) [m]: shape frame in
    the joint frame; radius: bounding-sphere radius about the shape origin [m]; friction,
    restitution: material (None for robot links: the other body's material is used)."""

    name: str
    body: str
    joint: int
    tree: int
    shape: object
    placement_R: np.ndarray
    placement_p: np.ndarray
    radius: float
    friction: float | None = None
    restitution: float | None = None


@dataclass
class StaticGeom:
    """An environment shape: world rotation R, position p [m]; ``halfspace`` True for planes (solid
    below the plane through p with outward normal R[:, 2])."""

    name: str
    shape: object
    R: np.ndarray
    p: np.ndarray
    radius: float
    halfspace: bool
    friction: float
    restitution: float


def halfspace() -> coal.Halfspace:
    """The half-space z ≤ 0 of its own frame (outward normal +z): a plane of the scene."""
    return coal.Halfspace(np.array([0.0, 0.0, 1.0]), 0.0)


def shape_from_scene(shape) -> object:
    """coal shape of a `humanoid_model.scene.Shape` (box, sphere, cylinder, plane, mesh)."""
    k = shape.kind
    if k == "box":
        return coal.Box(*np.asarray(shape.size, float))
    if k == "sphere":
        return coal.Sphere(float(shape.radius))
    if k == "cylinder":
        return coal.Cylinder(float(shape.radius), float(shape.length))
    if k == "plane":
        return halfspace()
    if k == "mesh":
        loader = coal.MeshLoader()
        return loader.load(str(shape.file), np.asarray(shape.scale, float))
    raise ValueError(f"unsupported shape kind {k!r}")


def convex_hull(shape) -> object:
    """The coal convex hull of a triangle mesh (coal's qhull build); other shapes unchanged."""
    if isinstance(shape, coal.BVHModelBase):
        shape.buildConvexRepresentation(False)
        return shape.convex
    return shape


def bounding_radius(shape) -> float:
    """Radius of a sphere about the shape's origin that contains it [m] (inf for a half-space)."""
    if isinstance(shape, coal.Box):
        return float(np.linalg.norm(shape.halfSide))
    if isinstance(shape, coal.Sphere):
        return float(shape.radius)
    if isinstance(shape, coal.Cylinder):
        return float(np.hypot(shape.radius, shape.halfLength))
    if isinstance(shape, coal.Capsule):
        return float(shape.radius + shape.halfLength)
    if isinstance(shape, coal.Halfspace):
        return np.inf
    shape.computeLocalAABB()
    aabb = shape.aabb_local
    return float(max(np.linalg.norm(aabb.min_), np.linalg.norm(aabb.max_)))


def mobile_geometry(model, robot, free_bodies, body_joint: dict[str, int]) -> list[MobileGeom]:
    """Mobile shapes of a world: the robot's collision geometries (tree 0, no material) first,
    then every part of every free body (trees 1.. with a robot, 0.. without; the body's
    material). ``model``: the combined model; ``body_joint``: free-body name -> its joint id."""
    mobile: list[MobileGeom] = []
    if robot is not None:
        for go in robot.collision_model.geometryObjects:
            sh = convex_hull(go.geometry)
            mobile.append(
                MobileGeom(
                    go.name,
                    model.frames[go.parentFrame].name if go.parentFrame < len(model.frames) else go.name,
                    go.parentJoint,
                    0,
                    sh,
                    np.array(go.placement.rotation),
                    np.array(go.placement.translation),
                    bounding_radius(sh),
                )
            )
    tree0 = 1 if robot is not None else 0
    for i, b in enumerate(free_bodies):
        for part in b.parts:
            sh = convex_hull(shape_from_scene(part.shape))
            mobile.append(
                MobileGeom(
                    f"{b.name}/{part.name}",
                    b.name,
                    body_joint[b.name],
                    tree0 + i,
                    sh,
                    part.pose.rotation,
                    np.asarray(part.pose.xyz, float),
                    bounding_radius(sh),
                    b.friction,
                    b.restitution,
                )
            )
    return mobile


def static_geometry(scene) -> list[StaticGeom]:
    """Static shapes of a scene: the ground (if any) as a half-space at its height, then the
    scene's environment bodies. A body whose shape coal cannot load raises `SceneError`."""
    static: list[StaticGeom] = []
    if scene.ground is not None:
        gr = scene.ground
        static.append(
            StaticGeom(
                "ground",
                halfspace(),
                np.eye(3),
                np.array([0.0, 0.0, gr.height]),
                np.inf,
                True,
                gr.friction,
                gr.restitution,
            )
        )
    for b in scene.bodies:
        try:
            sh = shape_from_scene(b.shape)
        except Exception as exc:  # noqa: BLE001 - coal's loader raises anything; reported with the body
            raise SceneError(
                f"{scene.source}: static body '{b.name}': shape {b.shape.kind!r} cannot be used for collision ({exc})"
            ) from None
        static.append(
            StaticGeom(
                b.name,
                sh,
                b.pose.rotation,
                np.asarray(b.pose.xyz, float),
                bounding_radius(sh),
                b.shape.kind == "plane",
                b.friction,
                b.restitution,
            )
        )
    return static
