"""A contact plan walked at robot speed (Chardonnet 2009, §4.18; acceptance test 000 F4): `plan
flat --goal 0.8,0 --dynamic WALK.json` turns the planner's four steps into a centroidal trajectory
(humanoid_planner/motion/centroidal.py) and the walking IK's postures every 5 ms
(humanoid_execution/dynamic_walk.py), which the whole-body controller walks in the simulator
(docs/planning.md "Dynamic motion").

F4: a 4-step flat walk whose motion lasts at most the thesis's 10.8 s, and in simulation the CoM
within 2 cm RMS of the planned CoM without a fall. Also: every foot lands within 1 cm of its
planned placement, the IK meets its targets, and a plan that holds more than the soles is refused
in one line."""

import json

import numpy as np
import pytest

from humanoid_execution.run import execute
from humanoid_stack.cli import main

THESIS_DURATION = 10.8  # s, the thesis's 4-step walk (Chardonnet 2009, §4.18, acceptance test 000 F4)
COM_RMS = 0.02  # m, acceptance test 000 F4's bound on the simulated CoM against the planned one
FOOTPRINT_TOL = 0.01  # m, a foot lands within 1 cm of its placement (as the walking pattern's test)
IK_TOL = 1e-5  # m, 10 x the walking IK's convergence tolerance (humanoid_control.walking_ik.TOLERANCE)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dynamic")
    plan, walk = folder / "PLAN.json", folder / "WALK.json"
    argv = ["plan", "flat", "--goal", "0.8,0", "--quiet", "--output", str(plan), "--dynamic", str(walk)]
    assert main(argv) == 0
    return json.loads(plan.read_text()), json.loads(walk.read_text()), walk


@pytest.fixture(scope="module")
def walked(files):
    run = execute(files[2])
    print("\n".join(run.report.lines()))
    return run


def planned_com(doc, t):
    """The walk's planned CoM (its ``walking.com`` at the trajectory's times) at times ``t``."""
    com = np.asarray(doc["walking"]["com"], float)
    ts = np.asarray(doc["trajectory"]["t"], float)
    return np.column_stack([np.interp(t, ts, com[:, k]) for k in range(3)])


@pytest.mark.spec("000", "F4")
def test_the_four_planned_steps_become_a_walk_shorter_than_the_thesiss(files):
    plan, walk, _ = files
    steps = walk["walking"]["footsteps"]
    assert len(steps) == 4
    t = np.asarray(walk["trajectory"]["t"], float)
    assert t[-1] <= THESIS_DURATION
    dt = np.diff(t)
    assert np.allclose(dt[:-1], 0.005, atol=1e-9) and 0.0025 <= dt[-1] <= 0.0075  # every 5 ms (§4.18), to the end
    # each step lands where the plan's next stance holds that sole
    stances = plan["stances"]
    swung = [s for a, s, b in zip(stances, stances[1:], stances[2:]) if len(s["contacts"]) < len(a["contacts"])]
    assert len(swung) == 4
    for step, i in zip(steps, [stances.index(s) for s in swung]):
        after = {c["location"]: c for c in stances[i + 1]["contacts"]}
        assert np.allclose(step["target"], after[{"r": "r_sole", "l": "l_sole"}[step["foot"]]]["position"][:2])


@pytest.mark.slow
@pytest.mark.spec("000", "F4")
def test_the_controller_walks_it_with_the_com_within_2_cm_rms_of_the_plan(files, walked):
    _, walk, _ = files
    report = walked.report
    assert report.success, report.reason
    log = walked.log
    t = np.asarray(log.t, float)
    inside = t <= walk["trajectory"]["t"][-1]
    err = np.linalg.norm(np.asarray(log.com, float)[inside] - planned_com(walk, t[inside]), axis=1)
    assert np.sqrt(np.mean(err**2)) <= COM_RMS
    landings = [c for c in report.contacts if c.kind == "landing"]
    assert len(landings) == 4 and all(c.position_error <= FOOTPRINT_TOL for c in landings)


def test_a_plan_on_hands_too_gets_no_dynamic_walk(tmp_path, capsys):
    argv = ["plan", "table_can", "--quiet", "--output", str(tmp_path / "P.json"), "--dynamic", str(tmp_path / "W.json")]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "no dynamic walk: dynamic walk: the stances must hold the soles ['l_sole', 'r_sole'] only" in err
    assert (tmp_path / "P.json").exists() and not (tmp_path / "W.json").exists()


def test_another_robot_is_refused_before_planning(tmp_path, capsys):
    argv = ["plan", "stairs", "--robot", "bip", "--output", str(tmp_path / "P.json"), "--dynamic", str(tmp_path / "W")]
    assert main(argv) == 2
    assert "option '--dynamic': only hrp2 has a walking structure" in capsys.readouterr().err
