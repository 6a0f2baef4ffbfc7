"""Closest points between segments, vectorised over pairs: the capsule-capsule distance in closed
form (spheres are capsules of zero length).

Capsule i is the set of points within r_i of the segment [a_i, b_i]; between two capsules the
signed distance is d = |x - y| - r_1 - r_2, x and y the closest points of the two segments, and
the unit vector n = (x - y) / |x - y| points from capsule 2 to capsule 1 (the thesis's n_d,
Escande 2008, §3.4.2). The witness points on the surfaces are x - r_1 n and y + r_2 n.

Closest points of segments: the clamped solution of Ericson (Real-Time Collision Detection,
§5.1.9): s = clamp((b f - c e) / (a e - b^2)), t = (b s + f) / e, then t clamped to [0, 1] and s
recomputed. They are unique unless the segments are parallel (a e - b^2 = 0) and overlap in
projection: there d is continuous but not differentiable (a capsule is not strictly convex,
Escande 2008, §4.3.2), the configurations the Jacobian tests stay away from.
"""

from __future__ import annotations

import numpy as np

__all__ = ["closest_points", "capsule_distances"]

_EPS = 1e-12  # [m^2] squared length under which a segment is a point (a sphere)


def _clamp01(x):
    return np.clip(x, 0.0, 1.0)


def closest_points(p1, q1, p2, q2) -> tuple[np.ndarray, np.ndarray]:
    """``(s, t)`` (N,) in [0, 1]: the closest points p1 + s (q1 - p1) and p2 + t (q2 - p2) of N
    segment pairs (each argument (N, 3) [m])."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a = np.einsum("ij,ij->i", d1, d1)
    e = np.einsum("ij,ij->i", d2, d2)
    f = np.einsum("ij,ij->i", d2, r)
    c = np.einsum("ij,ij->i", d1, r)
    b = np.einsum("ij,ij->i", d1, d2)
    pa, pe = a > _EPS, e > _EPS
    sa = np.where(pa, a, 1.0)
    se = np.where(pe, e, 1.0)
    denom = a * e - b * b
    general = pa & pe
    s = np.where(
        general & (denom > _EPS * np.maximum(a * e, _EPS)),
        _clamp01((b * f - c * e) / np.where(denom > 0, denom, 1.0)),
        0.0,
    )
    s = np.where(pa & ~pe, _clamp01(-c / sa), s)
    s = np.where(~pa, 0.0, s)
    t = np.where(pe, (b * s + f) / se, 0.0)
    low, high = general & (t < 0.0), general & (t > 1.0)
    s = np.where(low, _clamp01(-c / sa), np.where(high, _clamp01((b - c) / sa), s))
    t = np.where(pe, _clamp01(t), 0.0)
    return s, t


def capsule_distances(a1, b1, r1, a2, b2, r2):
    """Signed distances of N capsule pairs: ``(d, x, y, n)``: d (N,) [m] = |x - y| - r1 - r2, x and y
    (N, 3) the closest points of the axis segments [a1, b1] and [a2, b2] (world, [m]), n (N, 3) the
    unit vector from capsule 2 to capsule 1 (any unit vector where the axes meet, x = y)."""
    s, t = closest_points(a1, b1, a2, b2)
    x = a1 + s[:, None] * (b1 - a1)
    y = a2 + t[:, None] * (b2 - a2)
    w = x - y
    norm = np.linalg.norm(w, axis=1)
    safe = norm > 1e-15
    n = np.where(safe[:, None], w / np.where(safe, norm, 1.0)[:, None], np.array([0.0, 0.0, 1.0]))
    return norm - r1 - r2, x, y, n
