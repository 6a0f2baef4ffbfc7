"""`humanoid-stack simulate`: JSON recording format (docs/recording.md) and bad input."""
import json

import numpy as np
import pytest

from humanoid_stack.cli import main


@pytest.mark.parametrize("scene", ["incline", "table_static", "cube_stack", "sphere_drop"])
def test_free_body_scenes_record(tmp_path, scene):
    out = tmp_path / f"{scene}.json"
    assert main(["simulate", scene, "--duration", "0.05", "--record-every", "5", "--quiet",
                 "--output", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["format"] == "humanoid_stack.sim_recording/1" and d["robot"] is None
    n = len(d["t"])
    assert n == 11 and d["t"][0] == 0.0 and d["t"][-1] == pytest.approx(0.05)
    for b in d["bodies"].values():
        for k in ("position", "quaternion", "linear_velocity", "angular_velocity"):
            assert np.array(b[k]).shape == (n, 4 if k == "quaternion" else 3)
    assert len(d["contacts"]) == n
    assert "joints" not in d
    st = d["stats"]
    assert st["steps"] == 50 and set(st["stage_time"]) >= {"collision", "delassus", "solve", "integration"}
    assert "complementarity" in st["max_residuals"] or scene == "sphere_drop"


def test_resting_contacts_carry_the_weight(tmp_path):
    out = tmp_path / "t.json"
    assert main(["simulate", "table_static", "--duration", "0.02", "--record-every", "20", "--quiet",
                 "--output", str(out)]) == 0
    d = json.loads(out.read_text())
    last = d["contacts"][-1]
    assert last and all(c["body_a"] == "table" and c["body_b"] == "ground" for c in last)
    fz = sum(c["force"][2] for c in last)
    assert fz == pytest.approx(1.0 * 9.81, rel=5e-3)          # the scene's 1 kg and g
    assert all(abs(np.linalg.norm(c["normal"]) - 1) < 1e-9 for c in last)


def test_robot_run_records_joints(tmp_path):
    out = tmp_path / "flat.json"
    assert main(["simulate", "flat", "--duration", "0.02", "--record-every", "10", "--quiet",
                 "--solver", "nsgs", "--output", str(out)]) == 0
    d = json.loads(out.read_text())
    j = d["joints"]
    assert d["robot"] == "hrp2" and len(j["names"]) == 30
    assert np.array(j["positions"]).shape == (3, 30) and np.array(j["torques"]).shape == (3, 30)
    assert "hrp2" in d["bodies"]
    assert len(d["contacts"][-1]) == 8
    assert d["stats"]["solver"] == "nsgs"


@pytest.mark.parametrize("argv, words", [
    (["simulate", "no_such_scene"], ["no_such_scene"]),
    (["simulate", "flat", "--dt", "0"], ["--dt", "0.0"]),
    (["simulate", "flat", "--duration", "nan"], ["--duration"]),
    (["simulate", "incline", "--set", "incline.angle_deg"], ["incline.angle_deg"]),
    (["simulate", "incline", "--solver", "magic"], ["solver", "magic"]),
    (["simulate", "incline", "--record-every", "0"], ["--record-every"]),
])
def test_bad_input_exits_2_with_message(tmp_path, capsys, argv, words):
    assert main(argv + ["--quiet", "--output", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for w in words:
        assert w in err


def test_viewer_replays_the_recording(tmp_path):
    from humanoid_model import load_robot
    from humanoid_viewer.replay import load_recording

    out = tmp_path / "flat.json"
    assert main(["simulate", "flat", "--duration", "0.02", "--record-every", "10", "--quiet",
                 "--output", str(out)]) == 0
    rec = load_recording(out, load_robot("hrp2"))
    assert rec.q.shape == (3, 37) and len(rec.contacts[-1]) == 8
