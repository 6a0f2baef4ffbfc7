"""The joint limits as acceleration bounds (`humanoid_control.wbc.limits.JointAccelerationBounds`),
with HRP-2's joint limits and speed limits.

The bounds are checked on random states (inside and outside the limits) and by integrating the
joints (semi-implicit Euler at the control period, as the simulator does) with accelerations at
the bounds for many cycles.

The braking term alone (a = 2 (q_max − q − h q̇) / h²) is an underdamped oscillator: a joint
driven at it from the speed limit V passes its limit by h V e^(−3π/4) / √2 = 0.0670 h V (the
derivation is in the module docstring of `limits`). The viability term stops every joint at its
limit: the integration below checks both, the second on a copy of the bounds without that term.
"""

import numpy as np
import pytest

from humanoid_control.exceptions import ControlError
from humanoid_control.wbc.limits import JointAccelerationBounds
from humanoid_model.robot import load_robot

DT = 1e-3  # [s] the controller's period
H = 0.1  # [s] the documented braking horizon h_p
A_MAX = 100.0  # [rad/s²] the documented largest acceleration
OVERSHOOT = np.exp(-3 * np.pi / 4) / np.sqrt(2)  # 0.0670: the module docstring's derivation above


@pytest.fixture(scope="module")
def robot():
    return load_robot("hrp2")


@pytest.fixture(scope="module")
def bounds(robot):
    return JointAccelerationBounds(robot.q_lower, robot.q_upper, robot.v_max, DT, horizon=H, a_max=A_MAX)


def _random_states(robot, rng, n, beyond=0.0, speed=1.5):
    """n states: angles in the limits widened by ``beyond`` [rad], speeds up to ``speed`` v_max."""
    span = robot.q_upper - robot.q_lower
    q = rng.uniform(robot.q_lower - beyond * span, robot.q_upper + beyond * span, size=(n, len(span)))
    v = rng.uniform(-speed, speed, size=(n, len(span))) * robot.v_max
    return q, v


def test_the_bounds_are_ordered_at_most_a_max_and_contain_the_stopping_acceleration(robot, bounds):
    rng = np.random.default_rng(0)
    for beyond, speed in ((0.0, 1.0), (0.2, 1.5), (0.0, 0.05)):  # inside; outside and too fast; slow
        q, v = _random_states(robot, rng, 2000, beyond, speed)
        lo, hi = bounds.bounds(q, v)
        stop = np.clip(-v / DT, -A_MAX, A_MAX)  # stopping in one cycle, as far as a_max allows
        assert np.all(lo <= hi)
        assert np.all(np.abs(lo) <= A_MAX) and np.all(np.abs(hi) <= A_MAX)
        assert np.all(lo <= stop) and np.all(stop <= hi)


def test_a_joint_at_rest_well_inside_its_limits_may_accelerate_by_a_max_both_ways(robot, bounds):
    q = 0.5 * (robot.q_lower + robot.q_upper)
    lo, hi = bounds.bounds(q, np.zeros_like(q))
    wide = (robot.q_upper - robot.q_lower) / 2 > A_MAX * H**2 / 2  # the braking term allows a_max
    assert wide.sum() > 20
    assert np.all(hi[wide] == A_MAX) and np.all(lo[wide] == -A_MAX)


def test_a_joint_beyond_a_limit_is_never_pushed_further_out(robot, bounds):
    rng = np.random.default_rng(1)
    n = 500
    span = robot.q_upper - robot.q_lower
    past = rng.uniform(1e-4, 0.2, size=(n, len(span))) * span
    v_out = rng.uniform(0.0, 1.0, size=(n, len(span))) * robot.v_max  # moving outwards or at rest
    _, hi = bounds.bounds(robot.q_upper + past, v_out)
    assert np.all(hi <= 0.0)
    lo, _ = bounds.bounds(robot.q_lower - past, -v_out)
    assert np.all(lo >= 0.0)


def test_the_speed_bound_keeps_the_next_speed_within_the_speed_limit(robot, bounds):
    rng = np.random.default_rng(2)
    q, v = _random_states(robot, rng, 2000, 0.0, 1.0)
    lo, hi = bounds.bounds(q, v)
    assert np.all(v + hi * DT <= robot.v_max * (1 + 1e-12))
    assert np.all(v + lo * DT >= -robot.v_max * (1 + 1e-12))


_RUNS = {}


