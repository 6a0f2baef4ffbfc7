"""The approach segment's jerk-limited profile (humanoid_control.bridge.approach): shorter than the
cubic one for the same move, its commands within the speed, acceleration and jerk limits (finite
differences), its duration the analytic one of a jerk-limited rest-to-rest move, and the motion
after it unchanged."""

import numpy as np
import pytest

from humanoid_control.bridge import BridgeSettings, JointLimits, Trajectory, validate

D = np.array([0.5, -0.2, 0.05])  # [rad] the start error of each joint
V, A, J = 0.2, 10.0, 100.0  # approach_speed, a_max, approach_jerk


def approach(profile: str, cubic: bool = True):
    """(report, approach duration [s]): a motion of 3 joints starting ``D`` away from the robot."""
    names = ["j0", "j1", "j2"]
    lim = JointLimits(names, [-10.0] * 3, [10.0] * 3, [2.0] * 3, [A] * 3)
    P = np.array([[0.0, 0.0, 0.0], [0.1, 0.1, 0.1]])
    tr = Trajectory(names, [0.0, 1.0], P, np.zeros_like(P) if cubic else None)
    current = dict(zip(names, P[0] - D))
    settings = BridgeSettings(approach=True, approach_profile=profile, approach_speed=V, approach_jerk=J)
    rep = validate(tr, lim, current, settings)
    assert rep.ok, rep.summary()
    out = rep.trajectory
    k = int(np.flatnonzero(np.all(out.positions == P[0], axis=1))[0])  # the motion's first point
    np.testing.assert_allclose(out.times[k:] - out.times[k], tr.times)
    np.testing.assert_array_equal(out.positions[k:], P)
    return rep, float(out.times[k])


@pytest.mark.parametrize("cubic", [True, False])
def test_the_jerk_limited_approach_is_shorter_than_the_cubic(cubic):
    """The largest move (0.5 rad) sets both: the cubic (1.5 d / v = 3.75 s) or straight line
    (d / v = 2.5 s, then its velocity steps) against the jerk-limited cruise at v with ramps of
    sqrt(v / j): T = d / v + 2 sqrt(v / j) = 2.589 s (its peak acceleration sqrt(v j) = 4.5 rad/s²
    stays under a_max)."""
    _, t_cubic = approach("cubic", cubic)
    rep, t_jerk = approach("jerk_limited", cubic)
    assert t_cubic == pytest.approx((1.5 if cubic else 1.0) * 0.5 / V)
    assert t_jerk == pytest.approx(0.5 / V + 2 * np.sqrt(V / J), rel=1e-6)
    if cubic:
        assert t_jerk < 0.7 * t_cubic
    assert any("approach segment (jerk_limited)" in n for n in rep.notes)


def test_the_jerk_limited_approach_keeps_its_speed_acceleration_and_jerk_limits():
    rep, T = approach("jerk_limited", cubic=False)
    out = rep.trajectory
    k = int(np.searchsorted(out.times, T))
    t, P = out.times[: k + 1], out.positions[: k + 1]
    h = np.diff(t)
    period = BridgeSettings().command_period
    assert np.allclose(h[:-1], period) and 0 < h[-1] <= period + 1e-12
    # finite differences on the evenly spaced commands, from rest (the commands before t = 0 repeat the first)
    Q = np.vstack([P[:1], P[:1], P[:1], P[:-1]])
    v = np.diff(Q, axis=0) / period
    a = np.diff(Q, 2, axis=0) / period**2
    j = np.diff(Q, 3, axis=0) / period**3
    assert np.abs(v).max() <= V * (1 + 1e-9)
    assert np.abs(a).max() <= A * (1 + 1e-9)
    assert np.abs(j).max() <= J * (1 + 1e-6)
    # every joint arrives together (phase-synchronised: a straight line in joint space)
    moved = (P - P[0]) / (P[-1] - P[0])
    np.testing.assert_allclose(moved, moved[:, :1].repeat(3, axis=1), atol=1e-9)
