"""Separation bounds between mobile shapes, kept from step to step (contact persistence for the
pairs that are apart).

A robot's self-collision pairs mostly pass the broad phase (their bounding spheres and world boxes
overlap: neighbouring links, a hand beside the hip) and are then found apart by coal, every step:
Talos standing has about 120 such pairs, each a GJK call. When coal finds a pair apart it also gives
a lower bound of their distance (``CollisionResult.distance_lower_bound``: the distance minus the
query's security margin, to GJK's precision). That bound stays a bound while the shapes move, less
what they moved: no point of a shape moves farther than |Δp| + ‖ΔR‖ r between two placements
(p its origin, r its bounding radius about the origin, ‖ΔR‖ the Frobenius norm of the rotation
change, an upper bound of the spectral one). So a pair whose bound, less both shapes' motion since
it was measured, still exceeds the pair's activation margin (plus ``SAFETY``) cannot be within the
margin: the narrow phase would find nothing, and it is skipped. The contacts found are the same as
without the bounds; only the queries that find nothing are saved.

``SAFETY = 10 µm`` (chosen): ten times coal's default GJK tolerance (1e-6 m), the precision of its
distance and of the bound.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SAFETY", "SeparationBounds"]

SAFETY = 1e-5  # [m] (chosen, module docstring)


class SeparationBounds:
    """Lower bounds of the distance between the mobile shapes' pairs [m] (−inf: unknown).

    radius (n,): each mobile shape's bounding radius about its origin [m]."""

    def __init__(self, radius):
        self.radius = np.asarray(radius, float)
        n = self.radius.shape[0]
        self.bound = np.full((n, n), -np.inf)
        self._R = self._p = None

    def advance(self, R, p) -> None:
        """Lower every bound by the motion of its two shapes since the last call: R (n, 3, 3), p (n, 3)
        the shapes' world placements now."""
        if self._R is not None:
            turned = np.linalg.norm((R - self._R).reshape(p.shape[0], 9), axis=1)
            moved = np.linalg.norm(p - self._p, axis=1) + turned * self.radius
            if moved.any():
                self.bound -= moved[:, None] + moved[None, :]
        self._R, self._p = R.copy(), p.copy()

    def to_test(self, pairs, margins) -> np.ndarray:
        """Mask of the mobile ``pairs`` (k, 2) that may be within their activation ``margins`` (k,) [m]
        (a float for all) and so need the narrow phase."""
        return self.bound[pairs[:, 0], pairs[:, 1]] <= np.asarray(margins) + SAFETY

    def record(self, a: int, b: int, distance_bound: float) -> None:
        """The narrow phase found shapes a and b apart, at least ``distance_bound`` [m] (at the placements of
        the last `advance`). A bound above |p_a − p_b| + r_a + r_b, which no two shapes within their bounding
        spheres exceed, is not a measurement (a query that left it unset) and is not kept."""
        reach = np.linalg.norm(self._p[a] - self._p[b]) + self.radius[a] + self.radius[b]
        if distance_bound <= reach:
            self.bound[a, b] = self.bound[b, a] = distance_bound
