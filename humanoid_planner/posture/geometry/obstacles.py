"""Fixed convex obstacles of the environment (`Obstacle`): coal shapes at world placements, a
scene's box, sphere and cylinder bodies (`Obstacle.from_scene`) and the ground as a box
(`Obstacle.ground`), and the (body, obstacle) index pairs a collision constraint checks
(`body_obstacle_pairs`). The capsule constraints (`constraints.environment_collision`) and the
STP-BV ones (`constraints.stpbv_environment_collision`) read them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humanoid_model.coal_import import coal
from humanoid_planner.exceptions import PlanningError

__all__ = ["GROUND", "Obstacle", "body_obstacle_pairs"]

# The ground as an obstacle (`Obstacle.ground`): without it the contact planner left the ground out
# and the under-table crawl knelt with its feet 12.5 cm into the floor (186 of 188 witnesses of a 120 s
# run had a geometry more than 5 mm under it). Sizes chosen: 100 m wide (every scene fits), 1 m deep.
GROUND = "ground"
GROUND_SIZE = 100.0  # [m]
GROUND_THICKNESS = 1.0  # [m]


@dataclass(frozen=True)
class Obstacle:
    """A fixed convex obstacle: ``name``, coal ``shape``, world ``rotation`` (3, 3) and ``translation`` (3,) [m]."""

    name: str
    shape: object
    rotation: np.ndarray
    translation: np.ndarray

    @classmethod
    def box(cls, name: str, size, center, rotation=None) -> Obstacle:
        """A box of full extents ``size`` (3,) [m] centred at ``center`` (3,) [m]."""
        size = np.asarray(size, float).reshape(3)
        if not np.all(size > 0):
            raise PlanningError(f"obstacle {name!r}: field 'size' must be positive; value {size.tolist()}")
        R = np.eye(3) if rotation is None else np.asarray(rotation, float)
        return cls(name, coal.Box(*size), R, np.asarray(center, float).reshape(3))

    @classmethod
    def ground(cls, height: float, name: str = GROUND) -> Obstacle:
        """The ground z <= ``height`` [m] as a box: its top face at ``height``, ``GROUND_SIZE`` wide,
        ``GROUND_THICKNESS`` deep (a box, not a coal half-space: the capsule-box distances and
        witness points of every other obstacle)."""
        h = float(height)
        if not np.isfinite(h):
            raise PlanningError(f"obstacle {name!r}: field 'height' must be finite; value {height}")
        return cls.box(name, (GROUND_SIZE, GROUND_SIZE, GROUND_THICKNESS), (0.0, 0.0, h - GROUND_THICKNESS / 2))

    @classmethod
    def from_scene(cls, scene, ground: bool = False) -> list[Obstacle]:
        """The scene's static box, sphere and cylinder bodies (planes and meshes are left out), and
        with ``ground`` its ground (`ground`, named ``GROUND``) when it has one: the contact
        planner's, whose floor contacts rest on it (`contact.feasibility.on_ground`); a posture
        problem whose feet stand on the floor without that binding keeps it out."""
        out = []
        for b in scene.bodies:
            s = b.shape
            if s.kind == "box":
                shape = coal.Box(*np.asarray(s.size, float))
            elif s.kind == "sphere":
                shape = coal.Sphere(float(s.radius))
            elif s.kind == "cylinder":
                shape = coal.Cylinder(float(s.radius), float(s.length))
            else:
                continue
            out.append(cls(b.name, shape, b.pose.rotation, np.asarray(b.pose.xyz, float)))
        if ground and getattr(scene, "ground", None) is not None:
            if any(o.name == GROUND for o in out):
                raise PlanningError(f"scene {scene.name!r}: a body is named {GROUND!r}, the ground obstacle's name")
            out.append(cls.ground(scene.ground.height))
        return out

    @property
    def transform(self):
        return coal.Transform3s(self.rotation, self.translation)


def body_obstacle_pairs(bodies, obstacles, exclude=(), offset: int = 0) -> np.ndarray:
    """(m, 2) index pairs (body i, obstacle ``offset`` + k) of every body (anything with a ``body``
    name) and obstacle, but the (body, obstacle name) pairs in ``exclude``."""
    skip = {tuple(p) for p in exclude}
    pairs = [
        (i, offset + k) for i, b in enumerate(bodies) for k, o in enumerate(obstacles) if (b.body, o.name) not in skip
    ]
    return np.array(pairs, int).reshape(-1, 2)
