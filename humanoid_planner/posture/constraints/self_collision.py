"""Self-collision: the signed distances between the robot's bounding capsules kept above a margin,
eps - d_i(q) <= 0 (3.47), with the gradient (3.56) (Escande 2008, §3.4.2).

Rows (one inequality per checked pair, [m]): margin - d_i(q), d_i the capsule-capsule distance in
closed form (`geometry.segment_distance`), the pairs those of `geometry.capsules.self_collision_pairs` (adjacent
bodies and pairs closer than the margin at the reference posture left out). Jacobian (3.56):
d' = n . (dx/dv - dy/dv) with x, y the closest points of the two axis segments taken as points
fixed in their bodies (moving the witness points along the surface does not change d to first
order, (3.50)), n from capsule 2 to capsule 1. C^1 except where the two axes are parallel and
overlap (capsules are not strictly convex, Escande 2008, §4.3.2) and where the axes meet.

``margin`` default 0.01 m: the thesis's safety margin r = 1 cm (Escande 2008, §4.6), added here on
top of capsules that already contain the geometry.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from .. import kinematics as kin
from ..base import INEQUALITY, PostureConstraint
from ..geometry.capsules import capsule_world, robot_capsules, self_collision_pairs
from ..geometry.segment_distance import capsule_distances

__all__ = ["SelfCollision", "DEFAULT_MARGIN"]

DEFAULT_MARGIN = 0.01  # [m] Escande 2008, §4.6 (module docstring)


class SelfCollision(PostureConstraint):
    """Capsule pairs of ``model``'s ``collision_model`` (or given ``capsules``) at least ``margin`` [m]
    apart; ``q_ref`` (nq,) the posture of the pair filter (the robot's default posture), or give ``pairs``
    (m, 2) indices into the capsules."""

    equations = "(3.47) with the gradient (3.56), Escande 2008, §3.4.2"

    def __init__(
        self,
        model,
        collision_model=None,
        q_ref=None,
        margin: float = DEFAULT_MARGIN,
        capsules=None,
        pairs=None,
        name: str = "self_collision",
    ):
        self.model = model
        self.name = name
        self.margin = float(margin)
        self.capsules = list(capsules) if capsules is not None else robot_capsules(model, collision_model)
        if pairs is None:
            q_ref = pin.neutral(model) if q_ref is None else q_ref
            pairs = self_collision_pairs(model, self.capsules, q_ref, self.margin)
        self.pairs = np.asarray(pairs, int).reshape(-1, 2)
        self.dim = len(self.pairs)
        self.kinds = (INEQUALITY,) * self.dim

    def distances(self, data) -> tuple:
        """``(d, x, y, n)`` of every pair at the configuration of ``data`` (`capsule_distances`)."""
        A, B, R, _ = capsule_world(self.capsules, data)
        i, k = self.pairs[:, 0], self.pairs[:, 1]
        return capsule_distances(A[i], B[i], R[i], A[k], B[k], R[k])

    def evaluate(self, q, data):
        nv = self.model.nv
        if not self.dim:
            return np.zeros(0), np.zeros((0, nv))
        A, B, R, _ = capsule_world(self.capsules, data)
        i, k = self.pairs[:, 0], self.pairs[:, 1]
        d, x, y, n = capsule_distances(A[i], B[i], R[i], A[k], B[k], R[k])
        S = kin.support_columns(self.model)[[c.joint for c in self.capsules]]
        dd = kin.world_normal_rows(data.J, S[i], x, n) - kin.world_normal_rows(data.J, S[k], y, n)
        return self.margin - d, -dd
