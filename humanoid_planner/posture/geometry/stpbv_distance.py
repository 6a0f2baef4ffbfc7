"""The smooth (C^1) signed distance between STP-BVs and its witness points (Escande 2008,
§4.5), compiled with numba. docs/posture_generator.md "STP-BV".

**Support mapping.** A direction u (unit, body frame) is the outward normal of exactly one smooth
feature (up to the boundaries between them, where the candidates agree); the support point s(u)
(the point of the volume farthest along u) is on it (`_support`):

- small sphere of vertex i: s = P_i + r u, where c = P_i - rho u lies in K, i.e.
  u . (P_i - P_j) >= |P_i - P_j|^2 / (2 rho) for the neighbours j (a plane per neighbour, whose
  trace on the unit sphere is the small circle bounding the vertex's region, the cone of §4.4.4);
- big sphere of face f: s = C_f + R u, where u is in the cone of the P_a - C_f (its three tangent
  points with the small spheres; the planes (C_f P_a P_b) of §4.4.4);
- torus of edge (i, j): s = c* + R u with c* = M - rho_e w, w the unit part of u orthogonal to the
  edge, M its midpoint and rho_e = sqrt(rho^2 - l^2 / 4) (Thm 4.4.1), where c* lies on the arc of
  centres between the two faces' C (the torus's extent about the edge) and |u . e| <= l / (2 rho)
  (between the two small spheres).

With the feature comes the derivative Ds(u) (3, 3): r (I - u u^T) on a small sphere, R (I - u u^T)
on a big one, R (I - u u^T) - rho_e (I - e e^T - w w^T) / |u_perp| on a torus (its two principal
radii of curvature). This is the thesis's feature association done directly on the smooth
features (every feature is tested, O(V + E + F) per call: the bodies here have tens of vertices;
the thesis goes through V-Clip's polyhedral features with an O(1) overlay, §4.5.1-4.5.2;
test_posture_stpbv measures how often that overlay would need its correction step).

**Distance.** For convex A and B and a unit n (pointing from B to A) the gap along n is
phi(n) = min_A n.x - max_B n.x = n . (a - b), a = s_A(-n), b = s_B(n). The signed distance is
max over unit n of phi (positive apart; in penetration its maximum is minus the minimal
translation distance, the thesis's penetration depth, §4.3.3), with the witness points a, b and
normal n at the maximiser. It is found by Newton's method on the sphere: gradient
(I - n n^T)(a - b), Hessian (I - n n^T)(-Ds_A(-n) - Ds_B(n))(I - n n^T) - phi (I - n n^T),
negative definite while the curvature radii exceed the penetration (the thesis's condition for a
C^1 distance in penetration, §4.3.3), with a backtracking line search on phi; a step is taken in
the tangent plane and n renormalised. It stops when the tangent gradient |a - b - phi n| is below
``GRADIENT_TOLERANCE``. Apart, phi is concave on the ball |n| <= 1 and its maximum unique; in
penetration it may have several local maxima (a point inside a box: one per face), so a
penetrating or stalled pair is solved again from the normal of the underlying polytopes (coal's
GJK/EPA, the thesis's V-Clip step, §4.5.1) and the larger phi kept (every phi(n) is a lower bound of
the signed distance).

**Gradient (3.56)/(4.10).** Moving the bodies, d phi(n*) = n* . (da - db) with a, b fixed in their
bodies (envelope theorem: n* is stationary), so dd/dq = n^T (dP_a/dq - dP_b/dq) for the body-fixed
witness points: `kinematics.world_normal_rows` evaluates it; the distance is C^1 because the volumes are
strictly convex (Thm 4.3.3, Escande 2008, §4.3.2).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from humanoid_model.coal_import import coal

__all__ = ["GRADIENT_TOLERANCE", "StpBVPack", "pair_distances", "support_point"]

GRADIENT_TOLERANCE = 1e-12  # [m]: |(I - n n^T)(a - b)| at the end (chosen: witness points to ~1e-12 m)
MAX_ITERATIONS = 40  # Newton iterations (chosen: 2-10 from a warm start or the bodies' centres, measured)
_TOL = 1e-12  # region-test slack [-]


class StpBVPack:
    """Flat arrays of several `StpBV` (numba's input): vertices with their neighbour lists,
    faces (centre, inverse cone matrix), edges (midpoint, axis, in-plane basis, arc), per body
    offsets and radii."""

    def __init__(self, volumes):
        vols = list(volumes)
        nvs = [len(v.vertices) for v in vols]
        nfs = [len(v.faces) for v in vols]
        nes = [len(v.edges) for v in vols]
        self.vptr = np.concatenate([[0], np.cumsum(nvs)]).astype(np.int64)
        self.fptr = np.concatenate([[0], np.cumsum(nfs)]).astype(np.int64)
        self.eptr = np.concatenate([[0], np.cumsum(nes)]).astype(np.int64)
        self.r = np.array([v.r for v in vols], float)
        self.R = np.array([v.R for v in vols], float)
        self.V = np.concatenate([v.vertices for v in vols]).reshape(-1, 3).astype(float)
        adj_lists = []
        for k, v in enumerate(vols):
            nbrs = [[] for _ in range(len(v.vertices))]
            for i, j in v.edges:
                nbrs[i].append(j + self.vptr[k])
                nbrs[j].append(i + self.vptr[k])
            adj_lists += nbrs
        self.adj_ptr = np.concatenate([[0], np.cumsum([len(a) for a in adj_lists])]).astype(np.int64)
        self.adj = np.array([j for a in adj_lists for j in a], np.int64)
        C, Ninv = [], []
        for v in vols:
            for f, c in zip(v.faces, v.centres):
                C.append(c)
                Ninv.append(np.linalg.inv((v.vertices[f] - c).T))
        self.C = np.array(C, float).reshape(-1, 3)
        self.Ninv = np.array(Ninv, float).reshape(-1, 3, 3)
        M, E, A, B, arc, rad, half = [], [], [], [], [], [], []
        for v in vols:
            for (i, j), (f, g) in zip(v.edges, v.edge_faces):
                Pi, Pj = v.vertices[i], v.vertices[j]
                m, e = 0.5 * (Pi + Pj), Pj - Pi
                length = np.linalg.norm(e)
                e = e / length
                a = v.centres[f] - m
                a = a - (a @ e) * e
                a /= np.linalg.norm(a)
                b = np.cross(e, a)
                cg = v.centres[g] - m
                ang = math.atan2(cg @ b, cg @ a)  # libm: the same bits on every processor
                if ang < 0:  # the arc goes the other way about the edge
                    b, ang = -b, -ang
                M.append(m), E.append(e), A.append(a), B.append(b), arc.append(ang)
                rad.append(np.sqrt(max(v.rho**2 - 0.25 * length**2, 0.0)))
                half.append(0.5 * length / v.rho)
        self.M = np.array(M, float).reshape(-1, 3)
        self.E = np.array(E, float).reshape(-1, 3)
        self.A = np.array(A, float).reshape(-1, 3)
        self.B = np.array(B, float).reshape(-1, 3)
        self.arc = np.array(arc, float)
        self.rad = np.array(rad, float)
        self.half = np.array(half, float)
        self.hulls = [_polytope(v) for v in vols]

    def polytope_normals(self, pairs, rotations, translations) -> np.ndarray:
        """(m, 3): the unit normals from the second to the first body of each pair between the
        underlying convex polytopes (coal's GJK, EPA in penetration), a start for the smooth
        distance's Newton iterations where those from the bodies' centres stall."""
        out = np.empty((len(pairs), 3))
        req = coal.DistanceRequest()
        for row, (i, k) in enumerate(pairs):
            res = coal.DistanceResult()
            Ti = coal.Transform3s(rotations[i], translations[i])
            Tk = coal.Transform3s(rotations[k], translations[k])
            coal.distance(self.hulls[i], Ti, self.hulls[k], Tk, req, res)
            n = -np.asarray(res.normal)
            norm = np.linalg.norm(n)
            out[row] = n / norm if norm > 1e-12 else [0.0, 0.0, 1.0]
        return out

    def arrays(self):
        return (
            self.vptr,
            self.fptr,
            self.eptr,
            self.r,
            self.R,
            self.V,
            self.adj_ptr,
            self.adj,
            self.C,
            self.Ninv,
            self.M,
            self.E,
            self.A,
            self.B,
            self.arc,
            self.rad,
            self.half,
        )


def _polytope(volume):
    """coal's convex polytope of an STP-BV's vertices (a small sphere for a one-point volume)."""
    if len(volume.vertices) < 4:
        return coal.Sphere(max(volume.r, 1e-6))
    pts = coal.StdVec_Vec3s()
    for p in volume.vertices:
        pts.append(np.asarray(p, float))
    return coal.Convex.convexHull(pts, False, "")


@nb.njit(cache=True)
def _support(k, Rk, tk, uw, g):
    """Support point x (3,) and its derivative Ds (3, 3) in the world, feature kind (0 vertex, 1 face,
    2 edge) and global index, for body ``k`` posed at (``Rk``, ``tk``) and the unit world direction
    ``uw``; ``g`` the pack's arrays. (One kernel with `_pairs`: numba compiles each slowly.)"""
    vptr, fptr, eptr, r, R, V, adj_ptr, adj, C, Ninv, M, E, A, B, arc, rad, half = g
    u = np.empty(3)
    for i in range(3):
        u[i] = Rk[0, i] * uw[0] + Rk[1, i] * uw[1] + Rk[2, i] * uw[2]
    rho = R[k] - r[k]
    best_val = -1e300
    best_viol = 1e300
    x = np.zeros(3)
    kind, index = -1, -1
    # small spheres
    for i in range(vptr[k], vptr[k + 1]):
        viol = 0.0
        for p in range(adj_ptr[i], adj_ptr[i + 1]):
            j = adj[p]
            dx, dy, dz = V[i, 0] - V[j, 0], V[i, 1] - V[j, 1], V[i, 2] - V[j, 2]
            s = (dx * dx + dy * dy + dz * dz) / (2.0 * rho) - (u[0] * dx + u[1] * dy + u[2] * dz)
            if s > viol:
                viol = s
        val = u[0] * V[i, 0] + u[1] * V[i, 1] + u[2] * V[i, 2] + r[k]
        if viol < best_viol - _TOL or (viol <= _TOL and val > best_val):
            best_viol, best_val = viol, val
            kind, index = 0, i
    # big spheres
    for f in range(fptr[k], fptr[k + 1]):
        viol = 0.0
        for a in range(3):
            lam = Ninv[f, a, 0] * u[0] + Ninv[f, a, 1] * u[1] + Ninv[f, a, 2] * u[2]
            if -lam > viol:
                viol = -lam
        val = u[0] * C[f, 0] + u[1] * C[f, 1] + u[2] * C[f, 2] + R[k]
        if viol < best_viol - _TOL or (viol <= _TOL and best_viol <= _TOL and val > best_val):
            best_viol, best_val = viol, val
            kind, index = 1, f
    # tori
    for q in range(eptr[k], eptr[k + 1]):
        ue = u[0] * E[q, 0] + u[1] * E[q, 1] + u[2] * E[q, 2]
        wx, wy, wz = u[0] - ue * E[q, 0], u[1] - ue * E[q, 1], u[2] - ue * E[q, 2]
        wn = np.sqrt(wx * wx + wy * wy + wz * wz)
        if wn < 1e-15:
            continue
        # the centre direction -w in the (A, B) plane: angle in [0, arc]
        ca = -(wx * A[q, 0] + wy * A[q, 1] + wz * A[q, 2]) / wn
        cb = -(wx * B[q, 0] + wy * B[q, 1] + wz * B[q, 2]) / wn
        ang = math.atan2(cb, ca)
        viol = abs(ue) - half[q]
        if -ang > viol:
            viol = -ang
        if ang - arc[q] > viol:
            viol = ang - arc[q]
        if viol < 0.0:
            viol = 0.0
        cx = M[q, 0] - rad[q] * wx / wn
        cy = M[q, 1] - rad[q] * wy / wn
        cz = M[q, 2] - rad[q] * wz / wn
        val = u[0] * cx + u[1] * cy + u[2] * cz + R[k]
        if viol < best_viol - _TOL or (viol <= _TOL and best_viol <= _TOL and val > best_val):
            best_viol, best_val = viol, val
            kind, index = 2, q
    P = -np.outer(u, u)
    for i in range(3):
        P[i, i] += 1.0
    if kind == 0:
        x[:] = V[index] + r[k] * u
        Ds = r[k] * P
    elif kind == 1:
        x[:] = C[index] + R[k] * u
        Ds = R[k] * P
    else:
        e = E[index]
        ue = u[0] * e[0] + u[1] * e[1] + u[2] * e[2]
        w = u - ue * e
        wn = np.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
        w = w / wn
        x[:] = M[index] - rad[index] * w + R[k] * u
        Q = -np.outer(e, e) - np.outer(w, w)
        for i in range(3):
            Q[i, i] += 1.0
        Ds = R[k] * P - rad[index] * Q / wn
    xw = np.empty(3)
    Dw = np.zeros((3, 3))
    for i in range(3):
        xw[i] = Rk[i, 0] * x[0] + Rk[i, 1] * x[1] + Rk[i, 2] * x[2] + tk[i]
        for j in range(3):
            acc = 0.0
            for a in range(3):
                for b in range(3):
                    acc += Rk[i, a] * Ds[a, b] * Rk[j, b]
            Dw[i, j] = acc
    return xw, Dw, kind, index


@nb.njit(cache=True)
def _pairs(pairs, Rs, ts, n0, g):
    """For each pair (ka, kb): signed distance, witness points a (on ka) and b (on kb), unit normal n
    (kb to ka), Newton iterations and the smooth features (kind, index) of a and b (module
    docstring; the 3-vector algebra is written out, numba compiles np.dot slowly)."""
    m = pairs.shape[0]
    d = np.empty(m)
    wa = np.empty((m, 3))
    wb = np.empty((m, 3))
    nout = np.empty((m, 3))
    its = np.empty(m, np.int64)
    feats = np.empty((m, 4), np.int64)
    for p in range(m):
        ka, kb = pairs[p, 0], pairs[p, 1]
        Ra, ta, Rb, tb = Rs[ka], ts[ka], Rs[kb], ts[kb]
        n = n0[p] / np.sqrt(n0[p, 0] ** 2 + n0[p, 1] ** 2 + n0[p, 2] ** 2)
        a, DA, fa, ia = _support(ka, Ra, ta, -n, g)
        b, DB, fb, ib = _support(kb, Rb, tb, n, g)
        phi = n[0] * (a[0] - b[0]) + n[1] * (a[1] - b[1]) + n[2] * (a[2] - b[2])
        it = 0
        for it in range(1, MAX_ITERATIONS + 1):  # noqa: B007 (read after the loop)
            gr = (a - b) - phi * n
            gn = np.sqrt(gr[0] ** 2 + gr[1] ** 2 + gr[2] ** 2)
            if gn <= GRADIENT_TOLERANCE:
                break
            # tangent basis (t1, t2) of the sphere at n
            t1 = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
            t1 = t1 - (t1[0] * n[0] + t1[1] * n[1] + t1[2] * n[2]) * n
            t1 /= np.sqrt(t1[0] ** 2 + t1[1] ** 2 + t1[2] ** 2)
            t2 = np.array([n[1] * t1[2] - n[2] * t1[1], n[2] * t1[0] - n[0] * t1[2], n[0] * t1[1] - n[1] * t1[0]])
            H = -(DA + DB)
            h11, h12, h22, g1, g2 = -phi, 0.0, -phi, 0.0, 0.0
            for i in range(3):
                g1 += t1[i] * gr[i]
                g2 += t2[i] * gr[i]
                for j in range(3):
                    h11 += t1[i] * H[i, j] * t1[j]
                    h12 += t1[i] * H[i, j] * t2[j]
                    h22 += t2[i] * H[i, j] * t2[j]
            # Newton's step on the tangent plane, the Hessian shifted to negative definite if needed
            lam_max = 0.5 * (h11 + h22) + np.sqrt(0.25 * (h11 - h22) ** 2 + h12 * h12)
            shift = 0.0
            if lam_max > -1e-9:
                shift = lam_max + max(1e-3, np.sqrt(g1 * g1 + g2 * g2))
            h11s, h22s = h11 - shift, h22 - shift
            det = h11s * h22s - h12 * h12
            d1 = -(h22s * g1 - h12 * g2) / det
            d2 = -(-h12 * g1 + h11s * g2) / det
            step = 1.0
            accepted = False
            for _ in range(30):
                nn = n + step * (d1 * t1 + d2 * t2)
                nn /= np.sqrt(nn[0] ** 2 + nn[1] ** 2 + nn[2] ** 2)
                a2, DA2, fa2, ia2 = _support(ka, Ra, ta, -nn, g)
                b2, DB2, fb2, ib2 = _support(kb, Rb, tb, nn, g)
                phi2 = nn[0] * (a2[0] - b2[0]) + nn[1] * (a2[1] - b2[1]) + nn[2] * (a2[2] - b2[2])
                if phi2 >= phi - 1e-13:  # [m] ascent, up to the round-off of phi near the maximum
                    accepted = True
                    break
                step *= 0.5
            if not accepted:
                break
            n, a, b, DA, DB, phi = nn, a2, b2, DA2, DB2, phi2
            fa, ia, fb, ib = fa2, ia2, fb2, ib2
        d[p], wa[p], wb[p], nout[p], its[p] = phi, a, b, n, it
        feats[p, 0], feats[p, 1], feats[p, 2], feats[p, 3] = fa, ia, fb, ib
    return d, wa, wb, nout, its, feats


def pair_distances(pack: StpBVPack, pairs, rotations, translations, n0=None, restart: bool = True):
    """Signed distances of ``pairs`` (m, 2) of bodies of ``pack`` placed at ``rotations`` (nb, 3, 3)
    and ``translations`` (nb, 3) [m] (world): ``(d (m,), a (m, 3), b (m, 3), n (m, 3), iterations
    (m,), features (m, 4))``, a and b the witness points of the first and second body, n the unit
    normal from the second to the first, features (kind, global index) of a then b (kind 0 small
    sphere, 1 big sphere, 2 torus). ``n0`` (m, 3): warm-start normals (default: between the bodies'
    origins, or +z when they coincide). ``restart``: solve penetrating or stalled pairs again from
    the polytopes' normal (module docstring; off when ``n0`` is known to be good)."""
    pairs = np.ascontiguousarray(pairs, np.int64).reshape(-1, 2)
    Rs = np.ascontiguousarray(rotations, float)
    ts = np.ascontiguousarray(translations, float)
    if n0 is None:
        n0 = ts[pairs[:, 0]] - ts[pairs[:, 1]]
        bad = np.linalg.norm(n0, axis=1) < 1e-12
        n0[bad] = [0.0, 0.0, 1.0]
    out = _pairs(pairs, Rs, ts, np.ascontiguousarray(n0, float), pack.arrays())
    d, a, b, n = out[:4]
    # in penetration phi has several local maxima (a point inside a box: one per face), and deep
    # ones may stall: restart those from the polytopes' normal (coal's EPA), keep the larger phi
    stuck = np.flatnonzero((d < 0.0) | (np.linalg.norm((a - b) - d[:, None] * n, axis=1) > 1e3 * GRADIENT_TOLERANCE))
    if restart and len(stuck):
        retry = _pairs(pairs[stuck], Rs, ts, pack.polytope_normals(pairs[stuck], Rs, ts), pack.arrays())
        better = retry[0] > d[stuck]
        for full, part in zip(out, retry):
            full[stuck[better]] = part[better]
    return out


def support_point(pack: StpBVPack, body: int, u) -> tuple[np.ndarray, np.ndarray, int, int]:
    """``(s(u), Ds(u), kind, index)`` of body ``body`` in its own frame for the direction ``u``."""
    u = np.asarray(u, float)
    return _support(body, np.eye(3), np.zeros(3), u / np.linalg.norm(u), pack.arrays())
