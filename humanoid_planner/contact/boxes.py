"""Search boxes of contact parameters and their splitting (Escande 2008, §6.1.2.3,
Fig. 6.2).

A `Box` is a convex polygon of (x, y) in a surface's coordinates [m] (from its centroid along
t and n x t, `posture.frames`) times an interval of theta [rad]. ``split(x, y, theta)`` removes
the axis-aligned box V = [x ± δl/2] × [y ± δl/2] × [theta ± δθ/2] around a found contact and
cuts the rest into at most 6 convex boxes with the same task form: x below / above V; inside
V's x-band, y below / above; inside V's (x, y) cell, theta below / above (one wrapped part when
the box spans a full turn). Boxes whose (x, y) area is under ``MIN_AREA`` or theta width under
``MIN_WIDTH`` are dropped (empty).

Numbers chosen (the thesis gives no δl, δθ, §6.1.2.3): δl = 0.1 m, about half of
HRP-2's sole length (0.23 m) and a third of the 0.3 m steps the walking plans make; δθ = 0.5 rad
(29 deg): a foot turned by less is "the same" candidate for the search. ``MIN_AREA`` (1 cm²)
and ``MIN_WIDTH`` (0.01 rad) only remove slivers left by the cuts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import SearchBox

__all__ = ["MIN_AREA", "MIN_WIDTH", "Box", "clip_polygon", "polygon_area"]

MIN_AREA = 1e-4  #: m², chosen (module docstring)
MIN_WIDTH = 0.01  #: rad, chosen
FULL_TURN = 2 * np.pi


def polygon_area(P: np.ndarray) -> float:
    """Signed area [m²] of a 2-D polygon (k, 2) (positive counter-clockwise)."""
    if len(P) < 3:
        return 0.0
    x, y = P[:, 0], P[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def clip_polygon(P: np.ndarray, a, b: float) -> np.ndarray:
    """The part of convex polygon ``P`` (k, 2) where a . (x, y) <= b (Sutherland-Hodgman)."""
    a = np.asarray(a, float)
    out = []
    k = len(P)
    for i in range(k):
        u, w = P[i], P[(i + 1) % k]
        su, sw = a @ u - b, a @ w - b
        if su <= 0:
            out.append(u)
        if (su <= 0) != (sw <= 0):
            out.append(u + su / (su - sw) * (w - u))
    return np.array(out).reshape(-1, 2)


@dataclass(frozen=True)
class Box:
    """A search box: ``polygon`` (k, 2) counter-clockwise (x, y) [m] on ``surface`` (a planner
    `Surface`), ``theta`` = (lo, hi) [rad], hi - lo <= 2 pi (2 pi: a full turn, no theta rows)."""

    surface: object
    polygon: np.ndarray
    theta: tuple[float, float]

    @classmethod
    def around(cls, surface, point, radius: float, theta=(-np.pi, np.pi)) -> Box | None:
        """The surface polygon ∩ the square of half-side sqrt(radius² - h²) about the projection of
        world ``point`` (h: its distance to the surface plane): the cheap pruning of Escande 2008,
        §5.3.4 (a sphere about the root of the chain, bounded by its square). None when empty."""
        t, s, n = surface.rotation.T
        rel = np.asarray(point, float) - surface.centroid
        h = float(rel @ n)
        if abs(h) >= radius:
            return None
        r = float(np.sqrt(radius**2 - h**2))
        P = (surface.vertices - surface.centroid) @ np.column_stack([t, s])
        cx, cy = float(rel @ t), float(rel @ s)
        for a, b in (((1, 0), cx + r), ((-1, 0), -(cx - r)), ((0, 1), cy + r), ((0, -1), -(cy - r))):
            P = clip_polygon(P, a, b)
        box = cls(surface, P, tuple(map(float, theta)))
        return box if not box.empty else None

    @property
    def empty(self) -> bool:
        return polygon_area(self.polygon) < MIN_AREA or self.theta[1] - self.theta[0] < MIN_WIDTH

    def search_box(self) -> SearchBox:
        """The posture generator's `SearchBox` (half-planes of the polygon's edges, theta range)."""
        V = self.polygon
        E = np.roll(V, -1, axis=0) - V
        A = np.column_stack([E[:, 1], -E[:, 0]])
        norms = np.linalg.norm(A, axis=1)
        keep = norms > 1e-12
        A = A[keep] / norms[keep, None]
        lo, hi = self.theta
        th = (-np.pi, np.pi) if hi - lo >= FULL_TURN - 1e-12 else (lo, hi)
        return SearchBox(self.surface, A, np.einsum("ij,ij->i", A, V[keep]), th)

    def contains(self, x: float, y: float, theta: float, tol: float = 1e-6) -> bool:
        """Whether (x, y, theta) lies in the box (theta modulo 2 pi)."""
        V = self.polygon
        E = np.roll(V, -1, axis=0) - V
        inside = np.all(E[:, 0] * (y - V[:, 1]) - E[:, 1] * (x - V[:, 0]) >= -tol * np.linalg.norm(E, axis=1))
        lo, hi = self.theta
        d = (theta - lo) % FULL_TURN
        return bool(inside and (hi - lo >= FULL_TURN - 1e-12 or d <= hi - lo + tol or d >= FULL_TURN - tol))

    def split(self, x: float, y: float, theta: float, dl: float, dtheta: float) -> list[Box]:
        """Υ minus V around (x, y, theta) as convex boxes (module docstring), empty ones dropped."""
        if not (dl > 0 and dtheta > 0):
            raise PlanningError(f"search box split: fields 'dl', 'dtheta' must be > 0; {dl}, {dtheta}")
        h, ht = dl / 2, dtheta / 2
        P, th = self.polygon, self.theta
        below_x = clip_polygon(P, (1, 0), x - h)
        above_x = clip_polygon(P, (-1, 0), -(x + h))
        band = clip_polygon(clip_polygon(P, (1, 0), x + h), (-1, 0), -(x - h))
        below_y = clip_polygon(band, (0, 1), y - h)
        above_y = clip_polygon(band, (0, -1), -(y + h))
        cell = clip_polygon(clip_polygon(band, (0, 1), y + h), (0, -1), -(y - h))
        out = [Box(self.surface, Q, th) for Q in (below_x, above_x, below_y, above_y)]
        lo, hi = th
        if hi - lo >= FULL_TURN - 1e-12:
            out.append(Box(self.surface, cell, (theta + ht, theta + FULL_TURN - ht)))
        else:
            d = (theta - lo) % FULL_TURN
            # theta as the angle nearest the range: a contact found on the boundary theta = lo may
            # read lo - 1e-9, which the modulo would send a full turn up (the box kept whole)
            t = lo + d if d <= (hi - lo + FULL_TURN) / 2 else lo + d - FULL_TURN
            out += [Box(self.surface, cell, (lo, min(t - ht, hi))), Box(self.surface, cell, (max(t + ht, lo), hi))]
        area, width = polygon_area(P), th[1] - th[0]
        # every part is strictly smaller than the box (guards the recursions of `children`)
        return [
            b
            for b in out
            if not b.empty
            and (polygon_area(b.polygon) < area - MIN_AREA / 10 or b.theta[1] - b.theta[0] < width - 1e-9)
        ]
