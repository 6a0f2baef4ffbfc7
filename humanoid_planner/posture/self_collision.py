"""Self-collision: the signed distances between the robot's bounding capsules kept above a margin,
eps - d_i(q) <= 0 (3.47), with the gradient (3.56) (001_escande.md:124).

Rows (one inequality per checked pair, [m]): margin - d_i(q), d_i the capsule-capsule distance in
closed form (`segment_distance`), the pairs those of `capsules.self_collision_pairs` (adjacent
bodies and pairs closer than the margin at the reference posture left out). Jacobian (3.56):
d' = n . (dx/dv - dy/dv) with x, y the closest points of the two axis segments taken as points
fixed in their bodies (moving the witness points along the surface does not change d to first
order, (3.50)), n from capsule 2 to capsule 1. C^1 except where the two axes are parallel and
overlap (capsules are not strictly convex, 001_escande.md:212) and where the axes meet.

``margin`` default 0.01 m: the thesis's safety margin r = 1 cm (001_escande.md:191), added here on
top of capsules that already contain the geometry; a scalar or one per pair (`touching_pairs`).

`touching_pairs` (the contact planner's pair set): the pairs of `capsules.self_collision_pairs`
at ``margin``, plus those its reference filter drops although their capsules are apart at the
reference (0 <= d < margin: HRP-2's two shanks, 0.8 mm apart at half-sitting) at margin 0:
their capsules may touch, never overlap (a capsule contains its body's geometry). Without them
nothing kept the shanks apart and the stairs plan crossed them (docs/planner.md "Collision and
self-collision").
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from .base import INEQUALITY, PostureConstraint
from .capsules import (
    capsule_world,
    joint_jacobians,
    normal_rows,
    reference_distances,
    robot_capsules,
    self_collision_pairs,
)
from .segment_distance import capsule_distances

__all__ = ["SelfCollision", "DEFAULT_MARGIN", "touching_pairs"]

DEFAULT_MARGIN = 0.01  # [m] 001_escande.md:191 (module docstring)


class SelfCollision(PostureConstraint):
    """Capsule pairs of ``model``'s ``collision_model`` (or given ``capsules``) at least ``margin`` [m]
    apart (a scalar, or (m,) one per pair of ``pairs``); ``q_ref`` (nq,) the posture of the pair filter
    (the robot's default posture), or give ``pairs`` (m, 2) indices into the capsules."""

    equations = "(3.47) with the gradient (3.56), 001_escande.md:124"

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
        self.capsules = list(capsules) if capsules is not None else robot_capsules(model, collision_model)
        if pairs is None:
            q_ref = pin.neutral(model) if q_ref is None else q_ref
            pairs = self_collision_pairs(model, self.capsules, q_ref, float(np.max(margin)))
        self.pairs = np.asarray(pairs, int).reshape(-1, 2)
        self.dim = len(self.pairs)
        self.margin = (
            np.broadcast_to(np.asarray(margin, float), (self.dim,)).copy() if np.ndim(margin) else float(margin)
        )
        self.kinds = (INEQUALITY,) * self.dim

    def subset(self, rows) -> SelfCollision:
        """The same constraint on the pairs ``rows`` (indices into ``pairs``)."""
        idx = list(rows)
        margin = self.margin[idx] if np.ndim(self.margin) else self.margin
        return SelfCollision(self.model, capsules=self.capsules, pairs=self.pairs[idx], margin=margin, name=self.name)

    def body_names(self, row: int) -> tuple[str, str]:
        i, k = self.pairs[row]
        return self.capsules[i].body, self.capsules[k].body

    def distances(self, data) -> tuple:
        """``(d, x, y, n)`` of every pair at the configuration of ``data`` (`capsule_distances`)."""
        A, B, R, _ = capsule_world(self.capsules, data)
        i, k = self.pairs[:, 0], self.pairs[:, 1]
        return capsule_distances(A[i], B[i], R[i], A[k], B[k], R[k])

    def evaluate(self, q, data):
        nv = self.model.nv
        if not self.dim:
            return np.zeros(0), np.zeros((0, nv))
        A, B, R, O = capsule_world(self.capsules, data)
        i, k = self.pairs[:, 0], self.pairs[:, 1]
        d, x, y, n = capsule_distances(A[i], B[i], R[i], A[k], B[k], R[k])
        J6 = joint_jacobians(self.model, data, self.capsules)
        dd = normal_rows(J6[i], O[i], x, n) - normal_rows(J6[k], O[k], y, n)
        return self.margin - d, -dd


def touching_pairs(model, capsules, q_ref, margin: float = DEFAULT_MARGIN) -> tuple[np.ndarray, np.ndarray]:
    """``(pairs (m, 2), margins (m,))`` of the planner's self-collision (module docstring): the
    pairs of `capsules.self_collision_pairs` at ``margin`` [m] and the non-adjacent pairs apart but
    closer than ``margin`` at ``q_ref`` at margin 0."""
    cand, d = reference_distances(model, capsules, q_ref)
    kept, close = cand[d >= margin], cand[(d >= 0) & (d < margin)]
    return np.vstack([kept, close]), np.concatenate([np.full(len(kept), float(margin)), np.zeros(len(close))])
