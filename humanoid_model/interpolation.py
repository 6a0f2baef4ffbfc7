"""The one interpolation rule of joint trajectories (ros2_control's joint_trajectory_controller
without accelerations): cubic Hermite between points when velocities are given, linear
otherwise; before the first point the first position is held, after the last point the last
position, both with zero velocity.

Shared by the simulator's controller (`humanoid_sim.stages.actuators.JointTrajectory`) and the robot
bridge (`humanoid_control.bridge`), which checks limits along exactly what the controller runs;
both packages sit in the same layer and cannot import each other, so the rule lives here.

    q, dq, ddq = sample(times, positions, velocities, 0.25)           # one time: (n,) each
    Q, dQ, ddQ = sample(times, positions, None, np.linspace(0, 1, 50))  # (50, n) each

On segment k (times[k] <= t < times[k+1], h = times[k+1] - times[k], s = (t - times[k]) / h)
the position is a cubic in s; `segment_coefficients` gives its power-series coefficients, from
which the bridge bounds velocity and acceleration analytically per segment.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sample", "segment_coefficients"]


def segment_coefficients(times, positions, velocities=None):
    """Power-series coefficients (c0, c1, c2, c3), each (k-1, n), of q(s) = c0 + c1 s + c2 s² + c3 s³
    on every segment, s in [0, 1] (cubic Hermite with ``velocities``, linear: c2 = c3 = 0, without),
    and the segment durations h (k-1,) [s]. Time derivatives: dq/dt = q'(s) / h, d²q/dt² = q''(s) / h²."""
    t = np.asarray(times, float)
    p = np.asarray(positions, float)
    h = np.diff(t)
    p0, p1 = p[:-1], p[1:]
    dp = p1 - p0
    if velocities is None:
        zero = np.zeros_like(dp)
        return (p0, dp, zero, zero), h
    v = np.asarray(velocities, float)
    m0, m1 = v[:-1] * h[:, None], v[1:] * h[:, None]
    return (p0, m0, 3 * dp - 2 * m0 - m1, -2 * dp + m0 + m1), h


def _cubic(p0, p1, m0, m1, s, h):
    """Hermite (q, dq, ddq) on a segment: ends p0, p1, tangents m0 = h v0, m1 = h v1, s in [0, 1]
    (a number, or a column (m, 1) broadcast against (m, n) rows)."""
    s2, s3 = s * s, s * s * s
    q = (2 * s3 - 3 * s2 + 1) * p0 + (s3 - 2 * s2 + s) * m0 + (-2 * s3 + 3 * s2) * p1 + (s3 - s2) * m1
    dq = ((6 * s2 - 6 * s) * p0 + (3 * s2 - 4 * s + 1) * m0 + (-6 * s2 + 6 * s) * p1 + (3 * s2 - 2 * s) * m1) / h
    ddq = ((12 * s - 6) * p0 + (6 * s - 4) * m0 + (-12 * s + 6) * p1 + (6 * s - 2) * m1) / (h * h)
    return q, dq, ddq


def sample(times, positions, velocities, tau):
    """(q, dq, ddq) at time(s) ``tau`` after the start [s]: (n,) arrays for a scalar ``tau``, (m, n)
    for m times. ``times`` (k,) strictly increasing, ``positions`` (k, n), ``velocities`` (k, n) or
    None (linear: ddq = 0 inside a segment; the velocity steps at the points)."""
    t = np.asarray(times, float)
    p = np.asarray(positions, float)
    if np.ndim(tau) == 0:  # one time (the simulator's controller, every step): no array bookkeeping
        tau = float(tau)
        if tau <= t[0] or tau >= t[-1]:
            z = np.zeros(p.shape[1])
            return (p[0] if tau <= t[0] else p[-1]).copy(), z, z.copy()
        i = int(np.searchsorted(t, tau, side="right") - 1)
        h = t[i + 1] - t[i]
        s = (tau - t[i]) / h
        if velocities is None:
            return p[i] + s * (p[i + 1] - p[i]), (p[i + 1] - p[i]) / h, np.zeros(p.shape[1])
        v = velocities
        return _cubic(p[i], p[i + 1], h * v[i], h * v[i + 1], s, h)
    tau = np.asarray(tau, float).reshape(-1)
    n = p.shape[1]
    if t.shape[0] == 1:
        z = np.zeros((tau.shape[0], n))
        return np.repeat(p[:1], tau.shape[0], axis=0), z, z.copy()
    i = np.clip(np.searchsorted(t, tau, side="right") - 1, 0, t.shape[0] - 2)
    h = t[i + 1] - t[i]
    s = np.clip((tau - t[i]) / h, 0.0, 1.0)[:, None]
    h = h[:, None]
    inside = ((tau > t[0]) & (tau < t[-1]))[:, None]
    p0, p1 = p[i], p[i + 1]
    if velocities is None:
        q, dq, ddq = p0 + s * (p1 - p0), (p1 - p0) / h, np.zeros((tau.shape[0], n))
    else:
        v = np.asarray(velocities, float)
        q, dq, ddq = _cubic(p0, p1, v[i] * h, v[i + 1] * h, s, h)
    return q, np.where(inside, dq, 0.0), np.where(inside, ddq, 0.0)
