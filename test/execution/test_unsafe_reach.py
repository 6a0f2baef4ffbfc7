"""The unsafe multi-contact reach (Chardonnet 2009, §4.3 item 1; its F3): HRP-2 on its platform
reaches over the table while leaning on it with one hand, playing the contact planner's motion
(Escande 2008, §5.4.1, the `table_can` scene, μ 0.4 between all objects) on its position servos
with no balance control. The thesis saw the feet lift off the platform and slide backward until the
legs touched the table, the hand keeping the robot from pivoting sideways.

Here: the planner's motion at its default caps (the thesis's 10 deg/s), its own timing, played by
the PD servos of the open-loop walking plans (`WALK_GAIN_SCALE`: 30 Hz), through the touches of
other links, until 5 s after the transition that releases the right foot. The whole-body controller
executes the same scene's plan without a fall (test_execute_stairs_can.py): it keeps the contact
forces in their cones, which the servos cannot."""

import json

import numpy as np
import pytest

from humanoid_control.walking_ik import WALK_GAIN_SCALE
from humanoid_control.wbc.executor import ExecutionSettings
from humanoid_execution.run import RunSettings, execute
from humanoid_stack.cli import main

AFTER = 5.0  # [s] (chosen) simulated after the right foot's planned release: the legs reach the table in it
OFF = ExecutionSettings().touch_distance  # [m] a contact point this far off its placement no longer touches
SIDEWAYS = np.radians(10.0)  # [rad] (chosen) a base rolled this much further than planned is falling sideways
TABLE = ("table_top", "table_leg_fl", "table_leg_fr", "table_leg_bl", "table_leg_br")
LEG_LINKS = (
    "LLEG_LINK0",
    "LLEG_LINK1",
    "LLEG_LINK2",
    "LLEG_LINK3",
    "RLEG_LINK0",
    "RLEG_LINK1",
    "RLEG_LINK2",
    "RLEG_LINK3",
)


@pytest.fixture(scope="module")
def reach(tmp_path_factory):
    path = tmp_path_factory.mktemp("reach") / "PLAN.json"
    assert main(["plan", "table_can", "--quiet", "--output", str(path)]) == 0
    plan = json.loads(path.read_text())
    release = next(tr for tr in plan["transitions"] if tr["kind"] == "released" and tr["location"] == "r_sole")
    hand = next(tr for tr in plan["transitions"] if tr["kind"] == "added" and tr["location"] == "r_hand")
    settings = RunSettings(
        controller="pd", gain_scale=WALK_GAIN_SCALE, retime=False, through_touches=True, until=release["t"][1] + AFTER
    )
    run = execute(path, settings)
    print("\n".join(run.report.lines()))
    start = {c["location"]: np.asarray(c["position"]) for c in plan["stances"][0]["contacts"]}
    return run, hand["t"][1], release["t"][1], start


def _held(run, location):
    (h,) = [h for h in run.report.held if h.location == location and h.surface == "platform_top"]
    return h


def _lift_off(run, foot) -> float:
    """The first time [s] ``foot``'s contact point is more than `OFF` above where it started (its
    placement on the platform), inf if never."""
    t = np.asarray(run.log.t)
    points = np.asarray(run.log.contact_points)[:, run.log.locations.index(foot)]
    off = np.flatnonzero(points[:, 2] - points[0, 2] > OFF)
    return float(t[off[0]]) if off.size else float("inf")


@pytest.mark.slow
@pytest.mark.spec("000", "F3")
def test_the_feet_stand_still_until_the_hand_is_on_the_table(reach):
    run, hand_down, _, start = reach
    t = np.asarray(run.log.t)
    points = np.asarray(run.log.contact_points)
    for foot in ("l_sole", "r_sole"):
        p = points[t <= hand_down, run.log.locations.index(foot)]
        assert np.linalg.norm(p - start[foot], axis=1).max() <= OFF, foot  # on the planned stance's sole point


@pytest.mark.slow
@pytest.mark.spec("000", "F3")
def test_leaning_on_the_table_the_feet_lift_off_and_slide_backward(reach):
    run, hand_down, release, _ = reach
    for foot in ("l_sole", "r_sole"):
        h = _held(run, foot)
        assert h.lift > OFF and hand_down < _lift_off(run, foot), h  # off the platform the plan stands on
        assert h.slide_vector[0] < OFF, h  # never towards the table (+x)
    r = _held(run, "r_sole")
    assert r.slide_t <= release and r.slide_vector[0] < -OFF, r  # backward, before its planned release


@pytest.mark.slow
@pytest.mark.spec("000", "F3")
def test_after_the_feet_lift_a_leg_touches_the_table(reach):
    run, _, _, _ = reach
    legs = [t for t, link, bodies in run.report.touches if link in LEG_LINKS and set(bodies) & set(TABLE)]
    assert legs, run.report.touches
    assert min(legs) > max(_lift_off(run, f) for f in ("l_sole", "r_sole")), (legs, run.report.touches)


@pytest.mark.slow
@pytest.mark.spec("000", "F3")
def test_the_robot_does_not_fall_or_roll_sideways(reach):
    run, _, _, _ = reach
    assert not run.log.fell, run.log.fall_reason
    assert run.report.base_rotation_max[0] < SIDEWAYS, np.degrees(run.report.base_rotation_max)
