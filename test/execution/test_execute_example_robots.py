"""Talos (example-robot-data's ``talos_reduced.urdf``) and Unitree G1 (``g1_29dof_rev_1_0.urdf``),
from the optional ``robots`` extra, walk their planned 0.2 m on ``flat`` in the simulator under the
whole-body controller (`humanoid_execution.run.execute` with ``robot``, docs/execution.md "Talos and
G1"): the plan of test_talos_plans.py's and test_g1_plans.py's walk (`support.robot_plans.walk`),
quasi-static and retimed as `plan --time-optimal` retimes it. Each run: no fall, no unsolved QP, both soles' final contacts within
1 cm and 2 deg of the plan's last stance, the CoM within 2 cm RMS of the planned CoM (the bounds
of HRP-2's flat walk, test_execute_flat_walk.py).

Their soles are found from their geometry (docs/robots.md): the face the foot stands on, the points
within `SOLE_CONTACT_BAND` of its lowest, the simulator's own contact patch rule (Talos: its sole
frames and foot meshes; G1: the bottom poles of its ankles' four contact spheres). Taken as the
geometry's bounding box, the soles were 10-18 mm (Talos) and 5-10 mm (G1) wider than what touches:
the controller put the centre of pressure past the real edge and both walks fell (Talos at 4.2 s,
G1 at 19.6 s). Each plan is made once per robot (10-20 s); a time-optimal run takes about a minute,
a quasi-static one (marked ``long``) one and a half."""

from __future__ import annotations

import numpy as np
import pytest
from support.robot_data import G1, TALOS, erd_robot
from support.robot_plans import walk

pytestmark = pytest.mark.skipif(
    erd_robot(TALOS) is None, reason="optional extra example-robot-data not installed (pip install '.[robots]')"
)

ROBOTS = {"talos": TALOS, "g1": G1}

POSITION_TOL = 0.01  # [m] a final contact within 1 cm of its planned placement (HRP-2's bound)
ANGLE_TOL = np.radians(2.0)  # [rad] and within 2 deg
COM_RMS = 0.02  # [m] the CoM within 2 cm RMS of the planned CoM (HRP-2's bound, acceptance item 000 F4)


@pytest.fixture(scope="module", params=sorted(ROBOTS))
def robot_plan(request):
    """(robot URDF path, the quasi-static PLAN.json document of its 0.2 m walk on flat,
    `plan_document`)."""
    from humanoid_planner.planning import plan_document

    urdf = erd_robot(ROBOTS[request.param])
    result = walk(urdf)
    assert result.success, result.reason
    return urdf, plan_document(result)


def _run(urdf, doc):
    from humanoid_execution.run import RunSettings, execute

    run = execute(doc, RunSettings(robot=str(urdf)))
    print("\n".join(run.report.lines()))
    return run


@pytest.fixture(scope="module")
def walked(robot_plan):
    return _run(*robot_plan)


@pytest.fixture(scope="module")
def walked_fast(robot_plan):
    """The plan retimed as `plan --time-optimal` retimes it (`retime_plan`), executed."""
    from humanoid_model.robot import load_robot
    from humanoid_model.scene import load_scene
    from humanoid_planner.motion.contact_topp import retime_plan

    urdf, doc = robot_plan
    retimed = retime_plan(doc, load_robot(urdf), load_scene("flat"))
    assert retimed.after < retimed.before
    return _run(urdf, retimed.doc)


def test_the_sole_face_band_is_the_simulators_contact_patch_tolerance():
    from humanoid_model.contact_location import SOLE_CONTACT_BAND
    from humanoid_sim.collision.narrow_phase import PATCH_TOLERANCE

    assert SOLE_CONTACT_BAND == PATCH_TOLERANCE


def _check_walked(run, doc) -> None:
    report = run.report
    assert report.success, report.reason
    assert run.executor.state == "done"
    assert report.unsolved == 0
    assert report.com_rms <= COM_RMS, report.com_rms
    finals = [c for c in report.contacts if c.kind == "final"]
    assert {c.location for c in finals} == {"l_sole", "r_sole"}
    last = {c["location"]: np.asarray(c["position"], float) for c in doc["stances"][-1]["contacts"]}
    for c in finals:
        assert c.position_error <= POSITION_TOL and c.angle_error <= ANGLE_TOL, c
        assert np.linalg.norm(np.asarray(c.measured)[:2] - last[c.location][:2]) <= POSITION_TOL, c
    assert all(c.measured[0] > 0.1 for c in finals), finals  # both feet stepped forward


@pytest.mark.slow
@pytest.mark.long  # the 30-42 s quasi-static runs (1.5-3 min of CPU each); `make test-long` runs them
def test_the_robot_walks_its_quasi_static_plan_without_a_fall(walked, robot_plan):
    _check_walked(walked, robot_plan[1])


@pytest.mark.slow
def test_the_robot_walks_its_time_optimal_plan_without_a_fall(walked_fast, robot_plan):
    _check_walked(walked_fast, robot_plan[1])
