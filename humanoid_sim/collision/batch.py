"""`ContactBatch`: the point contacts the collision stage finds in one step, as batched arrays
(no per-contact Python objects): body A (always mobile), body B (mobile or environment), point,
normal n pointing from B into A, signed gap (negative = penetration) and the pair's material.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ContactBatch"]


@dataclass
class ContactBatch:
    """Point contacts of one step, as arrays (m rows).

    geom_a (m,) index into the mobile geometries; geom_b (m,) index into the mobile geometries
    (b_static False) or the static ones (b_static True); points (m, 3) world [m]; normals (m, 3)
    unit, from B into A; gaps (m,) signed [m]; mu (m,), e (m,) pair materials."""

    geom_a: np.ndarray
    geom_b: np.ndarray
    b_static: np.ndarray
    points: np.ndarray
    normals: np.ndarray
    gaps: np.ndarray
    mu: np.ndarray
    e: np.ndarray
    slot: np.ndarray = None  # (m,) index of the point within its pair's patch (warm-start key)

    @property
    def m(self) -> int:
        """Number of point contacts."""
        return int(self.points.shape[0])

    @staticmethod
    def empty() -> ContactBatch:
        """A batch without contacts."""
        z = np.zeros(0)
        return ContactBatch(
            np.zeros(0, np.int64),
            np.zeros(0, np.int64),
            np.zeros(0, bool),
            np.zeros((0, 3)),
            np.zeros((0, 3)),
            z,
            z.copy(),
            z.copy(),
            np.zeros(0, np.int64),
        )
