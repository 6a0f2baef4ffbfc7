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
from numba import njit

__all__ = ["SAFETY", "SeparationBounds"]

SAFETY = 1e-5  # [m] (chosen, module docstring)


class SeparationBounds:
    """Lower bounds of the distance between the mobile shapes' pairs [m] (−inf: unknown).

    radius (n,): each mobile shape's bounding radius about its origin [m]."""

    def __init__(self, radius):
        self.radius = np.asarray(radius, float)
        n = self.radius.shape[0]
        self.bound = np.full((n, n), -np.inf)
        self._R, self._p = np.zeros((n, 3, 3)), np.zeros((n, 3))
        self._known = False  # some bound is finite (recorded after an `advance`, so _R, _p hold its placements)
        self._moved = np.zeros(n)

    def advance(self, R, p) -> None:
        """Lower every bound by the motion of its two shapes since the last call: R (n, 3, 3), p (n, 3)
        the shapes' world placements now."""
        _advance(R, p, self._R, self._p, self.radius, self.bound, self._moved, self._known)

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
            self._known = True


@njit(cache=True)
def _advance(R, p, R0, p0, radius, bound, moved, lower):
    """``lower``: each shape's motion from (R0, p0) to (R, p) into ``moved`` and every finite bound lowered by
    its two shapes'; then (R, p) copied into (R0, p0)."""
    n = p.shape[0]
    if lower:
        for k in range(n):
            dp = 0.0
            for i in range(3):
                dp += (p[k, i] - p0[k, i]) ** 2
            dr = 0.0
            for i in range(3):
                for j in range(3):
                    dr += (R[k, i, j] - R0[k, i, j]) ** 2
            moved[k] = np.sqrt(dp) + np.sqrt(dr) * radius[k]
        for a in range(n):
            for b in range(n):
                if bound[a, b] > -np.inf:
                    bound[a, b] -= moved[a] + moved[b]
    for k in range(n):
        for i in range(3):
            p0[k, i] = p[k, i]
            for j in range(3):
                R0[k, i, j] = R[k, i, j]


@njit(cache=True)
def _advance_select(R, p, R0, p0, radius, bound, moved, lower, pairs, margin, sweep, still, safety):
    """`_advance`, then the rows of ``pairs`` whose bound is at most the pair's margin plus ``safety``
    (the detector's compiled step, `humanoid_sim.collision.compiled_step`):
    ``margin``, or with ``still`` False max(margin, sweep[a] + sweep[b]) (the arithmetic of
    `SeparationBounds.to_test` on the detector's margins)."""
    _advance(R, p, R0, p0, radius, bound, moved, lower)
    k = pairs.shape[0]
    keep = np.empty(k, np.bool_)
    cnt = 0
    for i in range(k):
        a, b = pairs[i, 0], pairs[i, 1]
        m = margin if still else max(margin, sweep[a] + sweep[b])
        keep[i] = bound[a, b] <= m + safety
        cnt += keep[i]
    out = np.empty((cnt, 2), pairs.dtype)
    j = 0
    for i in range(k):
        if keep[i]:
            out[j, 0], out[j, 1] = pairs[i, 0], pairs[i, 1]
            j += 1
    return out
