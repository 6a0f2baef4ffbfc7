"""`humanoid_planner.planning.process`: a plan in a spawned child process is the plan of the same
request in this process (stances, witnesses, motion), its progress reaches the caller, a raising
progress callback (a client's cancel) ends the child, and the child's errors come back with their
message."""

import multiprocessing

import numpy as np
import pytest

from humanoid_model.exceptions import PlanningError
from humanoid_planner.motion import MotionSettings
from humanoid_planner.planning.process import PlanRequest, plan_in_process, plan_request

FLAT = PlanRequest(scene="flat", robot="hrp2", motion=MotionSettings())


@pytest.fixture(scope="module")
def in_this_process():
    return plan_request(FLAT)


def test_the_child_plans_what_this_process_plans_and_reports_its_progress(in_this_process):
    seen = []
    doc = plan_in_process(FLAT, seen.append)
    ref = in_this_process
    assert doc["success"] and ref["success"]
    assert doc["stances"] == ref["stances"]  # the same search: same seed, same candidates
    np.testing.assert_array_equal(doc["trajectory"]["q"], ref["trajectory"]["q"])
    assert seen and all(b.expanded >= a.expanded for a, b in zip(seen, seen[1:]))
    assert seen[-1].generated <= doc["stats"]["nodes_generated"]
    assert not multiprocessing.active_children()


def test_a_raising_progress_ends_the_child_and_the_error_is_raised_here():
    calls = []

    def cancel(pr):
        calls.append(pr)
        raise PlanningError("cancelled by the client during the search")

    with pytest.raises(PlanningError, match="cancelled by the client"):
        plan_in_process(FLAT, cancel)
    assert len(calls) == 1  # no progress after the cancel
    assert not multiprocessing.active_children()  # the child was ended, not left planning


def test_the_childs_error_comes_back_with_its_message():
    with pytest.raises(PlanningError, match="no_such_scene"):
        plan_in_process(PlanRequest(scene="no_such_scene", robot="hrp2"))
    assert not multiprocessing.active_children()
