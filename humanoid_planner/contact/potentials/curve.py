"""A polyline with rounded corners in R^N, its closest point and arc-length abscissa
(Escande 2008, §6.3.2: every corner of T is rounded by a circular arc in dimension n+6, its
radius as large as a largest deviation from the polyline allows).

Corner i (turning angle alpha between the unit directions u_in, u_out) is replaced by the arc of
radius r tangent to both segments: it leaves the incoming segment t = r tan(alpha/2) before the
corner and joins the outgoing one t after it; its largest deviation from the corner is
r (1/cos(alpha/2) - 1). r is the largest radius with that deviation <= ``max_deviation`` and
t <= half of each adjacent segment (neighbouring arcs never overlap). The curve is then C¹ (unit
tangent continuous), made of segments and arcs.

``closest_point(y) -> ClosestPoint``: the closest point m of the curve to y, its arc-length abscissa s,
the distance D = |y - m|, the gradients dD/dy = (y - m)/D (envelope theorem: m is a minimiser)
and ds/dy (a segment: its direction u, zero past either end of the curve; an arc of centre C:
r (a u_in + b n)/(a² + b²) with (a, b) the coordinates of y - C on the arc's plane). The closest
point is unique, and D and s are C¹, within the distance r of the curve from the corners'
insides (where the bisector of an unrounded corner makes m jump); ds/dy jumps by the factor
r/rho (rho the distance to the arc's centre) where an arc meets a segment off the curve: the
progress gradient is continuous only on the curve itself (docs/contact_planner.md, "Potentials").

**Same bits everywhere**: the corners' angles, radii and tangent lengths are computed with the C
library's scalar functions (`math`), not numpy's: numpy's arccos and tan loops run other code on a
processor with AVX-512 than on one without, and their results differ in the last bit (the
under-table scene's body potentials: one arc angle by 7e-18 rad), which the search then
amplifies into another plan (docs/contact_planner.md "Same plan on every machine").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

from humanoid_planner.exceptions import PlanningError

__all__ = ["ClosestPoint", "RoundedPolyline"]

_STRAIGHT = 1e-9  #: rad, turning angles below this are not rounded (chosen: round-off)


@dataclass(frozen=True)
class ClosestPoint:
    """The closest point ``m`` (N,), its abscissa ``s`` [length of the space], distance ``D``,
    gradients ``dD`` = dD/dy and ``ds`` = ds/dy (N,)."""

    m: np.ndarray
    s: float
    D: float
    dD: np.ndarray
    ds: np.ndarray


class RoundedPolyline:
    """The polyline through ``points`` (k, N), k >= 1, with its corners rounded (module docstring);
    ``max_deviation`` [same length unit] > 0. One point: a curve of length 0 (a goal point)."""

    def __init__(self, points, max_deviation: float):
        P = np.atleast_2d(np.asarray(points, float))
        if P.ndim != 2 or len(P) < 1 or not np.all(np.isfinite(P)):
            raise PlanningError(f"rounded polyline: field 'points' must be finite rows (k, N); shape {P.shape}")
        if not max_deviation > 0:
            raise PlanningError(f"rounded polyline: field 'max_deviation' must be > 0; value {max_deviation}")
        keep = [0] + [i for i in range(1, len(P)) if np.linalg.norm(P[i] - P[i - 1]) > 1e-12]
        self.points = P[keep]
        self.max_deviation = float(max_deviation)
        self.pieces = []  # ("seg", A, u, L, s0) or ("arc", C, n, u_in, r, alpha, s0)
        self._build()

    def _build(self):
        P = self.points
        k = len(P)
        if k == 1:
            self.length = 0.0
            return
        L = np.linalg.norm(np.diff(P, axis=0), axis=1)
        U = np.diff(P, axis=0) / L[:, None]
        cut = np.zeros(k)  # tangent length t cut from both sides of corner i
        arcs = {}
        for i in range(1, k - 1):
            u_in, u_out = U[i - 1], U[i]
            alpha = math.acos(min(max(float(u_in @ u_out), -1.0), 1.0))  # libm: "Same bits everywhere"
            if alpha < _STRAIGHT:
                continue
            half = alpha / 2
            bulge = 1.0 / math.cos(half) - 1.0 if half < math.pi / 2 - 1e-12 else np.inf
            r_dev = self.max_deviation / bulge if bulge > 0 else np.inf
            r = min(r_dev, 0.5 * min(L[i - 1], L[i]) / math.tan(half))
            if r <= 0:
                continue
            n = u_out - (u_out @ u_in) * u_in
            if np.linalg.norm(n) < 1e-12:  # a reversal whose dot product rounded off -1: no plane, a sharp corner
                continue
            n /= np.linalg.norm(n)
            t = r * math.tan(half)
            cut[i] = t
            arcs[i] = (P[i] - t * u_in + r * n, n, u_in, r, alpha)
        s = 0.0
        for i in range(k - 1):
            A = P[i] + cut[i] * U[i]
            seg = L[i] - cut[i] - cut[i + 1]
            self.pieces.append(("seg", A, U[i], seg, s))
            s += seg
            if i + 1 in arcs:
                C, n, u_in, r, alpha = arcs[i + 1]
                self.pieces.append(("arc", C, n, u_in, r, alpha, s))
                s += r * alpha
        self.length = s

    def point(self, s: float) -> np.ndarray:
        """The curve's point at abscissa ``s`` (clamped to [0, length])."""
        if not self.pieces:
            return self.points[0].copy()
        s = min(max(s, 0.0), self.length)
        for p in self.pieces:
            if p[0] == "seg":
                _, A, u, L, s0 = p
                if s <= s0 + L + 1e-15:
                    return A + (s - s0) * u
            else:
                _, C, n, u_in, r, alpha, s0 = p
                if s <= s0 + r * alpha + 1e-15:
                    phi = (s - s0) / r
                    return C + r * (-math.cos(phi) * n + math.sin(phi) * u_in)
        return self.points[-1].copy()

    def _arrays(self):
        """The pieces as arrays (built once, `_closest_point`'s input): origins O (A of a segment, C of
        an arc), directions V (u, or the arc's n) and W (the arc's u_in), s0, and per piece: is an
        arc, length, radius, angle, |O|²."""
        k, N = len(self.pieces), len(self.points[0])
        O, V, W = np.zeros((k, N)), np.zeros((k, N)), np.zeros((k, N))
        s0, arc, length, radius, angle = np.zeros(k), np.zeros(k, np.bool_), np.zeros(k), np.zeros(k), np.zeros(k)
        for i, p in enumerate(self.pieces):
            if p[0] == "seg":
                _, O[i], V[i], length[i], s0[i] = p
            else:
                _, O[i], V[i], W[i], radius[i], angle[i], s0[i] = p
                arc[i] = True
        self._packed = (O, V, W, s0, arc, length, radius, angle, (O * O).sum(1))

    def closest_point(self, y) -> ClosestPoint:
        """The closest point of the curve to ``y`` (N,) (module docstring). Every piece's closest
        point is found from three products with y (distances squared from |y - O|², the piece's
        coordinates of y - O), the first closest piece kept (ties within a relative 2e-15 of the
        squared distance go to the earlier piece), and its point, distance and gradients computed
        directly (`_closest_point`, compiled)."""
        y = np.asarray(y, float)
        N = len(y)
        if not self.pieces:
            m = self.points[0]
            D = float(np.linalg.norm(y - m))
            return ClosestPoint(m, 0.0, D, (y - m) / D if D > 0 else np.zeros(N), np.zeros(N))
        if not hasattr(self, "_packed"):
            self._arrays()
        m, s, D, dD, ds = _closest_point(np.ascontiguousarray(y), *self._packed)
        return ClosestPoint(m, s, D, dD, ds)


