"""Talos (example-robot-data's ``talos_reduced.urdf``, the optional ``robots`` extra) walks its
planned 0.2 m on ``flat`` in the simulator under the whole-body controller
(`humanoid_execution.run.execute` with ``robot``, docs/execution.md "Other robots"): the plan of
test_talos_plans.py's walk (`support.robot_plans.walk`), quasi-static and retimed as `plan
--time-optimal` retimes it. Each run: no fall, no unsolved QP, both soles' final contacts within
1 cm and 2 deg of the plan's last stance, the CoM within 2 cm RMS of the planned CoM (the bounds
of HRP-2's flat walk, test_execute_flat_walk.py).

Talos's soles are found from its sole frames and its foot meshes (docs/robots.md): the sole is the
face the mesh stands on, the points within `SOLE_CONTACT_BAND` of its lowest, the simulator's own
contact patch rule. The plan is made once for the module (about 20 s); the time-optimal run takes
about a minute, the quasi-static one (marked ``long``) one and a half."""

from __future__ import annotations

import numpy as np
import pytest
from support.robot_data import TALOS, erd_robot
from support.robot_plans import walk

pytestmark = pytest.mark.skipif(
    erd_robot(TALOS) is None, reason="optional extra example-robot-data not installed (pip install '.[robots]')"
)

POSITION_TOL = 0.01  # [m] a final contact within 1 cm of its planned placement (HRP-2's bound)
ANGLE_TOL = np.radians(2.0)  # [rad] and within 2 deg
COM_RMS = 0.02  # [m] the CoM within 2 cm RMS of the planned CoM (HRP-2's bound, acceptance item 000 F4)


@pytest.fixture(scope="module")
def talos_plan():
    """The quasi-static PLAN.json document of Talos's 0.2 m walk on flat (`plan_document`)."""
    from humanoid_planner.planning import plan_document

    result = walk(erd_robot(TALOS))
    assert result.success, result.reason
    return plan_document(result)


def _run(doc):
    from humanoid_execution.run import RunSettings, execute

    run = execute(doc, RunSettings(robot=str(erd_robot(TALOS))))
    print("\n".join(run.report.lines()))
    return run


@pytest.fixture(scope="module")
def talos_walked(talos_plan):
    return _run(talos_plan)


@pytest.fixture(scope="module")
def talos_walked_fast(talos_plan):
    """The plan retimed as `plan --time-optimal` retimes it (`retime_plan`), executed."""
    from humanoid_model.robot import load_robot
    from humanoid_model.scene import load_scene
    from humanoid_planner.motion.contact_topp import retime_plan

    retimed = retime_plan(talos_plan, load_robot(erd_robot(TALOS)), load_scene("flat"))
    assert retimed.after < retimed.before
    return _run(retimed.doc)


def test_the_sole_face_band_is_the_simulators_contact_patch_tolerance():
    from humanoid_model.frame_contacts import SOLE_CONTACT_BAND
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
@pytest.mark.long  # the 42 s quasi-static run (3 min of CPU beside another job); `make test-long` runs it
def test_talos_walks_its_quasi_static_plan_without_a_fall(talos_walked, talos_plan):
    _check_walked(talos_walked, talos_plan)


@pytest.mark.slow
def test_talos_walks_its_time_optimal_plan_without_a_fall(talos_walked_fast, talos_plan):
    _check_walked(talos_walked_fast, talos_plan)
