"""The flat-walk contact plan (`humanoid-stack plan flat --goal 0.8,0`, 9 stances) executed in
closed loop by HRP-2 in the simulator (`humanoid_execution.run.execute`, docs/execution.md):

- with the whole-body controller: no fall, every final contact within 1 cm and 2 deg of its
  planned placement, the CoM within 2 cm RMS of the planned CoM (the posture playback of
  Chardonnet 2009, §5.2.3: "the CoM stays close"; 2 cm is the acceptance item's bound);
- with the joint trajectory alone on the simulator's PD actuators (the robot bridge's way to a
  position-controlled robot), the same plan makes HRP-2 fall: what the controller is for.

The plan uses brisk caps (60 deg/s, 0.3 m/s, 30 deg/s; the controller slows it where its dynamics
need it) so that one run takes ~25 s; the plan is the session's (test/conftest.py), the run the module's."""

import numpy as np
import pytest

from humanoid_execution.run import RunSettings, execute

POSITION_TOL = 0.01  # [m] a final contact within 1 cm of its planned placement (acceptance item)
ANGLE_TOL = np.radians(2.0)  # [rad] and within 2 deg (acceptance item)
COM_RMS = 0.02  # [m] the CoM within 2 cm RMS of the planned CoM (acceptance item, 000 F4)


@pytest.fixture(scope="module")
def plan_file(flat_plan):
    return flat_plan


@pytest.fixture(scope="module")
def walked(plan_file):
    run = execute(plan_file, RunSettings())
    print("\n".join(run.report.lines()))
    return run


@pytest.mark.slow
@pytest.mark.spec("000", "F4")
def test_the_flat_walk_plan_is_walked_without_a_fall_and_its_com_followed(walked):
    report = walked.report
    assert report.success, report.reason
    assert walked.executor.state == "done"
    assert report.com_rms <= COM_RMS, report.com_rms
    assert report.unsolved == 0


@pytest.mark.slow
def test_each_final_contact_is_where_the_plan_puts_it(walked):
    finals = [c for c in walked.report.contacts if c.kind == "final"]
    assert {c.location for c in finals} == {"l_sole", "r_sole"}
    for c in finals:
        assert c.position_error <= POSITION_TOL, c
        assert c.angle_error <= ANGLE_TOL, c
    # the feet reached the goal: both soles 0.8 m ahead, about (the plan's last stance)
    assert all(c.measured[0] > 0.6 for c in finals), finals


@pytest.mark.slow
def test_every_landing_is_within_a_centimetre_of_its_placement(walked):
    landings = [c for c in walked.report.contacts if c.kind == "landing"]
    assert len(landings) == 4  # the plan's four steps
    for c in landings:
        assert c.position_error <= POSITION_TOL and c.angle_error <= ANGLE_TOL, c


@pytest.mark.slow
def test_the_joint_trajectory_alone_on_the_pd_actuators_falls(plan_file):
    run = execute(plan_file, RunSettings(controller="pd"))
    assert not run.report.success and "fell" in run.report.reason, run.report.reason
