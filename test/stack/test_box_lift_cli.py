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
    [
        (["--lean", "0"], "--lean"),
        (["--path", "nan"], "--path"),
        (["--swing", "-1"], "--swing"),
        (["--record", "RUN.jsonl"], "--record"),  # records the played run: needs --play
        (["--play", "--record", "no_folder/RUN.jsonl"], "no_folder"),
        (["--play", "--record", "RUN.jsonl", "--record-every", "0"], "--record-every"),
    ],
)
def test_box_lift_refuses_bad_options_in_one_line(tmp_path, capsys, argv, field):
    argv = [str(tmp_path / a) if a.endswith(".jsonl") else a for a in argv]
    assert main(["box-lift", *argv, "--output", str(tmp_path / "B.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0] and "Traceback" not in err[0]
    assert not (tmp_path / "B.json").exists() and not (tmp_path / "RUN.jsonl").exists()


@pytest.mark.spec("000", "F1")
def test_box_lift_play_plays_it_in_the_simulator_and_prints_the_measures(tmp_path, capsys):
    """--play: the lift played with the box as a body (docs/lifting.md, "The box lift played"):
    the robot stands, every hold margin before the impact is >= 0, the box rises. --record writes
    the run, which the viewer's replay reads with the box: it stays put until the impact (settle
    0.5 s + 0.476 s) and ends 4 cm higher (the played lift's rise)."""
    run = tmp_path / "RUN.jsonl"
    assert main(["box-lift", "--play", "--record", str(run), "--output", str(tmp_path / "B.json")]) == 0
    out = capsys.readouterr().out
    assert "stood:" in out and "least margins" in out and "rose" in out
    assert f"humanoid-stack view hrp2 --replay {run}" in out
    replay = load_recording(run, load_robot("hrp2"))
    assert replay.robot == "hrp2" and replay.scene.endswith("box_lift.yaml")
    assert replay.t[-1] == pytest.approx(0.5 + 0.476 + 1.0 + 1.0, abs=0.02) and np.allclose(np.diff(replay.t), 0.01)
    box = replay.bodies["box"][0]  # (frames, 3) the box's centre [m]
    still = replay.t < 0.5 + 0.47
    assert np.abs(box[still] - box[0]).max() < 1e-3
    assert box[-1, 2] - box[0, 2] == pytest.approx(0.041, abs=3e-3)
    assert replay.q[0, 2] > 0.5  # the robot stands in the replay (its base's height)
