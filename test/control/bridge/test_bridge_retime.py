"""The bridge's ``retime`` policy: a too-fast trajectory, stretched, satisfies every limit along
the interpolation the controller runs (sampled densely here, independently of the analytic
bounds the bridge uses), the factor is the smallest that does, and matches simple analytic cases."""

import numpy as np
import pytest

from humanoid_control.bridge import BridgeSettings, JointLimits, Trajectory, validate
from humanoid_control.bridge.trajectory import sample_all

RETIME = BridgeSettings(policy="retime")


def limits(n, v=2.0, a=10.0):
    return JointLimits([f"j{i}" for i in range(n)], [-10.0] * n, [10.0] * n, [v] * n, [a] * n)


def sampled_peaks(tr, per_segment=400):
    """(max |velocity|, max |acceleration| inside segments) per joint, from the controller's
    commands sampled at ``per_segment`` times per segment."""
    t = tr.times
    taus = np.concatenate([np.linspace(a, b, per_segment + 2)[1:-1] for a, b in zip(t[:-1], t[1:])])
    _, dq, ddq = sample_all(tr, taus)
    vmax = np.abs(dq).max(axis=0)
    amax = np.abs(ddq).max(axis=0)
    return vmax, amax


def fast_trajectory(cubic, n=3, N=12, seed=0):
    rng = np.random.default_rng(seed)
    times = np.cumsum(rng.uniform(0.05, 0.15, N)) - 0.05
    times[0] = 0.0
    P = np.cumsum(rng.normal(0, 0.4, (N, n)), axis=0)
    V = None
    if cubic:
        V = np.gradient(P, times, axis=0)
        V[0] = V[-1] = 0.0
    return Trajectory([f"j{i}" for i in range(n)], times, P, V)


@pytest.mark.parametrize("cubic", [True, False])
def test_too_fast_trajectory_retimed_respects_every_limit_along_the_interpolation(cubic):
    lim = limits(3)
    tr = fast_trajectory(cubic)
    cur = dict(zip(lim.names, tr.positions[0]))
    refused = validate(tr, lim, cur)
    assert not refused.ok and {r.check for r in refused.refusals} <= {"velocity_limits", "acceleration_limits"}
    rep = validate(tr, lim, cur, RETIME)
    assert rep.ok, rep.summary()
    out = rep.trajectory
    c = rep.stretch
    assert c > 1 and out.duration == pytest.approx(c * tr.duration)
    np.testing.assert_allclose(out.positions, tr.positions)  # same path, same points
    vmax, amax = sampled_peaks(out)
    assert np.all(vmax <= lim.v_max * (1 + 1e-9))
    if cubic:
        assert np.all(amax <= lim.a_max * (1 + 1e-6))
    # minimal: 0.1 % less stretch breaks a limit somewhere
    tighter = tr.with_(
        times=tr.times * c * 0.999, velocities=None if tr.velocities is None else tr.velocities / (c * 0.999)
    )
    assert not validate(tighter, lim, cur).ok


def test_stretch_factor_velocity_bound_linear():
    """0 -> 1 rad in 0.25 s (linear): 4 rad/s against 2 rad/s: x2 exactly (the velocity steps from
    and to rest, 2 rad/s over 0.25 s after retiming, stay far below 1000 rad/s²)."""
    lim = limits(1, v=2.0, a=1000.0)
    tr = Trajectory(["j0"], [0.0, 0.25], [[0.0], [1.0]])
    rep = validate(tr, lim, {"j0": 0.0}, RETIME)
    assert rep.ok and rep.stretch == pytest.approx(2.0, rel=1e-8)
    assert rep.trajectory.times[-1] == pytest.approx(0.5, rel=1e-8)


def test_stretch_factor_acceleration_bound_cubic():
    """Cubic rest to rest 0 -> 1 rad in 1 s: acceleration 6 rad/s² at both ends against 1.5: time
    x sqrt(6 / 1.5) = x2, the speed (1.5 rad/s / 2) stays inside its limit."""
    lim = limits(1, v=100.0, a=1.5)
    tr = Trajectory(["j0"], [0.0, 1.0], [[0.0], [1.0]], [[0.0], [0.0]])
    rep = validate(tr, lim, {"j0": 0.0}, RETIME)
    assert rep.ok and rep.stretch == pytest.approx(2.0, rel=1e-8)
    assert rep.trajectory.times[-1] == pytest.approx(2.0, rel=1e-8)
    assert any("x2" in n for n in rep.notes)


def test_retime_does_not_fix_positions_and_refuse_policy_changes_nothing():
    lim = limits(1, v=2.0, a=10.0)
    tr = Trajectory(["j0"], [0.0, 0.1], [[9.0], [9.995]])  # too fast and beyond 10 - 0.01
    rep = validate(tr, lim, {"j0": 9.0}, RETIME)
    assert not rep.ok and "position_limits" in {r.check for r in rep.refusals}
    slow = Trajectory(["j0"], [0.0, 2.0], [[0.0], [0.5]])
    rep = validate(slow, lim, {"j0": 0.0}, RETIME)
    assert rep.ok and rep.stretch == 1.0
    np.testing.assert_array_equal(rep.trajectory.times, slow.times)


def test_retime_stretches_the_motion_not_the_approach():
    """The x2 cubic case above, starting 0.5 rad away with the approach on: the approach (cubic
    rest to rest, T = max(1.5 d / 0.2, sqrt(6 d / 1.5)) = 3.75 s) is prepended at its own speed
    and only the motion is stretched."""
    lim = limits(1, v=100.0, a=1.5)
    tr = Trajectory(["j0"], [0.0, 1.0], [[0.0], [1.0]], [[0.0], [0.0]])
    rep = validate(tr, lim, {"j0": -0.5}, BridgeSettings(policy="retime", approach=True))
    assert rep.ok, rep.summary()
    np.testing.assert_allclose(rep.trajectory.times, [0.0, 3.75, 5.75], rtol=1e-8)
    np.testing.assert_array_equal(rep.trajectory.positions[:, 0], [-0.5, 0.0, 1.0])
    assert rep.stretch == pytest.approx(2.0, rel=1e-8)
