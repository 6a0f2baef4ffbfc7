"""Narrow phase of the collision stage and its contact patches.

`coal.collide` runs with ``security_margin`` = the pair's activation margin on every pair that
survives the broad phase (mobile–static and mobile–mobile alike, one loop in
`humanoid_sim.collision.detector.CollisionDetector.detect`); pairs with a result go to
`coal.computeContactPatch`, which gives the contact patch polygon (for flat contacts such as box
on plane: the patch corners) (`NarrowPhase.patch`). Each patch vertex becomes one point contact:
the midpoint of its two witness points, with its own gap measured along the patch normal between
the two surfaces (`_assemble`, `_entry`; coal gives the patch one depth, that of its deepest
point). Box–box pairs take the face normal of the separating-axis test when coal's normal is
ill-defined (`_box_face_axis`).

Numbers we chose (documented here):

* ``PATCH_MAX_POINTS = 8``: at most 8 points per patch (a cylinder rim on a plane would give
  12; 8 keeps the octagon). Boxes on planes give their 4 corners.
* ``PATCH_TOLERANCE = 1 mm`` (coal's default): support points within 1 mm of the deepest are in
  the patch, each with its own gap (a raised corner is a speculative contact, not a loaded one).
* ``BOX_FACE_TOL = 1 µm``: a box–box face axis whose separation is within 1 µm of coal's signed
  distance is the contact normal (coal's default GJK tolerance is 1e-6: its distance, and so its
  normal at a distance ~0, is not known better than that).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from humanoid_model.coal_import import coal

__all__ = ["NarrowPhase", "PATCH_MAX_POINTS", "PATCH_TOLERANCE", "BOX_FACE_TOL"]

PATCH_MAX_POINTS = 8  # points per contact patch (chosen)
PATCH_TOLERANCE = 1e-3  # [m] coal's patch tolerance (its default): support points within 1 mm
BOX_FACE_TOL = 1e-6  # [m] box–box: a face axis within this of coal's distance is the normal (`_box_face_axis`)
_NO_PLANE = (0.0, 0.0, 0.0, 0.0)  # `_assemble`'s side-2 plane of a pair without one (mode 0, 1)


@njit(cache=True)
def _perimeter(V, k):
    """k points on the closed polygon V (n, 3): its n vertices plus k − n points spread along
    the edges in proportion to their length (benchmarks: more points per flat contact, e.g. the
    16-point standing set of the thesis's SICONOS test, Chardonnet 2009, §5.3, Table 5.1)."""
    n = V.shape[0]
    L = np.empty(n)
    for i in range(n):
        j = (i + 1) % n
        L[i] = np.sqrt(((V[j] - V[i]) ** 2).sum())
    extra = k - n
    raw = extra * L / L.sum()
    share = np.floor(raw).astype(np.int64)
    rem = extra - share.sum()
    order = np.argsort(-(raw - share))
    for r in range(rem):
        share[order[r]] += 1
    out = np.empty((k, 3))
    c = 0
    for i in range(n):
        j = (i + 1) % n
        out[c] = V[i]
        c += 1
        for s in range(share[i]):
            out[c] = V[i] + (V[j] - V[i]) * (s + 1) / (share[i] + 1)
            c += 1
    return out


@njit(cache=True)
def with_perimeters(P, I, k):
    """The compiled patches (`humanoid_sim.collision.hull_plane.hull_plane_patches`'s points P
    (total, 3) and rows I (r, 5), at most ``PATCH_MAX_POINTS`` points each) with each patch of
    three points or more and fewer than k given `_perimeter`'s k points (`NarrowPhase.finish`'s
    rule): (points, rows with the new counts and mode 1), as `_assemble` takes them."""
    r = I.shape[0]
    total = 0
    for i in range(r):
        c = I[i, 3]
        total += k if 3 <= c < k else c
    out = np.empty((total, 3))
    J = I.copy()
    src = dst = 0
    for i in range(r):
        c = I[i, 3]
        if 3 <= c < k:
            out[dst : dst + k] = _perimeter(P[src : src + c], k)
            J[i, 3] = k
            dst += k
        else:
            out[dst : dst + c] = P[src : src + c]
            dst += c
        J[i, 4] = 1
        src += c
    return out, J


@njit(cache=True)
def _entry(kind, R, c, half, r, x, d):
    """Signed distance t [m] along the unit direction d from x to where the line x + t d enters
    the shape's surface that faces −d: kind 0 box (rotation R, centre c, half sides ``half``):
    the plane of its face most opposed to d; 1 sphere (radius r); 2 cylinder (axis R e_z,
    radius r, half length half[2]): the plane of its cap most opposed to d when |d·axis| ≥ √½,
    its side otherwise; 4 half-space (solid below the plane through c with outward normal
    R e_z). One surface, never the intersection of all the shape's constraints: a patch point on
    the support polygon's boundary (on an edge of the box, on a cap's rim) would otherwise meet
    a side nearly parallel to d, where a rounding error of 1e-17 m becomes a wrong t of µm.
    The surface is then the one the patch lies on (a box's support polygon within the 1 mm patch
    tolerance is a face, an edge or a vertex of its most opposed face when the box is thicker
    than 1.7 mm; a cylinder's, its cap rim or a line of its side). A line that misses a sphere
    or a side by a rounding error gets its closest approach. Returns (t, True), or (0, False)
    for other shapes (kind 3) and a half-space the line does not enter from outside."""
    o0, o1, o2 = x[0] - c[0], x[1] - c[1], x[2] - c[2]
    if kind == 0:
        j = 0
        e = 0.0
        for k in range(3):
            ek = R[0, k] * d[0] + R[1, k] * d[1] + R[2, k] * d[2]
            if abs(ek) > abs(e):
                j, e = k, ek
        oj = R[0, j] * o0 + R[1, j] * o1 + R[2, j] * o2
        return ((-half[j] - oj) / e if e > 0 else (half[j] - oj) / e), True
    if kind == 1:
        B = o0 * d[0] + o1 * d[1] + o2 * d[2]
        C = o0 * o0 + o1 * o1 + o2 * o2 - r * r
        return -B - np.sqrt(max(B * B - C, 0.0)), True
    if kind == 2:
        a0, a1, a2 = R[0, 2], R[1, 2], R[2, 2]
        e = a0 * d[0] + a1 * d[1] + a2 * d[2]
        oa = a0 * o0 + a1 * o1 + a2 * o2
        if e * e >= 0.5:  # a cap
            return ((-half[2] - oa) / e if e > 0 else (half[2] - oa) / e), True
        p0, p1, p2 = o0 - oa * a0, o1 - oa * a1, o2 - oa * a2  # the side, |p + t q| = r
        q0, q1, q2 = d[0] - e * a0, d[1] - e * a1, d[2] - e * a2
        A = q0 * q0 + q1 * q1 + q2 * q2  # >= 1/2
        B = p0 * q0 + p1 * q1 + p2 * q2
        C = p0 * p0 + p1 * p1 + p2 * p2 - r * r
        return (-B - np.sqrt(max(B * B - A * C, 0.0))) / A, True
    if kind == 4:
        m0, m1, m2 = R[0, 2], R[1, 2], R[2, 2]
        md = m0 * d[0] + m1 * d[1] + m2 * d[2]
        if md > -1e-12:
            return 0.0, False
        return -(m0 * o0 + m1 * o1 + m2 * o2) / md, True
    return 0.0, False


@njit(cache=True)
def _box_face_axis(R1, c1, h1, R2, c2, h2):
    """Separating-axis test of two boxes over their six face normals: (unit axis from box 1
    towards box 2, separation [m], negative for an overlap) of the face axis of largest
    separation (the reference face of the classic box–box clipping)."""
    best = -np.inf
    ax = np.zeros(3)
    for b in range(2):
        Rb = R1 if b == 0 else R2
        for j in range(3):
            u0, u1, u2 = Rb[0, j], Rb[1, j], Rb[2, j]
            dc = u0 * (c2[0] - c1[0]) + u1 * (c2[1] - c1[1]) + u2 * (c2[2] - c1[2])
            ext = 0.0
            for k in range(3):
                ext += abs(u0 * R1[0, k] + u1 * R1[1, k] + u2 * R1[2, k]) * h1[k]
                ext += abs(u0 * R2[0, k] + u1 * R2[1, k] + u2 * R2[2, k]) * h2[k]
            sep = abs(dc) - ext
            if sep > best:
                best = sep
                s = 1.0 if dc >= 0 else -1.0
                ax[0], ax[1], ax[2] = s * u0, s * u1, s * u2
    return ax, best


@njit(cache=True)
def _assemble(A, B, I, F, ncoal, R, p, kind, half, rr, sR, sp, skind, shalf, srr):
    """Per-point arrays of `ContactBatch` from per-pair data: I (k, 5) = (geom a, geom b,
    b static, point count, mode), F (k, 7) = (h, mu, e, plane of side 2 (n, offset)), ncoal
    (k, 3) coal normal from A to B; R, p, kind, half, rr the mobile shapes' placements, kinds
    and sizes (`CollisionDetector`), sR ... srr the static shapes'.

    Mode 0: the witness points are P1 = A − h n, P2 = B + h n (`CollisionDetector._patch`), so
    every point of a patch has the patch's gap 2h. Mode 1 (a patch: A = B, points on the patch's
    mid-plane): each point x gets its own witness points, where the line x + t n enters shape 2
    (P2) and, going the other way, shape 1 (P1) (`_entry`; a shape without an exact entry keeps
    x ∓ h n), so its gap is the distance between the two surfaces along n at that point.
    Mode 2: mode 1 with side 2 the half-space n·y ≤ offset of F[:, 3:7] (a static mesh's face
    plane, n from B into A). Returns ((geom_a, geom_b, slot) (3, m), b_static, points, normals,
    (gaps, mu, e) (3, m))."""
    ga, gb, cnt, mode = I[:, 0], I[:, 1], I[:, 3], I[:, 4]
    bs = I[:, 2] != 0
    hd, mu, e = F[:, 0], F[:, 1], F[:, 2]
    P1 = np.empty_like(A)
    P2 = np.empty_like(B)
    d = np.empty(3)
    Rpl = np.zeros((3, 3))
    cpl = np.zeros(3)
    c = 0
    for i in range(cnt.shape[0]):
        h = hd[i]
        s = np.sqrt(ncoal[i, 0] ** 2 + ncoal[i, 1] ** 2 + ncoal[i, 2] ** 2)
        for a in range(3):
            d[a] = ncoal[i, a] / s
        if mode[i] == 2:  # the mesh face's half-space, as a kind-4 shape
            for a in range(3):
                Rpl[a, 2] = F[i, 3 + a]
                cpl[a] = F[i, 3 + a] * F[i, 6]
        for _ in range(cnt[i]):
            x = A[c]
            ok1 = ok2 = False
            t1 = t2 = 0.0
            if mode[i] != 0:
                k1 = ga[i]
                t1, ok1 = _entry(kind[k1], R[k1], p[k1], half[k1], rr[k1], x, -d)
                k2 = gb[i]
                if mode[i] == 2:
                    t2, ok2 = _entry(4, Rpl, cpl, half[k1], 0.0, x, d)
                elif bs[i]:
                    t2, ok2 = _entry(skind[k2], sR[k2], sp[k2], shalf[k2], srr[k2], x, d)
                else:
                    t2, ok2 = _entry(kind[k2], R[k2], p[k2], half[k2], rr[k2], x, d)
            for a in range(3):
                P1[c, a] = x[a] - t1 * d[a] if ok1 else A[c, a] - h * ncoal[i, a]
                P2[c, a] = x[a] + t2 * d[a] if ok2 else B[c, a] + h * ncoal[i, a]
            c += 1
    m = P1.shape[0]
    # the per-contact rows, packed so that only 5 arrays cross back to Python (each returned
    # array costs a boxing); ContactBatch holds views of their rows
    I3 = np.empty((3, m), np.int64)
    GA, GB, SL = I3[0], I3[1], I3[2]
    BS = np.empty(m, np.bool_)
    PT = np.empty((m, 3))
    N = np.empty((m, 3))
    F3 = np.empty((3, m))
    GAP, MU, E = F3[0], F3[1], F3[2]
    c = 0
    for i in range(cnt.shape[0]):
        nx, ny, nz = -ncoal[i, 0], -ncoal[i, 1], -ncoal[i, 2]
        s = np.sqrt(nx * nx + ny * ny + nz * nz)
        nx, ny, nz = nx / s, ny / s, nz / s
        for k in range(cnt[i]):
            GA[c], GB[c], BS[c], MU[c], E[c], SL[c] = ga[i], gb[i], bs[i], mu[i], e[i], k
            N[c, 0], N[c, 1], N[c, 2] = nx, ny, nz
            g = 0.0
            for a in range(3):
                PT[c, a] = 0.5 * (P1[c, a] + P2[c, a])
                g += (P1[c, a] - P2[c, a]) * N[c, a]
            GAP[c] = g
            c += 1
    return I3, BS, PT, N, F3


class NarrowPhase:
    """coal's collision and contact-patch queries on one pair, and the pair's patch points (module
    docstring). margin: the activation margin [m] (``req.security_margin``, which the detector
    widens per pair to its sweep); patch_points: 0, or the number of points a patch of three
    vertices or more gets on its perimeter (`_perimeter`)."""

    def __init__(self, margin: float, patch_points: int = 0):
        self.patch_points = int(patch_points)
        self.req = coal.CollisionRequest()
        self.req.security_margin = margin
        self.req.num_max_contacts = 1
        self.res = coal.CollisionResult()
        self.preq = coal.ContactPatchRequest()
        self.preq.setPatchTolerance(PATCH_TOLERANCE)
        self.pres = coal.ContactPatchResult()

    def patch(self, s1, T1, s2, T2, boxes=None):
        """Patch points of one pair: (A (k, 3), B (k, 3), coal normal n from 1 to 2, h, mode,
        plane) (`_assemble`'s per-pair data) or None when the pair is farther apart than the
        margin. A patch (mode 1) gives its points on the patch's mid-plane (A is B), each of
        which gets its own gap in `_assemble`; without a patch (mode 0) A and B are coal's
        witness points.

        ``boxes``: None, or (R1, c1, half sides 1, R2, c2, half sides 2) of a box–box pair. Two
        boxes touching face to face at a distance of ~0 get an ill-defined normal from coal
        (cube_stack: (−0.54, −0.54, 0.65) for two faces 1e-12 m apart, one patch point instead
        of four). The rule of the classic box–box clipping is used instead: the face axis of
        largest separation (`_box_face_axis`) is the normal whenever its separation is within
        ``BOX_FACE_TOL`` (1 µm, coal's default GJK tolerance, the precision of its distance) of
        coal's signed distance; otherwise (an edge–edge contact) coal's normal stays."""
        res = self.res
        res.clear()
        if not coal.collide(s1, T1, s2, T2, self.req, res):
            return None
        if boxes is not None:
            c = res.getContact(0)
            ax, sep = _box_face_axis(*boxes)
            if sep >= c.penetration_depth - BOX_FACE_TOL:
                res.clear()
                res.addContact(coal.Contact(s1, s2, c.b1, c.b2, c.pos, ax, c.penetration_depth))
        pres = self.pres
        pres.clear()
        coal.computeContactPatch(s1, T1, s2, T2, res, self.preq, pres)
        if pres.numContactPatches() == 0:
            c = res.getContact(0)
            return (
                np.array([c.getNearestPoint1()]),
                np.array([c.getNearestPoint2()]),
                np.asarray(c.normal, float),
                0.0,
                0,
                _NO_PLANE,
            )
        patch = pres.getContactPatch(0)
        k = patch.size()
        # coal's getPointShape1/2(i) are getPoint(i) ∓ (depth / 2) getNormal(), one depth for
        # the whole patch (up to the patch tolerance, 1 mm, too deep for its raised points):
        # `_assemble` measures each point's own gap instead (h = depth / 2 kept for the shapes
        # without an exact surface there, `_entry`)
        P = np.array([patch.getPoint(i) for i in range(k)])
        return self.finish(P, np.asarray(patch.getNormal(), float), patch.penetration_depth / 2)

    def finish(self, P, ncoal, h, plane=None):
        """(A, B, ncoal, h, mode, plane) of patch points P on the patch's mid-plane, as `patch`
        returns them (at most ``PATCH_MAX_POINTS``; ``patch_points`` perimeter points when asked,
        on the mid-plane polygon's edges: each gets its own gap too). plane: None, or side 2's
        half-space (n from B into A, offset) (mode 2, a mesh face)."""
        k = P.shape[0]
        if k > PATCH_MAX_POINTS:
            keep = np.round(np.linspace(0, k, PATCH_MAX_POINTS, endpoint=False)).astype(int)
            P = P[keep]
        if self.patch_points and 3 <= P.shape[0] < self.patch_points:  # the rule of `with_perimeters`
            P = _perimeter(P, self.patch_points)
        if plane is None:
            return P, P, ncoal, h, 1, _NO_PLANE
        return P, P, ncoal, h, 2, plane
