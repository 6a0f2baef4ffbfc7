"""Collision with the environment: the signed distances between the robot's bounding capsules and
fixed convex obstacles kept above a margin, eps - d_i(q) <= 0 (3.47), gradient (3.56)
(001_escande.md:124).

Obstacles are convex coal shapes at fixed world placements (`Obstacle`; a scene's box, sphere and
cylinder bodies by `Obstacle.from_scene`). Distances and witness points come from coal's GJK/EPA
(``coal.distance`` between a ``coal.Capsule`` and the obstacle: signed, negative in penetration),
not from a closed form: the capsule-box closest points have no short closed form. Rows, one per
(capsule, obstacle) pair not listed in ``exclude`` [m]: margin - d_i(q). Jacobian (3.56) with the
obstacle fixed: d' = n_d . dp_1/dv, p_1 coal's witness point on the capsule taken as fixed in its
body, n_d = -coal's normal (which points from the capsule to the obstacle). C^1 only where the
witness points are unique: a capsule and a box are neither strictly convex (001_escande.md:212),
so the gradient jumps when the capsule axis becomes parallel to a box face (the STP-BV version,
`stpbv_environment_collision`, is C^1 there; docs/planner.md compares them). Bodies meant to
touch an obstacle (a hand on a shelf) must have their pairs in ``exclude``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_model.coal_import import coal
from humanoid_planner.exceptions import PlanningError

from . import kinematics as kin
from .base import INEQUALITY, PostureConstraint
from .capsules import robot_capsules
from .pair_distances import PairDistances
from .self_collision import DEFAULT_MARGIN

__all__ = ["GROUND", "EnvironmentCollision", "Obstacle", "body_obstacle_pairs", "capsule_frame"]

# The ground as an obstacle (`Obstacle.ground`): until stop 20 the planner left the ground out and
# the under-table crawl knelt with its feet 12.5 cm into the floor (186 of 188 witnesses of a 120 s
# run had a geometry more than 5 mm under it). Sizes chosen: 100 m wide (every scene fits), 1 m deep.
GROUND = "ground"
GROUND_SIZE = 100.0  # [m]
GROUND_THICKNESS = 1.0  # [m]


@dataclass(frozen=True)
class Obstacle:
    """A fixed convex obstacle: ``name``, coal ``shape``, world ``rotation`` (3, 3) and ``translation`` (3,) [m]."""

    name: str
    shape: object
    rotation: np.ndarray
    translation: np.ndarray

    @classmethod
    def box(cls, name: str, size, center, rotation=None) -> Obstacle:
        """A box of full extents ``size`` (3,) [m] centred at ``center`` (3,) [m]."""
        size = np.asarray(size, float).reshape(3)
        if not np.all(size > 0):
            raise PlanningError(f"obstacle {name!r}: field 'size' must be positive; value {size.tolist()}")
        R = np.eye(3) if rotation is None else np.asarray(rotation, float)
        return cls(name, coal.Box(*size), R, np.asarray(center, float).reshape(3))

    @classmethod
    def ground(cls, height: float, name: str = GROUND) -> Obstacle:
        """The ground z <= ``height`` [m] as a box: its top face at ``height``, ``GROUND_SIZE`` wide,
        ``GROUND_THICKNESS`` deep (a box, not a coal half-space: the capsule-box distances and
        witness points of every other obstacle)."""
        h = float(height)
        if not np.isfinite(h):
            raise PlanningError(f"obstacle {name!r}: field 'height' must be finite; value {height}")
        return cls.box(name, (GROUND_SIZE, GROUND_SIZE, GROUND_THICKNESS), (0.0, 0.0, h - GROUND_THICKNESS / 2))

    @classmethod
    def from_scene(cls, scene, ground: bool = False) -> list[Obstacle]:
        """The scene's static box, sphere and cylinder bodies (planes and meshes are left out), and
        with ``ground`` its ground (`ground`, named ``GROUND``) when it has one: the contact
        planner's, whose floor contacts rest on it (`contact.feasibility.on_ground`); a posture
        problem whose feet stand on the floor without that binding keeps it out."""
        out = []
        for b in scene.bodies:
            s = b.shape
            if s.kind == "box":
                shape = coal.Box(*np.asarray(s.size, float))
            elif s.kind == "sphere":
                shape = coal.Sphere(float(s.radius))
            elif s.kind == "cylinder":
                shape = coal.Cylinder(float(s.radius), float(s.length))
            else:
                continue
            out.append(cls(b.name, shape, b.pose.rotation, np.asarray(b.pose.xyz, float)))
        if ground and getattr(scene, "ground", None) is not None:
            if any(o.name == GROUND for o in out):
                raise PlanningError(f"scene {scene.name!r}: a body is named {GROUND!r}, the ground obstacle's name")
            out.append(cls.ground(scene.ground.height))
        return out

    @property
    def transform(self):
        return coal.Transform3s(self.rotation, self.translation)


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


def body_obstacle_pairs(bodies, obstacles, exclude=(), offset: int = 0) -> np.ndarray:
    """(m, 2) index pairs (body i, obstacle ``offset`` + k) of every body (anything with a ``body``
    name) and obstacle, but the (body, obstacle name) pairs in ``exclude``."""
    skip = {tuple(p) for p in exclude}
    pairs = [
        (i, offset + k) for i, b in enumerate(bodies) for k, o in enumerate(obstacles) if (b.body, o.name) not in skip
    ]
    return np.array(pairs, int).reshape(-1, 2)


class EnvironmentCollision(PostureConstraint):
    """Capsules of ``model``'s ``collision_model`` (or given ``capsules``) at least ``margin`` [m] from
    each of ``obstacles``; ``exclude``: (body, obstacle name) pairs not checked (body = the joint name
    of a capsule)."""

    equations = "(3.47) with the gradient (3.56), 001_escande.md:124"

    def __init__(
        self,
        model,
        obstacles,
        collision_model=None,
        margin: float = DEFAULT_MARGIN,
        capsules=None,
        exclude=(),
        name: str = "environment_collision",
    ):
        self.model = model
        self.name = name
        self.margin = float(margin)
        self.capsules = list(capsules) if capsules is not None else robot_capsules(model, collision_model)
        self.obstacles = list(obstacles)
        self.pairs = body_obstacle_pairs(self.capsules, self.obstacles, exclude)
        self.dim = len(self.pairs)
        self.kinds = (INEQUALITY,) * self.dim
        nc = len(self.capsules)
        shapes = [
            (f"capsule:{i}:{c.body}", c.joint, pin.SE3(*capsule_frame(c)), coal.Capsule(c.radius, c.length))
            for i, c in enumerate(self.capsules)
        ]
        shapes += [(f"obstacle:{o.name}", 0, pin.SE3(o.rotation, o.translation), o.shape) for o in self.obstacles]
        self._pair_distances = PairDistances(shapes, self.pairs + [0, nc])
        self._joints = np.array([c.joint for c in self.capsules], int)[self.pairs[:, 0]]

    def distances(self, data) -> tuple:
        """``(d, p, n)``: signed distances (m,) [m], witness points on the capsules (m, 3) and unit
        vectors n_d (m, 3) from the obstacle to the capsule, at the configuration of ``data``
        (`PairDistances`: coal in C++ through Pinocchio)."""
        d, p, _, n = self._pair_distances(self.model, data, second_points=False)
        return d, p, n

    def evaluate(self, q, data):
        nv = self.model.nv
        if not self.dim:
            return np.zeros(0), np.zeros((0, nv))
        d, p, n = self.distances(data)
        S = kin.support_columns(self.model)
        return self.margin - d, -kin.world_normal_rows(data.J, S[self._joints], p, n)
