"""Collision with the environment on STP-BVs: the smooth signed distances between the robot's
bodies' STP-BVs and the obstacles' (the obstacles have STP-BVs too, as in Escande 2008, §4.6) kept above a
margin, eps - d_i(q) <= 0 (3.47), gradient (3.56)/(4.10) with the obstacle fixed: d' = n . dP_a/dv
(a the witness point on the body, fixed in it; n from the obstacle to the body). docs/posture_generator.md
"STP-BV".

Rows, one per (body, obstacle) pair not in ``exclude`` [m]: margin - d_i(q). ``margin`` default
0, as `stpbv_self_collision` (both volumes lie r outside their geometry). Obstacles are
`geometry.obstacles.Obstacle` (a box, sphere or cylinder at a fixed pose; a sphere's volume is
the sphere itself).
"""

from __future__ import annotations

import numpy as np

from .. import kinematics as kin
from ..base import INEQUALITY, PostureConstraint
from ..geometry.obstacles import body_obstacle_pairs
from ..geometry.stpbv_bodies import DEFAULT_R, DEFAULT_r, VolumeSet, robot_volumes

__all__ = ["StpEnvironmentCollision"]


class StpEnvironmentCollision(PostureConstraint):
    """STP-BVs (radii ``r``, ``R`` [m]) of ``model``'s ``collision_model`` (or given ``bodies``) at
    least ``margin`` [m] from each of ``obstacles``; ``exclude``: (body, obstacle name) pairs not
    checked (body = the joint name)."""

    equations = "(3.47) with the gradient (3.56), (4.10), Escande 2008, §3.4.2 and §4.5.4"

    def __init__(
        self,
        model,
        obstacles,
        collision_model=None,
        margin: float = 0.0,
        r: float = DEFAULT_r,
        R: float = DEFAULT_R,
        bodies=None,
        exclude=(),
        name: str = "stpbv_environment_collision",
    ):
        self.model, self.name, self.margin = model, name, float(margin)
        self.bodies = list(bodies) if bodies is not None else robot_volumes(model, collision_model, r, R)
        self.obstacles = list(obstacles)
        self.set = VolumeSet(self.bodies, self.obstacles, r, R)
        self.pairs = body_obstacle_pairs(self.bodies, self.obstacles, exclude, offset=len(self.bodies))
        self.dim = len(self.pairs)
        self.kinds = (INEQUALITY,) * self.dim

    def distances(self, data) -> tuple:
        """``(d, a, n)``: signed distances [m], witness points on the bodies (world) and unit normals
        from the obstacle to the body, at the configuration of ``data``."""
        self.set.place(data)
        d, a, _, n = self.set.distances(self.pairs)
        return d, a, n

    def evaluate(self, q, data):
        nv = self.model.nv
        if not self.dim:
            return np.zeros(0), np.zeros((0, nv))
        d, a, n = self.distances(data)
        S = kin.support_columns(self.model)[[b.joint for b in self.bodies]]
        return self.margin - d, -kin.world_normal_rows(data.J, S[self.pairs[:, 0]], a, n)
