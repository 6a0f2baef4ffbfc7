"""`humanoid-stack box-lift` (docs/lifting.md): the dynamic box lift planned, measured and written as a
joint trajectory the bridge and the viewer's replay read; a failed measure exits 1, bad options are
one line and exit 2."""

import json

import numpy as np
import pytest

from humanoid_control.bridge.plan_files import load_plan
from humanoid_model.robot import load_robot
from humanoid_stack.cli import main
from humanoid_viewer.replay import load_recording


def test_box_lift_writes_the_motion_to_the_impact_and_the_swing(tmp_path, capsys):
    out = tmp_path / "BOXLIFT.json"
    assert main(["box-lift", "--output", str(out)]) == 0
    text = capsys.readouterr().out
    assert "hold reserve" in text and "off the floor" in text and "wrote" in text
    doc = json.loads(out.read_text())
    t = np.array(doc["trajectory"]["t"])
    assert np.allclose(np.diff(t), 0.005, atol=1e-3) and t[-1] == pytest.approx(doc["box_lift"]["impact_time"] + 1.0)
    names, q = doc["joint_names"], np.array(doc["trajectory"]["joint_positions"])
    assert np.allclose(q[:, names.index("LLEG_JOINT3")], q[:, names.index("RLEG_JOINT3")])  # symmetric
    hrp2 = load_robot("hrp2")
    traj, _notes = load_plan(out, hrp2)  # the robot bridge reads it as a joint trajectory
    assert len(traj.times) == len(t)
    replay = load_recording(out, hrp2)
    assert len(replay.t) == len(t) and np.allclose(replay.q[:, 7:], q)


def test_a_swing_too_fast_for_the_feet_exits_1(tmp_path, capsys):
    assert main(["box-lift", "--swing", "0.3", "--output", str(tmp_path / "B.json")]) == 1
    assert "a measure failed" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, field",
    [(["--lean", "0"], "--lean"), (["--path", "nan"], "--path"), (["--swing", "-1"], "--swing")],
)
def test_box_lift_refuses_bad_options_in_one_line(tmp_path, capsys, argv, field):
    assert main(["box-lift", *argv, "--output", str(tmp_path / "B.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0] and "Traceback" not in err[0]
    assert not (tmp_path / "B.json").exists()


@pytest.mark.spec("000", "F1")
def test_box_lift_play_plays_it_in_the_simulator_and_prints_the_measures(tmp_path, capsys):
    """--play: the lift played with the box as a body (docs/lifting.md, "The box lift played"):
    the robot stands, every hold margin before the impact is >= 0, the box rises."""
    assert main(["box-lift", "--play", "--output", str(tmp_path / "B.json")]) == 0
    out = capsys.readouterr().out
    assert "stood:" in out and "least margins" in out and "rose" in out
