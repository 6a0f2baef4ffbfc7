"""The execution report's measures of what moved where the plan held still (docs/execution.md): a
held contact's lift and slide, the base's rotation away from the plan, the other links' touches.
Checked on a made run whose answers are known by construction."""

from types import SimpleNamespace

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.wbc.reference import ContactPhase
from humanoid_control.wbc.report import execution_report


def _run():
    """A 1 s run at 1 kHz on a 10 deg slope: the foot's phase holds it over [0.2, 0.6] s. The foot's
    origin climbs 4 mm along the slope's normal and slides 3 mm down-slope and 1 mm sideways by 0.5 s,
    then returns; the base yaws 2 deg away from a reference that rolls 5 deg."""
    t = np.arange(1, 1001) * 1e-3
    slope = pin.utils.rpyToMatrix(0.0, np.radians(10.0), 0.0)
    normal, down = slope[:, 2], slope[:, 0]
    origin = np.array([0.3, -0.1, 0.05])
    bump = np.clip(1.0 - np.abs(t - 0.5) / 0.2, 0.0, 1.0)  # 0 outside [0.3, 0.7], 1 at 0.5 s
    foot = origin + bump[:, None] * (0.004 * normal + 0.003 * down + 0.001 * slope[:, 1])
    foot[t > 0.6] += 0.05 * normal  # lifted after its phase: not held any more
    planned = pin.Quaternion(pin.utils.rpyToMatrix(np.radians(5.0), 0.0, 0.0)).coeffs()
    measured = pin.Quaternion(
        pin.utils.rpyToMatrix(0.0, 0.0, np.radians(2.0)) @ pin.utils.rpyToMatrix(np.radians(5.0), 0.0, 0.0)
    ).coeffs()
    q_ref = np.tile(np.r_[0.0, 0.0, 0.7, planned, 0.0], (3, 1))
    ref = SimpleNamespace(
        t=np.array([0.0, 0.5, 1.0]),
        q=q_ref,
        com=np.zeros((3, 3)),
        source="made",
        end=1.0,
        phases=[ContactPhase("r_sole", 0.2, 0.6, placement=pin.SE3(slope, origin), surface="ramp")],
        phase_at=lambda loc, clock: None,
        next_phase=lambda loc, clock: None,
    )
    n = len(t)
    log = SimpleNamespace(
        t=list(t),
        com=list(np.zeros((n, 3))),
        cop_margin=list(np.full((n, 1), np.nan)),
        cone_ratio=list(np.full((n, 1), np.nan)),
        torque_ratio=list(np.zeros(n)),
        solved=list(np.ones(n, bool)),
        cycle_time=list(np.zeros(n)),
        contact_points=list(foot[:, None, :]),
        orientation=list(np.tile(measured, (n, 1))),
        touches=[(0.8, "RLEG_LINK2", ["table_top"])],
        locations=["r_sole"],
        fell=False,
        fall_reason="",
        wall_time=1.0,
    )
    executor = SimpleNamespace(
        ref=ref,
        ctrl=SimpleNamespace(contacts={}),
        clocks=list(t),
        state="done",
        clock=1.0,
        reason="",
        late_contacts=[],
        early_contacts=[],
        events=[],
    )
    return execution_report(executor, log), down, slope[:, 1]


def test_a_held_foot_s_lift_and_slide_are_measured_in_its_surface_only_while_held():
    report, down, side = _run()
    (h,) = report.held
    assert (h.location, h.surface, h.start, h.end) == ("r_sole", "ramp", 0.2, 0.6)
    assert h.lift == pytest.approx(0.004, abs=1e-9) and h.lift_t == pytest.approx(0.5, abs=1e-9)
    assert h.slide == pytest.approx(np.hypot(0.003, 0.001), abs=1e-9) and h.slide_t == pytest.approx(0.5, abs=1e-9)
    np.testing.assert_allclose(
        h.slide_vector, 0.003 * down + 0.001 * side, atol=1e-9
    )  # the 5 cm lift after 0.6 s not counted


def test_the_base_s_rotation_from_the_plan_is_a_world_rotation_vector():
    report, _, _ = _run()
    np.testing.assert_allclose(report.base_rotation_max, [0.0, 0.0, np.radians(2.0)], atol=1e-9)


def test_the_report_lists_the_other_links_touches_and_prints_every_measure():
    report, _, _ = _run()
    assert report.touches == [[0.8, "RLEG_LINK2", ["table_top"]]]
    text = "\n".join(report.lines())
    assert "r_sole" in text and "lift   4.0 mm at 0.50 s" in text and "slide   3.2 mm" in text
    assert "about x 0.0 deg, y 0.0 deg, z 2.0 deg" in text
    assert "RLEG_LINK2 on table_top at 0.80 s" in text
    assert report.as_dict()["held"][0]["lift"] == pytest.approx(0.004)
