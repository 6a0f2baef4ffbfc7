"""Contact patches of convex hulls and boxes on half-spaces, computed in one compiled call per step.

A real robot's feet are mesh links read as convex hulls (Talos's soles: 156 vertices), and a
standing robot's only contacts are those hulls on the floor, a half-space. For such a pair coal's
answer is simple geometry: the signed distance is the lowest vertex's height above the plane, and
the contact patch (`coal.computeContactPatch`, patch tolerance `PATCH_TOLERANCE`) is the convex
polygon of the vertices within the tolerance of the lowest, projected on the mid-plane between
that vertex and the plane. A box is the hull of its 8 corners (HRP-2's soles).
`hull_plane_patches` computes the patches of every such pair of a step at once, so that the
collision stage no longer calls coal for them (collide, patch, one ``getPoint`` per vertex, a
transform per pair). It returns coal's points in coal's order (the Gauss–Seidel sweeps follow the
contacts' order), its normal and half-depth, to round-off (`test_collision.py` compares them over
random poses). The polygon is Andrew's monotone chain in the kernel
(`humanoid_model.planar_polygon.convex_hull` is the same for Python callers).

A patch of more than ``max_points`` vertices is left to coal: `NarrowPhase.finish` then keeps
``PATCH_MAX_POINTS`` of coal's vertices by rank.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["hull_plane_patches"]


@njit(cache=True)
def _push(x, y, out, h, k, floor):
    """Append point k to the chain out[:h] after popping the points that would not make a left
    turn (none below index ``floor``); returns the new length."""
    while h >= floor + 2:
        a, b = out[h - 2], out[h - 1]
        if (x[b] - x[a]) * (y[k] - y[a]) - (y[b] - y[a]) * (x[k] - x[a]) > 0.0:
            break
        h -= 1
    out[h] = k
    return h + 1


@njit(cache=True)
def _hull_2d(x, y, idx, out):
    """Andrew's monotone chain on the points ``idx`` of (x, y): the convex polygon's indices in
    counter-clockwise order into ``out``, collinear and repeated points left out; returns their
    count (1 or 2 for a point or a segment)."""
    n = idx.shape[0]
    # sort by x then y (insertion sort: a patch has a few tens of points at most)
    for i in range(1, n):
        k = idx[i]
        j = i - 1
        while j >= 0 and (x[idx[j]] > x[k] or (x[idx[j]] == x[k] and y[idx[j]] > y[k])):
            idx[j + 1] = idx[j]
            j -= 1
        idx[j + 1] = k
    if n == 1:
        out[0] = idx[0]
        return 1
    h = 0
    for i in range(n):  # lower hull
        h = _push(x, y, out, h, idx[i], 0)
    lower = h - 1  # the upper hull keeps the lower one's last point
    for i in range(n - 2, -1, -1):  # upper hull
        h = _push(x, y, out, h, idx[i], lower)
    h -= 1  # the last point is the first
    if h == 2 and x[out[0]] == x[out[1]] and y[out[0]] == y[out[1]]:
        return 1
    return h


@njit(cache=True)
def hull_plane_patches(
    ms, polytope, plane, margin, sweep, R, p, hull_v, hull_start, plane_n, plane_d, mu, e, tol, max_points
):
    """The patches of the mobile–static candidate pairs ms (2, k) that are a polytope (``polytope``
    (n_mobile,) bool: a hull or a box) on a half-space (``plane`` (n_static,) bool). R (n, 3, 3),
    p (n, 3): the mobile shapes' world placements; hull_v / hull_start their vertices in their own
    frames (rows hull_start[k]..hull_start[k + 1]: a convex hull's, a box's 8 corners); plane_n
    (n_static, 3) / plane_d (n_static,) each static half-space n·y <= d in the world; a pair is
    active within max(margin, sweep[mobile]) [m]; mu / e (n_mobile, n_static) the pairs'
    materials; tol the patch tolerance [m].

    Returns the rows `_assemble` takes for the pairs in contact, (points (total, 3) on the
    mid-plane, I (r, 5) = (mobile, static, 1, point count, 1), F (r, 7) = (half-depth, mu, e, 0 ...),
    normals (r, 3) from the polytope into the half-space), and the pairs left to coal (2, q): the
    other pairs of ms, and those whose polygon has more than ``max_points`` vertices."""
    k = ms.shape[1]
    fast = np.zeros(k, np.bool_)
    total = 0
    for i in range(k):
        if polytope[ms[0, i]] and plane[ms[1, i]]:
            fast[i] = True
            total += min(hull_start[ms[0, i] + 1] - hull_start[ms[0, i]], max_points)
    pts = np.empty((total, 3))
    I = np.empty((k, 5), np.int64)
    F = np.zeros((k, 7))
    N = np.empty((k, 3))
    rest = np.empty((2, k), np.int64)
    nr = nq = 0
    c = 0
    for i in range(k):
        a, b = ms[0, i], ms[1, i]
        if not fast[i]:
            rest[0, nq], rest[1, nq] = a, b
            nq += 1
            continue
        n0, n1, n2 = plane_n[b, 0], plane_n[b, 1], plane_n[b, 2]
        # the plane's normal in the hull's frame, and the frame origin's height
        m0 = R[a, 0, 0] * n0 + R[a, 1, 0] * n1 + R[a, 2, 0] * n2
        m1 = R[a, 0, 1] * n0 + R[a, 1, 1] * n1 + R[a, 2, 1] * n2
        m2 = R[a, 0, 2] * n0 + R[a, 1, 2] * n1 + R[a, 2, 2] * n2
        h0 = n0 * p[a, 0] + n1 * p[a, 1] + n2 * p[a, 2] - plane_d[b]
        v0, v1 = hull_start[a], hull_start[a + 1]
        lo = np.inf
        for v in range(v0, v1):
            z = m0 * hull_v[v, 0] + m1 * hull_v[v, 1] + m2 * hull_v[v, 2]
            if z < lo:
                lo = z
        d = lo + h0
        if not d < max(margin, sweep[a]):
            continue
        sel = np.empty(v1 - v0, np.int64)
        ns = 0
        for v in range(v0, v1):
            if m0 * hull_v[v, 0] + m1 * hull_v[v, 1] + m2 * hull_v[v, 2] <= lo + tol:
                sel[ns] = v
                ns += 1
        # the in-plane axes (u, w) of coal's patch frame (its z the patch normal −n, its y axis
        # −n.unitOrthogonal(), its x y × z: Eigen's rule), in the hull's frame
        z0, z1, z2 = -n0, -n1, -n2
        if abs(z0) > 1e-12 * abs(z2) or abs(z1) > 1e-12 * abs(z2):
            t = np.sqrt(z0 * z0 + z1 * z1)
            o0, o1, o2 = -z1 / t, z0 / t, 0.0
        else:
            t = np.sqrt(z1 * z1 + z2 * z2)
            o0, o1, o2 = 0.0, -z2 / t, z1 / t
        y0, y1, y2 = -o0, -o1, -o2
        x0, x1, x2 = y1 * z2 - y2 * z1, y2 * z0 - y0 * z2, y0 * z1 - y1 * z0
        u0 = R[a, 0, 0] * x0 + R[a, 1, 0] * x1 + R[a, 2, 0] * x2
        u1 = R[a, 0, 1] * x0 + R[a, 1, 1] * x1 + R[a, 2, 1] * x2
        u2 = R[a, 0, 2] * x0 + R[a, 1, 2] * x1 + R[a, 2, 2] * x2
        w0 = R[a, 0, 0] * y0 + R[a, 1, 0] * y1 + R[a, 2, 0] * y2
        w1 = R[a, 0, 1] * y0 + R[a, 1, 1] * y1 + R[a, 2, 1] * y2
        w2 = R[a, 0, 2] * y0 + R[a, 1, 2] * y1 + R[a, 2, 2] * y2
        x = np.empty(v1 - v0)
        y = np.empty(v1 - v0)
        for j in range(ns):
            v = sel[j]
            x[v - v0] = u0 * hull_v[v, 0] + u1 * hull_v[v, 1] + u2 * hull_v[v, 2]
            y[v - v0] = w0 * hull_v[v, 0] + w1 * hull_v[v, 1] + w2 * hull_v[v, 2]
        loc = sel[:ns] - v0
        ring = np.empty(ns + 1, np.int64)
        nh = _hull_2d(x, y, loc, ring)
        if nh > max_points:  # coal's patch, kept to `PATCH_MAX_POINTS` by its rank
            rest[0, nq], rest[1, nq] = a, b
            nq += 1
            continue
        # counter-clockwise about the patch normal from the vertex of least y, coal's order (the
        # Gauss–Seidel sweeps follow the contacts' order: the solvers converge as they did with
        # coal's patches; a box's corners are listed in coal's order, `_polytope_vertices`), each vertex
        # moved along the normal onto the mid-plane n·y = d_plane + d / 2
        first = 0
        for j in range(1, nh):
            yj, yf = y[ring[j]], y[ring[first]]
            if yj < yf or (yj == yf and ring[j] < ring[first]):  # a tie: the vertex first in the list
                first = j
        for jj in range(nh):
            v = ring[(first + jj) % nh] + v0
            z = m0 * hull_v[v, 0] + m1 * hull_v[v, 1] + m2 * hull_v[v, 2] + h0 - 0.5 * d
            for r in range(3):
                pts[c, r] = (
                    R[a, r, 0] * hull_v[v, 0] + R[a, r, 1] * hull_v[v, 1] + R[a, r, 2] * hull_v[v, 2] + p[a, r]
                ) - z * plane_n[b, r]
            c += 1
        I[nr, 0], I[nr, 1], I[nr, 2], I[nr, 3], I[nr, 4] = a, b, 1, nh, 1
        F[nr, 0], F[nr, 1], F[nr, 2] = 0.5 * d, mu[a, b], e[a, b]
        N[nr, 0], N[nr, 1], N[nr, 2] = -n0, -n1, -n2
        nr += 1
    return pts[:c], I[:nr], F[:nr], N[:nr], rest[:, :nq]
