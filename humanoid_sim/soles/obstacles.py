"""Contacts of a sole's ground face with small static boxes (stones), whose contact points are not
mesh nodes (Chardonnet 2009, §4.5, eqs. (4.24)–(4.32): the barycentric distribution over the
contacted sole triangle; the `gravel` scene).

A box vertex under the sole's deformed ground face, within the activation margin of it, is a contact
point: the face triangle whose (sole-frame) xy projection holds the vertex is the contacted
triangle, its barycentric weights d (`distribution.barycentric`, standard coordinates in the
triangle's plane: rather than the inverse of raw node coordinates in eq. (4.25), `distribution.py`)
form the contact's row of P, and the gap is the face height above the vertex along the sole's z axis
(negative: the stone is inside the sole). The contact normal is the sole's z axis (from the stone
into the sole). Only box vertices are tested (the stones of `scene_generators` are boxes); a stone
edge or face meeting the sole between its vertices is not detected (the thesis's PQP triangle pairs
would be; our simplification).
"""

from __future__ import annotations

import numpy as np

from .distribution import barycentric

__all__ = ["box_vertices", "face_vertex_contacts"]

_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)


def box_vertices(R, p, half) -> np.ndarray:
    """(8, 3) world vertices of a box with rotation R (3 × 3), centre p (3,) and half sides (3,) [m]."""
    return np.asarray(p, float) + (_SIGNS * np.asarray(half, float)) @ np.asarray(R, float).T


def face_vertex_contacts(points, Xd, tris, margin: float):
    """The vertices among ``points`` (k, 3) [m, sole frame] that touch the face triangles ``tris``
    (T, 3) of the deformed sole nodes ``Xd`` (rows indexed by ``tris``) [m, sole frame], the face
    facing −z. Returns (index into points (c,), triangle rows (c, 3), weights (c, 3), gaps (c,)
    [m]): a vertex whose xy lies in a triangle's projection and whose gap (face height − vertex
    height) is at most ``margin``."""
    P = np.asarray(points, float)
    if not len(P) or not len(tris):
        z = np.zeros(0, np.int64)
        return z, np.zeros((0, 3), np.int64), np.zeros((0, 3)), np.zeros(0)
    A, B, C = Xd[tris[:, 0], :2], Xd[tris[:, 1], :2], Xd[tris[:, 2], :2]
    det = (B[:, 0] - A[:, 0]) * (C[:, 1] - A[:, 1]) - (C[:, 0] - A[:, 0]) * (B[:, 1] - A[:, 1])
    dx = P[:, None, 0] - A[None, :, 0]
    dy = P[:, None, 1] - A[None, :, 1]
    l2 = (dx * (C[:, 1] - A[:, 1]) - dy * (C[:, 0] - A[:, 0])) / det
    l3 = ((B[:, 0] - A[:, 0]) * dy - (B[:, 1] - A[:, 1]) * dx) / det
    inside = (l2 >= -1e-12) & (l3 >= -1e-12) & (l2 + l3 <= 1 + 1e-12)  # (k, T)
    hit = np.flatnonzero(inside.any(axis=1))
    if not len(hit):
        z = np.zeros(0, np.int64)
        return z, np.zeros((0, 3), np.int64), np.zeros((0, 3)), np.zeros(0)
    tri = tris[inside[hit].argmax(axis=1)]  # the first triangle holding the vertex
    corners = Xd[tri]  # (c, 3, 3)
    # the face point above the vertex: the plane of the triangle at the vertex's xy
    n = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    dxy = P[hit, :2] - corners[:, 0, :2]
    z_face = corners[:, 0, 2] - (n[:, 0] * dxy[:, 0] + n[:, 1] * dxy[:, 1]) / n[:, 2]
    gaps = z_face - P[hit, 2]
    keep = gaps <= margin
    hit, tri, gaps = hit[keep], tri[keep], gaps[keep]
    on_face = P[hit].copy()
    on_face[:, 2] += gaps  # the contact point on the face, where the node forces are distributed from
    return hit, tri, barycentric(on_face, Xd[tri]), gaps
