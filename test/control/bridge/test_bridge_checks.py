"""The robot bridge's checks (humanoid_control.bridge): every check refuses just outside
its bound and passes just inside, and each refusal names the check, the joint, the point and the
value on one line."""

import numpy as np
import pytest

from humanoid_control.bridge import BridgeError, BridgeSettings, JointLimits, Trajectory, sample, validate
from humanoid_control.bridge.trajectory import sample_all

EPS = 1e-6  # relative step across a bound (far above the checks' 1e-9 rounding tolerance)


def limits(v=2.0, a=10.0, lo=-1.0, hi=1.0):
    """Two joints; velocity and acceleration tests widen the positions (lo, hi) out of their way."""
    return JointLimits(["a", "b"], [lo, lo], [hi, hi], [v, v], [a, a])


def traj(times, pos_a, vel_a=None, names=("a",)):
    P = np.asarray(pos_a, float).reshape(len(times), -1)
    V = None if vel_a is None else np.asarray(vel_a, float).reshape(len(times), -1)
    return Trajectory(list(names), times, P, V)


REST = {"a": 0.0, "b": 0.0}


def checks_of(report):
    return {r.check for r in report.refusals}


def one_line_naming(r, check, joint=None, point=None):
    assert "\n" not in r.message and r.message.startswith(check + ":")
    if joint is not None:
        assert f"joint '{joint}'" in r.message and r.joint == joint
    if point is not None:
        assert f"point {point}" in r.message and r.point == point
    assert "value" in r.message


# ------------------------------------------------------------------------------ input checks
def test_points_at_least_one():
    rep = validate(Trajectory(["a"], [], np.zeros((0, 1))), limits(), REST)
    assert not rep.ok and checks_of(rep) == {"points"}
    assert validate(traj([0.0], [0.0]), limits(), REST).ok


def test_unknown_joint_named_with_a_hint_and_known_joint_passes():
    rep = validate(traj([0.0], [0.0], names=("aa",)), limits(), REST)
    assert checks_of(rep) == {"joint_names"}
    one_line_naming(rep.refusals[0], "joint_names", "aa")
    assert "did you mean 'a'" in rep.refusals[0].message
    assert validate(traj([0.0], [0.0], names=("a",)), limits(), REST).ok
    assert checks_of(validate(Trajectory([], [0.0], np.zeros((1, 0))), limits(), REST)) == {"joint_names"}


def test_a_huge_joint_name_is_not_echoed_in_full():
    """A 100 kB joint name (echoed values are shortened): the refusal is one short
    line that still says which check and that the name is unknown."""
    name = "x" * 100_000
    rep = validate(traj([0.0, 1.0], [0.0, 0.1], names=(name,)), limits(), REST)
    [r] = rep.refusals
    assert r.check == "joint_names" and "unknown to the robot" in r.message
    assert len(r.message) < 500 and "100002 characters" in r.message


def test_repeated_joint_refused():
    rep = validate(Trajectory(["a", "a"], [0.0], [[0.0, 0.0]]), limits(), REST)
    assert checks_of(rep) == {"repeated_joints"}
    one_line_naming(rep.refusals[0], "repeated_joints", "a")
    assert validate(Trajectory(["a", "b"], [0.0], [[0.0, 0.0]]), limits(), REST).ok


def test_joints_not_named_hold_their_current_position():
    cur = {"a": 0.0, "b": 0.3}
    rep = validate(traj([0.0, 1.0], [0.0, 0.1]), limits(), cur)
    assert rep.ok
    assert rep.trajectory.joint_names == ["a", "b"]
    np.testing.assert_array_equal(rep.trajectory.positions[:, 1], [0.3, 0.3])
    rep = validate(traj([0.0, 1.0], [0.0, 0.1]), limits(), {"a": 0.0})
    assert checks_of(rep) == {"held_joints"}
    one_line_naming(rep.refusals[0], "held_joints", "b")
    rep = validate(Trajectory(["a", "b"], [0.0], [[0.0, 0.0]]), limits(), None)
    assert rep.ok and any("start state is not checked" in n for n in rep.notes)


