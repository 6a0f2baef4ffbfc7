"""The ``retime`` policy: stretch time uniformly until every velocity and acceleration limit holds.

Scaling time by a factor c (times x c, given velocities / c) keeps the path (the positions along
the interpolation, cubic or linear, are the same functions of s) and divides every velocity by c
and every acceleration by c², the knot velocity steps included (`humanoid_control.bridge.bounds`).
The smallest factor that satisfies every limit is therefore exact, with no search:

    c = max(1, max(|v| / v_max), sqrt(max(|a| / a_max)))

over every segment, point and joint. Uniform scaling is the time-optimal scaling among those
that keep the timing's shape; a per-segment scaling (time-optimal path parameterisation) would
stretch only the fast parts, and is not implemented (docs/bridge.md).
"""

from __future__ import annotations

import numpy as np

from humanoid_control.bridge.checks import LIMIT_TOL, limit_ratios
from humanoid_control.bridge.limits import JointLimits
from humanoid_control.bridge.trajectory import Trajectory

__all__ = ["stretch_factor", "scale_time", "retime"]


def stretch_factor(traj: Trajectory, limits: JointLimits) -> float:
    """The smallest c >= 1 such that ``scale_time(traj, c)`` respects every velocity and
    acceleration limit (module docstring)."""
    rv, ra, rk = limit_ratios(traj, limits)
    worst_v = float(rv.max()) if rv.size else 0.0
    worst_a = max(float(ra.max()) if ra.size else 0.0, float(rk.max()) if rk.size else 0.0)
    c = max(1.0, worst_v, float(np.sqrt(worst_a)))
    # a hair more than the exact factor, so that rounding never leaves a limit exceeded by 1e-16
    return c * (1 + 0.1 * LIMIT_TOL) if c > 1.0 else 1.0


def scale_time(traj: Trajectory, c: float) -> Trajectory:
    """``traj`` with time multiplied by ``c`` (times x c, velocities / c, accelerations / c²)."""
    return traj.with_(
        times=traj.times * c,
        velocities=None if traj.velocities is None else traj.velocities / c,
        accelerations=None if traj.accelerations is None else traj.accelerations / (c * c),
    )


def retime(traj: Trajectory, limits: JointLimits) -> tuple[Trajectory, float]:
    """(``traj`` stretched by `stretch_factor`, the factor); ``traj`` itself when it is 1."""
    c = stretch_factor(traj, limits)
    return (traj, 1.0) if c == 1.0 else (scale_time(traj, c), c)
