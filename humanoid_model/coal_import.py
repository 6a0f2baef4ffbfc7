"""coal, imported once for the whole project: ``from humanoid_model.coal_import import coal``.

Why not ``import coal``: coal 3.0.3's support function of a box (``getShapeSupport(const Box*)``
in ``src/narrowphase/support_functions.cpp``) holds a function-local ``static const`` factor that
pushes the box's negative faces out by 1e-10 (relative), set by the process's *first* box support
query: 1 + 1e-10 when that query's direction has a zero component, 1 otherwise, for as long as
the process lives. Every later box distance, witness point and contact depends on it by up to
~1e-11 m. So two processes that run the same query after different first queries answer
differently: without `fix_box_support`, the contact planner's worker processes (`contact.parallel`) return
children 8.8e-9 rad from the serial ones (a capsule-box query comes first in a worker, a box-box
query in the parent), and the posture generator's iterations carry the 1e-12 m gap into
different plans.

`fix_box_support` makes the process's first box support query one whose direction has zero
components (two axis-aligned boxes, GJK's default first direction (1, 0, 0) in the first box's
frame), for the distance (GJK, and EPA on an overlap) and the collision queries, so the factor is
1 + 1e-10 (the value coal's cylinder and cone supports hold as constants) in every process. It
runs when this module is first imported; the import-linter contract "coal is imported only
through humanoid_model.coal_import" (pyproject.toml) keeps every coal user behind it. Pinocchio's
geometry functions (``pin.computeCollisions``, ``pin.computeDistances``) query the same coal library
without importing it: a module that calls them imports this module too (the robot bridge's
self-collision check, `humanoid_control.bridge.collision`).
"""

from __future__ import annotations

import coal
import numpy as np

__all__ = ["coal", "fix_box_support"]


def fix_box_support() -> None:
    """Box-box distance and collision queries on two unit boxes 3 m and 0.5 m apart along x
    (separated: GJK; overlapping: EPA), so the first box support direction is axis-aligned
    (module docstring). A no-op for the result of any later query once coal's factor is set."""
    a, b = coal.Box(1.0, 1.0, 1.0), coal.Box(1.0, 1.0, 1.0)
    for x in (3.0, 0.5):
        ta, tb = coal.Transform3s(), coal.Transform3s(np.eye(3), np.array([x, 0.0, 0.0]))
        coal.distance(a, ta, b, tb, coal.DistanceRequest(), coal.DistanceResult())
        request = coal.CollisionRequest()
        request.enable_contact = True
        coal.collide(a, ta, b, tb, request, coal.CollisionResult())


fix_box_support()