def test_joints_not_named_hold_the_given_set_point_and_start_from_it():
    """``hold``: the set-point the controller holds (a sagging robot measures below it). The joints
    not named stay there all along, also at the prepended point 0, which starts the named joints
    from their measured positions."""
    cur = {"a": 0.0, "b": 0.27}
    rep = validate(traj([0.5, 1.5], [0.0, 0.1]), limits(), cur, hold={"a": 0.01, "b": 0.3})
    assert rep.ok, rep.summary()
    np.testing.assert_array_equal(rep.trajectory.positions[:, 1], [0.3, 0.3, 0.3])
    np.testing.assert_array_equal(rep.trajectory.positions[:, 0], [0.0, 0.0, 0.1])
    assert any("hold their last commanded position: b" in n for n in rep.notes)
    assert validate(traj([0.0, 1.0], [0.0, 0.1]), limits(), {"a": 0.0}, hold={"a": 0.0, "b": 0.3}).ok


def test_a_hundred_thousand_unknown_names_give_a_few_refusals_and_their_count():
    """Each check lists the first LISTED problems by name and counts the rest in one refusal: the
    report of a 100 000-name trajectory stays a few lines (and no close-match hint is searched for
    the names not listed)."""
    from humanoid_control.bridge.checks import LISTED

    names = [f"X{k}" for k in range(100_000)]
    rep = validate(Trajectory(names, [1.0], np.full((1, 100_000), np.nan)), limits(), REST)
    unknown = [r for r in rep.refusals if r.check == "joint_names"]
    assert len(unknown) == LISTED + 1 and [r.joint for r in unknown[:LISTED]] == names[:LISTED]
    assert unknown[-1].value == 100_000 - LISTED and "99995 more names unknown to the robot" in unknown[-1].message
    finite = [r for r in rep.refusals if r.check == "finite"]
    assert len(finite) == LISTED + 1 and "99995 more joints" in finite[-1].message
    assert len(rep.summary().splitlines()) <= 3 * (LISTED + 1) + 1 + len(rep.notes)
    rep = validate(Trajectory(["a"] * 100_000, [1.0], np.zeros((1, 100_000))), limits(), REST)
    [r] = rep.refusals
    assert r.check == "repeated_joints" and "named 100000 times" in r.message and len(r.message) < 200


