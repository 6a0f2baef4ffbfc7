"""Broad phase of the collision stage: the mobile shapes' world placements and the pairs that may
be within the activation margin, in numba (on the hot path inside the detector's one compiled call,
`humanoid_sim.collision.compiled_step`).

Bounding spheres of the mobile shapes are tested against the environment's half-spaces (with the
exact support distance for boxes, spheres, cylinders and convex hulls: a hull whose bounding sphere
reaches the margin is tested by its lowest vertex, the distance coal's convex–half-space query
computes) and against its finite shapes' bounding spheres, then, for a box against a box, the
separating-axis test of two oriented boxes (their 15 axes: a lower bound of their distance, so no
pair within the margin is dropped; climbing stairs, 94 % of the sole–step pairs the spheres kept
were coal queries that found nothing); mobile–mobile pairs of the candidate list get a sphere
test, then a world-AABB test. A pair's margin is max(margin, its sweep): the
distance its shapes can travel in the step (speculative activation,
`humanoid_sim.stages.impacts.SweptMargins`).

Shape kinds (`_kind`): 0 box, 1 sphere, 2 cylinder, 3 other (bounding sphere, and the vertices of
a convex hull, `_polytope_vertices`); `_half` gives the half sides the tests use.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from humanoid_model.coal_import import coal
from humanoid_sim.collision.separation import SAFETY

__all__: list[str] = []  # kernels of `humanoid_sim.collision.detector.CollisionDetector`


@njit(cache=True)
def _placements(oR, op, joint, PR, Pp):
    n = joint.shape[0]
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    for k in range(n):
        j = joint[k]
        for a in range(3):
            acc = op[j, a]
            for b in range(3):
                acc += oR[j, a, b] * Pp[k, b]
                s = 0.0
                for c in range(3):
                    s += oR[j, a, c] * PR[k, c, b]
                R[k, a, b] = s
            p[k, a] = acc
    return R, p


@njit(cache=True)
def _box_gap(Ra, ca, ha, Rb, cb, hb):
    """The largest separation [m] of two oriented boxes (rotations R, centres c, half sides h)
    along their 15 separating axes (3 + 3 face normals, 9 edge cross products): a lower bound of
    their distance (≤ 0 when they overlap on every axis)."""
    best = -np.inf
    for side in range(2):
        for i in range(3):
            if side == 0:
                ax, ay, az = Ra[0, i], Ra[1, i], Ra[2, i]
            else:
                ax, ay, az = Rb[0, i], Rb[1, i], Rb[2, i]
            best = max(best, _axis_gap(ax, ay, az, Ra, ca, ha, Rb, cb, hb))
    for i in range(3):
        for j in range(3):
            ux, uy, uz = Ra[0, i], Ra[1, i], Ra[2, i]
            vx, vy, vz = Rb[0, j], Rb[1, j], Rb[2, j]
            ax, ay, az = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
            norm = np.sqrt(ax * ax + ay * ay + az * az)
            if norm > 1e-9:  # parallel edges: the face axes already cover them
                best = max(best, _axis_gap(ax / norm, ay / norm, az / norm, Ra, ca, ha, Rb, cb, hb))
    return best


@njit(cache=True)
def _axis_gap(ax, ay, az, Ra, ca, ha, Rb, cb, hb):
    """The gap [m] between two boxes' projections on the unit axis a."""
    ea = 0.0
    eb = 0.0
    for j in range(3):
        ea += abs(ax * Ra[0, j] + ay * Ra[1, j] + az * Ra[2, j]) * ha[j]
        eb += abs(ax * Rb[0, j] + ay * Rb[1, j] + az * Rb[2, j]) * hb[j]
    return abs(ax * (cb[0] - ca[0]) + ay * (cb[1] - ca[1]) + az * (cb[2] - ca[2])) - ea - eb


