"""The bridge's ``topp`` policy (humanoid_control.bridge.topp): on BIP's cyclic double support, the
time-optimal retiming is shorter than the uniform stretch, and its commands, checked here
independently of the bridge (finite differences of the sampled commands, nearest points of the
given path sampled densely), keep every limit and lie on the given path; a single-joint move
takes the analytic bang-bang time; TOPP-RA's failures are one-line errors and fall back to the
uniform stretch with a note."""

import numpy as np
import pytest

from humanoid_control.bridge import BridgeError, BridgeSettings, JointLimits, Trajectory, load_plan, validate
from humanoid_control.bridge.topp import time_optimal
from humanoid_control.bridge.trajectory import sample
from humanoid_model import load_robot
from humanoid_stack.cli import main

TOPP = BridgeSettings(policy="topp")
RETIME = BridgeSettings(policy="retime")
PERIOD = BridgeSettings().command_period


@pytest.fixture(scope="module")
def double_support(tmp_path_factory):
    """(BIP, its limits, the cyclic double-support phase of `humanoid-stack gait`, BIP standing at
    its first point)."""
    out = tmp_path_factory.mktemp("gait") / "GAIT.json"
    assert main(["gait", "--robot", "bip", "--phase", "ds", "--output", str(out)]) == 0
    bip = load_robot("bip")
    traj, _ = load_plan(out, bip)
    lim = JointLimits.from_robot(bip)
    cur = dict(zip(lim.names, bip.joint_positions(bip.q()).values()))
    cur.update(zip(traj.joint_names, traj.positions[0]))
    return bip, lim, traj, cur


def finite_difference_peaks(times, positions):
    """(largest |secant speed|, largest |second difference|) per joint of commands interpolated
    linearly, at rest before the first and after the last (the acceleration at a command is the
    change of secant speed over the mean of the two intervals)."""
    h = np.diff(times)
    v = np.diff(positions, axis=0) / h[:, None]
    zero = np.zeros((1, positions.shape[1]))
    steps = np.diff(np.vstack([zero, v, zero]), axis=0)
    spans = np.concatenate([[h[0] / 2], (h[:-1] + h[1:]) / 2, [h[-1] / 2]])
    return np.abs(v).max(axis=0), (np.abs(steps) / spans[:, None]).max(axis=0)


def nearest_on_path(traj, points, per_segment=2000):
    """(distance [rad] of each of ``points`` (m, n) to the nearest of ``traj``'s interpolation sampled
    ``per_segment`` times per segment (largest joint difference), the time of that nearest sample)."""
    t = np.concatenate(
        [np.linspace(a, b, per_segment, endpoint=False) for a, b in zip(traj.times[:-1], traj.times[1:])]
    )
    t = np.append(t, traj.times[-1])
    dense = sample(traj, t)
    dist, at = [], []
    for p in points:
        d = np.abs(dense - p).max(axis=1)
        k = int(np.argmin(d))
        dist.append(d[k])
        at.append(t[k])
    return np.array(dist), np.array(at)


def test_topp_is_shorter_than_the_uniform_stretch_and_keeps_the_limits_and_the_path(double_support):
    _, lim, traj, cur = double_support
    uniform = validate(traj, lim, cur, RETIME)
    topp = validate(traj, lim, cur, TOPP)
    assert uniform.ok and topp.ok, topp.summary()
    out = topp.trajectory
    assert out.duration < 0.5 * uniform.trajectory.duration  # measured: 0.67 s against 2.03 s
    assert any(n.startswith("topp: ") for n in topp.notes) and topp.stretch == pytest.approx(
        out.duration / traj.duration
    )
    # commands every period, positions only (the controller interpolates linearly)
    assert out.velocities is None and np.allclose(np.diff(out.times)[:-1], PERIOD)
    # every limit, from finite differences of the commands
    vmax, amax = finite_difference_peaks(out.times, out.positions)
    assert np.all(vmax <= lim.v_max * (1 + 1e-9)) and np.all(amax <= lim.a_max * (1 + 1e-9))
    assert np.all(out.positions >= lim.lower + 0.01) and np.all(out.positions <= lim.upper - 0.01)
    # the path: each command on the given interpolation, in order, from its first point to its last;
    # between the points the smooth path departs from the straight segments by at most the points'
    # largest second difference (the chord's sag of a parabola through them is an eighth of it)
    cols = [lim.index[n] for n in traj.joint_names]
    held = [i for i in range(len(lim.names)) if i not in cols]
    np.testing.assert_allclose(out.positions[:, held], out.positions[:1, held].repeat(out.n_points, 0))
    dist, at = nearest_on_path(traj, out.positions[:, cols])
    assert dist.max() <= np.abs(np.diff(traj.positions, 2, axis=0)).max()
    assert np.all(np.diff(at) >= -1e-3)  # forward along the path (a sample's spacing of slack)
    np.testing.assert_allclose(out.positions[[0, -1]][:, cols], traj.positions[[0, -1]], atol=1e-9)


