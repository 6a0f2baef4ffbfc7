"""Self-collision on STP-BVs: the smooth signed distances between the robot's bodies' STP-BVs
kept above a margin, eps - d_i(q) <= 0 (3.47), gradient (3.56)/(4.10) (Escande 2008, §3.4.2
and §4.5.4), C^1 everywhere (strictly convex volumes, Theorem 4.3.3, §4.3.2) where the capsules of
`self_collision` are not (parallel axes). docs/posture_generator.md "STP-BV".

Rows, one per checked pair [m]: margin - d_i(q), d_i from `geometry.stpbv_bodies.VolumeSet` (witness points
a on the first body, b on the second, normal n from the second to the first). Jacobian:
d' = n . (dP_a/dv - dP_b/dv) with a, b fixed in their bodies (`kinematics.world_normal_rows`).

Pairs: as the capsules' (`geometry.capsules.self_collision_pairs`): all but adjacent bodies and the pairs
closer than the margin at the reference posture (here measured on the STP-BVs). ``margin``
default 0: the volumes already lie r = 1 cm outside the geometry (the thesis's safety margin,
Escande 2008, §4.6; eps may be set accordingly, §3.1), so d >= 0 keeps two bodies' geometries
at least 2 cm apart.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from .. import kinematics as kin
from ..base import INEQUALITY, PostureConstraint
from ..geometry.capsules import adjacent_pairs
from ..geometry.stpbv_bodies import DEFAULT_R, DEFAULT_r, VolumeSet, robot_volumes

__all__ = ["StpSelfCollision"]


class StpSelfCollision(PostureConstraint):
    """STP-BVs (radii ``r``, ``R`` [m]) of ``model``'s ``collision_model`` (or given ``bodies``,
    `BodyVolume` list) at least ``margin`` [m] apart; ``q_ref`` the posture of the pair filter (the
    neutral one by default), or ``pairs`` (m, 2) indices into the bodies."""

    equations = "(3.47) with the gradient (3.56), (4.10), Escande 2008, §3.4.2 and §4.5.4"

    def __init__(
        self,
        model,
        collision_model=None,
        q_ref=None,
        margin: float = 0.0,
        r: float = DEFAULT_r,
        R: float = DEFAULT_R,
        bodies=None,
        pairs=None,
        name: str = "stpbv_self_collision",
    ):
        self.model, self.name, self.margin = model, name, float(margin)
        self.bodies = list(bodies) if bodies is not None else robot_volumes(model, collision_model, r, R)
        self.set = VolumeSet(self.bodies)
        if pairs is None:
            adjacent = adjacent_pairs(model, self.bodies)
            n = len(self.bodies)
            cand = [
                (i, k)
                for i in range(n)
                for k in range(i + 1, n)
                if frozenset((self.bodies[i].joint, self.bodies[k].joint)) not in adjacent
            ]
            cand = np.array(cand, int).reshape(-1, 2)
            if len(cand):
                data = model.createData()
                pin.forwardKinematics(model, data, pin.neutral(model) if q_ref is None else np.asarray(q_ref, float))
                self.set.place(data)
                cand = cand[self.set.distances(cand)[0] >= self.margin]
            pairs = cand
        self.pairs = np.asarray(pairs, int).reshape(-1, 2)
        self.dim = len(self.pairs)
        self.kinds = (INEQUALITY,) * self.dim

    def distances(self, data) -> tuple:
        """``(d, a, b, n)`` of every pair at the configuration of ``data`` (`VolumeSet.distances`)."""
        self.set.place(data)
        return self.set.distances(self.pairs)

    def evaluate(self, q, data):
        nv = self.model.nv
        if not self.dim:
            return np.zeros(0), np.zeros((0, nv))
        d, a, b, n = self.distances(data)
        i, k = self.pairs[:, 0], self.pairs[:, 1]
        S = kin.support_columns(self.model)[[body.joint for body in self.bodies]]
        J = data.J
        return self.margin - d, -(kin.world_normal_rows(J, S[i], a, n) - kin.world_normal_rows(J, S[k], b, n))
