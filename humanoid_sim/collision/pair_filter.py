"""Collision filtering of a world: the scene's and the robot sidecar's
`humanoid_model.collision_rules.CollisionRules` applied to the world's geometries.

`PairFilter.verdict(name_a, name_b)` decides a pair of bodies (free-body, static-body, ``ground``
or robot-link names): False when excluded or when the masks say the two never touch, True when
explicitly included, None to leave it to the default rule (`humanoid_sim.collision.pairs.candidate_pairs`: every
mobile–static pair, every pair of different trees, robot self-pairs ≥ 3 joints apart and clear
at the start). Rules come from the robot's sidecar, then the scene (the scene's masks replace the
sidecar's for the same name); ``exclude`` wins over ``include``. Names the world does not have
are ignored (a scene written for another robot, `World.from_scene(robot=...)`). Without rules
the filter is inactive and the pair set is exactly the default one.
"""

from __future__ import annotations

import numpy as np

from humanoid_model.collision_rules import CollisionRules
from humanoid_model.urdf_description import world_collision_rules

__all__ = ["PairFilter"]


class PairFilter:
    """The filtering rules of a world (see the module docstring)."""

    def __init__(self, rules: CollisionRules | None = None):
        self.rules = rules or CollisionRules()
        self.active = bool(self.rules)

    @classmethod
    def of_world(cls, scene, robot) -> PairFilter:
        """The rules of ``robot``'s sidecar (if any), then ``scene``'s
        (`humanoid_model.urdf_description.world_collision_rules`)."""
        return cls(world_collision_rules(robot, scene))

    def verdict(self, a: str, b: str) -> bool | None:
        """False: never test bodies ``a`` and ``b``; True: always; None: the default rule decides
        (`humanoid_model.collision_rules.CollisionRules.verdict`)."""
        return self.rules.verdict(a, b)

    def static_blocked(self, mobile, static) -> np.ndarray | None:
        """(n_mobile, n_static) bool: the mobile–static geometry pairs never tested, or None when
        none is blocked (then the detector does no filtering work)."""
        if not self.active:
            return None
        blocked = np.array([[self.verdict(m.body, s.name) is False for s in static] for m in mobile], bool)
        return blocked.reshape(len(mobile), len(static)) if blocked.any() else None
