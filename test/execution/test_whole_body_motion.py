"""The simulator node's whole-body controller without ROS: `humanoid_execution.whole_body.
WholeBodyMotion` attached to a `SimulationSession` (what the node's `whole_body_controller` runs
in its stepping thread, docs/execution.md "Through ROS"):

- a walk received while the robot stands runs in the session's loop, its status tracking then
  done, its clock along the file's own timing, and the robot ends where the walk ends, standing;
- a stop is a safe hold: the robot stands where it stopped;
- a motion that cannot run (another robot, a NaN, a start elsewhere) is refused in one line before
  anything moves, and the session steps on.

One two-step walk (`humanoid-stack walk --steps 2 --step-length 0.2`) shared by the module."""

import copy
import json

import numpy as np
import pytest

from humanoid_control.exceptions import ControlError
from humanoid_execution.whole_body import WholeBodyMotion
from humanoid_sim.runtime.session import SessionSettings, SimulationSession
from humanoid_stack.cli import main

SETTLE = 200  # steps of the PD actuators holding the start posture before a motion comes (chosen)


@pytest.fixture(scope="module")
def walk_doc(tmp_path_factory):
    out = tmp_path_factory.mktemp("walk") / "WALK.json"
    assert main(["walk", "--steps", "2", "--step-length", "0.2", "--output", str(out)]) == 0
    return json.loads(out.read_text())


def _standing():
    session = SimulationSession.load("flat", "", SessionSettings(dt=1e-3))
    for _ in range(SETTLE):
        session.step()
    return session


def _run(session, motion, seconds):
    statuses = []
    for k in range(round(seconds / session.world.dt)):
        session.step()
        if k % 100 == 0:
            statuses.append(motion.status())
    statuses.append(motion.status())
    return statuses


def _tilt(world) -> float:
    """The angle [rad] between the base's z axis and the vertical."""
    x, y, z, w = world.q[3:7]
    return float(np.arccos(np.clip(1 - 2 * (x * x + y * y), -1.0, 1.0)))


@pytest.mark.slow
def test_a_walk_runs_in_the_sessions_loop_reports_its_progress_and_ends_done_where_it_was_planned(walk_doc):
    session = _standing()
    motion = WholeBodyMotion(session.world, walk_doc, "WALK.json", id="w1")
    session.attach_controller(motion, motion.locations)
    statuses = _run(session, motion, motion.reference.duration + 0.5)
    states = [s["state"] for s in statuses]
    assert states[0] == "tracking" and states[-1] == "done", statuses[-1]
    assert "holding" not in states
    times = [s["time"] for s in statuses]
    assert np.all(np.diff(times) >= 0) and times[-1] == pytest.approx(statuses[-1]["duration"], abs=1e-3)
    assert statuses[-1]["plan_time"] == pytest.approx(statuses[-1]["nominal_duration"], abs=1e-3)
    assert {s["id"] for s in statuses} == {"w1"}
    # the status's stamp: the simulated instant of the last update (the state the step started from)
    assert statuses[-1]["stamp"] == pytest.approx(session.world.t - session.world.dt, abs=1e-9)
    end = walk_doc["trajectory"]["base_pose"][-1][:3]
    assert session.world.q[:2] == pytest.approx(end[:2], abs=0.01)  # the base where the walk puts it
    assert session.world.q[2] > 0.5 and _tilt(session.world) < np.radians(5)  # standing


@pytest.mark.slow
def test_a_stop_is_a_safe_hold_and_the_robot_stands_where_it_stopped(walk_doc):
    session = _standing()
    motion = WholeBodyMotion(session.world, walk_doc, "WALK.json")
    session.attach_controller(motion, motion.locations)
    _run(session, motion, 0.8)  # the weight moving onto the first support foot
    motion.stop("operator")
    x_stop = session.world.q[0]
    statuses = _run(session, motion, 2.0)
    assert statuses[-1]["state"] == "holding" and "operator" in statuses[-1]["reason"], statuses[-1]
    assert abs(session.world.q[0] - x_stop) < 0.02  # it did not walk on
    assert session.world.q[2] > 0.5 and _tilt(session.world) < np.radians(5)  # standing


def _nan(doc):
    doc["trajectory"]["joint_positions"][5][3] = float("nan")


def _elsewhere(doc):
    for pose in doc["trajectory"]["base_pose"]:
        pose[0] += 0.3


def _robot(doc):
    doc["robot"] = "bip"


@pytest.mark.parametrize(
    "spoil, text",
    [(_robot, "'bip'"), (_nan, "finite"), (_elsewhere, "from where scene 'flat' puts the robot")],
    ids=["another robot", "nan", "another start"],
)
def test_a_motion_that_cannot_run_is_refused_in_one_line_and_the_session_steps_on(walk_doc, spoil, text):
    session = _standing()
    doc = copy.deepcopy(walk_doc)
    spoil(doc)
    q, t = session.world.q.copy(), session.world.t
    with pytest.raises(ControlError) as err:
        WholeBodyMotion(session.world, doc, "WALK.json")
    message = str(err.value)
    assert text in message and "\n" not in message and message.startswith("WALK.json"), message
    assert session.controller is None and session.world.t == t
    assert np.array_equal(session.world.q, q)  # nothing moved
    for _ in range(100):
        session.step()
    assert session.world.t == pytest.approx(t + 0.1)
