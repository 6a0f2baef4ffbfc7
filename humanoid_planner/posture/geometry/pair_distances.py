"""Signed distances between pairs of coal shapes placed on a model's joints, computed by
Pinocchio in C++: the shared distance evaluation of `GeometrySelfCollision` (robot against
robot) and `EnvironmentCollision` (robot against obstacles, shapes on the universe joint).

One `pin.updateGeometryPlacements` places every shape from the joint placements of a kinematics
pass, and `pin.computeDistance` runs coal's GJK/EPA on a pair: 8 box pairs cost 24 us instead of
70 us placing each shape and calling coal from Python.

Requests: GJK tolerance 1e-10 m (coal's default 1e-6 gives witness points too noisy for a
finite-difference-grade Jacobian, 3.56), and no warm start from the pair's previous result
(Pinocchio's default): with it a distance depends on the calls before it, by up to the
tolerance (7e-6 in a 1e-5 central difference), and the planner's children on their order.
"""

from __future__ import annotations

import warnings

import numpy as np
import pinocchio as pin

from humanoid_model.coal_import import coal
from humanoid_planner.exceptions import PlanningError

from .capsules import enclosing_points

__all__ = ["PairDistances", "convex_shape"]

GJK_TOLERANCE = 1e-10  #: [m] (module docstring)


def convex_shape(geometry):
    """The shape a geometry is measured by: a box as it is, any other geometry the convex hull of
    its `capsules.enclosing_points` (a cylinder's circumscribed 16-gon prism, a mesh's vertices),
    which contains it: GJK ends exactly on polytopes, where on HRP-2's shank cylinder its witness
    points are ~1e-8 m noisy, enough to miss a finite-difference Jacobian test by 1e-6."""
    if isinstance(geometry, coal.Box):
        return geometry
    vertices = coal.StdVec_Vec3s()
    for p in np.asarray(enclosing_points(geometry), float):
        vertices.append(p)
    return coal.Convex.convexHull(vertices, False, "Qt")


class PairDistances:
    """Shapes ``objects`` [(name, parent joint, placement `pin.SE3` in the joint frame, coal
    shape)] and index ``pairs`` (m, 2) into them; row k of the results is pair k."""

    def __init__(self, objects, pairs):
        self.objects = list(objects)
        self.pairs = np.asarray(pairs, int).reshape(-1, 2)
        self._build()

    def _build(self):
        gm = pin.GeometryModel()
        for name, joint, placement, shape in self.objects:
            gm.addGeometryObject(pin.GeometryObject(name, int(joint), placement, shape))
        for a, b in self.pairs:
            gm.addCollisionPair(pin.CollisionPair(int(a), int(b)))
        kept = [(int(cp.first), int(cp.second)) for cp in gm.collisionPairs]
        if kept != [(int(a), int(b)) for a, b in self.pairs]:  # Pinocchio drops repeated pairs
            raise PlanningError(
                f"pair distances: field 'pairs' must be distinct (first, second) pairs; {self.pairs.tolist()}"
            )
        self._gm, self._gd = gm, pin.GeometryData(gm)
        for request in self._gd.distanceRequests:
            request.gjk_tolerance = GJK_TOLERANCE
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # coal 3: deprecated, still read
                request.enable_cached_gjk_guess = False

    def __getstate__(self):  # Pinocchio's GeometryData does not pickle (`parallel`'s workers): rebuilt
        return {"objects": self.objects, "pairs": self.pairs}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._build()

    def __call__(self, model, data, rows=None, second_points: bool = True) -> tuple:
        """``(d, p1, p2, n)`` at the joint placements of ``data``: signed distances (r,) [m],
        witness points (r, 3) on the first and second shape (``p2`` None unless
        ``second_points``) and unit vectors (r, 3) from the second shape to the first, of every
        pair or of the pairs ``rows``."""
        rows = range(len(self.pairs)) if rows is None else [int(k) for k in rows]
        pin.updateGeometryPlacements(model, data, self._gm, self._gd)
        m = len(rows)
        d, p1, n = np.empty(m), np.empty((m, 3)), np.empty((m, 3))
        p2 = np.empty((m, 3)) if second_points else None
        for i, k in enumerate(rows):
            res = pin.computeDistance(self._gm, self._gd, k)
            d[i] = res.min_distance
            p1[i] = res.getNearestPoint1()
            if second_points:
                p2[i] = res.getNearestPoint2()
            n[i] = res.normal
        return d, p1, p2, -n