@nb.njit(cache=True)
def _closest_point(y, O, V, W, s0, arc, length, radius, angle, oo):
    """`RoundedPolyline.closest_point` on the packed pieces: ``(m, s, D, dD, ds)``."""
    k, N = O.shape
    yy = 0.0
    for c in range(N):
        yy += y[c] * y[c]
    best, i = np.inf, 0
    pa, pb, pphi, pph, pt = 0.0, 0.0, 0.0, 0.0, 0.0
    for j in range(k):
        yO, a, b = 0.0, 0.0, 0.0  # y . O, (y - O) . V, (y - O) . W
        for c in range(N):
            yO += y[c] * O[j, c]
            a += (y[c] - O[j, c]) * V[j, c]
            b += (y[c] - O[j, c]) * W[j, c]
        ee = yy - 2 * yO + oo[j]  # |y - O|²
        if arc[j]:  # (a, b) = (-(e . n), e . u_in) of the module docstring are (-a, b)
            phi = math.atan2(b, -a)
            ph = min(max(phi, 0.0), angle[j])
            r = radius[j]
            d2 = ee + 2 * r * (math.cos(ph) * a - math.sin(ph) * b) + r * r
        else:
            phi, ph = 0.0, 0.0
            t = min(max(a, 0.0), length[j])
            d2 = ee - 2 * t * a + t * t
        if j == 0 or best - 2e-15 * (1 + best) > d2:
            best, i = d2, j
            pa, pb, pphi, pph = a, b, phi, ph
            if not arc[j]:
                pt = t
    m = np.empty(N)
    ds = np.zeros(N)
    if arc[i]:
        aa, ri = -pa, radius[i]
        cph, sph = math.cos(pph), math.sin(pph)
        for c in range(N):
            m[c] = O[i, c] + ri * (-cph * V[i, c] + sph * W[i, c])
        rho2 = aa * aa + pb * pb
        s = s0[i] + ri * pph
        if pphi == pph and rho2 > 0:
            for c in range(N):
                ds[c] = ri * (aa * W[i, c] + pb * V[i, c]) / rho2
    else:
        for c in range(N):
            m[c] = O[i, c] + pt * V[i, c]
        s = s0[i] + pt
        beyond = (pa <= 0 and i == 0) or (pa >= length[i] and i == k - 1)
        if not beyond:
            for c in range(N):
                ds[c] = V[i, c]
    dm = 0.0
    diff = np.empty(N)
    for c in range(N):
        diff[c] = y[c] - m[c]
        dm += diff[c] * diff[c]
    D = math.sqrt(dm)
    dD = diff / D if D > 0 else np.zeros(N)
    return m, s, D, dD, ds
