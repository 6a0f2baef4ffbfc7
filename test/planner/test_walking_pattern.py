"""Walking pattern (humanoid_planner.walking_pattern): footsteps, Kajita's ZMP preview control
of the cart-table model, swing feet. Numbers and bounds: docs/walking.md."""

import numpy as np
import pytest

from humanoid_model import load_robot
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.walking_pattern import PreviewController, WalkParameters, foot_geometry, plan_pattern
from humanoid_planner.walking_pattern.pattern import support_polygon
from humanoid_planner.walking_pattern.preview import GRAVITY

ZMP_TRACKING_BOUND = 0.005  # [m] chosen: under a tenth of the sole's 65 mm half width; measured 3.1 mm at 1.6 s


@pytest.fixture(scope="module")
def geometry():
    return foot_geometry(load_robot("hrp2"))


@pytest.fixture(scope="module")
def pattern(geometry):
    return plan_pattern(WalkParameters(n_steps=4, step_length=0.2), geometry)


def _margin(poly, p):
    """Signed distance of p inside the counter-clockwise polygon (positive inside) [m]."""
    d = []
    for a, b in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        e = b - a
        n = np.array([e[1], -e[0]]) / np.linalg.norm(e)
        d.append(-(p - a) @ n)
    return min(d)


def test_feet_geometry_is_hrp2s(geometry):
    """Sole centres ±0.105 m (ankle ±0.095 [HRP2-W1] + 0.010 outward [HRP2-J2]), soles 0.23 x 0.13 m
    ([HRP2-K1]), CoM 0.809 m above the soles at half-sitting (Kajita 2003 used 0.814 m)."""
    assert geometry.half_spacing == pytest.approx(0.105, abs=1e-9)
    assert (2 * geometry.half_length, 2 * geometry.half_width) == pytest.approx((0.23, 0.13), abs=1e-9)
    assert 0.80 < geometry.z_c < 0.814


def test_footsteps_alternate_and_advance_by_the_step_length(pattern, geometry):
    steps = pattern.steps
    assert [s.foot for s in steps] == ["r", "l", "r", "l"]
    for i, s in enumerate(steps, start=1):
        assert s.target[0] == pytest.approx(geometry.x0 + 0.2 * i)
        assert s.target[1] == pytest.approx(-0.105 if s.foot == "r" else 0.105)
        assert s.t_land - s.t_lift == pytest.approx(0.8)
    assert steps[1].t_lift - steps[0].t_lift == pytest.approx(1.0)  # 6 steps in 6 s (Chardonnet 2009, §4.4.2)


def test_preview_zmp_tracks_the_reference_with_a_1_6_s_preview_not_0_8_s(geometry):
    """Kajita 2003: with a 1.6 s preview the ZMP follows the reference closely; a short preview
    leaves large errors (here 0.8 s: 19-51 mm), so the bound separates the two."""
    errs = {}
    for h in (0.8, 1.6):
        p = plan_pattern(WalkParameters(n_steps=4, horizon=h, t_start=h + 0.2), geometry)
        errs[h] = np.abs(p.zmp - p.zmp_ref).max()
    assert errs[1.6] < ZMP_TRACKING_BOUND < errs[0.8]


def test_cart_table_zmp_of_the_com_trajectory_follows_the_reference(pattern, geometry):
    """ZMP recomputed from the CoM samples alone, p = c - z_c/g·c̈ with c̈ by central differences
    (Kajita 2003 eq. 2), stays within the tracking bound of the reference: the CoM is the cart-table
    solution, not only the controller's internal state."""
    c, dt = pattern.com[:, :2], pattern.params.dt
    acc = (c[2:] - 2 * c[1:-1] + c[:-2]) / dt**2
    p = c[1:-1] - geometry.z_c / GRAVITY * acc
    assert np.abs(p - pattern.zmp_ref[1:-1]).max() < ZMP_TRACKING_BOUND


def test_zmp_stays_in_the_support_polygon_and_the_com_between_the_feet(pattern):
    """The ZMP inside the current support polygon (the stance sole in single support, the hull of
    both in double support) at every sample; the CoM projection inside the hull of both feet.
    (The CoM leaves the stance sole by up to 14 mm near the end of single support: dynamic
    walking, docs/walking.md.)"""
    zmp_margin = min(_margin(pattern.polygon(k), pattern.zmp[k]) for k in range(len(pattern.t)))
    both = [
        support_polygon([pattern.feet["r"][k], pattern.feet["l"][k]], pattern.geometry)
        for k in range(0, len(pattern.t), 5)
    ]
    com_margin = min(_margin(poly, pattern.com[5 * i, :2]) for i, poly in enumerate(both))
    assert zmp_margin > 0.03  # measured 62 mm
    assert com_margin > 0.0


