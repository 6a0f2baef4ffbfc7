"""Self-collision on the robot's own collision geometries, for the body pairs its capsules cannot
check: eps - d_i(q) <= 0 (3.47) with the gradient (3.56) (001_escande.md:124), d_i coal's signed
distance between two geometry objects of the collision model (GJK/EPA; boxes, cylinders, meshes:
any URDF), both moving.

Pairs (`geometry_pairs`): the capsule filter (`capsules.self_collision_pairs`) leaves out a body and
its nearest ancestor with geometry, and bodies whose capsules overlap at the reference posture.
Two of those can still meet: a body whose nearest ancestor with geometry is more than one joint
up (a hip's or a shoulder's chain of 2-3 joints without geometry: HRP-2's waist BODY and a thigh
LEG_LINK2, 10 cm apart at half-sitting, 1 cm into each other at a 1.8 rad hip flexion within the
joint's range; the joint limits of a single joint keep its two bodies apart, those of a chain
do not), and bodies whose fat capsules overlap by design (HRP-2's chest capsule, radius 0.25 m,
covers the forearms). For those body pairs, every pair of their geometry objects at least
``margin`` apart at the reference posture is checked here (closer ones touch by design).

Shapes: a box as it is; any other geometry by the convex hull of its `capsules.geometry_points`
(a cylinder's circumscribed 16-gon prism, a mesh's vertices), which contains it: GJK ends exactly
on polytopes, where on HRP-2's shank cylinder its witness points were ~1e-8 m noisy, enough to
miss the Jacobian test (test_posture_jacobians) by 1e-6.

Rows [m]: margin - d_i. Jacobian: d' = n . (dp_1/dv - dp_2/dv), p_1 and p_2 coal's witness points
taken as fixed in their bodies, n = -coal's normal (from geometry 2 to geometry 1), as
`self_collision` does for capsules. C^1 only where the witness points are unique (boxes are not
strictly convex, 001_escande.md:212: the gradient jumps when two faces turn parallel).
"""

from __future__ import annotations

import coal
import numpy as np
import pinocchio as pin

from .base import INEQUALITY, PostureConstraint
from .capsules import adjacent_pairs, geometry_points, normal_rows, reference_distances, robot_capsules
from .self_collision import DEFAULT_MARGIN

__all__ = ["GeometrySelfCollision", "geometry_pairs"]


def _hull(points):
    """coal's convex polytope of ``points`` (k, 3) [m] (qhull)."""
    vertices = coal.StdVec_Vec3s()
    for p in np.asarray(points, float):
        vertices.append(p)
    return coal.Convex.convexHull(vertices, False, "Qt")