def single_joint(cubic: bool):
    """0 -> 1 rad in 1 s, at rest at both ends: a cubic (velocities 0) or a straight line."""
    v = [[0.0], [0.0]] if cubic else None
    return Trajectory(["j0"], [0.0, 1.0], [[0.0], [1.0]], v)


@pytest.mark.parametrize("cubic", [True, False])
def test_a_single_joint_takes_the_bang_bang_time(cubic):
    """One joint along a monotonic path, v_max 0.5 rad/s, a_max 1 rad/s²: the fastest rest-to-rest
    move accelerates at a_max to v_max, cruises, brakes: T = d / v + v / a = 2.5 s. TOPP-RA holds
    the limits at its grid points and the bridge checks between them: no faster than that, and
    within 3 % of it (measured: 2.5 s for the straight line; 2.57 s for the cubic, whose path
    speed q'(s) vanishes at its ends, TOPP-RA then given 0.99 of the limits)."""
    lim = JointLimits(["j0"], [-10.0], [10.0], [0.5], [1.0])
    rep = validate(single_joint(cubic), lim, {"j0": 0.0}, TOPP)
    assert rep.ok, rep.summary()
    assert 2.5 * (1 - 1e-6) <= rep.trajectory.duration <= 2.5 * 1.03
    assert rep.trajectory.positions[-1, 0] == pytest.approx(1.0, abs=1e-12)
    vmax, amax = finite_difference_peaks(rep.trajectory.times, rep.trajectory.positions)
    assert vmax[0] <= 0.5 * (1 + 1e-9) and amax[0] <= 1.0 * (1 + 1e-9)


def test_a_cubic_path_is_followed_exactly():
    """With velocities the path is the controller's cubic Hermite itself: every command on it."""
    rng = np.random.default_rng(3)
    times = np.array([0.0, 0.1, 0.25, 0.3, 0.45])
    P = np.cumsum(rng.normal(0, 0.3, (5, 2)), axis=0)
    V = np.gradient(P, times, axis=0)
    V[0] = V[-1] = 0.0
    tr = Trajectory(["j0", "j1"], times, P, V)
    lim = JointLimits(["j0", "j1"], [-10.0] * 2, [10.0] * 2, [2.0] * 2, [10.0] * 2)
    rep = validate(tr, lim, dict(zip(tr.joint_names, P[0])), TOPP)
    assert rep.ok and rep.stretch > 1, rep.summary()
    dist, _ = nearest_on_path(tr, rep.trajectory.positions, per_segment=20000)
    assert dist.max() < 1e-4


def test_never_faster_than_given():
    """A trajectory too fast in its middle only: its slow start (0.05 rad/s) is not sped up to the
    limit (1 rad/s) by the retiming."""
    times = np.array([0.0, 2.0, 2.1, 4.1])
    P = np.array([[0.0], [0.1], [0.6], [0.7]])
    V = np.array([[0.0], [0.05], [0.05], [0.0]])
    lim = JointLimits(["j0"], [-10.0], [10.0], [1.0], [10.0])
    rep = validate(Trajectory(["j0"], times, P, V), lim, {"j0": 0.0}, TOPP)
    assert rep.ok, rep.summary()
    out = rep.trajectory
    assert out.duration >= times[-1]
    slow = out.positions[:, 0] < 0.09  # the first segment's part of the path
    speeds = np.abs(np.diff(out.positions[:, 0])) / np.diff(out.times)
    assert speeds[slow[1:]].max() <= 0.08  # the given speed there (at most 0.075, Hermite), not 1