def test_com_height_is_constant_and_walk_ends_still_over_the_feet(pattern, geometry):
    assert np.ptp(pattern.com[:, 2]) == 0.0
    last = (pattern.steps[-1].target[0] + pattern.steps[-2].target[0]) / 2
    assert pattern.com[-1, :2] == pytest.approx([last, 0.0], abs=0.002)
    assert np.abs(pattern.com_vel[-1]).max() < 0.01
    assert pattern.com[0, :2] == pytest.approx(geometry.com_xy, abs=1e-12)  # starts at the robot's CoM
    assert np.abs(pattern.com_vel[0]).max() == 0.0


def test_swing_feet_lift_and_land_with_zero_velocity_and_reach_the_apex(pattern, geometry):
    dt = pattern.params.dt
    for s in pattern.steps:
        f = pattern.feet[s.foot]
        a, b = round(s.t_lift / dt), round(s.t_land / dt)
        v = np.diff(f, axis=0) / dt
        # mean speed over the first / last 5 ms interval: ½·a·dt <= 4 mm/s for a profile that starts at
        # rest (measured 3.9 mm/s, the height's sin²); a linear start would give 0.5 m/s (0.4 m in 0.8 s)
        assert np.abs(v[a]).max() < 0.01 and np.abs(v[b - 1]).max() < 0.01
        assert f[a : b + 1, 2].max() == pytest.approx(geometry.sole_z + 0.05, abs=1e-6)
        later = [n for n in pattern.steps if n.foot == s.foot and n.t_lift > s.t_lift]
        end = round(later[0].t_lift / dt) if later else len(f) - 1
        assert f[b : end + 1, :2] == pytest.approx(np.tile(s.target, (end + 1 - b, 1)), abs=1e-12)
        other = pattern.feet["l" if s.foot == "r" else "r"]
        assert np.ptp(other[a : b + 1], axis=0).max() == 0.0  # the stance foot does not move


def test_preview_gains_match_the_closed_loop_riccati_solution():
    """The preview gains decay (a far future matters less) and a constant reference is tracked
    without offset (integral action)."""
    ctl = PreviewController(0.8, dt=0.005, horizon=1.6)
    assert ctl.n_preview == 320
    assert abs(ctl.G_p[-1]) < 1e-2 * abs(ctl.G_p[0])  # measured 0.8 %
    _, zmp = ctl.run(np.full(1000, 0.1), x0=0.0)  # a 0.1 m step, 5 s
    assert zmp[-1] == pytest.approx(0.1, abs=1e-4)


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"n_steps": 0}, "steps"),
        ({"step_length": 0.5}, "step_length"),
        ({"t_ss": -1.0}, "t_ss"),
        ({"first_foot": "x"}, "first_foot"),
    ],
)
def test_bad_walk_parameters_are_one_line_errors(kw, field):
    with pytest.raises(PlanningError, match=f"walk: field '{field}'") as e:
        WalkParameters(**kw)
    assert "\n" not in str(e.value)


def test_walkgen_swing_lands_vertically_with_the_quartics_deceleration(geometry):
    """The thesis's generator's swing (Stasse et al. 2008, `WalkParameters.walkgen_2008`): height
    16h·τ²(1-τ)², apex h at mid-swing, zero vertical speed at lift-off and touch-down but a landing
    deceleration of 32h/t_ss² (the smooth profile's sin² has 2π²h/t_ss²); the foot moves horizontally only
    in the middle 90 % of the single support (vertical lift-off and landing)."""
    p = WalkParameters.walkgen_2008(n_steps=2, dt=0.001)
    assert (p.t_ss, p.t_ds, p.step_height, p.hold) == (0.78, 0.02, 0.12, "waist")
    pat = plan_pattern(p, geometry)
    s, dt = pat.steps[0], p.dt
    f = pat.feet[s.foot]
    a, b = round(s.t_lift / dt), round(s.t_land / dt)
    z = f[a : b + 1, 2] - geometry.sole_z
    assert z.max() == pytest.approx(0.12, abs=1e-6) and np.argmax(z) == pytest.approx((b - a) / 2, abs=1)
    acc_end = (z[-3] - 2 * z[-2] + z[-1]) / dt**2  # one sample before touch-down
    assert acc_end == pytest.approx(32 * 0.12 / 0.78**2, rel=0.02)  # 6.31 m/s²; sin² would give 3.89
    assert np.abs(np.diff(z[:2])).max() / dt < 0.01 and np.abs(np.diff(z[-2:])).max() / dt < 0.01
    edge = round(0.05 * 0.78 / dt)  # the first and last 5 % of the single support
    assert np.ptp(f[a : a + edge, :2], axis=0).max() == 0.0
    assert np.ptp(f[b - edge + 1 : b + 1, :2], axis=0).max() == 0.0
    assert np.ptp(f[a : b + 1, 0]) == pytest.approx(0.2)  # the first footprint is one step length ahead


def test_bad_swing_and_hold_are_one_line_errors():
    for kw, field in (({"swing": "spline"}, "swing"), ({"hold": "head"}, "hold")):
        with pytest.raises(PlanningError, match=f"walk: field '{field}'") as e:
            WalkParameters(**kw)
        assert "\n" not in str(e.value)
