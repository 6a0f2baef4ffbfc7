"""Contact patches of a mobile shape against a static triangle mesh: the mesh clipping of the
collision stage (terrain may be non-convex, so a static mesh stays a triangle mesh, while a
mobile one collides as its convex hull, `humanoid_sim.collision.geometry`).

coal tests the shape against every triangle within the margin (one contact each, at most
``MESH_MAX_CONTACTS``). A contact whose normal is the triangle's face normal (within
``MESH_FACE_COS``) is a face contact: the triangles of one plane make one patch, the shape's own
patch against that plane's half-space clipped to the triangles (`_clip`, Sutherland–Hodgman)
and reduced to the convex hull of the pieces (`humanoid_model.planar_polygon.convex_hull`, points
within ``CLIP_TOL`` merged); other contacts are single points (`MeshPatches.patches`).
"""

from __future__ import annotations

import numpy as np

from humanoid_model.coal_import import coal
from humanoid_model.planar_polygon import convex_hull
from humanoid_sim.collision.geometry import StaticGeom
from humanoid_sim.collision.narrow_phase import _NO_PLANE

__all__ = ["MeshPatches", "MESH_MAX_CONTACTS", "MESH_FACE_COS", "CLIP_TOL"]

MESH_MAX_CONTACTS = 64  # triangles of a static mesh tested against one shape (chosen, `MeshPatches.patches`)
MESH_FACE_COS = float(np.cos(np.radians(0.5)))  # face contact: coal's normal within 0.5 deg of the triangle's
CLIP_TOL = 1e-9  # [m] in-plane tolerance of the mesh patch clipping and point merging (chosen)
_IDENTITY = coal.Transform3s()


class MeshPatches:
    """The static triangle meshes of a world and their patches against mobile shapes (module
    docstring). static, static_tf: the static geometries and their coal placements; narrow: the
    detector's `NarrowPhase` (its request carries the pair's margin; its queries and patch points
    serve the face patches); margin: the activation margin [m]."""

    def __init__(self, static, static_tf, narrow, margin: float):
        self.static, self.static_tf, self.narrow = static, static_tf, narrow
        # index -> (triangles (n, 3, 3) world [m], unit normals (n, 3) from the vertex order, zero
        # for a degenerate triangle)
        self.triangles = {
            i: _world_triangles(s) for i, s in enumerate(static) if isinstance(s.shape, coal.BVHModelBase)
        }
        self.mreq = coal.CollisionRequest()
        self.mreq.security_margin = margin
        self.mreq.num_max_contacts = MESH_MAX_CONTACTS
        self.mres = coal.CollisionResult()

    def patches(self, s1, T1, s) -> list:
        """Patches of a mobile shape (primitive or convex) against the static triangle mesh ``s``:
        a list of `NarrowPhase.patch`-like tuples (points A, points B, coal normal from 1 to 2, h, mode,
        plane).

        coal tests the shape against every triangle within the margin (one contact each, at most
        ``MESH_MAX_CONTACTS``). A contact whose normal is the triangle's face normal (within
        ``MESH_FACE_COS``; either side: triangles are two-sided) is a **face contact**: the
        triangles of one plane make one patch, the shape's own patch against that plane's
        half-space (coal's planar patch, as for the ground: the 4 corners of a box, the rim of a
        cylinder, one point of a sphere) clipped to the triangles and reduced to the convex hull
        of the pieces. Its normal is the triangle's, never coal's patch normal, which coal
        orients the other way for shape–mesh pairs. Other contacts (at an edge or
        a vertex of the mesh) are single points with coal's contact normal, dropped when a face
        patch of the same normal covers them."""
        res = self.mres
        res.clear()
        self.mreq.security_margin = self.narrow.req.security_margin  # the pair's (speculative) margin
        if not coal.collide(s1, T1, self.static[s].shape, self.static_tf[s], self.mreq, res):
            return []
        tri, tri_n = self.triangles[s]
        planes = []  # [normal from B into A, offset, triangle indices, contacts]
        points = []
        for i in range(res.numContacts()):
            c = res.getContact(i)
            nc = np.asarray(c.normal, float)  # from the shape to the mesh
            nf = tri_n[c.b2]
            d = -float(nf @ nc)
            if abs(d) < MESH_FACE_COS:
                points.append(c)
                continue
            n = nf if d > 0 else -nf
            off = float(n @ tri[c.b2, 0])
            for pl in planes:
                if pl[0] @ n > 1 - 1e-12 and abs(pl[1] - off) < CLIP_TOL:
                    pl[2].append(c.b2)
                    pl[3].append(c)
                    break
            else:
                planes.append([n, off, [c.b2], [c]])
        out, normals = [], []
        for n, off, tris, cs in planes:
            P, h = self._plane_patch(s1, T1, n, off, tri[tris])
            if P is None:  # the shape's support lies beside these triangles: edge contacts
                points += cs
                continue
            normals.append(n)
            out.append(self.narrow.finish(P, -n, h, (n[0], n[1], n[2], off)))
        for c in points:
            nc = np.asarray(c.normal, float)
            if any(float(n @ nc) < -MESH_FACE_COS for n in normals):
                continue
            out.append((np.array([c.getNearestPoint1()]), np.array([c.getNearestPoint2()]), nc, 0.0, 0, _NO_PLANE))
        return out

    def _plane_patch(self, s1, T1, n, off, tris):
        """The shape's patch against the half-space n·x ≤ off (world) clipped to the triangles
        ``tris`` (k, 3, 3): (points (j, 3) on the patch's mid-plane, h = signed distance / 2),
        or (None, 0) when nothing is left."""
        narrow = self.narrow
        res, pres = narrow.res, narrow.pres
        res.clear()
        hs = coal.Halfspace(n, off)
        if not coal.collide(s1, T1, hs, _IDENTITY, narrow.req, res):
            return None, 0.0
        pres.clear()
        coal.computeContactPatch(s1, T1, hs, _IDENTITY, res, narrow.preq, pres)
        if pres.numContactPatches() == 0:
            c = res.getContact(0)
            P, h = np.array([c.pos]), c.penetration_depth / 2
        else:
            patch = pres.getContactPatch(0)
            P = np.array([patch.getPoint(i) for i in range(patch.size())])
            h = patch.penetration_depth / 2
        u = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
        u /= np.linalg.norm(u)
        B = np.stack([u, np.cross(n, u)])  # (2, 3) in-plane axes
        w = float(P[0] @ n)
        P2 = P @ B.T
        pieces = [q for q in (_clip(P2, T @ B.T) for T in tris) if q.shape[0]]
        if not pieces:
            return None, 0.0
        # coal's order: counter-clockwise about its normal, −n
        H = convex_hull(np.concatenate(pieces), tol=CLIP_TOL)[::-1]
        # start at the vertex nearest the patch's first: an unclipped patch keeps coal's order (the
        # solvers sweep the points in order, so a mesh plane gives a primitive plane's forces)
        H = np.roll(H, -int(np.argmin(((H - P2[0]) ** 2).sum(axis=1))), axis=0)
        return H @ B + w * n, h