class GeometrySelfCollision(PostureConstraint):
    """The geometry objects ``pairs`` (m, 2) (indices into ``collision_model.geometryObjects``,
    of different joints) at least ``margin`` [m] apart; ``pairs`` None: `geometry_pairs` at
    ``q_ref`` (the robot's default posture)."""

    equations = "(3.47) with the gradient (3.56), 001_escande.md:124"

    def __init__(
        self,
        model,
        collision_model,
        q_ref=None,
        margin: float = DEFAULT_MARGIN,
        pairs=None,
        name: str = "geometry_self_collision",
    ):
        self.model, self.collision_model, self.name = model, collision_model, name
        self.margin = float(margin)
        if pairs is None:
            pairs = geometry_pairs(model, collision_model, pin.neutral(model) if q_ref is None else q_ref, margin)
        self.pairs = np.asarray(pairs, int).reshape(-1, 2)
        self.dim = len(self.pairs)
        self.kinds = (INEQUALITY,) * self.dim
        objs = collision_model.geometryObjects
        self._joints = np.array([g.parentJoint for g in objs], int)
        self._placements = [g.placement for g in objs]
        self._coal()

    def _coal(self):
        """coal's shapes (a box itself, any other geometry the convex hull of its
        `capsules.geometry_points`, module docstring) and distance request."""
        self._shapes = [
            g.geometry if isinstance(g.geometry, coal.Box) else _hull(geometry_points(g.geometry))
            for g in self.collision_model.geometryObjects
        ]
        self._request = coal.DistanceRequest()
        self._request.gjk_tolerance = 1e-10  # [m] (coal default 1e-6): finite-difference-grade witness points

    def __getstate__(self):  # coal's objects do not pickle (the planner's worker processes, `parallel`)
        return {k: v for k, v in self.__dict__.items() if k not in ("_shapes", "_request")}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._coal()

    def subset(self, rows) -> GeometrySelfCollision:
        """The same constraint on the pairs ``rows`` (indices into ``pairs``)."""
        return GeometrySelfCollision(
            self.model, self.collision_model, margin=self.margin, pairs=self.pairs[list(rows)], name=self.name
        )

    def body_names(self, row: int) -> tuple[str, str]:
        objs = self.collision_model.geometryObjects
        return objs[int(self.pairs[row, 0])].name, objs[int(self.pairs[row, 1])].name

    def distances(self, data) -> tuple:
        """``(d, p1, p2, n)``: signed distances (m,) [m], witness points (m, 3) on each geometry and
        unit vectors (m, 3) from geometry 2 to geometry 1, at the configuration of ``data``."""
        used = np.unique(self.pairs)
        T = {}
        for g in used:
            M = data.oMi[int(self._joints[g])] * self._placements[g]
            T[g] = coal.Transform3s(M.rotation, M.translation)
        d, p1, p2, n = np.empty(self.dim), np.empty((self.dim, 3)), np.empty((self.dim, 3)), np.empty((self.dim, 3))
        res = coal.DistanceResult()
        for row, (a, b) in enumerate(self.pairs):
            res.clear()
            d[row] = coal.distance(self._shapes[a], T[a], self._shapes[b], T[b], self._request, res)
            p1[row], p2[row] = res.getNearestPoint1(), res.getNearestPoint2()
            n[row] = -np.asarray(res.normal)
        return d, p1, p2, n

    def evaluate(self, q, data):
        nv = self.model.nv
        if not self.dim:
            return np.zeros(0), np.zeros((0, nv))
        d, p1, p2, n = self.distances(data)
        ja, jb = self._joints[self.pairs[:, 0]], self._joints[self.pairs[:, 1]]
        J = {j: pin.getJointJacobian(self.model, data, int(j), pin.LOCAL_WORLD_ALIGNED) for j in np.unique([ja, jb])}
        Ja, Jb = np.stack([J[j] for j in ja]), np.stack([J[j] for j in jb])
        Oa = np.array([data.oMi[int(j)].translation for j in ja])
        Ob = np.array([data.oMi[int(j)].translation for j in jb])
        return self.margin - d, -(normal_rows(Ja, Oa, p1, n) - normal_rows(Jb, Ob, p2, n))


def geometry_pairs(model, collision_model, q_ref, margin: float = DEFAULT_MARGIN, capsules=None) -> np.ndarray:
    """(m, 2) geometry-object index pairs to check (module docstring): of the body pairs adjacent
    through more than one joint or whose ``capsules`` (default: the robot's) overlap at ``q_ref``,
    the geometry pairs at least ``margin`` [m] apart at ``q_ref``."""
    capsules = robot_capsules(model, collision_model) if capsules is None else capsules
    bodies = {
        frozenset(p) for p in adjacent_pairs(model, capsules) if model.parents[max(p)] != min(p)
    }  # a chain of joints between the body and its ancestor
    cand, d = reference_distances(model, capsules, q_ref)
    bodies |= {frozenset((capsules[i].joint, capsules[k].joint)) for (i, k), di in zip(cand, d) if di < 0}
    objs = collision_model.geometryObjects
    pairs = [
        (a, b)
        for a in range(len(objs))
        for b in range(a + 1, len(objs))
        if frozenset((objs[a].parentJoint, objs[b].parentJoint)) in bodies
    ]
    if not pairs:
        return np.zeros((0, 2), int)
    data = model.createData()
    pin.forwardKinematics(model, data, np.asarray(q_ref, float))
    full = GeometrySelfCollision(model, collision_model, margin=margin, pairs=pairs)
    return full.pairs[full.distances(data)[0] >= margin]
