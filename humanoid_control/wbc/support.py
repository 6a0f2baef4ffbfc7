"""Can the contacts held at a sample of a reference carry the robot there? The contact wrench a
motion needs, checked against the contacts' friction cones and centre-of-pressure regions, as
the whole-body QP will see them (`humanoid_control.wbc.contact`): each contact's touching
polygon shrunk by the controller's ``cop_margin`` and a further ``slack`` for its tracking.

    support = Support(reference, controller, slack=0.002)
    test = support.test(["l_sole", "r_sole"], k)   # test(r): at rate r along the path (1: as planned)
    test(1.0), test(0.0)                            # dynamic, static

The wrench is the rate of change of the centroidal momentum less the weight (Orin and Goswami's
ḣ_G): at rate r along the same path the dynamic part scales with r², the weight does not. For
contacts in one plane (one contact; feet on one floor) the wrench fixes the centre of pressure:
it must lie in the convex hull of their regions, and the tangential force in the friction
pyramid. For contacts in several planes (a hand on a table, feet on two steps) a small QP asks
whether corner forces in the contacts' friction pyramids make the wrench.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_control.wbc.contact import INFINITY
from humanoid_control.wbc.qp import QPSolver
from humanoid_model.planar_polygon import convex_hull, shrink, signed_distance

__all__ = ["Support", "COPLANAR"]

COPLANAR = (0.005, np.radians(1.0))  # (chosen) [m], [rad]: contacts this close in offset and angle share a plane


class Support:
    """The support tests of ``reference``'s samples for ``controller`` (its model, CoP margin and
    friction), with ``slack`` [m] more margin (module docstring)."""

    def __init__(self, reference, controller, slack: float = 0.0):
        self.ref, self.ctrl, self.slack = reference, controller, float(slack)
        self.model = controller.model
        self.data = self.model.createData()
        self.mass = float(sum(i.mass for i in self.model.inertias))
        self.g = self.model.gravity.linear.copy()
        self.mu = controller.settings.mu
        self._regions = {}  # (location, id(phase)) -> (phase, region): the phase kept, so its id stays its own

    def test(self, held, k: int):
        """A function r -> whether the contacts ``held`` can make the wrench of sample k at rate r."""
        ref = self.ref
        pin.computeCentroidalMomentumTimeVariation(self.model, self.data, ref.q[k], ref.v[k], ref.a[k])
        dh = self.data.dhg.vector.copy()  # (m c̈, L̇_G), world axes
        c = self.data.com[0].copy()
        mass, g = self.mass, self.g
        plane = self._plane(held, k)
        if plane is not None:
            R, p, region = plane

            d = c - p
            Rt = R.T

            def one_plane(r):
                f = -mass * g + r * r * dh[:3]  # the force the contacts must give [N], world
                # its moment about the plane's origin: r² L̇_G + d × f (np.cross's products, inline)
                d_f = np.array([d[1] * f[2] - d[2] * f[1], d[2] * f[0] - d[0] * f[2], d[0] * f[1] - d[1] * f[0]])
                return self._cop_ok(Rt @ f, Rt @ (r * r * dh[3:] + d_f), region)

            return one_plane
        corners = self._corners(held, k)

        def several_planes(r):
            return self._wrench_ok(corners, c, -mass * g + r * r * dh[:3], r * r * dh[3:])

        return several_planes

    # ------------------------------------------------------------------ geometry
    def _region(self, name, k):
        """The CoP region (m, 2) of contact ``name`` at sample k: its phase's touching polygon (or
        its whole surface) shrunk by the margins; one shrink per phase (the tests of every sample
        of a phase ask the same)."""
        ph = self.ref.phase_at(name, float(self.ref.t[k]))
        key = (name, id(ph))
        if key not in self._regions:
            polygon = ph.polygon if ph is not None and ph.polygon is not None else self.ctrl.surface(name)
            margin = self.ctrl.settings.cop_margin + self.slack
            self._regions[key] = (ph, shrink(polygon, margin) if len(polygon) >= 3 else polygon)
        return self._regions[key][1]

    def _plane(self, held, k):
        """(R, p, region) of the held contacts' common plane at sample k: its frame and the convex
        hull of their regions in it; None when they are not coplanar (`COPLANAR`)."""
        frames = self.ref.frames
        R0, p0 = frames[held[0]][0][k], frames[held[0]][1][k]
        points = []
        for name in held:
            R, p = frames[name][0][k], frames[name][1][k]
            if (
                np.arccos(np.clip(R[:, 2] @ R0[:, 2], -1.0, 1.0)) > COPLANAR[1]
                or abs((p - p0) @ R0[:, 2]) > COPLANAR[0]
            ):
                return None
            region = self._region(name, k)
            world = p + np.column_stack([region, np.zeros(len(region))]) @ R.T
            points.append((world - p0) @ R0)
        pts = np.vstack(points)[:, :2]
        return R0, p0, convex_hull(pts) if len(pts) >= 3 else pts

    def _corners(self, held, k):
        frames = self.ref.frames
        out = []
        for name in held:
            region = self._region(name, k)
            out.append((frames[name][0][k], frames[name][1][k], np.column_stack([region, np.zeros(len(region))])))
        return out

    # ------------------------------------------------------------------ tests
    def _cop_ok(self, F, M, polygon) -> bool:
        """A wrench (force F, moment M about the plane's origin, in its frame): its CoP inside
        ``polygon`` and its tangential force in the friction pyramid."""
        if F[2] <= 0:
            return False
        cop = np.array([-M[1] / F[2], M[0] / F[2]])
        if len(polygon) >= 3 and signed_distance(polygon, cop) < 0.0:
            return False
        m = self.mu / np.sqrt(2.0)
        return abs(F[0]) <= m * F[2] and abs(F[1]) <= m * F[2]

    def _wrench_ok(self, contacts, c, f, m_g) -> bool:
        """Whether corner forces in the friction pyramids (mu/√2, normal parts >= 0) make the
        force ``f`` and the moment ``m_g`` about the CoM ``c`` (world): a small QP (the controller's
        `QPSolver`: its answer is exact, so a feasible wrench is not refused at a solver's
        tolerance)."""
        n = 3 * sum(len(x) for _, _, x in contacts)
        A = np.zeros((6, n))
        C = np.zeros((5 * (n // 3), n))
        col = 0
        m = self.mu / np.sqrt(2.0)
        faces = np.array([[0, 0, 1], [1, 0, -m], [-1, 0, -m], [0, 1, -m], [0, -1, -m]], float)
        for R, p, corners in contacts:
            for x in corners:
                r = p + R @ x - c
                A[:3, col : col + 3] = R
                A[3:, col : col + 3] = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]]) @ R
                C[5 * (col // 3) : 5 * (col // 3) + 5, col : col + 3] = faces
                col += 3
        lo = np.tile([0.0, -INFINITY, -INFINITY, -INFINITY, -INFINITY], n // 3)
        up = np.tile([INFINITY, 0.0, 0.0, 0.0, 0.0], n // 3)
        free = np.full(n, INFINITY)
        res = QPSolver().solve(np.eye(n) * 1e-6, np.zeros(n), A, np.r_[f, m_g], C, lo, up, -free, free)
        solved = res.solved
        residual = float(np.max(np.abs(A @ res.x - np.r_[f, m_g]))) if solved else np.inf
        return solved and residual <= 1e-3 * max(1.0, float(np.linalg.norm(f)))
