"""`humanoid-stack gait` command: JSON output, plots, user errors (exit 2, no traceback)."""

import json

import pytest

from humanoid_stack.cli import main


def test_gait_command_writes_json_and_plots(tmp_path, capsys):
    out = tmp_path / "GAIT.json"
    rc = main(["gait", "--robot", "bip", "--phase", "ds", "--output", str(out), "--plot", str(tmp_path / "plots")])
    assert rc == 0
    text = capsys.readouterr().out
    assert "solving cyclic_ds" in text and "energy" in text
    d = json.loads(out.read_text())
    assert [p["name"] for p in d["phases"]] == ["cyclic_ds"]
    ph = d["phases"][0]
    assert ph["duration"] == pytest.approx(0.17)
    assert 0 < ph["closure_residual_max"] < 1e-3
    assert d["total_energy"] == pytest.approx(ph["energy"])
    assert len(d["trajectory"]["joint_positions"][0]) == len(d["joint_names"]) == 6
    assert sorted(f.name for f in (tmp_path / "plots").iterdir()) == ["cyclic_ds.png", "stick_diagram.png"]


@pytest.mark.parametrize(
    "argv, field",
    [
        (["gait", "--robot", "hrp2"], "--robot"),
        (["gait", "--phase", "ds", "--ds", "-1"], "t_ds"),
        (["gait", "--phase", "ds", "--step-length", "2.0"], "hip"),
    ],
)
def test_gait_command_bad_input_exits_2_naming_the_field(argv, field, capsys, tmp_path):
    rc = main(argv + ["--output", str(tmp_path / "x.json")])
    assert rc == 2
    err = capsys.readouterr().err
    assert field in err and "Traceback" not in err


def test_gait_json_replays_in_the_viewer_format(tmp_path):
    """The viewer's replay loader reads GAIT.json (top-level joint_names + trajectory) and the
    3-D BIP model's feet follow the planar solution (URDF parameter set: same foot geometry)."""
    import numpy as np
    import pinocchio as pin

    from humanoid_model import load_robot
    from humanoid_viewer.replay import load_recording

    out = tmp_path / "GAIT.json"
    assert main(["gait", "--phase", "ds", "--params", "urdf", "--output", str(out)]) == 0
    robot = load_robot("bip")
    rec = load_recording(out, robot)
    d = json.loads(out.read_text())
    assert len(rec.t) == len(d["trajectory"]["t"])
    data = robot.model.createData()
    ph = d["phases"][0]
    for k in (0, len(rec.t) // 2, len(rec.t) - 1):
        pin.framesForwardKinematics(robot.model, data, rec.q[k])
        rear_toe = data.oMf[robot.model.getFrameId("l_toe")].translation
        front_heel = data.oMf[robot.model.getFrameId("r_heel")].translation
        assert np.max(np.abs(rear_toe[[0, 2]])) < 1e-9  # rear toe pinned at the origin
        # front heel: at the closure target up to the penalty residual
        assert abs(front_heel[0] - 0.21) < 1e-3 and abs(front_heel[2]) < 1e-3
    assert ph["closure_residual_max"] < 1e-3


def test_gait_command_pmp_method_solves_ds_and_refuses_other_phases(tmp_path, capsys):
    """--method pmp solves the DS phase by the indirect method (thesis-faithful contacts: the
    a-posteriori check is reported, not enforced); phases other than ds, ss, cyclic are refused with
    the reason (the SS PMP itself: test_gait_pmp.py)."""
    out = tmp_path / "PMP.json"
    assert main(["gait", "--phase", "ds", "--method", "pmp", "--output", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["method"] == "pmp" and d["phases"][0]["method"] == "pmp"
    assert 0 < d["phases"][0]["closure_residual_max"] < 1e-3
    assert main(["gait", "--phase", "walk", "--method", "pmp", "--output", str(out)]) == 2
    assert "cyclic double- and single-support phases only; use '--phase' ds / ss / cyclic" in capsys.readouterr().err
