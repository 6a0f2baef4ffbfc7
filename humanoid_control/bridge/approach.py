"""The approach segment: from where the robot is (at rest) to a trajectory's first point (at rest),
prepended when ``approach`` is on and the start is farther than ``start_tolerance``.

Two profiles (`APPROACH_PROFILES`, the setting ``approach_profile``):

* ``cubic`` (default): one segment, the shortest rest-to-rest move within ``approach_speed``, v_max
  and a_max on every joint: with velocities a cubic (peak speed 1.5 d / T, acceleration 6 d / T²,
  stepping from and to zero at the ends), without a straight line (speed d / T, velocity step
  2 d / T²). `approach_duration` gives T.
* ``jerk_limited``: the time-optimal rest-to-rest move within the same speed and acceleration
  limits and the jerk limit ``approach_jerk`` (Ruckig, the ``ruckig`` package: seven constant-jerk
  phases per joint, the joints phase-synchronised so that the approach is the same straight line
  in joint space as the cubic), sampled every ``command_period`` [s] (positions, and velocities
  when the trajectory has them). It cruises at the speed limit where the cubic reaches it only at
  its middle, so it is shorter: 2.59 s against 3.75 s for 0.5 rad at 0.2 rad/s
  (benchmarks/bridge_retime.py).
"""

from __future__ import annotations

import numpy as np

from humanoid_control.bridge.limits import JointLimits
from humanoid_control.bridge.settings import APPROACH_PROFILES, BridgeSettings
from humanoid_control.bridge.trajectory import Trajectory
from humanoid_control.exceptions import BridgeError

__all__ = ["APPROACH_PROFILES", "approach_duration", "jerk_limited_approach", "prepend_approach", "prepend_rest"]

#: [rad/s²] (chosen) the acceleration limit given to Ruckig for a joint without one (inf)
UNBOUNDED = 1e6


def approach_duration(start, goal, limits: JointLimits, settings: BridgeSettings, cubic: bool) -> float:
    """Duration [s] of a rest-to-rest move start -> goal whose peak speed is at most
    min(approach_speed, v_max) and peak acceleration at most a_max on every joint: cubic with zero
    end velocities (peak speed 1.5 d / T, acceleration 6 d / T²) or linear (speed d / T, velocity
    step 2 d / T² at the start, `bounds`)."""
    d = np.abs(np.asarray(goal, float) - np.asarray(start, float))
    vmax = np.minimum(settings.approach_speed, limits.v_max)
    k_v, k_a = (1.5, 6.0) if cubic else (1.0, 2.0)
    return float(max(np.max(k_v * d / vmax), np.max(np.sqrt(k_a * d / limits.a_max)), 1e-3))


def jerk_limited_approach(start, goal, limits: JointLimits, settings: BridgeSettings):
    """(times (m,) from 0 to T [s], positions (m, n), velocities (m, n)) of the jerk-limited
    rest-to-rest move start -> goal (module docstring), sampled every ``settings.command_period``
    and at T; the last sample is ``goal``."""
    from ruckig import InputParameter, Result, Ruckig, Synchronization
    from ruckig import Trajectory as Profile

    start, goal = np.asarray(start, float), np.asarray(goal, float)
    n = start.size
    inp = InputParameter(n)
    inp.current_position, inp.target_position = start.tolist(), goal.tolist()
    inp.max_velocity = np.minimum(settings.approach_speed, limits.v_max).tolist()
    inp.max_acceleration = np.where(np.isfinite(limits.a_max), limits.a_max, UNBOUNDED).tolist()
    inp.max_jerk = [settings.approach_jerk] * n
    inp.synchronization = Synchronization.Phase
    profile = Profile(n)
    result = Ruckig(n).calculate(inp, profile)
    if result not in (Result.Working, Result.Finished):
        raise BridgeError(f"approach: Ruckig found no jerk-limited approach ({result})")
    T = max(float(profile.duration), 1e-3)
    dt = settings.command_period
    t = np.arange(int(np.ceil(T / dt)) + 1) * dt
    t = np.append(t[t < T - 1e-9 * T], T)
    P, V = np.empty((t.size, n)), np.empty((t.size, n))
    for k, tk in enumerate(t[:-1]):
        p, v, _ = profile.at_time(float(tk))
        P[k], V[k] = p, v
    P[-1], V[-1] = goal, 0.0
    return t, P, V


def prepend_approach(traj: Trajectory, q0, limits: JointLimits, settings: BridgeSettings) -> tuple[Trajectory, float]:
    """(``traj`` after the approach from ``q0`` (at rest, t = 0) to its first point, the approach's
    duration [s]), with the profile of ``settings.approach_profile``."""
    if settings.approach_profile == "jerk_limited":
        t, P, V = jerk_limited_approach(q0, traj.positions[0], limits, settings)
        return _prepend(traj, t, P[:-1], V[:-1]), float(t[-1])
    T = approach_duration(q0, traj.positions[0], limits, settings, traj.velocities is not None)
    return prepend_rest(traj, q0, T), T


def prepend_rest(traj: Trajectory, q0, duration: float) -> Trajectory:
    """``traj`` after one segment from ``q0`` (at rest, t = 0) lasting ``duration`` [s]."""
    q0 = np.asarray(q0, float)[None, :]
    return _prepend(traj, np.array([0.0, duration]), q0, np.zeros_like(q0))


def _prepend(traj: Trajectory, times, P, V) -> Trajectory:
    """``traj`` after the points (times (m + 1,) ending where ``traj`` starts, positions and
    velocities (m, n) of the first m)."""
    start = float(times[-1])
    out_t = np.concatenate([times[:-1], traj.times - traj.times[0] + start])
    out_p = np.vstack([P, traj.positions])
    out_v = None if traj.velocities is None else np.vstack([V, traj.velocities])
    return traj.with_(times=out_t, positions=out_p, velocities=out_v, accelerations=None)
