"""Exact extremes of position, velocity and acceleration along the interpolation the controller
runs (`humanoid_model.interpolation`), per segment and joint, without sampling.

On a segment of duration h the position is a cubic q(s) = c0 + c1 s + c2 s² + c3 s³, s in [0, 1]:

* position: extremes at s = 0, 1 and at the roots of q'(s) inside (0, 1);
* velocity q'(s) / h, a parabola: extremes at s = 0, 1 and at its vertex s = -c2 / (3 c3) when
  inside (0, 1);
* acceleration q''(s) / h², linear in s: extremes at s = 0 and 1.

Linear interpolation (no velocities) has a constant velocity per segment and steps between
segments: the acceleration at point k is estimated as (v_k - v_(k-1)) / ((h_(k-1) + h_k) / 2),
the second finite difference, which tends to the true acceleration of a densely sampled smooth
motion. The robot is at rest before the first point and after the last one (the controller holds
the last point): the velocity step there counts over half the adjacent segment, (v_0 - 0) / (h_0 / 2),
for both interpolations (with velocities, the first and last points' velocities are those steps).
"""

from __future__ import annotations

import numpy as np

from humanoid_model.interpolation import segment_coefficients

__all__ = ["position_extremes", "velocity_peaks", "acceleration_peaks"]


def _cubic_value(c, s):
    c0, c1, c2, c3 = c
    return c0 + s * (c1 + s * (c2 + s * c3))


def position_extremes(times, positions, velocities):
    """(lowest, highest) position on each segment, each (N-1, n) (the points alone when N = 1)."""
    p = np.asarray(positions, float)
    if p.shape[0] < 2 or velocities is None:
        if p.shape[0] < 2:
            return p.copy(), p.copy()
        return np.minimum(p[:-1], p[1:]), np.maximum(p[:-1], p[1:])
    c, _ = segment_coefficients(times, p, velocities)
    lo, hi = np.minimum(p[:-1], p[1:]), np.maximum(p[:-1], p[1:])
    _, c1, c2, c3 = c
    a, b = 3 * c3, 2 * c2  # q'(s) = a s² + b s + c1
    disc = b * b - 4 * a * c1
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.sqrt(np.where(disc >= 0, disc, np.nan))
        quad = np.abs(a) > 1e-12 * (np.abs(b) + np.abs(c1) + 1e-300)
        candidates = [
            np.where(quad, (-b + root) / (2 * a), -c1 / b),
            np.where(quad, (-b - root) / (2 * a), np.nan),
        ]
    for s in candidates:
        ok = np.isfinite(s) & (s > 0) & (s < 1)
        q = np.where(ok, _cubic_value(c, np.where(ok, s, 0.0)), np.nan)
        lo, hi = np.fmin(lo, q), np.fmax(hi, q)
    return lo, hi


def velocity_peaks(times, positions, velocities):
    """Largest |velocity| on each segment (N-1, n) [rad/s]."""
    c, h = segment_coefficients(times, positions, velocities)
    _, c1, c2, c3 = c
    h = h[:, None]
    if velocities is None:
        return np.abs(c1) / h
    end = c1 + 2 * c2 + 3 * c3
    peak = np.maximum(np.abs(c1), np.abs(end))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(c3 != 0, -c2 / (3 * c3), np.nan)
    ok = (s > 0) & (s < 1)
    vertex = np.where(ok, np.abs(c1 + np.where(ok, s, 0.0) * (2 * c2 + 3 * c3 * np.where(ok, s, 0.0))), 0.0)
    return np.maximum(peak, vertex) / h


def acceleration_peaks(times, positions, velocities):
    """(segment, knot) |acceleration| [rad/s²]: ``segment`` (N-1, n) the largest inside each segment
    (zero for linear interpolation), ``knot`` (N, n) the velocity steps at the points (module
    docstring): at every point for linear interpolation, at the first and last points otherwise."""
    t = np.asarray(times, float)
    p = np.asarray(positions, float)
    c, h = segment_coefficients(t, p, velocities)
    _, c1, c2, c3 = c
    hh = h[:, None]
    n = p.shape[1]
    knot = np.zeros((p.shape[0], n))
    if velocities is None:
        seg_v = c1 / hh
        padded = np.vstack([np.zeros((1, n)), seg_v, np.zeros((1, n))])
        half = np.concatenate([[0.0], h, [0.0]])
        dt = 0.5 * (half[:-1] + half[1:])
        knot = np.abs(np.diff(padded, axis=0)) / dt[:, None]
        return np.zeros_like(c1), knot
    seg = np.maximum(np.abs(2 * c2), np.abs(2 * c2 + 6 * c3)) / (hh * hh)
    v = np.asarray(velocities, float)
    knot[0] = np.abs(v[0]) / (0.5 * h[0])
    knot[-1] = np.abs(v[-1]) / (0.5 * h[-1])
    return seg, knot
