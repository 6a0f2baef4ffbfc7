"""STP-BVs of a robot's bodies and of obstacles, and their pairwise smooth distances in the world
(as in Escande 2008, §4.6: HRP-2's body meshes of 50-800 vertices, r = 1 cm, R between 10 and
100 m, the obstacles with STP-BVs too). docs/posture_generator.md "STP-BV".

- `robot_volumes`: one STP-BV per joint carrying collision geometry, built on the same point
  cloud as its capsule (`capsules.joint_clouds`: a box's corners, a cylinder's circumscribed
  polygons, a mesh's vertices, any other shape's bounding-box corners), so any URDF works.
- `obstacle_volume`: an obstacle's (`obstacles.Obstacle`) in its own frame: a box's
  corners or a cylinder's polygons; a sphere is the ball of one point with r its radius (exact).
- `VolumeSet`: robot volumes posed from ``data.oMi`` plus fixed obstacle volumes, the distances of
  chosen pairs with witness points and normals (`stpbv_distance.pair_distances`), each pair's last
  normal kept as the next call's warm start (successive solver iterates are close).

Radii (chosen from the thesis's): r = 1 cm, the thesis's safety margin (Escande 2008, §4.6 and
§7.3.2), so the volume lies 1 cm to 1 cm + (Thm 4.4.4's bound - r) outside the geometry; R =
10 m, the smallest of the thesis's 10-100 m (§4.6; the smaller R, the more regular the gradient,
Table 4.2; the thesis attributes its slower 10 m run to the association heuristic, which is exact
here), raised for
an obstacle to 10 times its enclosing radius when that is larger (R must exceed r + the enclosing
radius, Algorithm 12).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humanoid_planner.exceptions import PlanningError

from .capsules import enclosing_points, joint_clouds
from .stpbv_build import StpBV, build_stpbv, enclosing_ball
from .stpbv_distance import StpBVPack, pair_distances

__all__ = ["BodyVolume", "DEFAULT_R", "DEFAULT_r", "VolumeSet", "obstacle_volume", "robot_volumes"]

DEFAULT_r = 0.01  # [m] small-sphere radius: the thesis's 1 cm safety margin (module docstring)
DEFAULT_R = 10.0  # [m] big-sphere radius (module docstring)


@dataclass(frozen=True)
class BodyVolume:
    """The STP-BV ``volume`` of the bodies of joint ``joint`` (id) named ``body``, in its frame."""

    body: str
    joint: int
    volume: StpBV


def robot_volumes(model, collision_model, r: float = DEFAULT_r, R: float = DEFAULT_R) -> list[BodyVolume]:
    """One `BodyVolume` per joint carrying collision geometry, in joint order."""
    return [
        BodyVolume(model.names[j], j, build_stpbv(P, r, R)) for j, P in joint_clouds(model, collision_model).items()
    ]


def obstacle_volume(obstacle, r: float = DEFAULT_r, R: float = DEFAULT_R) -> StpBV:
    """The STP-BV of an `Obstacle`'s shape in the obstacle's frame (module docstring)."""
    shape = obstacle.shape
    if type(shape).__name__ == "Sphere":
        return build_stpbv(np.zeros((1, 3)), float(shape.radius), max(R, 10.0 * float(shape.radius)))
    P = enclosing_points(shape)
    _, radius = enclosing_ball(P)
    return build_stpbv(P, r, max(R, 10.0 * radius))


class VolumeSet:
    """Robot ``bodies`` (`BodyVolume` list) and ``obstacles`` (`Obstacle` list, their volumes from
    `obstacle_volume` with radii ``r``, ``R``), indexed robot first, then obstacles."""

    def __init__(self, bodies, obstacles=(), r: float = DEFAULT_r, R: float = DEFAULT_R):
        self.bodies = list(bodies)
        self.obstacles = list(obstacles)
        if not self.bodies:
            raise PlanningError("STP-BV set: field 'bodies' must not be empty")
        self.pack = StpBVPack([b.volume for b in self.bodies] + [obstacle_volume(o, r, R) for o in self.obstacles])
        nb, no = len(self.bodies), len(self.obstacles)
        self.rotations = np.zeros((nb + no, 3, 3))
        self.translations = np.zeros((nb + no, 3))
        for k, o in enumerate(self.obstacles):
            self.rotations[nb + k], self.translations[nb + k] = o.rotation, o.translation
        self._warm: dict = {}  # pair (i, k) -> last normal

    def place(self, data) -> None:
        """Pose the robot volumes at the joint placements of ``data`` (``oMi`` updated)."""
        for k, b in enumerate(self.bodies):
            M = data.oMi[b.joint]
            self.rotations[k], self.translations[k] = M.rotation, M.translation

    def distances(self, pairs) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(d, a, b, n)`` of ``pairs`` (m, 2) at the current poses (`place`): signed distances
        [m], witness points on the first and second volume (world) and unit normals from the
        second to the first (`stpbv_distance.pair_distances`)."""
        pairs = np.asarray(pairs, int).reshape(-1, 2)
        keys = [tuple(p) for p in pairs.tolist()]
        n0 = self.translations[pairs[:, 0]] - self.translations[pairs[:, 1]]
        for row, key in enumerate(keys):
            if key in self._warm:
                n0[row] = self._warm[key]
            elif np.linalg.norm(n0[row]) < 1e-12:
                n0[row] = [0.0, 0.0, 1.0]
        d, a, b, n, _, _ = pair_distances(self.pack, pairs, self.rotations, self.translations, n0)
        self._warm.update(zip(keys, n))
        return d, a, b, n
