"""Collision with the environment: the signed distances between the robot's bounding capsules and
fixed convex obstacles kept above a margin, eps - d_i(q) <= 0 (3.47), gradient (3.56)
(Escande 2008, §3.4.2).

Obstacles are convex coal shapes at fixed world placements (`Obstacle`; a scene's box, sphere and
cylinder bodies by `Obstacle.from_scene`). Distances and witness points come from coal's GJK/EPA
(``coal.distance`` between a ``coal.Capsule`` and the obstacle: signed, negative in penetration),
not from a closed form: the capsule-box closest points have no short closed form. Rows, one per
(capsule, obstacle) pair not listed in ``exclude`` [m]: margin - d_i(q). Jacobian (3.56) with the
obstacle fixed: d' = n_d . dp_1/dv, p_1 coal's witness point on the capsule taken as fixed in its
body, n_d = -coal's normal (which points from the capsule to the obstacle). C^1 only where the
witness points are unique: a capsule and a box are neither strictly convex (Escande 2008, §4.3.2,
Theorem 4.3.3),
so the gradient jumps when the capsule axis becomes parallel to a box face (the STP-BV version,
`stpbv_environment_collision`, is C^1 there; docs/posture_generator.md compares them). Bodies meant to
touch an obstacle (a hand on a shelf) must have their pairs in ``exclude``.

``shapes`` measures other convex shapes of the bodies instead of the capsules (`BodyShape`, e.g. a
body's own collision geometry by `body_shapes`), with the same rows and Jacobian; the contact
planner keeps a free thigh's real box clear of a seat with it (`contact.collision_pairs`).
"""

from __future__ import annotations

import copy
from typing import NamedTuple

import numpy as np
import pinocchio as pin

from humanoid_model.coal_import import coal
from humanoid_model.joint_frames import JointFrames

from .. import kinematics as kin
from ..base import INEQUALITY, PostureConstraint
from ..geometry.capsules import capsule_frame, robot_capsules
from ..geometry.obstacles import body_obstacle_pairs
from ..geometry.pair_distances import PairDistances, convex_shape
from .self_collision import DEFAULT_MARGIN

__all__ = ["BodyShape", "EnvironmentCollision", "body_shapes", "capsule_shapes"]


class BodyShape(NamedTuple):
    """A convex coal ``shape`` at ``placement`` (`pin.SE3`) in the frame of joint ``joint`` (its id)
    named ``body``."""

    body: str
    joint: int
    placement: object
    shape: object


def body_shapes(model, collision_model, joints) -> list[BodyShape]:
    """The collision geometry objects of ``collision_model`` attached to the joints named
    ``joints``, each as its convex shape (`geometry.pair_distances.convex_shape`)."""
    names = set(joints)
    return [
        BodyShape(model.names[g.parentJoint], int(g.parentJoint), g.placement, convex_shape(g.geometry))
        for g in collision_model.geometryObjects
        if model.names[g.parentJoint] in names
    ]


def capsule_shapes(capsules) -> list[BodyShape]:
    """The capsules (`geometry.capsules.Capsule`) as `BodyShape` s: coal capsules in their coal
    frames (`capsule_frame`), what `EnvironmentCollision` measures; a caller that builds many
    constraints on one robot passes them once as ``shapes``."""
    return [BodyShape(c.body, c.joint, pin.SE3(*capsule_frame(c)), coal.Capsule(c.radius, c.length)) for c in capsules]


class EnvironmentCollision(PostureConstraint):
    """Capsules of ``model``'s ``collision_model`` (or given ``capsules``, or the convex ``shapes``
    [`BodyShape`]) at least ``margin`` [m] from each of ``obstacles``; ``exclude``: (body, obstacle
    name) pairs not checked (body = the joint name of a capsule or shape)."""

    equations = "(3.47) with the gradient (3.56), Escande 2008, §3.4.2"

    def __init__(
        self,
        model,
        obstacles,
        collision_model=None,
        margin: float = DEFAULT_MARGIN,
        capsules=None,
        exclude=(),
        name: str = "environment_collision",
        shapes=None,
    ):
        self.model = model
        self.name = name
        self.margin = float(margin)
        if shapes is None:
            shapes = capsule_shapes(capsules if capsules is not None else robot_capsules(model, collision_model))
        self.bodies = list(shapes)
        self.obstacles = list(obstacles)
        self.pairs = body_obstacle_pairs(self.bodies, self.obstacles, exclude)
        self.dim = len(self.pairs)
        self.kinds = (INEQUALITY,) * self.dim
        nb = len(self.bodies)
        objects = [(f"body:{i}:{b.body}", b.joint, b.placement, b.shape) for i, b in enumerate(self.bodies)]
        objects += [(f"obstacle:{o.name}", 0, pin.SE3(o.rotation, o.translation), o.shape) for o in self.obstacles]
        self._pair_distances = PairDistances(objects, self.pairs + [0, nb])
        self._bound = _BoundShapes(self.bodies, self.obstacles)
        self._rows = None  # the rows of `_pair_distances` measured (None: all, in order)
        #: (body, obstacle name) of each row
        self.pair_names = [(self.bodies[i].body, self.obstacles[k].name) for i, k in self.pairs]
        self._joints = np.array([b.joint for b in self.bodies], int)[self.pairs[:, 0]]

    def subset(self, exclude=(), margin: float | None = None, name: str | None = None) -> EnvironmentCollision:
        """These rows less the (body, obstacle name) pairs ``exclude``, with ``margin`` [m] and
        ``name`` (None: these), sharing this constraint's distance evaluation: the same rows a
        new constraint with that ``exclude`` would have, in the same order, without building
        the shapes' Pinocchio geometry model again (~1 ms; the contact planner makes one per set
        of active pairs)."""
        skip = {tuple(p) for p in exclude}
        keep = [r for r, p in enumerate(self.pair_names) if p not in skip]
        out = copy.copy(self)
        out.name = self.name if name is None else name
        out.margin = self.margin if margin is None else float(margin)
        out.pairs, out._joints = self.pairs[keep], self._joints[keep]
        out.pair_names = [self.pair_names[r] for r in keep]
        out._rows = [int(r) for r in (keep if self._rows is None else np.asarray(self._rows)[keep])]
        out.dim = len(keep)
        out.kinds = (INEQUALITY,) * out.dim
        return out

    def distances(self, data, rows=None) -> tuple:
        """``(d, p, n)``: signed distances (m,) [m], witness points on the capsules (m, 3) and unit
        vectors n_d (m, 3) from the obstacle to the capsule, at the configuration of ``data``
        (`PairDistances`: coal in C++ through Pinocchio), of every row or of the rows ``rows``."""
        if rows is None:
            rows = self._rows
        elif self._rows is not None:  # this subset's rows among the full evaluation's
            rows = np.asarray(self._rows, int)[np.asarray(rows, int)]
        d, p, _, n = self._pair_distances(self.model, data, rows=rows, second_points=False)
        return d, p, n

    def lower_bounds(self, data) -> np.ndarray:
        """(m,) [m]: a lower bound of each row's distance at the joint placements of ``data``
        (`_BoundShapes`: no coal call), -inf for a shape it does not bound; a caller that needs only
        the rows closer than some distance measures the others with coal (`distances` on ``rows``)."""
        return self._bound(data, self.pairs)

    def evaluate(self, q, data):
        nv = self.model.nv
        if not self.dim:
            return np.zeros(0), np.zeros((0, nv))
        d, p, n = self.distances(data)
        S = kin.support_columns(self.model)
        return self.margin - d, -kin.world_normal_rows(data.J, S[self._joints], p, n)


