"""`humanoid-stack lift` (docs/lifting.md): the overhead lift optimised, measured and written as a joint
trajectory the viewer's replay reads; bad options are one line and exit 2."""

import json

import numpy as np
import pytest

from humanoid_control.bridge.plan_files import load_plan
from humanoid_model.robot import load_robot
from humanoid_stack.cli import main
from humanoid_viewer.replay import load_recording


def test_lift_writes_a_trajectory_from_the_start_to_the_end_posture(tmp_path, capsys):
    out = tmp_path / "LIFT.json"
    assert main(["lift", "--output", str(out)]) == 0
    text = capsys.readouterr().out
    assert "t_f" in text and "(5.25)" in text and "wrote" in text
    doc = json.loads(out.read_text())
    t = np.array(doc["trajectory"]["t"])
    assert t[-1] == pytest.approx(doc["lift"]["t_f"]) and t[-1] <= 3.0
    assert np.allclose(np.diff(t), 0.005, atol=1e-3)
    q = np.array(doc["trajectory"]["joint_positions"])
    names = doc["joint_names"]
    knee = names.index("LLEG_JOINT3")
    # from the upright start to the deep crouch (the thesis's end, knee about 135 deg)
    assert q[0, knee] < np.radians(60) and q[-1, knee] > np.radians(130)
    assert np.allclose(q[:, knee], q[:, names.index("RLEG_JOINT3")])  # symmetric
    hrp2 = load_robot("hrp2")
    traj, _notes = load_plan(out, hrp2)  # the robot bridge reads it as a joint trajectory
    assert len(traj.times) == len(t)
    replay = load_recording(out, hrp2)  # and the viewer's replay, with the feet where the lift put them
    assert len(replay.t) == len(t) and replay.q.shape[1] == hrp2.model.nq
    assert names == hrp2.joint_names  # the model's order: the replay's joint part is the file's rows
    assert np.allclose(replay.q[:, 7:], q) and np.allclose(
        replay.q[:, :3], np.array(doc["trajectory"]["base_pose"])[:, :3]
    )


def test_lift_play_records_the_simulated_run_for_the_viewer(tmp_path, capsys):
    """--play --record: the run played in the simulator (docs/lifting.md) written as a recording the
    viewer's replay reads: the robot does not fall (exit 0) and ends in the lift's crouch (the knee
    above 130 deg, as in LIFT.json), 10 ms frames over settle + t_f + 1.5 s."""
    run = tmp_path / "RUN.jsonl"
    assert main(["lift", "--play", "--record", str(run), "--output", str(tmp_path / "LIFT.json")]) == 0
    out = capsys.readouterr().out
    assert f"humanoid-stack view hrp2 --replay {run}" in out
    hrp2 = load_robot("hrp2")
    replay = load_recording(run, hrp2)
    t_f = json.loads((tmp_path / "LIFT.json").read_text())["lift"]["t_f"]
    assert replay.t[-1] == pytest.approx(0.5 + t_f + 1.5, abs=0.02) and np.allclose(np.diff(replay.t), 0.01)
    knee = hrp2.model.joints[hrp2.model.getJointId("LLEG_JOINT3")].idx_q
    assert replay.q[0, knee] < np.radians(60) and replay.q[-1, knee] > np.radians(130)


@pytest.mark.parametrize(
    "argv, field",
    [
        (["--mass", "-1"], "--mass"),
        (["--mass", "nan"], "--mass"),
        (["--t-max", "0"], "--t-max"),
        (["--samples", "2"], "--samples"),
        (["--record", "RUN.jsonl"], "--record"),  # records the played run: needs --play
    ],
)
def test_lift_refuses_bad_options_in_one_line(tmp_path, capsys, argv, field):
    assert main(["lift", *argv, "--output", str(tmp_path / "LIFT.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0] and "Traceback" not in err[0]
    assert not (tmp_path / "LIFT.json").exists()
