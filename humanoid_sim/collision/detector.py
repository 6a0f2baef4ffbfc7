"""`CollisionDetector`: the collision stage's detector over a fixed pair set. Each step,
`detect(oMi_R, oMi_p, sweep)` places the mobile shapes and runs the broad phase (one numba call,
`humanoid_sim.collision.broad_phase`), then the narrow phase on the surviving pairs
(`humanoid_sim.collision.narrow_phase`, and `humanoid_sim.collision.mesh` for a static triangle
mesh), and assembles the points into a `humanoid_sim.collision.batch.ContactBatch`.

The geometry (`humanoid_sim.collision.geometry`) lives in two lists: **mobile geometries**
attached to a joint of the world's combined Pinocchio model (robot links, free-body parts) and
**static geometries** of the environment. A pair's material is the smaller friction and
restitution of its two sides (`_combine`; robot links carry none: the other body's is used, or
the detector's defaults).

``DEFAULT_MARGIN = 5 mm`` (chosen): contacts enter the solve when gap < 5 mm. The gap term of the
velocity-level problem (`humanoid_sim.stages.contacts`) lets a body close a positive gap in one step, so
the margin only needs to exceed the distance travelled in one step (5 m/s at 1 ms). The thesis
gives no proximity threshold (Chardonnet 2009, §3.1.5).
"""

from __future__ import annotations

import numpy as np

from humanoid_model.coal_import import coal
from humanoid_model.joint_frames import JointFrames
from humanoid_sim.collision.batch import ContactBatch
from humanoid_sim.collision.broad_phase import _broad, _half, _kind, _placements, _polytope_vertices
from humanoid_sim.collision.compiled_step import buffers, detect_compiled
from humanoid_sim.collision.geometry import MobileGeom, StaticGeom
from humanoid_sim.collision.mesh import MeshPatches
from humanoid_sim.collision.narrow_phase import (
    PATCH_MAX_POINTS,
    PATCH_TOLERANCE,
    NarrowPhase,
    _assemble,
    with_perimeters,
)
from humanoid_sim.collision.separation import SAFETY, SeparationBounds

__all__ = ["CollisionDetector", "DEFAULT_MARGIN"]

DEFAULT_MARGIN = 0.005  # [m] activation margin (chosen, see module docstring)


def _combine(a, b, default):
    if a is None and b is None:
        return default
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


