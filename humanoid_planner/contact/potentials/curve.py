"""A polyline with rounded corners in R^N, its closest point and arc-length abscissa
(001_escande.md §5.6, thesis L2663-2672: "round every corner of T by circular arcs in dimension
n+6, radius as large as possible under a maximum deviation from the original polyline").

Corner i (turning angle alpha between the unit directions u_in, u_out) is replaced by the arc of
radius r tangent to both segments: it leaves the incoming segment t = r tan(alpha/2) before the
corner and joins the outgoing one t after it; its largest deviation from the corner is
r (1/cos(alpha/2) - 1). r is the largest radius with that deviation <= ``max_deviation`` and
t <= half of each adjacent segment (neighbouring arcs never overlap). The curve is then C¹ (unit
tangent continuous), made of segments and arcs.

``project(y) -> Projection``: the closest point m of the curve to y, its arc-length abscissa s,
the distance D = |y - m|, the gradients dD/dy = (y - m)/D (envelope theorem: m is a minimiser)
and ds/dy (a segment: its direction u, zero past either end of the curve; an arc of centre C:
r (a u_in + b n)/(a² + b²) with (a, b) the coordinates of y - C on the arc's plane). The closest
point is unique, and D and s are C¹, within the distance r of the curve from the corners'
insides (where the bisector of an unrounded corner makes m jump); ds/dy jumps by the factor
r/rho (rho the distance to the arc's centre) where an arc meets a segment off the curve: the
progress gradient is continuous only on the curve itself (docs/planner.md, "Potentials").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humanoid_planner.exceptions import PlanningError

__all__ = ["Projection", "RoundedPolyline"]

_STRAIGHT = 1e-9  #: rad, turning angles below this are not rounded (chosen: round-off)


@dataclass(frozen=True)
class Projection:
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
            alpha = float(np.arccos(np.clip(u_in @ u_out, -1.0, 1.0)))
            if alpha < _STRAIGHT:
                continue
            half = alpha / 2
            bulge = 1.0 / np.cos(half) - 1.0 if half < np.pi / 2 - 1e-12 else np.inf
            r_dev = self.max_deviation / bulge if bulge > 0 else np.inf
            r = min(r_dev, 0.5 * min(L[i - 1], L[i]) / np.tan(half))
            if r <= 0:
                continue
            t = r * np.tan(half)
            n = u_out - (u_out @ u_in) * u_in
            n /= np.linalg.norm(n)
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
                    return C + r * (-np.cos(phi) * n + np.sin(phi) * u_in)
        return self.points[-1].copy()

    def project(self, y) -> Projection:
        """The closest point of the curve to ``y`` (N,) (module docstring)."""
        y = np.asarray(y, float)
        N = len(y)
        best = None
        if not self.pieces:
            cands = [(self.points[0], 0.0, np.zeros(N))]
        else:
            cands = []
            last = len(self.pieces) - 1
            for k, p in enumerate(self.pieces):
                if p[0] == "seg":
                    _, A, u, L, s0 = p
                    t = float((y - A) @ u)
                    ds = u.copy()
                    if t <= 0 and k == 0 or t >= L and k == last:
                        ds = np.zeros(N)  # beyond an end of the curve: the end point
                    t = min(max(t, 0.0), L)
                    cands.append((A + t * u, s0 + t, ds))
                else:
                    _, C, n, u_in, r, alpha, s0 = p
                    e = y - C
                    a, b = -float(e @ n), float(e @ u_in)
                    phi = float(np.arctan2(b, a))
                    rho2 = a * a + b * b
                    phi_c = min(max(phi, 0.0), alpha)
                    ds = r * (a * u_in + b * n) / rho2 if phi == phi_c and rho2 > 0 else np.zeros(N)
                    cands.append((C + r * (-np.cos(phi_c) * n + np.sin(phi_c) * u_in), s0 + r * phi_c, ds))
        for m, s, ds in cands:
            D = float(np.linalg.norm(y - m))
            if best is None or best[2] - 1e-15 > D:
                best = (m, s, D, ds)
        m, s, D, ds = best
        dD = (y - m) / D if D > 0 else np.zeros(N)
        return Projection(m, float(s), D, dD, ds)
