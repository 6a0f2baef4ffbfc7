"""Convex polygons in the plane: the one convex hull, signed distance and inside test of the stack.

* `convex_hull(points, tol=0.0, decimals=None)`: the counter-clockwise hull (k, 2) of 2-D points
  (Andrew's monotone chain), with the caller's rule for points that coincide and for points on
  an edge;
* `signed_distance(polygon, point)`: the distance [m] from a point to the nearest edge line of a
  counter-clockwise convex polygon, positive inside;
* `inside(polygon, point, margin=0.0)`: whether the point is inside by at least ``margin``;
* `clip(polygon, window)`: the part of a convex polygon inside a convex window;
* `shrink(polygon, margin)`: the points at least ``margin`` inside a convex polygon.

Users and their rules: the kinematic support polygon and its CoM check
(`humanoid_control.kinematics.com`: exact coordinates), the stance's support polygon
(`humanoid_planner.posture.support_polygon`: coordinates rounded to 12 decimals), the walking
pattern's support polygon (`humanoid_planner.walking_pattern.pattern`: exact coordinates) and the
simulator's mesh patches (`humanoid_sim.collision.mesh`: ``tol = CLIP_TOL``, points on one grid
cell merged and points within ``tol`` of an edge dropped); the scene surfaces' point test
(`humanoid_model.scene_types.Surface.contains`, in the surface's frame, a point 1e-9 m outside an
edge counted inside), used by the contact planner's start contacts and its PRM guide.
"""

from __future__ import annotations

import numpy as np

__all__ = ["convex_hull", "signed_distance", "inside", "clip", "shrink"]


def convex_hull(points, tol: float = 0.0, decimals: int | None = None) -> np.ndarray:
    """Counter-clockwise convex hull (k, 2) of ``points`` (n, 2) (further columns ignored), from the
    point of least x (then least y); Andrew's monotone chain.

    Points that coincide count once, by one of two rules (the two users' rules differ in more than
    a tolerance, so both are kept):

    * ``tol = 0`` (default): equal coordinates, after rounding them to ``decimals`` decimals when
      given (the hull's vertices are then the rounded points);
    * ``tol > 0`` [m]: points whose coordinates divided by ``tol`` round to the same integers (one
      ``tol`` grid cell), the first given kept as it is.

    A point on the line of its two neighbours is not a vertex; with ``tol > 0``, neither is a
    point within ``tol`` of that line. Fewer than three distinct points: those points (one or two;
    none for no point), sorted by x then y."""
    P = np.asarray(points, float)
    if P.size == 0:
        return np.zeros((0, 2))
    P = P[:, :2]
    if decimals is not None:
        P = np.round(P, decimals)
    if tol > 0:
        _, first = np.unique(np.round(P / tol).astype(np.int64), axis=0, return_index=True)
        keep = P[first].tolist()
    else:
        keep = sorted(set(map(tuple, P.tolist())))  # equal points once (the first given), by x then y
    if len(keep) < 3:
        return np.array(keep, dtype=float).reshape(-1, 2)

    def turn(o, a, b):  # > 0: o -> a -> b turns left (b more than tol off the line o-a)
        dx, dy = a[0] - o[0], a[1] - o[1]
        c = dx * (b[1] - o[1]) - dy * (b[0] - o[0])
        return c - tol * np.hypot(dx, dy) if tol > 0 else c

    lower, upper = [], []
    for p in keep:
        while len(lower) >= 2 and turn(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(keep):
        while len(upper) >= 2 and turn(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1], dtype=float)


def signed_distance(polygon, point) -> float:
    """Distance [m] from ``point`` (its x, y) to the nearest edge line of the counter-clockwise
    convex ``polygon`` (k, 2), positive inside, negative outside (for a point outside, the distance
    to the farthest-out edge line: a lower bound of the distance to the polygon)."""
    P = np.asarray(polygon, float)[:, :2]
    x = np.asarray(point, float)[:2]
    t = np.roll(P, -1, axis=0) - P  # the edges
    d = x - P
    return float(np.min((t[:, 0] * d[:, 1] - t[:, 1] * d[:, 0]) / np.hypot(t[:, 0], t[:, 1])))


def inside(polygon, point, margin: float = 0.0) -> bool:
    """Whether ``point`` lies inside the counter-clockwise convex ``polygon`` by at least
    ``margin`` [m] (`signed_distance` >= ``margin``)."""
    return signed_distance(polygon, point) >= margin


def clip(polygon, window) -> np.ndarray:
    """The part (m, 2) of the convex ``polygon`` (k, 2, counter-clockwise) inside the convex
    ``window`` (w, 2, counter-clockwise): Sutherland-Hodgman clipping, one window edge at a time;
    a point on an edge line is inside. (0, 2) when they do not overlap."""
    P = [np.asarray(p, float)[:2] for p in np.asarray(polygon, float)]
    W = np.asarray(window, float)[:, :2]
    for a, b in zip(W, np.roll(W, -1, axis=0), strict=True):
        e = b - a
        out = []
        for j in range(len(P)):
            x, y = P[j], P[(j + 1) % len(P)]
            sx = e[0] * (x[1] - a[1]) - e[1] * (x[0] - a[0])  # > 0: left of the edge, inside
            sy = e[0] * (y[1] - a[1]) - e[1] * (y[0] - a[0])
            if sx >= 0:
                out.append(x)
            if (sx >= 0) != (sy >= 0):
                out.append(x + sx / (sx - sy) * (y - x))
        P = out
        if not P:
            break
    return np.array(P, float).reshape(-1, 2)


def shrink(polygon, margin: float) -> np.ndarray:
    """The points at least ``margin`` [m] inside the convex ``polygon`` (k, 2, counter-clockwise):
    the polygon clipped by each of its edges' half-planes moved ``margin`` inwards (the inner
    parallel polygon; an edge may vanish). A polygon too small for the margin gives its vertices'
    centroid (1, 2)."""
    P = convex_hull(polygon)
    if len(P) < 3 or margin <= 0:
        return P
    out = P
    for a, b in zip(P, np.roll(P, -1, axis=0), strict=True):
        t = (b - a) / np.linalg.norm(b - a)
        n = np.array([-t[1], t[0]])  # inward normal of a counter-clockwise edge
        a2 = a + margin * n
        far = 1e3 * (1.0 + float(np.abs(P).max()))  # a window of the half-plane, beyond the polygon
        window = np.array([a2 - far * t, a2 + far * t, a2 + far * t + far * n, a2 - far * t + far * n])
        out = clip(out, window)
        if len(out) < 3:
            return P.mean(axis=0, keepdims=True)
    out = convex_hull(out, tol=1e-12)
    return out if len(out) >= 3 else P.mean(axis=0, keepdims=True)