class CollisionDetector:
    """Broad + narrow phase over a fixed pair set (module docstring).

    Args:
        mobile: mobile geometries; static: static geometries.
        mobile_pairs: (k, 2) int array of mobile–mobile pairs to test.
        margin: activation margin [m].
        default_friction / default_restitution: used when neither side has a material.
        static_blocked: None, or (n_mobile, n_static) bool: mobile–static pairs never tested
            (`humanoid_sim.collision.pair_filter.PairFilter.static_blocked`).
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
        self._frames = JointFrames()  # views of the joints' placements, per Data read
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
        # the convex hulls' vertices and the boxes' corners (rows hull_start[k]..[k + 1]): the exact
        # half-space test of `_broad` (hulls), the patches of `hull_plane` (hulls and boxes)
        polys = [_polytope_vertices(g.shape) for g in mobile]
        self.hull_v = np.ascontiguousarray(np.concatenate([np.zeros((0, 3)), *polys]))
        self.hull_start = np.concatenate([[0], np.cumsum([len(v) for v in polys])]).astype(np.int64)
        self._polytope = np.diff(self.hull_start) > 0
        # each static half-space's world plane n·y <= d (`_broad`, `hull_plane`)
        self._plane = np.array([s.halfspace for s in static], bool)
        self.plane_n = np.zeros((len(static), 3))
        self.plane_d = np.zeros(len(static))
        for k, s in enumerate(static):
            if s.halfspace:
                self.plane_n[k] = np.asarray(s.R, float) @ np.asarray(s.shape.n, float)
                self.plane_d[k] = float(s.shape.d) + self.plane_n[k] @ np.asarray(s.p, float)
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
        self.hs_n = self.plane_n[self.hs_idx]
        self.hs_d = self.plane_d[self.hs_idx]
        self.fin_idx = np.array(fin, np.int64)
        self.fin_c = np.array([static[i].p for i in fin]).reshape(-1, 3)
        self.fin_r = np.array([static[i].radius for i in fin])
        self.fin_R = np.array([np.asarray(static[i].R, float) for i in fin]).reshape(-1, 3, 3)
        self.fin_half = np.array([_half(static[i].shape) if _kind(static[i].shape) == 0 else [-1.0] * 3 for i in fin])
        self.fin_half = self.fin_half.reshape(-1, 3)
        # the broad phase's arrays in the order `_broad` / `detect_compiled` take them (fixed for
        # the detector's life): one tuple for both compiled calls
        self._broad_args = (
            self.margin,
            self.kind,
            self.half,
            self.cyl_r,
            self.rad,
            self.box_ext,
            self.hull_v,
            self.hull_start,
            self.hs_idx,
            self.hs_n,
            self.hs_d,
            self.fin_idx,
            self.fin_c,
            self.fin_r,
            self.fin_R,
            self.fin_half,
            self.mobile_pairs,
        )
        self._still = np.zeros(len(mobile))  # no sweep: every pair within ``margin`` (`detect`)
        # `detect`'s stand-ins for the separation bounds' arrays when there are none
        self._R0, self._p0, self._b0, self._m0 = np.zeros((0, 3, 3)), np.zeros((0, 3)), np.zeros((0, 0)), np.zeros(0)
        self.static_tf = [coal.Transform3s(s.R, s.p) for s in static]
        self.narrow = NarrowPhase(self.margin, self.patch_points)  # coal's queries, patch points
        self.meshes = MeshPatches(static, self.static_tf, self.narrow, self.margin)  # static triangle meshes
        # mobile pairs found apart, skipped while provably beyond their margin (`separation`; None: every
        # pair the broad phase keeps goes to the narrow phase)
        self.separation = SeparationBounds(self.rad)
        # the output buffers of the compiled part of `detect` (`compiled_step`), sized by the most
        # candidates, mobile pairs and patch points a step can have
        n_fixed = len(static)
        n_points = int(self._plane.sum()) * sum(min(len(v), PATCH_MAX_POINTS) for v in polys)
        self._out = buffers(len(mobile), len(mobile) * n_fixed, self.mobile_pairs.shape[0], n_points)
        self._blocked = np.zeros((len(mobile), n_fixed), bool) if self.static_blocked is None else self.static_blocked
        self.mat_mu_default = default_friction
        self.mat_e_default = default_restitution
        # pair materials, fixed for the detector's life (nested lists: cheap per-pair lookups)
        mu_ms = [[_combine(A.friction, S.friction, default_friction) for S in static] for A in mobile]
        e_ms = [[_combine(A.restitution, S.restitution, default_restitution) for S in static] for A in mobile]
        self._mu_ms_a = np.array(mu_ms, float).reshape(len(mobile), len(static))  # `hull_plane`
        self._e_ms_a = np.array(e_ms, float).reshape(len(mobile), len(static))
        self._mu_ms, self._e_ms = self._mu_ms_a.tolist(), self._e_ms_a.tolist()
        self._mu_mm = [[_combine(A.friction, B.friction, default_friction) for B in mobile] for A in mobile]
        self._e_mm = [[_combine(A.restitution, B.restitution, default_restitution) for B in mobile] for A in mobile]

    # ------------------------------------------------------------------ placements
    def joint_placements(self, data):
        """World rotations (k, 3, 3) and positions (k, 3) [m] of the joints 0..k−1 (k − 1: the
        last joint with geometry), from ``data.oMi`` (after forward kinematics): the input of
        `detect`. Read through `humanoid_model.joint_frames.JointFrames` (else only the joints that carry geometry
        are filled, the other rows stale); the arrays are views of one buffer that the next call rewrites."""
        H = self._H
        view = self._frames(data)
        if view is not None:  # every joint up to the last with geometry: two strided copies
            k = H.shape[0]
            H[:, :3, :3] = view[0][:k]
            H[:, :3, 3] = view[1][:k]
        else:
            oMi = data.oMi.tolist()  # one conversion: indexing the StdVec per joint is slower
            for j in self._geom_joints:
                H[j] = oMi[j].homogeneous
        return H[:, :3, :3], H[:, :3, 3]

    def placements(self, oMi_R, oMi_p):
        """World rotations (n, 3, 3) and positions (n, 3) of the mobile shapes, from the joints'
        world rotations (njoints, 3, 3) and positions (njoints, 3)."""
        return _placements(oMi_R, oMi_p, self.joint, self.PR, self.Pp)

    def broad_phase(self, p, R, sweep=None):
        """Candidate pairs: (mobile, static) index arrays and (k, 2) mobile pairs (numba kernel
        `_broad`). Half-spaces: the exact support distance of the shape (boxes, spheres, cylinders,
        a convex hull's lowest vertex); finite static shapes: bounding spheres; mobile pairs: bounding spheres, then
        world AABBs (|R| times the shape's half extents). sweep: see `detect`."""
        sweep = self._still if sweep is None else sweep
        return _broad(np.ascontiguousarray(p), np.ascontiguousarray(R), *self._broad_args, sweep)

    # ------------------------------------------------------------------ the step
    def detect(self, oMi_R, oMi_p, sweep=None) -> ContactBatch:
        """All point contacts with gap < margin (see `ContactBatch`). sweep: None, or (n_mobile,)
        the distance [m] each mobile shape can travel this step (`humanoid_sim.stages.impacts.SweptMargins`,
        speculative contacts): a mobile–static pair is then active within max(margin, sweep), a
        mobile pair within max(margin, sum of both sweeps)."""
        # one compiled call (`compiled_step`): placements() then broad_phase(), the collision filter
        # (static_blocked, None by default), the separation bounds (advanced; the pairs they do not
        # rule out kept), the patches of hulls and boxes on half-spaces (`hull_plane`: ms keeps the
        # pairs for coal), and the batch when those patches are all the contacts
        still = sweep is None
        separation = self.separation
        sep = (self._R0, self._p0, self.rad, self._b0, self._m0, False) if separation is None else (
            separation._R, separation._p, separation.radius, separation.bound, separation._moved, separation._known
        )  # fmt: skip
        out = self._out
        done, nr, nq, npts, nI, I3, BS, PT, NN, F3 = detect_compiled(
            oMi_R, oMi_p, self.joint, self.PR, self.Pp, *self._broad_args, self._still if still else sweep,
            self._blocked, self.static_blocked is not None, *sep, separation is not None, still, SAFETY,
            self._polytope, self._plane, self.plane_n, self.plane_d, self._mu_ms_a, self._e_ms_a,
            PATCH_TOLERANCE, PATCH_MAX_POINTS, self.patch_points,
            self.rr, self.sR, self.sp, self.skind, self.shalf, self.srr, *out,
        )  # fmt: skip
        if done:  # the patches alone
            return ContactBatch(I3[0], I3[1], BS, PT, NN, F3[0], F3[1], F3[2], I3[2])
        R, p, ms, mpairs = out[0], out[1], out[2][:, :nr], out[3][:nq]
        pts, I, F, N = out[4][:npts], out[5][:nI], out[6][:nI], out[7][:nI]
        if nr == 0 and nq == 0 and not self.patch_points:  # no patch either
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
        req, patch = self.narrow.req, self.narrow.patch
        if I.shape[0]:  # the compiled patches first
            if self.patch_points:  # with their perimeter points
                pts, I = with_perimeters(pts, I, self.patch_points)
            P1s.append(pts)
            nrm.extend(N)
            ints.extend(I.tolist())
            flts.extend(F.tolist())
            P2s.extend(P1s)
        meshes = self.meshes
        mesh = meshes.triangles
        kind, skind = self.kind, self.skind
        for s1, T1, s2, T2, ga, gb, st, mu, e in pairs:
            if not still:  # the pair's speculative margin (coal's security margin)
                req.security_margin = max(self.margin, sweep[ga] if st else sweep[ga] + sweep[gb])
            if st and gb in mesh:  # a static triangle mesh: possibly several patches
                patches = meshes.patches(s1, T1, gb)
            else:
                boxes = None
                if kind[ga] == 0 and (skind[gb] if st else kind[gb]) == 0:
                    if st:
                        boxes = (R[ga], p[ga], self.half[ga], self.sR[gb], self.sp[gb], self.shalf[gb])
                    else:
                        boxes = (R[ga], p[ga], self.half[ga], R[gb], p[gb], self.half[gb])
                out = patch(s1, T1, s2, T2, boxes)
                patches = () if out is None else (out,)
                if out is None and not st and separation is not None:
                    separation.record(ga, gb, self.narrow.res.distance_lower_bound + req.security_margin)
            for P1, P2, ncoal, h, mode, pl in patches:
                P1s.append(P1)
                P2s.append(P2)
                same = same and P1 is P2
                nrm.append(ncoal)
                ints.append((ga, gb, st, P1.shape[0], mode))
                flts.append((h, mu, e, *pl))
        if not still:
            req.security_margin = self.margin
        if not ints:
            return ContactBatch.empty()
        A = np.concatenate(P1s)
        return self._batch(
            A, A if same else np.concatenate(P2s), np.array(ints, np.int64), np.array(flts, float), np.array(nrm), R, p
        )

    def _batch(self, A, B, I, F, N, R, p) -> ContactBatch:
        """The `ContactBatch` of the per-pair rows (`_assemble`)."""
        I3, bs, points, normals, F3 = _assemble(
            A, B, I, F, N, R, p, self.kind, self.half, self.rr, self.sR, self.sp, self.skind, self.shalf, self.srr
        )
        return ContactBatch(I3[0], I3[1], bs, points, normals, F3[0], F3[1], F3[2], I3[2])
