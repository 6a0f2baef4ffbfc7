"""Collision stage (spec ../shared/spec/000_chardonnet.md §2.11): candidate pairs, coal broad +
narrow phase.

The geometry (`humanoid_sim.geometry`) lives in two lists: **mobile geometries** attached to a
joint of the world's combined Pinocchio model (robot links, free-body parts) and **static
geometries** of the environment. `CollisionDetector.detect(oMi_R, oMi_p)` returns a
`ContactBatch` of point contacts (batched arrays, no per-contact Python objects): body A (always
mobile), body B (mobile or environment), point, normal n pointing from B into A, signed gap
(negative = penetration) and the pair's material.

Pipeline per step:

1. **Broad phase** (numba): bounding spheres of the mobile shapes against the environment's
   half-spaces (exact support distance for boxes, spheres and cylinders) and bounding spheres,
   and mobile–mobile sphere then world-AABB tests over the candidate pair list.
2. **Narrow phase**: `coal.collide` with ``security_margin`` = activation margin on every
   surviving pair (mobile–static and mobile–mobile alike, one loop); pairs with a result go to
   `coal.computeContactPatch`, which gives the contact patch polygon (for flat contacts such as
   box on plane: the patch corners). Each patch vertex becomes one point contact: the midpoint of
   its two witness points, with its own gap measured along the patch normal between the two
   surfaces (`_assemble`, `_entry`; coal gives the patch one depth, that of its deepest point).
   Box–box pairs take the face normal of the separating-axis test when coal's normal is
   ill-defined (`CollisionDetector._patch`).

Candidate pairs (`candidate_pairs`, the default set): every mobile shape against every static
shape; free bodies against each other and against the robot; robot self-collision between
shapes of joints that are neither the same nor parent/child (at least ``MIN_SELF_JOINTS`` joints
apart, so adjacent links are excluded), minus the pairs that are already within the activation
margin in the initial configuration (so that overlapping link boxes of the model do not produce
permanent internal contacts). For HRP-2 this leaves the arm–torso, leg–leg and arm–leg pairs
among others (docs/simulator.md lists them).

Numbers we chose (documented here):

* ``DEFAULT_MARGIN = 5 mm``: contacts enter the solve when gap < 5 mm. The gap term of the
  velocity-level problem (`humanoid_sim.contacts`) lets a body close a positive gap in one
  step, so the margin only needs to exceed the distance travelled in one step (5 m/s at 1 ms).
  The thesis gives no proximity threshold (spec §2.10).
* ``PATCH_MAX_POINTS = 8``: at most 8 points per patch (a cylinder rim on a plane would give
  12; 8 keeps the octagon). Boxes on planes give their 4 corners.
* ``PATCH_TOLERANCE = 1 mm`` (coal's default): support points within 1 mm of the deepest are in
  the patch, each with its own gap (a raised corner is a speculative contact, not a loaded one).
* ``BOX_FACE_TOL = 1 µm``: a box–box face axis whose separation is within 1 µm of coal's signed
  distance is the contact normal (coal's default GJK tolerance is 1e-6: its distance, and so its
  normal at a distance ~0, is not known better than that).
* ``MIN_SELF_JOINTS = 3`` (`humanoid_model.collision_rules.self_pair_by_default`, shared with the
  planner's self-collision): robot self pairs need at least 3 joints between the links: with
  fewer the relative velocity of a point spans < 3 dimensions and a point contact's 3×3 Delassus
  block is singular.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from humanoid_model.coal_import import coal
from humanoid_model.collision_rules import MIN_SELF_JOINTS, self_pair_by_default
from humanoid_sim.geometry import MobileGeom, StaticGeom

__all__ = [
    "ContactBatch",
    "CollisionDetector",
    "candidate_pairs",
    "DEFAULT_MARGIN",
    "MIN_SELF_JOINTS",
]

DEFAULT_MARGIN = 0.005  # [m] activation margin (chosen, see module docstring)
PATCH_MAX_POINTS = 8  # points per contact patch (chosen)
PATCH_TOLERANCE = 1e-3  # [m] coal's patch tolerance (its default): support points within 1 mm
MESH_MAX_CONTACTS = 64  # triangles of a static mesh tested against one shape (chosen, `_mesh_patches`)
MESH_FACE_COS = float(np.cos(np.radians(0.5)))  # face contact: coal's normal within 0.5 deg of the triangle's
CLIP_TOL = 1e-9  # [m] in-plane tolerance of the mesh patch clipping and point merging (chosen)
BOX_FACE_TOL = 1e-6  # [m] box–box: a face axis within this of coal's distance is the normal (`_box_face_axis`)


@dataclass
class ContactBatch:
    """Point contacts of one step, as arrays (m rows).

    geom_a (m,) index into the mobile geometries; geom_b (m,) index into the mobile geometries
    (b_static False) or the static ones (b_static True); points (m, 3) world [m]; normals (m, 3)
    unit, from B into A; gaps (m,) signed [m]; mu (m,), e (m,) pair materials."""

    geom_a: np.ndarray
    geom_b: np.ndarray
    b_static: np.ndarray
    points: np.ndarray
    normals: np.ndarray
    gaps: np.ndarray
    mu: np.ndarray
    e: np.ndarray
    slot: np.ndarray = None  # (m,) index of the point within its pair's patch (warm-start key)

    @property
    def m(self) -> int:
        """Number of point contacts."""
        return int(self.points.shape[0])

    @staticmethod
    def empty() -> ContactBatch:
        """A batch without contacts."""
        z = np.zeros(0)
        return ContactBatch(
            np.zeros(0, np.int64),
            np.zeros(0, np.int64),
            np.zeros(0, bool),
            np.zeros((0, 3)),
            np.zeros((0, 3)),
            z,
            z.copy(),
            z.copy(),
            np.zeros(0, np.int64),
        )


@njit(cache=True)
def _perimeter(V, k):
    """k points on the closed polygon V (n, 3): its n vertices plus k − n points spread along
    the edges in proportion to their length (benchmarks: more points per flat contact, e.g. the
    16-point standing set of the thesis's SICONOS test, ../shared/spec/000_chardonnet.md:668)."""
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


def _combine(a, b, default):
    if a is None and b is None:
        return default
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


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
def _broad(p, R, margin, kind, half, cyl_r, rad, box_ext, hs_idx, hs_n, hs_d, fin_idx, fin_c, fin_r, pairs, sweep):
    # sweep (n,): per shape the distance it can travel this step (speculative activation,
    # `humanoid_sim.impacts.SweptMargins`): a pair's margin is max(margin, the pair's sweep)
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
            if d - e <= mk:
                ms[cnt] = k
                ss[cnt] = hs_idx[h]
                cnt += 1
        for f in range(fin_idx.shape[0]):
            dx, dy, dz = p[k, 0] - fin_c[f, 0], p[k, 1] - fin_c[f, 1], p[k, 2] - fin_c[f, 2]
            if np.sqrt(dx * dx + dy * dy + dz * dz) - rad[k] - fin_r[f] <= mk:
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


@njit(cache=True)
def _placed_broad(
    oR, op, joint, PR, Pp, margin, kind, half, cyl_r, rad, box_ext, hs_idx, hs_n, hs_d, fin_idx, fin_c, fin_r, pairs, sw
):
    """`_placements` then `_broad` (one dispatch on the hot path): (R, p, (mobile, static) (2, k)
    of the mobile–static candidates, mobile pairs)."""
    R, p = _placements(oR, op, joint, PR, Pp)
    ms, ss, mp = _broad(
        p, R, margin, kind, half, cyl_r, rad, box_ext, hs_idx, hs_n, hs_d, fin_idx, fin_c, fin_r, pairs, sw
    )
    both = np.empty((2, ms.shape[0]), np.int64)
    both[0], both[1] = ms, ss
    return R, p, both, mp


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


class CollisionDetector:
    """Broad + narrow phase over a fixed pair set (see module docstring).

    Args:
        mobile: mobile geometries; static: static geometries.
        mobile_pairs: (k, 2) int array of mobile–mobile pairs to test.
        margin: activation margin [m].
        default_friction / default_restitution: used when neither side has a material.
        static_blocked: None, or (n_mobile, n_static) bool: mobile–static pairs never tested
            (`humanoid_sim.collision_filter.PairFilter.static_blocked`).
    """

    def __init__(
        self,
        mobile: list[MobileGeom],
        static: list[StaticGeom],
        mobile_pairs,
        margin: float = DEFAULT_MARGIN,
        default_friction: float = 0.4,
        default_restitution: float = 0.0,
        patch_points: int = 0,
        static_blocked=None,
    ):
        self.mobile, self.static = mobile, static
        self.margin = float(margin)
        self.patch_points = int(patch_points)
        self.mobile_pairs = np.asarray(mobile_pairs, np.int64).reshape(-1, 2)
        self.static_blocked = None if static_blocked is None else np.asarray(static_blocked, bool)
        self.joint = np.array([g.joint for g in mobile], np.int64)
        self._geom_joints = np.unique(self.joint).tolist()  # joints that carry geometry
        # joint placements buffer of `joint_placements`: a row per joint up to the last with geometry
        self._H = np.tile(np.eye(4), (int(self.joint.max(initial=0)) + 1, 1, 1))
        self.PR = np.array([g.placement_R for g in mobile]).reshape(-1, 3, 3)
        self.Pp = np.array([g.placement_p for g in mobile]).reshape(-1, 3)
        self.rad = np.array([g.radius for g in mobile])
        # shape kind for the exact half-space test: 0 box, 1 sphere, 2 cylinder, 3 other
        self.kind = np.array([_kind(g.shape) for g in mobile], np.int64)
        self.half = np.array([_half(g.shape) for g in mobile]).reshape(-1, 3)
        # half extents of a box containing the shape in its own frame (for world AABBs)
        self.box_ext = self.half.copy()
        for k, g in enumerate(mobile):
            if isinstance(g.shape, coal.Sphere):
                self.box_ext[k] = g.shape.radius
            elif isinstance(g.shape, coal.Cylinder):
                self.box_ext[k] = [g.shape.radius, g.shape.radius, g.shape.halfLength]
        self.cyl_r = np.array([float(g.shape.radius) if isinstance(g.shape, coal.Cylinder) else 0.0 for g in mobile])
        # per-point gaps (`_assemble`, `_entry`): the shapes' kinds (4: half-space), half sides
        # and radii, mobile then static
        self.rr = np.array(
            [float(g.shape.radius) if isinstance(g.shape, (coal.Sphere, coal.Cylinder)) else 0.0 for g in mobile]
        )
        self.skind = np.array([4 if s.halfspace else _kind(s.shape) for s in static], np.int64)
        self.sR = np.array([np.asarray(s.R, float) for s in static]).reshape(-1, 3, 3)
        self.sp = np.array([np.asarray(s.p, float) for s in static]).reshape(-1, 3)
        self.shalf = np.array([_half(s.shape) for s in static]).reshape(-1, 3)
        self.srr = np.array(
            [float(s.shape.radius) if isinstance(s.shape, (coal.Sphere, coal.Cylinder)) else 0.0 for s in static]
        )
        hs = [i for i, s in enumerate(static) if s.halfspace]
        fin = [i for i, s in enumerate(static) if not s.halfspace]
        self.hs_idx = np.array(hs, np.int64)
        self.mobile_pairs = np.ascontiguousarray(self.mobile_pairs)
        self.hs_n = np.array([static[i].R[:, 2] for i in hs]).reshape(-1, 3)
        self.hs_d = np.array([static[i].R[:, 2] @ static[i].p for i in hs])
        self.fin_idx = np.array(fin, np.int64)
        self.fin_c = np.array([static[i].p for i in fin]).reshape(-1, 3)
        self.fin_r = np.array([static[i].radius for i in fin])
        # the broad phase's arrays in the order `_broad` / `_placed_broad` take them (fixed for
        # the detector's life): one tuple for both compiled calls
        self._broad_args = (
            self.margin,
            self.kind,
            self.half,
            self.cyl_r,
            self.rad,
            self.box_ext,
            self.hs_idx,
            self.hs_n,
            self.hs_d,
            self.fin_idx,
            self.fin_c,
            self.fin_r,
            self.mobile_pairs,
        )
        self._still = np.zeros(len(mobile))  # no sweep: every pair within ``margin`` (`detect`)
        self.static_tf = [coal.Transform3s(s.R, s.p) for s in static]
        self.req = coal.CollisionRequest()
        self.req.security_margin = self.margin
        self.req.num_max_contacts = 1
        self.res = coal.CollisionResult()
        self.preq = coal.ContactPatchRequest()
        self.preq.setPatchTolerance(PATCH_TOLERANCE)
        self.pres = coal.ContactPatchResult()
        # static triangle meshes (`_mesh_patches`): index -> (triangles (n, 3, 3) world [m], unit
        # normals (n, 3) from the vertex order, zero for a degenerate triangle)
        self._mesh = {i: _world_triangles(s) for i, s in enumerate(static) if isinstance(s.shape, coal.BVHModelBase)}
        self.mreq = coal.CollisionRequest()
        self.mreq.security_margin = self.margin
        self.mreq.num_max_contacts = MESH_MAX_CONTACTS
        self.mres = coal.CollisionResult()
        self.mat_mu_default = default_friction
        self.mat_e_default = default_restitution
        # pair materials, fixed for the detector's life (nested lists: cheap per-pair lookups)
        self._mu_ms = [[_combine(A.friction, S.friction, default_friction) for S in static] for A in mobile]
        self._e_ms = [[_combine(A.restitution, S.restitution, default_restitution) for S in static] for A in mobile]
        self._mu_mm = [[_combine(A.friction, B.friction, default_friction) for B in mobile] for A in mobile]
        self._e_mm = [[_combine(A.restitution, B.restitution, default_restitution) for B in mobile] for A in mobile]

    # ------------------------------------------------------------------ placements
    def joint_placements(self, data):
        """World rotations (k, 3, 3) and positions (k, 3) [m] of the joints 0..k−1 (k − 1: the
        last joint with geometry), from ``data.oMi`` (after forward kinematics): the input of
        `detect`. Only the joints that carry geometry are filled (the other rows are stale); the
        arrays are views of one buffer that the next call rewrites."""
        oMi = data.oMi.tolist()  # one conversion: indexing the StdVec per joint is slower
        H = self._H
        for j in self._geom_joints:
            H[j] = oMi[j].homogeneous
        return H[:, :3, :3], H[:, :3, 3]

    def placements(self, oMi_R, oMi_p):
        """World rotations (n, 3, 3) and positions (n, 3) of the mobile shapes, from the joints'
        world rotations (njoints, 3, 3) and positions (njoints, 3)."""
        return _placements(oMi_R, oMi_p, self.joint, self.PR, self.Pp)

    def _extent(self, R):
        """(n_mobile, n_hs) support extent of each mobile shape along each half-space's inward
        direction −n: the exact distance from the shape's origin plane to its lowest point for
        boxes (Σ |n·R e_i| h_i), spheres (r) and cylinders (r √(1 − (n·a)²) + h |n·a|); the
        bounding radius for other shapes. Centre signed distance minus extent = exact gap."""
        proj = np.abs(np.einsum("kij,hi->khj", R, self.hs_n))  # |n · R e_j|
        ext = np.einsum("khj,kj->kh", proj, self.half)  # boxes
        na = proj[:, :, 2]
        cyl = self.cyl_r[:, None] * np.sqrt(np.maximum(1.0 - na * na, 0.0)) + self.half[:, 2:3] * na
        ext = np.where(self.kind[:, None] == 2, cyl, ext)
        ext = np.where(self.kind[:, None] == 1, self.rad[:, None], ext)
        return np.where(self.kind[:, None] == 3, self.rad[:, None], ext)

    def broad_phase(self, p, R, sweep=None):
        """Candidate pairs: (mobile, static) index arrays and (k, 2) mobile pairs (numba kernel
        `_broad`). Half-spaces: the exact support distance of the shape (`_extent`, same
        formulas); finite static shapes: bounding spheres; mobile pairs: bounding spheres, then
        world AABBs (|R| times the shape's half extents). sweep: see `detect`."""
        sweep = self._still if sweep is None else sweep
        return _broad(np.ascontiguousarray(p), np.ascontiguousarray(R), *self._broad_args, sweep)

    # ------------------------------------------------------------------ narrow phase
    def _patch(self, s1, T1, s2, T2, boxes=None):
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
        return self._finish(P, np.asarray(patch.getNormal(), float), patch.penetration_depth / 2)

    def _mesh_patches(self, s1, T1, s) -> list:
        """Patches of a mobile shape (primitive or convex) against the static triangle mesh ``s``:
        a list of `_patch`-like tuples (points A, points B, coal normal from 1 to 2, h, mode,
        plane).

        coal tests the shape against every triangle within the margin (one contact each, at most
        ``MESH_MAX_CONTACTS``). A contact whose normal is the triangle's face normal (within
        ``MESH_FACE_COS``; either side: triangles are two-sided) is a **face contact**: the
        triangles of one plane make one patch, the shape's own patch against that plane's
        half-space (coal's planar patch, as for the ground: the 4 corners of a box, the rim of a
        cylinder, one point of a sphere) clipped to the triangles and reduced to the convex hull
        of the pieces. Its normal is the triangle's, never coal's patch normal, which coal
        orients the other way for shape–mesh pairs (issue 14 §1). Other contacts (at an edge or
        a vertex of the mesh) are single points with coal's contact normal, dropped when a face
        patch of the same normal covers them."""
        res = self.mres
        res.clear()
        self.mreq.security_margin = self.req.security_margin  # the pair's (speculative) margin
        if not coal.collide(s1, T1, self.static[s].shape, self.static_tf[s], self.mreq, res):
            return []
        tri, tri_n = self._mesh[s]
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
            out.append(self._finish(P, -n, h, (n[0], n[1], n[2], off)))
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
        res, pres = self.res, self.pres
        res.clear()
        hs = coal.Halfspace(n, off)
        if not coal.collide(s1, T1, hs, _IDENTITY, self.req, res):
            return None, 0.0
        pres.clear()
        coal.computeContactPatch(s1, T1, hs, _IDENTITY, res, self.preq, pres)
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
        H = _hull2d(np.concatenate(pieces))[::-1]  # coal's order: counter-clockwise about its normal, −n
        # start at the vertex nearest the patch's first: an unclipped patch keeps coal's order (the
        # solvers sweep the points in order, so a mesh plane gives a primitive plane's forces)
        H = np.roll(H, -int(np.argmin(((H - P2[0]) ** 2).sum(axis=1))), axis=0)
        return H @ B + w * n, h

    def _finish(self, P, ncoal, h, plane=None):
        """(A, B, ncoal, h, mode, plane) of patch points P on the patch's mid-plane, as `_patch`
        returns them (at most ``PATCH_MAX_POINTS``; ``patch_points`` perimeter points when asked,
        on the mid-plane polygon's edges: each gets its own gap too). plane: None, or side 2's
        half-space (n from B into A, offset) (mode 2, a mesh face)."""
        k = P.shape[0]
        if k > PATCH_MAX_POINTS:
            keep = np.round(np.linspace(0, k, PATCH_MAX_POINTS, endpoint=False)).astype(int)
            P = P[keep]
        if self.patch_points and P.shape[0] >= 3 and self.patch_points > P.shape[0]:
            P = _perimeter(P, self.patch_points)
        if plane is None:
            return P, P, ncoal, h, 1, _NO_PLANE
        return P, P, ncoal, h, 2, plane

    def detect(self, oMi_R, oMi_p, sweep=None) -> ContactBatch:
        """All point contacts with gap < margin (see `ContactBatch`). sweep: None, or (n_mobile,)
        the distance [m] each mobile shape can travel this step (`humanoid_sim.impacts.SweptMargins`,
        speculative contacts): a mobile–static pair is then active within max(margin, sweep), a
        mobile pair within max(margin, sum of both sweeps)."""
        # = placements() then broad_phase(), one compiled call
        still = sweep is None
        R, p, ms, mpairs = _placed_broad(
            oMi_R, oMi_p, self.joint, self.PR, self.Pp, *self._broad_args, self._still if still else sweep
        )
        if self.static_blocked is not None and ms.shape[1]:  # collision filtering (None by default)
            ms = ms[:, ~self.static_blocked[ms[0], ms[1]]]
        if ms.shape[1] == 0 and mpairs.shape[0] == 0:
            return ContactBatch.empty()
        mobile, static = self.mobile, self.static
        Tr = coal.Transform3s
        # the surviving pairs, mobile–static then mobile–mobile, as one list for one narrow-phase
        # loop: (shape A, placement A, shape B, placement B, ga, gb, b_static, mu, e)
        mu_ms, e_ms, mu_mm, e_mm = self._mu_ms, self._e_ms, self._mu_mm, self._e_mm
        pairs = [
            (mobile[i].shape, Tr(R[i], p[i]), static[s].shape, self.static_tf[s], i, s, 1, mu_ms[i][s], e_ms[i][s])
            for i, s in zip(*ms.tolist())
        ]
        pairs += [
            (mobile[a].shape, Tr(R[a], p[a]), mobile[b].shape, Tr(R[b], p[b]), a, b, 0, mu_mm[a][b], e_mm[a][b])
            for a, b in mpairs.tolist()
        ]
        # per pair: (ga, gb, b_static, count, mode), (h, mu, e, plane) (`_assemble`)
        P1s, P2s, nrm, ints, flts = [], [], [], [], []
        same = True  # every pair gave P1 is P2 (patch points)
        mesh = self._mesh
        kind, skind = self.kind, self.skind
        for s1, T1, s2, T2, ga, gb, st, mu, e in pairs:
            if not still:  # the pair's speculative margin (coal's security margin)
                self.req.security_margin = max(self.margin, sweep[ga] if st else sweep[ga] + sweep[gb])
            if st and gb in mesh:  # a static triangle mesh: possibly several patches
                patches = self._mesh_patches(s1, T1, gb)
            else:
                boxes = None
                if kind[ga] == 0 and (skind[gb] if st else kind[gb]) == 0:
                    if st:
                        boxes = (R[ga], p[ga], self.half[ga], self.sR[gb], self.sp[gb], self.shalf[gb])
                    else:
                        boxes = (R[ga], p[ga], self.half[ga], R[gb], p[gb], self.half[gb])
                out = self._patch(s1, T1, s2, T2, boxes)
                patches = () if out is None else (out,)
            for P1, P2, ncoal, h, mode, pl in patches:
                P1s.append(P1)
                P2s.append(P2)
                same = same and P1 is P2
                nrm.append(ncoal)
                ints.append((ga, gb, st, P1.shape[0], mode))
                flts.append((h, mu, e, *pl))
        if not still:
            self.req.security_margin = self.margin
        if not ints:
            return ContactBatch.empty()
        A = np.concatenate(P1s)
        out = _assemble(
            A,
            A if same else np.concatenate(P2s),
            np.array(ints, np.int64),
            np.array(flts, float),
            np.array(nrm),
            R,
            p,
            kind,
            self.half,
            self.rr,
            self.sR,
            self.sp,
            skind,
            self.shalf,
            self.srr,
        )
        I3, bs, points, normals, F3 = out
        return ContactBatch(I3[0], I3[1], bs, points, normals, F3[0], F3[1], F3[2], I3[2])


_IDENTITY = coal.Transform3s()
_NO_PLANE = (0.0, 0.0, 0.0, 0.0)  # `_assemble`'s side-2 plane of a pair without one (mode 0, 1)


def _kind(shape) -> int:
    """Shape kind of the broad phase and of `_entry`: 0 box, 1 sphere, 2 cylinder, 3 other."""
    if isinstance(shape, coal.Box):
        return 0
    if isinstance(shape, coal.Sphere):
        return 1
    if isinstance(shape, coal.Cylinder):
        return 2
    return 3


def _half(shape) -> list:
    """Half sides of a box, (0, 0, half length) of a cylinder, zeros otherwise [m]."""
    if isinstance(shape, coal.Box):
        return [float(v) for v in np.asarray(shape.halfSide, float)]
    if isinstance(shape, coal.Cylinder):
        return [0.0, 0.0, float(shape.halfLength)]
    return [0.0, 0.0, 0.0]


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


def _hull2d(P):
    """Counter-clockwise convex hull (Andrew's monotone chain) of 2-D points, points within
    ``CLIP_TOL`` merged; one or two points when the set is a point or a segment."""
    # points on one CLIP_TOL grid cell are one point (the first); sorted by cell, so that points
    # a rounding error apart (x = 0.1 and 0.09999999999999999) sort as equals
    _, first = np.unique(np.round(P / CLIP_TOL).astype(np.int64), axis=0, return_index=True)
    keep = list(P[first])
    if len(keep) < 3:
        return np.array(keep)

    def turn(o, a, b):  # > 0: o -> a -> b turns left, b more than CLIP_TOL off the line o-a
        dx, dy = a[0] - o[0], a[1] - o[1]
        return dx * (b[1] - o[1]) - dy * (b[0] - o[0]) - CLIP_TOL * np.hypot(dx, dy)

    lower, upper = [], []
    for p in keep:
        while len(lower) >= 2 and turn(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(keep):
        while len(upper) >= 2 and turn(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    H = np.array(lower[:-1] + upper[:-1])
    return H if H.shape[0] >= 3 else H[:2]


def candidate_pairs(
    mobile: list[MobileGeom],
    parents,
    data=None,
    margin: float = DEFAULT_MARGIN,
    self_collision: bool = True,
    pair_filter=None,
) -> np.ndarray:
    """(k, 2) mobile–mobile pairs (a < b, indices into ``mobile``) the narrow phase tests.

    Shapes of different trees always pair. Shapes of one tree (robot self-collision, only with
    ``self_collision``) pair when their joints are at least ``MIN_SELF_JOINTS`` joints apart
    (``parents``: the model's parent joint per joint; so never a link and its parent, nor
    adjacent links) and, when ``data`` (Pinocchio data after forward kinematics at the initial
    configuration) is given, are not already within ``margin`` [m] of each other there
    (overlapping link boxes would otherwise make permanent internal contacts). Mobile–static
    pairs are not listed: every mobile shape is tested against every static shape (but the
    pairs a filter blocks, `CollisionDetector` ``static_blocked``).

    ``pair_filter`` (`humanoid_sim.collision_filter.PairFilter`, the scene's and the robot's
    ``collision`` rules): a pair of bodies it excludes, or whose masks never touch, is left out;
    a pair it includes is kept whatever this rule and the initial clearance say (but never two
    shapes on one joint: they cannot move relative to each other)."""

    pairs = []
    forced = set()  # included by the filter: kept by the clearance test below
    rule = pair_filter.verdict if pair_filter is not None and pair_filter.active else None
    for a in range(len(mobile)):
        for b in range(a + 1, len(mobile)):
            A, B = mobile[a], mobile[b]
            v = None if rule is None else rule(A.body, B.body)
            if v is False:
                continue
            if v is True and A.joint != B.joint:
                pairs.append((a, b))
                forced.add((a, b))
            elif A.tree != B.tree or self_collision and self_pair_by_default(parents, A.joint, B.joint):
                pairs.append((a, b))
    pairs = np.array(pairs, np.int64).reshape(-1, 2)
    if data is not None and pairs.shape[0]:
        probe = CollisionDetector(mobile, [], pairs, margin)
        batch = probe.detect(*probe.joint_placements(data))
        overlapping = {
            (a, b)
            for a, b, st in zip(batch.geom_a.tolist(), batch.geom_b.tolist(), batch.b_static.tolist())
            if not st and mobile[a].tree == mobile[b].tree
        } - forced
        if overlapping:
            pairs = np.array([pr for pr in pairs.tolist() if tuple(pr) not in overlapping], np.int64).reshape(-1, 2)
    return pairs