def test_limits_too_small_for_a_usable_motion_are_an_error_and_the_uniform_stretch_takes_over():
    """Within velocity and acceleration limits a rest-to-rest retiming always exists; limits this
    small make it last for hours: 1 rad at 1e-9 rad/s² takes 2·sqrt(1 / 1e-9) = 6.3e4 s at best,
    6 million commands at 100 Hz. Refused in one line; `validate` stretches uniformly instead."""
    lim = JointLimits(["j0"], [-10.0], [10.0], [0.5], [1e-9])
    tr = single_joint(True)
    with pytest.raises(BridgeError, match=r"^topp: the time-optimal motion lasts \d+(\.\d+)? s, \d+ commands"):
        time_optimal(tr, lim, PERIOD)
    rep = validate(tr, lim, {"j0": 0.0}, TOPP)
    assert rep.ok and rep.trajectory.n_points == 2  # the uniform stretch: the same two points
    assert any(
        n.startswith("topp: the time-optimal motion lasts") and "uniform stretch is used instead" in n
        for n in rep.notes
    )
    assert rep.trajectory.duration >= 2 * np.sqrt(1 / 1e-9)


def test_a_failed_parameterisation_is_an_error_and_the_uniform_stretch_takes_over(monkeypatch):
    """TOPP-RA answering no parameterisation (its return code) is a one-line error too."""
    import toppra.algorithm

    monkeypatch.setattr(toppra.algorithm.TOPPRA, "compute_trajectory", lambda self, *a: None)
    lim = JointLimits(["j0"], [-10.0], [10.0], [0.5], [1.0])
    with pytest.raises(BridgeError, match=r"^topp: TOPP-RA found no time parameterisation"):
        time_optimal(single_joint(True), lim, PERIOD)
    rep = validate(single_joint(True), lim, {"j0": 0.0}, TOPP)
    assert rep.ok and rep.stretch == pytest.approx(3.0)  # uniform: 1.5 rad/s peak against 0.5
    assert any(n.startswith("topp: TOPP-RA found no") for n in rep.notes)


def test_points_too_sparse_for_the_smooth_path_fall_back_to_the_uniform_stretch():
    """Three points with a sharp corner: the spline through them departs far from the straight
    segments the controller would run; refused for TOPP, stretched uniformly instead."""
    tr = Trajectory(["j0"], [0.0, 0.1, 0.2], [[0.0], [1.0], [0.0]])
    lim = JointLimits(["j0"], [-10.0], [10.0], [2.0], [10.0])
    with pytest.raises(BridgeError, match=r"^topp: the smooth path through the points departs"):
        time_optimal(tr, lim, PERIOD)
    rep = validate(tr, lim, {"j0": 0.0}, TOPP)
    assert rep.ok and any("departs" in n and "uniform stretch" in n for n in rep.notes)
    np.testing.assert_array_equal(rep.trajectory.positions[:, 0], [0.0, 1.0, 0.0])


def test_a_trajectory_within_its_limits_is_not_retimed():
    tr = Trajectory(["j0"], [0.0, 2.0], [[0.0], [0.5]])
    lim = JointLimits(["j0"], [-10.0], [10.0], [2.0], [10.0])
    rep = validate(tr, lim, {"j0": 0.0}, TOPP)
    assert rep.ok and rep.stretch == 1.0
    np.testing.assert_array_equal(rep.trajectory.times, tr.times)


@pytest.mark.parametrize(
    "kw", [dict(policy="fast"), dict(approach_profile="quintic"), dict(approach_jerk=0.0), dict(command_period=-1.0)]
)
def test_bad_settings_are_refused(kw):
    with pytest.raises(BridgeError, match=next(iter(kw))):
        BridgeSettings(**kw)