@njit(cache=True)
def _broad(
    p, R, margin, kind, half, cyl_r, rad, box_ext, hull_v, hull_start, hs_idx, hs_n, hs_d, fin_idx, fin_c, fin_r,
    fin_R, fin_half, pairs, sweep,
):  # fmt: skip
    # sweep (n,): per shape the distance it can travel this step (speculative activation,
    # `humanoid_sim.stages.impacts.SweptMargins`): a pair's margin is max(margin, the pair's sweep);
    # hull_v (total, 3), hull_start (n + 1,): each shape's vertices in its own frame (rows
    # hull_start[k]..hull_start[k + 1], `_polytope_vertices`: a hull's, a box's corners; read here
    # for the hulls, kind 3, only); fin_R, fin_half: the finite static shapes' rotations and half
    # sides (fin_half[f, 0] < 0: not a box)
    n = p.shape[0]
    ms = np.empty(n * (hs_idx.shape[0] + fin_idx.shape[0]), np.int64)
    ss = np.empty_like(ms)
    cnt = 0
    for k in range(n):
        mk = max(margin, sweep[k])
        for h in range(hs_idx.shape[0]):
            nx, ny, nz = hs_n[h, 0], hs_n[h, 1], hs_n[h, 2]
            d = nx * p[k, 0] + ny * p[k, 1] + nz * p[k, 2] - hs_d[h]
            if kind[k] == 0:
                e = 0.0
                for j in range(3):
                    e += abs(nx * R[k, 0, j] + ny * R[k, 1, j] + nz * R[k, 2, j]) * half[k, j]
            elif kind[k] == 1:
                e = rad[k]
            elif kind[k] == 2:
                na = abs(nx * R[k, 0, 2] + ny * R[k, 1, 2] + nz * R[k, 2, 2])
                e = cyl_r[k] * np.sqrt(max(1.0 - na * na, 0.0)) + half[k, 2] * na
            else:
                e = rad[k]
                if d - e <= mk and hull_start[k + 1] > hull_start[k]:  # the sphere reaches: the lowest vertex
                    ux = nx * R[k, 0, 0] + ny * R[k, 1, 0] + nz * R[k, 2, 0]  # n in the shape's frame
                    uy = nx * R[k, 0, 1] + ny * R[k, 1, 1] + nz * R[k, 2, 1]
                    uz = nx * R[k, 0, 2] + ny * R[k, 1, 2] + nz * R[k, 2, 2]
                    e = -np.inf
                    for v in range(hull_start[k], hull_start[k + 1]):
                        e = max(e, -(ux * hull_v[v, 0] + uy * hull_v[v, 1] + uz * hull_v[v, 2]))
            if d - e <= mk:
                ms[cnt] = k
                ss[cnt] = hs_idx[h]
                cnt += 1
        for f in range(fin_idx.shape[0]):
            dx, dy, dz = p[k, 0] - fin_c[f, 0], p[k, 1] - fin_c[f, 1], p[k, 2] - fin_c[f, 2]
            if np.sqrt(dx * dx + dy * dy + dz * dz) - rad[k] - fin_r[f] <= mk:
                box_box = kind[k] == 0 and fin_half[f, 0] >= 0.0
                if box_box and _box_gap(R[k], p[k], half[k], fin_R[f], fin_c[f], fin_half[f]) > mk + SAFETY:
                    continue  # apart by more than the margin along a separating axis
                ms[cnt] = k
                ss[cnt] = fin_idx[f]
                cnt += 1
    keep = np.zeros(pairs.shape[0], np.bool_)
    for i in range(pairs.shape[0]):
        a, b = pairs[i, 0], pairs[i, 1]
        mab = max(margin, sweep[a] + sweep[b])
        dx, dy, dz = p[a, 0] - p[b, 0], p[a, 1] - p[b, 1], p[a, 2] - p[b, 2]
        if np.sqrt(dx * dx + dy * dy + dz * dz) - rad[a] - rad[b] > mab:
            continue
        ok = True
        for r in range(3):
            ea = 0.0
            eb = 0.0
            if kind[a] == 3:
                ea = rad[a]
            else:
                for j in range(3):
                    ea += abs(R[a, r, j]) * box_ext[a, j]
            if kind[b] == 3:
                eb = rad[b]
            else:
                for j in range(3):
                    eb += abs(R[b, r, j]) * box_ext[b, j]
            if abs(p[a, r] - p[b, r]) > ea + eb + mab:
                ok = False
                break
        keep[i] = ok
    return ms[:cnt], ss[:cnt], pairs[keep]


def _kind(shape) -> int:
    """Shape kind of the broad phase and of `_entry`: 0 box, 1 sphere, 2 cylinder, 3 other."""
    if isinstance(shape, coal.Box):
        return 0
    if isinstance(shape, coal.Sphere):
        return 1
    if isinstance(shape, coal.Cylinder):
        return 2
    return 3


_BOX_SIGNS = [(1, 1, 1), (-1, 1, 1), (-1, -1, 1), (1, -1, 1), (1, 1, -1), (-1, 1, -1), (-1, -1, -1), (1, -1, -1)]


def _polytope_vertices(shape) -> np.ndarray:
    """(k, 3) a convex hull's vertices or a box's 8 corners in its own frame [m], the corners in
    the order coal lists them for a support set (`hull_plane`: where two tie for a patch's first
    point, the earlier); (0, 3) for any other shape."""
    if isinstance(shape, coal.ConvexBase):
        return np.asarray(shape.points(), float).reshape(-1, 3)
    if isinstance(shape, coal.Box):
        return np.array(_BOX_SIGNS, float) * np.asarray(shape.halfSide, float)
    return np.zeros((0, 3))


def _half(shape) -> list:
    """Half sides of a box, (0, 0, half length) of a cylinder, zeros otherwise [m]."""
    if isinstance(shape, coal.Box):
        return [float(v) for v in np.asarray(shape.halfSide, float)]
    if isinstance(shape, coal.Cylinder):
        return [0.0, 0.0, float(shape.halfLength)]
    return [0.0, 0.0, 0.0]