def _integrate(robot, bounds, policy, seed, steps=2000, n=50):
    """Worst position overshoot (30,) [rad] and worst speed excess [rad/s] of n joints' sets
    started at rest at random angles inside the limits, driven by ``policy`` within the bounds
    (2 s: every joint of HRP-2 crosses its range at its speed limit in less than 1 s)."""
    key = (type(bounds).__name__, policy, seed)
    if key in _RUNS:
        return _RUNS[key]
    rng = np.random.default_rng(seed)
    q = rng.uniform(robot.q_lower, robot.q_upper, size=(n, len(robot.q_lower)))
    v = np.zeros_like(q)
    worst = np.zeros(q.shape[1])
    speed = 0.0
    for k in range(steps):
        lo, hi = bounds.bounds(q, v)
        if policy == "upper":
            a = hi
        elif policy == "lower":
            a = lo
        elif policy == "switch":  # full speed one way, then the other, every 0.3 s
            a = np.where((k // 300 + np.arange(n)[:, None]) % 2 == 0, hi, lo)
        else:
            a = rng.uniform(lo, hi)
        v = v + a * DT
        q = q + v * DT
        worst = np.maximum(worst, np.maximum(q - robot.q_upper, robot.q_lower - q).max(axis=0))
        speed = max(speed, float((np.abs(v) - robot.v_max).max()))
    _RUNS[key] = worst, speed
    return worst, speed


@pytest.mark.parametrize("policy", ["upper", "lower", "switch", "random"])
def test_joints_driven_at_their_bounds_keep_their_speed_limits_and_never_pass_their_limits(robot, bounds, policy):
    worst, speed = _integrate(robot, bounds, policy, 3)
    assert speed <= 1e-12  # the speed bound is exact for this integrator
    assert np.all(worst <= 1e-12)  # the viability term (module docstring of `limits`): round-off only


def test_a_joint_driven_at_its_upper_bound_comes_to_rest_at_its_limit(robot, bounds):
    """The viability term is not a margin: under the "upper" policy every joint ends its 2 s at
    rest on its upper limit, not short of it."""
    rng = np.random.default_rng(3)
    q = rng.uniform(robot.q_lower, robot.q_upper, size=(50, len(robot.q_lower)))
    v = np.zeros_like(q)
    for _ in range(2000):
        v = v + bounds.bounds(q, v)[1] * DT
        q = q + v * DT
    assert np.abs(robot.q_upper - q).max() <= 1e-9
    assert np.abs(v).max() <= 1e-9


class _BrakingOnly(JointAccelerationBounds):
    """The bounds without their viability term (the braking and speed terms alone)."""

    def _viable_speed(self, room):
        return np.full_like(room, np.inf)


def test_without_the_viability_term_the_braking_term_overshoots_as_derived(robot):
    """What the viability term prevents: the braking term alone lets the joints pass their limits by
    up to the derived 0.067 h v_max (measured: 0.966 of it for the joints that reach their speed
    limit before braking, the discrete integration at 1 ms; less for the two whose range is too
    short for it)."""
    braking = _BrakingOnly(robot.q_lower, robot.q_upper, robot.v_max, DT, horizon=H, a_max=A_MAX)
    worst, _ = _integrate(robot, braking, "upper", 5)
    ratio = worst / (OVERSHOOT * H * robot.v_max)
    assert np.all(ratio <= 1.0)
    assert np.median(ratio) >= 0.9


def test_unbounded_joints_get_a_max_both_ways():
    b = JointAccelerationBounds([-np.inf, -1.0], [np.inf, 1.0], [np.inf, 2.0], DT, horizon=H, a_max=A_MAX)
    lo, hi = b.bounds(np.array([1e3, 0.0]), np.array([50.0, 0.0]))
    assert hi[0] == A_MAX and lo[0] == -A_MAX


@pytest.mark.parametrize("field", ["dt", "horizon", "a_max"])
@pytest.mark.parametrize("value", [0.0, -1.0, np.inf, np.nan])
def test_a_period_horizon_or_deceleration_that_is_not_a_positive_number_is_refused(field, value):
    """The braking and viability terms divide by them or take their square root: an infinite a_max
    would give inf − inf in the viable speed."""
    kw = {"dt": DT, "horizon": H, "a_max": A_MAX, field: value}
    with pytest.raises(ControlError, match=f"field '{field}' must be a finite number > 0"):
        JointAccelerationBounds([-1.0], [1.0], [2.0], kw.pop("dt"), **kw)