class _BoundShapes:
    """Lower bounds of the body-obstacle distances without coal. A body's shape lies within
    ``reach`` of a centre fixed in its joint's frame (a capsule: its axis's midpoint, radius +
    half length; a box: its centre, its half diagonal; a sphere: its centre, its radius), an
    obstacle within a box of half extents ``half`` about its placement, widened by ``round`` (a
    box: itself; a sphere: a point widened by its radius; a cylinder or capsule: its bounding box).
    The distance from the centre to that box, less ``reach`` and ``round``, is then at most the
    shapes' distance (the distance to a convex set is 1-Lipschitz), and at most 0 when they meet.
    Other shapes get -inf (always measured)."""

    def __init__(self, bodies, obstacles):
        self.joints = np.array([b.joint for b in bodies], int)
        self.centres = np.array([np.asarray(b.placement.translation, float) for b in bodies]).reshape(-1, 3)
        self.reach = np.array([_reach(b.shape) for b in bodies], float)
        self.rotation = np.array([np.asarray(o.rotation, float) for o in obstacles]).reshape(-1, 3, 3)
        self.translation = np.array([np.asarray(o.translation, float) for o in obstacles]).reshape(-1, 3)
        extents = [_extents(o.shape) for o in obstacles]
        self.half = np.array([e[0] for e in extents], float).reshape(-1, 3)
        self.round = np.array([e[1] for e in extents], float)
        self._frames = JointFrames()  # views of the joints' placements, per Data read

    def __call__(self, data, pairs) -> np.ndarray:
        """(m,) the bounds of the (body, obstacle) index ``pairs`` (m, 2) at the placements of ``data``."""
        view = self._frames(data)
        if view is not None:
            R, p = view
            c = np.einsum("bij,bj->bi", R[self.joints], self.centres) + p[self.joints]
        else:  # a Pinocchio whose oMi is laid out otherwise: the placements one by one
            c = np.empty((len(self.joints), 3))
            for i, (j, local) in enumerate(zip(self.joints, self.centres)):
                M = data.oMi[int(j)]
                c[i] = M.rotation @ local + M.translation
        ib, io = pairs[:, 0], pairs[:, 1]
        local = np.einsum("rij,ri->rj", self.rotation[io], c[ib] - self.translation[io])
        outside = np.maximum(np.abs(local) - self.half[io], 0.0)
        return np.sqrt(np.einsum("ri,ri->r", outside, outside)) - self.round[io] - self.reach[ib]


def _reach(shape) -> float:
    """`_BoundShapes`'s reach of a body shape about its placement's origin [m] (inf: unbounded here)."""
    if isinstance(shape, coal.Capsule):
        return float(shape.radius + shape.halfLength)
    if isinstance(shape, coal.Box):
        return float(np.linalg.norm(shape.halfSide))
    if isinstance(shape, coal.Sphere):
        return float(shape.radius)
    return np.inf


def _extents(shape) -> tuple:
    """`_BoundShapes`'s (half extents (3,), round) of an obstacle shape about its placement [m]."""
    if isinstance(shape, coal.Box):
        return np.asarray(shape.halfSide, float), 0.0
    if isinstance(shape, coal.Sphere):
        return np.zeros(3), float(shape.radius)
    if isinstance(shape, coal.Cylinder):
        return np.array([shape.radius, shape.radius, shape.halfLength], float), 0.0
    if isinstance(shape, coal.Capsule):
        return np.array([shape.radius, shape.radius, shape.halfLength + shape.radius], float), 0.0
    return np.zeros(3), np.inf
