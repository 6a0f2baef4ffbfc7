"""Several individual body potentials of one model evaluated together: sum_i w_i U_{T_i}
(Escande 2008, §6.3.3, (6.9)), each U_{T_i} exactly as `body.BodyPotential` defines it.

Why a group: under the table the planner's criterion holds six body potentials (soles, knees,
hands), and evaluated one by one they cost 6 x 14 us per criterion evaluation, mostly Python
around a few arithmetic operations (a frame Jacobian fetched, a projection object built, a
gradient product per body). Here one kinematics pass (`body._kinematics`, shared with the
single potentials) feeds one compiled kernel (`_evaluate`) that, per body: places the point
(x_i = R_j p_j + t_j, p_j the point in its joint's frame), forms its Jacobian from the world
joint Jacobians (J_i = J_lin + w x x_i on the joint's support columns, zero elsewhere: v_x = v_O
+ w x x for a twist (v_O, w) in the world frame at the world origin), projects x_i on its rounded
polyline (`curve._closest_point`, the same kernel), and adds w_i (U_m(D_i) - k_i l_i) and w_i
(U_m'(D_i) dD_i/dx - k_i dl_i/dx) . J_i. A one-point curve (a target) is the point itself.

`scene_planning` builds the scenes' body potentials as one group; `BodyPotential` stays the
reference the group is tested against (test_contact_potentials.py).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import kinematics as kin

from .body import BodyPotential, _kinematics
from .curve import _closest_point
from .weighted_sum import WeightedSum

__all__ = ["BodyGroup"]


class BodyGroup(WeightedSum):
    """sum_i w_i U_{T_i} of ``terms`` [(w_i >= 0, `BodyPotential`), ...], all of one model: a
    `WeightedSum` (its checks, its discrete part: none) with one evaluation for all terms."""

    name = "body_group"
    equations = "(6.9) with U_{T_i} as (6.8), Escande 2008, §6.3.3"

    def __init__(self, terms):
        terms = list(terms)
        if any(not isinstance(p, BodyPotential) for _, p in terms):
            raise PlanningError("body group: every term must be a BodyPotential")
        super().__init__(terms)
        if len({id(p.model) for _, p in self.terms}) != 1:
            raise PlanningError("body group: the body potentials must share one model")
        self.model = self.terms[0][1].model
        self.nv = self.model.nv
        m, k = self.model, len(self.terms)
        self.weights = np.array([w for w, _ in self.terms])
        self.gains = np.array([[p.a, p.d0, p.k] for _, p in self.terms])
        self.joints = [int(m.frames[p.fid].parentJoint) for _, p in self.terms]
        # the point in its joint's frame, and the joint's support columns
        self.points = np.array([m.frames[p.fid].placement.act(p.point) for _, p in self.terms])
        self.support = kin.support_columns(m)[self.joints]
        # the curves' pieces stacked, body i's in rows offsets[i]:offsets[i + 1]; a one-point curve
        # has no rows and its point in ``single``
        packs, offsets, single = [], [0], np.zeros((k, 3))
        for i, (_, p) in enumerate(self.terms):
            c = p.curve
            if c.pieces:
                if not hasattr(c, "_packed"):
                    c._arrays()
                packs.append(c._packed)
            single[i] = c.points[0]
            offsets.append(offsets[-1] + len(c.pieces))
        self.offsets, self.single = np.array(offsets), single
        if packs:
            self.packed = tuple(np.concatenate([pk[n] for pk in packs]) for n in range(len(packs[0])))
        else:
            self.packed = (np.zeros((0, 3)),) * 3 + (np.zeros(0), np.zeros(0, np.bool_)) + (np.zeros(0),) * 4

    def evaluate(self, q) -> tuple[float, np.ndarray]:
        data = _kinematics(self.model, np.asarray(q, float))
        R = np.empty((len(self.joints), 3, 3))
        t = np.empty((len(self.joints), 3))
        for i, j in enumerate(self.joints):
            M = data.oMi[j]
            R[i], t[i] = M.rotation, M.translation
        return _evaluate(
            R, t, data.J, self.points, self.support, self.weights, self.gains, self.offsets, self.single, *self.packed
        )


@nb.njit(cache=True)
def _evaluate(R, t, J, points, support, weights, gains, offsets, single, O, V, W, s0, arc, length, radius, angle, oo):
    """`BodyGroup.evaluate`'s arithmetic: ``(u, du/dv)`` (module docstring)."""
    k, nv = points.shape[0], J.shape[1]
    u = 0.0
    g = np.zeros(nv)
    x = np.empty(3)
    for i in range(k):
        w = weights[i]
        if w == 0.0:
            continue
        for r in range(3):
            x[r] = t[i, r] + R[i, r, 0] * points[i, 0] + R[i, r, 1] * points[i, 1] + R[i, r, 2] * points[i, 2]
        a, d0, kk = gains[i, 0], gains[i, 1], gains[i, 2]
        lo, hi = offsets[i], offsets[i + 1]
        if hi > lo:
            _, s, dist, dD, ds = _closest_point(
                x, O[lo:hi], V[lo:hi], W[lo:hi], s0[lo:hi], arc[lo:hi], length[lo:hi], radius[lo:hi], angle[lo:hi],
                oo[lo:hi],
            )  # fmt: skip
        else:
            dD = np.zeros(3)
            ds = np.zeros(3)
            s = 0.0
            dm = 0.0
            for r in range(3):
                dD[r] = x[r] - single[i, r]
                dm += dD[r] * dD[r]
            dist = math.sqrt(dm)
            if dist > 0:
                for r in range(3):
                    dD[r] /= dist
        if dist <= d0:  # U_m of (5.16) with the 1/2, as `base.mixed`
            um, dum = 0.5 * a * dist * dist, a * dist
        else:
            um, dum = a * d0 * dist - 0.5 * a * d0 * d0, a * d0
        u += w * (um - kk * s)
        e0 = w * (dum * dD[0] - kk * ds[0])
        e1 = w * (dum * dD[1] - kk * ds[1])
        e2 = w * (dum * dD[2] - kk * ds[2])
        for c in range(nv):
            if support[i, c]:
                wx, wy, wz = J[3, c], J[4, c], J[5, c]
                j0 = J[0, c] + wy * x[2] - wz * x[1]
                j1 = J[1, c] + wz * x[0] - wx * x[2]
                j2 = J[2, c] + wx * x[1] - wy * x[0]
                g[c] += e0 * j0 + e1 * j1 + e2 * j2
    return u, g