@pytest.mark.parametrize("field", ["times", "positions", "velocities", "current"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values_refused(field, bad):
    times, pos, vel, cur = [0.0, 1.0], [0.0, 0.1], [0.0, 0.0], dict(REST)
    if field == "times":
        times = [0.0, bad]
    elif field == "positions":
        pos = [0.0, bad]
    elif field == "velocities":
        vel = [0.0, bad]
    else:
        cur["b"] = bad
    rep = validate(traj(times, pos, vel), limits(), cur)
    assert not rep.ok and ("current_state" if field == "current" else "finite") in checks_of(rep)
    r = next(r for r in rep.refusals if r.check in ("finite", "current_state"))
    assert "\n" not in r.message and ("nan" in r.message or "inf" in r.message)
    if field in ("positions", "velocities"):
        one_line_naming(r, "finite", "a", 1)


def test_time_strictly_increasing_boundary():
    rep = validate(traj([0.0, 1.0, 1.0], [0.0, 0.1, 0.2]), limits(), REST)
    assert checks_of(rep) == {"time_order"}
    one_line_naming(rep.refusals[0], "time_order", None, 2)
    rep = validate(traj([0.0, 1.0, 0.9], [0.0, 0.1, 0.2]), limits(), REST)
    assert checks_of(rep) == {"time_order"}
    assert validate(traj([0.0, 1.0, 1.0 + 1e-6], [0.0, 0.1, 0.1]), limits(), REST).ok


def test_first_point_at_t_nonnegative_boundary():
    rep = validate(traj([-1e-9, 1.0], [0.0, 0.1]), limits(), REST)
    assert checks_of(rep) == {"start_time"}
    one_line_naming(rep.refusals[0], "start_time", None, 0)
    assert validate(traj([0.0, 1.0], [0.0, 0.1]), limits(), REST).ok


# ------------------------------------------------------------------------------ start state
def test_start_state_tolerance_boundary_and_approach():
    tol = BridgeSettings().start_tolerance
    assert tol == 0.01
    inside = traj([0.0, 1.0], [tol * (1 - EPS), 0.0])
    outside = traj([0.0, 1.0], [tol * (1 + EPS), 0.0])
    assert validate(inside, limits(), REST).ok
    rep = validate(outside, limits(), REST)
    assert checks_of(rep) == {"start_state"}
    one_line_naming(rep.refusals[0], "start_state", "a", 0)
    # approach on: the current position is prepended, at rest, and the approach respects
    # approach_speed (linear: peak speed d / T) and the velocity step 2 d / T² <= a_max
    far = traj([0.0, 1.0], [0.5, 0.5])
    rep = validate(far, limits(), REST, BridgeSettings(approach=True))
    assert rep.ok, rep.summary()
    tr = rep.trajectory
    np.testing.assert_array_equal(tr.positions[0], [0.0, 0.0])
    T = tr.times[1]
    assert pytest.approx(max(0.5 / 0.2, np.sqrt(2 * 0.5 / 10.0))) == T
    assert any("approach" in n for n in rep.notes)


def test_joint_missing_from_the_measured_state_is_refused_by_name():
    """A robot joint /joint_states does not give (or a missing joint_map entry) cannot be checked
    at the start nor held: a held_joints refusal naming it, whether the trajectory names it or
    not, with approach on too (a named one must not stop validate with a KeyError)."""
    for named, why in ((("a",), "not named by the trajectory"), (("b",), "not in the measured joint state")):
        for approach in (False, True):
            rep = validate(
                traj([0.0, 1.0], [0.0, 0.1], names=named), limits(), {"a": 0.0}, BridgeSettings(approach=approach)
            )
            assert checks_of(rep) == {"held_joints"} and [r.joint for r in rep.refusals] == ["b"]
            assert why in rep.refusals[0].message
    both = traj([0.0, 1.0], [[0.0, 0.0], [0.1, 0.1]], names=("a", "b"))
    assert validate(both, limits(), None).ok  # no measured state at all: the start is not checked (noted)


def test_first_point_after_zero_starts_from_current():
    rep = validate(traj([0.5, 1.0], [0.0, 0.1]), limits(), REST)
    assert rep.ok and rep.trajectory.times[0] == 0.0 and rep.trajectory.n_points == 3


# ------------------------------------------------------------------------------ position limits
@pytest.mark.parametrize("sign", [1, -1])
def test_position_limits_minus_margin_boundary(sign):
    m = BridgeSettings().position_margin
    assert m == 0.01
    bound = sign * (1.0 - m)
    cur = {"a": bound * (1 - EPS), "b": 0.0}
    assert validate(traj([0.0], [bound * (1 - EPS)]), limits(), cur).ok
    cur = {"a": bound * (1 + EPS), "b": 0.0}
    rep = validate(traj([0.0], [bound * (1 + EPS)]), limits(), cur)
    assert checks_of(rep) == {"position_limits"}
    one_line_naming(rep.refusals[0], "position_limits", "a", 0)
    # a larger margin refuses what the default accepts
    cur = {"a": bound * (1 - EPS), "b": 0.0}
    rep = validate(traj([0.0], [bound * (1 - EPS)]), limits(), cur, BridgeSettings(position_margin=0.02))
    assert checks_of(rep) == {"position_limits"}


@pytest.mark.parametrize("scale, ok", [(1 - EPS, True), (1 + EPS, False)])
def test_cubic_overshoot_between_points_is_checked(scale, ok):
    """Both points at 0.9 rad, velocities +v and -v over 1 s: q(s) = 0.9 + v s (1 - s), peak
    0.9 + v / 4 at mid-segment; the bound 0.99 is reached at v = 0.36, though both points are inside."""
    v = 0.36 * scale
    tr = traj([0.0, 1.0], [0.9, 0.9], [v, -v])
    peak = sample(tr, np.linspace(0, 1, 100001))[:, 0].max()  # the controller's command, sampled
    assert (peak <= 0.99) == ok
    rep = validate(tr, limits(a=100.0), {"a": 0.9, "b": 0.0})
    assert rep.ok == ok, rep.summary()
    if not ok:
        assert checks_of(rep) == {"position_limits"}
        one_line_naming(rep.refusals[0], "position_limits", "a", 0)
        assert rep.refusals[0].value == pytest.approx(peak, abs=1e-9)


# ------------------------------------------------------------------------------ velocity limits
@pytest.mark.parametrize("scale, ok", [(1 + EPS, True), (1 - EPS, False)])
def test_velocity_between_points_linear_boundary(scale, ok):
    """Linear 0 -> 0.5 rad over h: speed 0.5 / h, limit 2 rad/s reached at h = 0.25 s."""
    h = 0.25 * scale
    rep = validate(traj([0.0, h], [0.0, 0.5]), limits(a=1e3, lo=-5, hi=5), REST)
    assert rep.ok == ok, rep.summary()
    if not ok:
        assert checks_of(rep) == {"velocity_limits"}
        one_line_naming(rep.refusals[0], "velocity_limits", "a", 0)
        assert rep.refusals[0].value == pytest.approx(2.0, rel=2 * EPS)


@pytest.mark.parametrize("scale, ok", [(1 + EPS, True), (1 - EPS, False)])
def test_velocity_along_the_cubic_boundary(scale, ok):
    """Cubic rest to rest 0 -> 1 rad over h: both points at zero velocity, peak speed 1.5 / h at
    mid-segment; 2 rad/s is reached at h = 0.75 s."""
    h = 0.75 * scale
    tr = traj([0.0, h], [0.0, 1.0], [0.0, 0.0])
    peak = np.abs(sample_all(tr, np.linspace(0, h, 100001))[1][:, 0]).max()
    assert (peak <= 2.0) == ok
    rep = validate(tr, limits(a=1e3, lo=-5, hi=5), REST)
    assert rep.ok == ok, rep.summary()
    if not ok:
        assert checks_of(rep) == {"velocity_limits"}
        assert rep.refusals[0].value == pytest.approx(peak, rel=1e-8)


def test_given_velocity_above_the_limit_refused():
    tr = traj([0.0, 1.0], [0.0, 0.5], [0.0, 2.0 * (1 + EPS)])
    rep = validate(tr, limits(a=1e3, lo=-5, hi=5), REST)
    assert "velocity_limits" in checks_of(rep)
    tr = traj([0.0, 1.0], [0.0, 0.5], [0.0, 2.0 * (1 - EPS)])
    assert "velocity_limits" not in checks_of(validate(tr, limits(a=1e3, lo=-5, hi=5), REST))


# ------------------------------------------------------------------------------ acceleration limits
@pytest.mark.parametrize("scale, ok", [(1 + EPS, True), (1 - EPS, False)])
def test_acceleration_along_the_cubic_boundary(scale, ok):
    """Cubic rest to rest 0 -> 1 rad over h: acceleration 6 / h² at both ends; 10 rad/s² at
    h = sqrt(0.6) s."""
    h = np.sqrt(0.6) * scale
    tr = traj([0.0, h], [0.0, 1.0], [0.0, 0.0])
    taus = np.concatenate([[h * 1e-12], np.linspace(0, h, 100001)[1:-1], [h * (1 - 1e-12)]])  # inside the segment
    peak = np.abs(sample_all(tr, taus)[2][:, 0]).max()
    assert (peak <= 10.0) == ok
    rep = validate(tr, limits(v=100.0, lo=-5, hi=5), REST)
    assert rep.ok == ok, rep.summary()
    if not ok:
        assert checks_of(rep) == {"acceleration_limits"}
        one_line_naming(rep.refusals[0], "acceleration_limits", "a", 0)


@pytest.mark.parametrize("scale, ok", [(1 + EPS, True), (1 - EPS, False)])
def test_acceleration_velocity_step_linear_boundary(scale, ok):
    """Linear 0 -> 1 rad over h from rest: the velocity step 1 / h over h / 2 is 2 / h²; 10 rad/s²
    at h = sqrt(0.2) s."""
    h = np.sqrt(0.2) * scale
    rep = validate(traj([0.0, h], [0.0, 1.0]), limits(v=100.0, lo=-5, hi=5), REST)
    assert rep.ok == ok, rep.summary()
    if not ok:
        assert checks_of(rep) == {"acceleration_limits"}
        one_line_naming(rep.refusals[0], "acceleration_limits", "a")


def test_acceleration_between_interior_points_linear():
    """Segment speeds 0.25, 1, 0.25 rad/s over 2, 1, 2 s: steps of 0.75 rad/s over (2 + 1) / 2 s at
    points 1 and 2 (0.5 rad/s²); from and to rest 0.25 rad/s over 1 s (0.25 rad/s²)."""
    tr = traj([0.0, 2.0, 3.0, 5.0], [0.0, 0.5, 1.5, 2.0])
    assert validate(tr, limits(lo=-5, hi=5, v=100.0, a=0.5 * (1 + EPS)), REST).ok
    rep = validate(tr, limits(lo=-5, hi=5, v=100.0, a=0.5 * (1 - EPS)), REST)
    assert checks_of(rep) == {"acceleration_limits"}
    assert rep.refusals[0].point == 1


@pytest.mark.parametrize("scale, ok", [(1 - EPS, True), (1 + EPS, False)])
def test_speed_scale_stretches_time_boundary(scale, ok):
    """Cubic rest to rest 0 -> 0.5 rad in 0.2 s peaks at 3.75 rad/s; speed_scale stretches time by
    1 / speed_scale, so 2 rad/s is reached at speed_scale = 2 / 3.75."""
    fast = traj([0.0, 0.2], [0.0, 0.5], [0.0, 0.0])
    assert "velocity_limits" in checks_of(validate(fast, limits(a=1e3, lo=-5, hi=5), REST))
    s = 2.0 / 3.75 * scale
    rep = validate(fast, limits(a=1e3, lo=-5, hi=5), REST, BridgeSettings(speed_scale=s))
    assert rep.ok == ok, rep.summary()
    if ok:
        assert rep.trajectory.times[-1] == pytest.approx(0.2 / s)
        np.testing.assert_array_equal(rep.trajectory.velocities, 0.0)


@pytest.mark.parametrize(
    "kw", [dict(speed_scale=0.0), dict(speed_scale=1.5), dict(policy="slow"), dict(position_margin=-0.1)]
)
def test_bad_settings_raise(kw):
    with pytest.raises(BridgeError):
        BridgeSettings(**kw)


def test_ragged_trajectory_is_a_bridge_error():
    with pytest.raises(BridgeError, match="points"):
        Trajectory(["a", "b"], [0.0, 1.0], [[0.0, 0.0], [0.0]])


# ------------------------------------------------------------------------------ on HRP-2
@pytest.fixture(scope="module")
def hrp2():
    from humanoid_model import load_robot

    return load_robot("hrp2")


def test_hrp2_limits_and_self_collision(hrp2):
    lim = JointLimits.from_robot(hrp2)
    assert lim.names == hrp2.joint_names and np.all(lim.a_max == 10.0)
    np.testing.assert_array_equal(lim.v_max, hrp2.v_max)
    cur = hrp2.joint_positions(hrp2.q())
    j = "RARM_JOINT1"  # shoulder roll: positive swings the right arm into the body
    settings = BridgeSettings(self_collision=True, position_margin=0.0)
    free = traj([0.0, 3.0], [cur[j], 0.0], names=(j,))
    assert validate(free, lim, cur, settings, robot=hrp2).ok
    hit = traj([0.0, 3.0], [cur[j], 0.5], names=(j,))
    rep = validate(hit, lim, cur, settings, robot=hrp2)
    coll = [r for r in rep.refusals if r.check == "self_collision"]
    assert coll and all(r.point == 1 and "RARM" in r.message and "\n" not in r.message for r in coll)
    # the check is off by default
    assert "self_collision" not in checks_of(validate(hit, lim, cur, robot=hrp2))


@pytest.mark.parametrize("cubic", [False, True])
def test_sample_is_the_simulator_controllers_interpolation(cubic):
    """The bridge checks what the controller runs: `sample` (one time or many) equals the
    simulator's `JointTrajectory.sample` before, between, at and after the points."""
    from humanoid_sim.stages.actuators import JointTrajectory

    rng = np.random.default_rng(3)
    times = np.array([0.0, 0.3, 0.5, 1.2])
    P = rng.normal(size=(4, 2))
    V = rng.normal(size=(4, 2)) if cubic else None
    tr = Trajectory(["a", "b"], times, P, V)
    sim = JointTrajectory(times, P, V)
    taus = np.concatenate([[-0.1], times, rng.uniform(0, 1.2, 50), [1.5]])
    many = sample(tr, taus)
    for k, tau in enumerate(taus):
        np.testing.assert_allclose(sample(tr, tau), sim.sample(tau)[0], rtol=0, atol=1e-12)
        np.testing.assert_allclose(many[k], sim.sample(tau)[0], rtol=0, atol=1e-12)