def _world_triangles(s: StaticGeom):
    """World vertices (n, 3, 3) [m] and unit normals (n, 3) (right-hand rule on the vertex
    order; zero for a degenerate triangle) of a static triangle mesh."""
    sh = s.shape
    V = np.asarray(sh.vertices(), float).reshape(-1, 3) @ np.asarray(s.R, float).T + np.asarray(s.p, float)
    F = np.array([[t[0], t[1], t[2]] for t in (sh.tri_indices(k) for k in range(sh.num_tris))], np.int64)
    T = V[F.reshape(-1, 3)]
    n = np.cross(T[:, 1] - T[:, 0], T[:, 2] - T[:, 0])
    ln = np.linalg.norm(n, axis=1)
    ok = ln > 1e-15
    n[ok] /= ln[ok, None]
    n[~ok] = 0.0
    return T, n


def _clip(P, T):
    """Convex polygon P (k, 2) (a point or a segment when k < 3) clipped to the triangle T (3, 2)
    (Sutherland–Hodgman; points within ``CLIP_TOL`` of an edge count as inside)."""
    if (T[1, 0] - T[0, 0]) * (T[2, 1] - T[0, 1]) - (T[1, 1] - T[0, 1]) * (T[2, 0] - T[0, 0]) < 0:
        T = T[::-1]
    out = list(P)
    for i in range(3):
        if not out:
            break
        a, b = T[i], T[(i + 1) % 3]
        e = (b - a) / max(float(np.linalg.norm(b - a)), 1e-300)
        side = [e[0] * (p[1] - a[1]) - e[1] * (p[0] - a[0]) for p in out]
        if len(out) == 1:
            out = out if side[0] >= -CLIP_TOL else []
            continue
        new = []
        for j in range(len(out)):
            k = (j + 1) % len(out)
            p, q, sp, sq = out[j], out[k], side[j], side[k]
            if sp >= -CLIP_TOL:
                new.append(p)
            if (sp >= -CLIP_TOL) != (sq >= -CLIP_TOL):
                new.append(p + (q - p) * (sp / (sp - sq)))
        out = new
    return np.array(out).reshape(-1, 2)
