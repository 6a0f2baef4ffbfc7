"""Closed-form pieces of the STP-BV (sphere-torus-patch bounding volume, Escande 2008,
§4.3-4.5): the hull-to-volume margin bound (Thm 4.4.4, as printed and as its proof gives it), a
face's big-sphere centre (4.8)-(4.9) and the point-circle maximum distance of the sphere-torus
feature distance. The construction is `stpbv_build`, the smooth distance `stpbv_distance`.
"""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

__all__ = ["face_sphere_centre", "margin_bound", "max_margin", "point_circle_max_distance"]


def max_margin(a: float, r: float, R: float) -> float:
    """Thm 4.4.4 as printed (Escande 2008, §4.4.3): the largest distance [m] between a polyhedron and
    its STP-BV, R - sqrt((R - r)^2 - a^2 / 12), with ``a`` the longest edge, ``r`` the small-sphere
    radius, ``R`` the big-sphere radius [m]. Its own proof gives a^2 / 3: `margin_bound`."""
    s = (R - r) ** 2 - a * a / 12.0
    if not (R > r >= 0.0 and a >= 0.0 and s >= 0.0):
        raise PlanningError(f"STP-BV: fields 'a, r, R' must satisfy R > r >= 0, (R - r)^2 >= a^2/12; value {(a, r, R)}")
    return float(R - np.sqrt(s))


def margin_bound(a: float, r: float, R: float) -> float:
    """The largest distance [m] between a polyhedron's convex hull and its STP-BV that the thesis's
    own proof of Thm 4.4.4 gives (Escande 2008, §4.4.3): r at a vertex, R - sqrt((R - r)^2 - l^2/4) at
    an edge's midpoint, and R - sqrt((R - r)^2 - c^2) at a face's circumcentre (c its circumradius)
    when it lies inside the face, c <= a / sqrt(3) (equality: the equilateral face). So
    R - sqrt((R - r)^2 - a^2 / 3), with ``a`` the longest edge. The theorem prints a^2 / 12
    (`max_margin`): a typo, the equilateral face's circumradius squared is a^2 / 3 and even the
    edge term a^2 / 4 exceeds a^2 / 12 (docs/posture_generator.md; test_posture_stpbv's regular
    octahedron measures the a^2 / 3 margin)."""
    s = (R - r) ** 2 - a * a / 3.0
    if not (R > r >= 0.0 and a >= 0.0 and s >= 0.0):
        raise PlanningError(f"STP-BV: fields 'a, r, R' must satisfy R > r >= 0, (R - r)^2 >= a^2/3; value {(a, r, R)}")
    return float(R - np.sqrt(s))


def face_sphere_centre(P1, P2, P3, R: float, r: float) -> np.ndarray:
    """Centre C (3,) [m] of the big sphere of face P1 P2 P3 (counter-clockwise about the outward
    normal): at R - r from the three vertices, below the face (on the side opposite to
    w = (P2 - P1) x (P3 - P1)). (4.8)-(4.9), Escande 2008, §4.4.1: C = P1 + alpha u + beta v + gamma w."""
    P1, P2, P3 = (np.asarray(p, float).reshape(3) for p in (P1, P2, P3))
    u, v = P2 - P1, P3 - P1
    w = np.cross(u, v)
    uu, vv, uv, ww = u @ u, v @ v, u @ v, w @ w
    if ww <= 1e-24:
        raise PlanningError(f"STP-BV: field 'face' must be a non-degenerate triangle; value {[P1, P2, P3]}")
    alpha = (uu * vv - uv * vv) / (2.0 * ww)
    beta = (uu * vv - uv * uu) / (2.0 * ww)
    rest = (R - r) ** 2 - alpha**2 * uu - beta**2 * vv - 2.0 * alpha * beta * uv
    if rest < 0.0:
        raise PlanningError(f"STP-BV: field 'R' must exceed r + the face's circumradius; value {R}")
    gamma = -np.sqrt(rest / ww)
    return P1 + alpha * u + beta * v + gamma * w


def point_circle_max_distance(P, C, normal, radius: float) -> float:
    """Largest distance [m] from point P (3,) to the circle of centre C (3,), plane normal
    ``normal`` (3,) and ``radius`` R' [m]: sqrt(R' (R' + 2 |CQ|) + |CP|^2), Q the projection of P on
    the circle's plane (Escande 2008, §4.5.3)."""
    P, C = np.asarray(P, float).reshape(3), np.asarray(C, float).reshape(3)
    n = np.asarray(normal, float).reshape(3)
    n = n / np.linalg.norm(n)
    cp = P - C
    cq = cp - (cp @ n) * n
    return float(np.sqrt(radius * (radius + 2.0 * np.linalg.norm(cq)) + cp @ cp))
