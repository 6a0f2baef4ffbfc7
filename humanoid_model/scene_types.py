"""The scene's data types: what `humanoid_model.scene.load_scene` returns (schema in
``docs/scenes.md``). Plain frozen dataclasses, validated by the loader; no file reading here.

`Scene` holds gravity, the `Ground` (or None), static bodies (`StaticBody` with a `Shape`), free
bodies (`FreeBody` made of `Part` shapes), planner surfaces (`Surface`, Escande 2008, §5.3.1.1),
timed wrenches (`Wrench`) and the robot (`RobotSpec`). `humanoid_model.scene` re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numpy as np

from humanoid_model.collision_rules import CollisionRules
from humanoid_model.planar_polygon import inside
from humanoid_model.scene_geometry import (
    Pose,
    box_inertia,
    cylinder_inertia,
    polygon_centroid,
    rpy_to_matrix,
    sphere_inertia,
)

__all__ = [
    "DEFAULT_GRAVITY",
    "DEFAULT_FRICTION",
    "DEFAULT_RESTITUTION",
    "Ground",
    "Shape",
    "StaticBody",
    "Surface",
    "Part",
    "FreeBody",
    "Wrench",
    "RobotSpec",
    "Scene",
    "Pose",
]

# Defaults (chosen by us unless cited):
DEFAULT_GRAVITY = (0.0, 0.0, -9.81)  # [m/s^2] standard gravity, z up (REP 103)
DEFAULT_FRICTION = 0.4  # Coulomb mu between all objects in the thesis's simulations (Chardonnet 2009, §3.1.6.1)
DEFAULT_RESTITUTION = 0.0  # chosen: perfectly plastic; Chardonnet 2009, §3.1.2 gives no value of e

Array = np.ndarray


@dataclass(frozen=True)
class Ground:
    """The ground: the horizontal plane z = ``height`` [m], solid below."""

    height: float = 0.0
    friction: float = DEFAULT_FRICTION
    restitution: float = DEFAULT_RESTITUTION


@dataclass(frozen=True)
class Shape:
    """A geometric primitive in its own frame (centred at the origin).

    kind: ``box`` (``size`` = full extents (3,) [m]), ``sphere`` (``radius``), ``cylinder``
    (``radius``, ``length``, axis z), ``plane`` (the half-space z <= 0 of its frame: the surface
    is the frame's xy plane, outward normal +z), ``mesh`` (``file``, absolute path, and
    ``scale`` (3,); for a free body also ``com`` (3,) [m], the centre of volume in the shape
    frame, and ``unit_inertia`` (3, 3) [m^2], the inertia per kg about it, of the solid mesh).
    """

    kind: str
    size: Array | None = None
    radius: float | None = None
    length: float | None = None
    file: Path | None = None
    scale: Array | None = None
    com: Array | None = None
    unit_inertia: Array | None = None


@dataclass(frozen=True)
class StaticBody:
    """A fixed environment body: shape, pose in the world, friction mu and restitution e."""

    name: str
    shape: Shape
    pose: Pose
    friction: float = DEFAULT_FRICTION
    restitution: float = DEFAULT_RESTITUTION

    @property
    def normal(self) -> Array:
        """Outward world normal of a ``plane`` body (its frame's z axis)."""
        return self.pose.rotation[:, 2]


def _read_only(a: Array) -> Array:
    """``a``, marked read-only (a value cached on a frozen object)."""
    a.flags.writeable = False
    return a


@dataclass(frozen=True)
class Surface:
    """A planner surface (Escande 2008, §5.3.1.1): a planar convex polygon.

    vertices: (k, 3) world points [m], counter-clockwise about ``normal``; normal: unit outward
    normal; d0: unit reference direction (never collinear with the normal; theta = 0 is its
    projection on the plane, `tangent`); body: the static body it lies on (or None);
    friction: mu given, else that of its body, else the ground's.
    """

    name: str
    vertices: Array
    normal: Array
    d0: Array
    area: float
    body: str | None = None
    friction: float = DEFAULT_FRICTION

    # The derived vectors below are computed once per surface and returned read-only: a surface
    # is frozen, and the contact planner reads them some 10^4 times per scene (its frames, search
    # boxes and support polygons).

    @cached_property
    def centroid(self) -> Array:
        """Area centroid of the polygon [m] (world; read-only)."""
        return _read_only(polygon_centroid(self.vertices, self.normal))

    @cached_property
    def tangent(self) -> Array:
        """Unit projection of d0 on the surface plane (the theta = 0 direction d_E(0); read-only)."""
        t = self.d0 - (self.d0 @ self.normal) * self.normal
        return _read_only(t / np.linalg.norm(t))

    @cached_property
    def rotation(self) -> Array:
        """3x3 frame of the surface: columns (tangent, normal x tangent, normal) (read-only)."""
        t = self.tangent
        return _read_only(np.column_stack([t, np.cross(self.normal, t), self.normal]))

    def contains(self, point, tol: float = 1e-9) -> bool:
        """Whether the projection of ``point`` on the plane lies inside the polygon, or less than
        ``tol`` [m] outside it (the default 1e-9 m, chosen: a point on an edge up to rounding is
        inside): `humanoid_model.planar_polygon.inside` in the surface's frame (`rotation`)."""
        R = self.rotation[:, :2]
        V = np.asarray(self.vertices, float)
        return inside((V - V[0]) @ R, (np.asarray(point, float) - V[0]) @ R, margin=-tol)


@dataclass(frozen=True)
class Part:
    """One shape of a free body: its shape, pose in the body frame and mass [kg]."""

    name: str
    shape: Shape
    pose: Pose
    mass: float

    @property
    def centre(self) -> Pose:
        """The part's centre of mass in the body frame: its pose, moved to a mesh's centre of volume."""
        if self.shape.kind == "mesh":
            return self.pose.compose(Pose(np.asarray(self.shape.com, float)))
        return self.pose

    @property
    def inertia(self) -> Array:
        """Inertia [kg m^2] of the solid shape about its centre (`centre`), in the part frame."""
        s = self.shape
        if s.kind == "mesh":
            return self.mass * np.asarray(s.unit_inertia, float)
        if s.kind == "box":
            return box_inertia(self.mass, s.size)
        if s.kind == "sphere":
            return sphere_inertia(self.mass, s.radius)
        return cylinder_inertia(self.mass, s.radius, s.length)


@dataclass(frozen=True)
class FreeBody:
    """A free-floating rigid body.

    shape: ``box``, ``sphere``, ``cylinder``, ``mesh`` (a closed triangle mesh of uniform
    density; it collides as its convex hull) or ``compound``; parts: its shapes (one, at the body
    origin, for a simple body); pose: body frame in the world; linear_velocity: initial world
    velocity of the body-frame origin [m/s]; angular_velocity: initial world angular velocity
    [rad/s]; mass [kg], com (3,) in the body frame [m] and inertia (3, 3) about the COM in body
    axes [kg m^2], computed from the parts (solid shapes, parallel-axis theorem).
    """

    name: str
    shape: str
    parts: tuple[Part, ...]
    pose: Pose
    linear_velocity: Array
    angular_velocity: Array
    friction: float
    restitution: float
    mass: float
    com: Array
    inertia: Array


@dataclass(frozen=True)
class Wrench:
    """A timed external wrench on ``body`` (a free body or a robot link), applied for
    ``start`` <= t < ``end`` [s]: ``force`` [N] and ``torque`` [N m] in world axes, force applied
    at ``point`` [m] given in the body frame."""

    body: str
    force: Array
    torque: Array
    point: Array
    start: float
    end: float

    def active(self, t: float) -> bool:
        """Whether the wrench acts at time ``t`` [s]."""
        return self.start <= t < self.end


@dataclass(frozen=True)
class RobotSpec:
    """The robot of a scene: ``name`` (shipped name or URDF path as written), ``urdf_path``,
    ``posture`` (None: the robot's default), ``joints`` overrides [rad], ``placement``: the pose
    in the world of the posture's ground frame (the posture's base pose is composed with it),
    ``base``: an absolute base pose replacing the posture's (or None), ``soles``: the sole model,
    ``rigid`` (default) or ``fem`` (`humanoid_model.sole_spec`), ``ankle``: ``rigid`` (default) or
    ``flexible`` (`humanoid_model.flexible_ankle`), ``motion``: keyframes (t, posture, joints) of the PD
    set-point (empty: hold the initial posture)."""

    name: str
    urdf_path: Path
    posture: str | None = None
    joints: dict[str, float] = field(default_factory=dict)
    placement: Pose = field(default_factory=Pose)
    base: Pose | None = None
    soles: str = "rigid"  #: "rigid" or "fem" (the robot YAML's deformable soles; docs/soles.md)
    ankle: str = "rigid"  #: "rigid" or "flexible" (`humanoid_model.flexible_ankle`; docs/soles.md)
    #: ((t [s], posture, {joint: angle [rad]}), ...): keyframes of the PD set-point, eased between them (cubic, at
    #: rest at each), held after the last
    motion: tuple = ()

    def moved(self, dx: float, dy: float, yaw: float) -> RobotSpec:
        """This robot shifted by (``dx``, ``dy``) [m] and turned by ``yaw`` [rad] about the world's
        vertical through its placement's (or absolute base pose's) origin."""
        turn, shift = rpy_to_matrix((0.0, 0.0, yaw)), np.array([dx, dy, 0.0])

        def move(pose: Pose) -> Pose:
            return Pose.from_matrix(pose.xyz + shift, turn @ pose.rotation)

        if self.base is not None:
            return replace(self, base=move(self.base))
        return replace(self, placement=move(self.placement))

    def base_pose(self, posture_base) -> Array:
        """World base pose (7,) xyz + quat xyzw, from the posture's base pose (7,)."""
        if self.base is not None:
            return self.base.xyz_quat
        b = np.asarray(posture_base, float)
        return self.placement.compose(Pose(b[:3], b[3:] / np.linalg.norm(b[3:]))).xyz_quat


@dataclass
class Scene:
    """A loaded, validated scene (see ``docs/scenes.md``)."""

    name: str
    description: str
    gravity: Array
    ground: Ground | None
    bodies: list[StaticBody]
    free_bodies: list[FreeBody]
    surfaces: list[Surface]
    wrenches: list[Wrench]
    robot: RobotSpec | None
    params: dict[str, float]
    source: Path | None = None
    collision: CollisionRules = field(default_factory=CollisionRules)  # pair filtering (collision_rules)
    planning: object = None  # `planning_spec.PlanningSpec` of the ``planning`` section, or None

    def _get(self, items, name, what):
        for item in items:
            if item.name == name:
                return item
        raise KeyError(
            f"scene '{self.name}' has no {what} '{name}' (has: {', '.join(i.name for i in items) or 'none'})"
        )

    def body(self, name: str) -> StaticBody:
        """The static body ``name`` (KeyError listing the names when absent)."""
        return self._get(self.bodies, name, "static body")

    def free_body(self, name: str) -> FreeBody:
        """The free body ``name`` (KeyError listing the names when absent)."""
        return self._get(self.free_bodies, name, "free body")

    def surface(self, name: str) -> Surface:
        """The planner surface ``name`` (KeyError listing the names when absent)."""
        return self._get(self.surfaces, name, "surface")
