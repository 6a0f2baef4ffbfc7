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


# ---------------------------------------------------------------------- outputs, bounds, convergence, Ctrl-C
def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--phase", "ss", "--ss", "1e308"], "gait: field 't_ss' must be a duration from 0.02 to 2 s, got 1e+308"),
        (["--phase", "ds", "--ds", "2.5"], "gait: field 't_ds' must be a duration from 0.02 to 2 s, got 2.5"),
        (["--phase", "ds", "--output", "{tmp}"], "is a directory: cannot write the GAIT.json there"),
        (["--phase", "ds", "--plot", "{tmp}/afile"], "afile: not a folder: cannot write the plots into it"),
        (["--phase", "ds", "--plot", "{tmp}/no/plots"], "folder {tmp}/no does not exist"),
    ],
    ids=["ss 1e308", "ds beyond", "output a directory", "plot a file", "plot in a missing folder"],
)
def test_gait_bad_durations_and_outputs_exit_2_before_solving(argv, message, capsys, tmp_path):
    """--ss 1e308 (OverflowError), an output that is a directory (IsADirectoryError) and --plot at an
    existing file (FileExistsError) were tracebacks, the last two after the solve."""
    (tmp_path / "afile").write_text("")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    if "--output" not in argv:
        argv += ["--output", str(tmp_path / "GAIT.json")]
    assert main(["gait", *argv]) == 2
    assert message.replace("{tmp}", str(tmp_path)) in _one_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_gait_on_a_full_disk_exits_2_and_leaves_no_file(monkeypatch, tmp_path, capsys):
    """The disk fills while GAIT.json is written (os.fsync raises ENOSPC): one line, exit 2, no file
    (a 16 kB tmpfs kept 16,384 bytes of the 28 kB file, after an OSError traceback)."""
    import errno
    import os

    out = tmp_path / "GAIT.json"

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    assert main(["gait", "--phase", "ds", "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"humanoid-stack gait: error: {out}: cannot write the GAIT.json: No space left on device"
    assert list(tmp_path.iterdir()) == []


def test_gait_json_records_each_phase_convergence_and_an_unconverged_phase_is_refused(monkeypatch, tmp_path):
    """GAIT.json says per phase whether its solver converged. A phase stopped by IPOPT's iteration
    limit (3 here) is written with converged false (exit 1, a warning); the robot bridge's reader
    refuses that file unless told to send it, and the viewer's replay warns."""
    import humanoid_planner.gait.direct as direct
    from humanoid_control.bridge import load_plan
    from humanoid_control.exceptions import BridgeError
    from humanoid_model import load_robot
    from humanoid_viewer.replay import read_recording_document

    good, bad = tmp_path / "GAIT.json", tmp_path / "UNCONVERGED.json"
    assert main(["gait", "--phase", "ds", "--output", str(good)]) == 0
    assert [p["converged"] for p in json.loads(good.read_text())["phases"]] == [True]
    options = direct.ipopt_options
    monkeypatch.setattr(direct, "ipopt_options", lambda verbose, max_iter, tol: options(verbose, 3, tol))
    assert main(["gait", "--phase", "ds", "--output", str(bad)]) == 1
    phase = json.loads(bad.read_text())["phases"][0]
    assert phase["converged"] is False and phase["checks"]["status"] == "Maximum_Iterations_Exceeded"
    bip = load_robot("bip")
    load_plan(good, bip)
    with pytest.raises(
        BridgeError, match=r"field 'phases\[0\].converged' is false: .*cyclic_ds.*allow_unconverged_gait"
    ):
        load_plan(bad, bip)
    _, notes = load_plan(bad, bip, allow_unconverged=True)
    assert any("did not converge on cyclic_ds" in n for n in notes)
    warned = []
    read_recording_document(bad, warned.append)
    assert len(warned) == 1 and "did not converge on cyclic_ds" in warned[0]
    read_recording_document(good, warned.append)
    assert len(warned) == 1


def test_ctrl_c_stops_gait_with_exit_130_one_line_and_no_file(tmp_path):
    """SIGINT during the walk's first IPOPT solve: CasADi caught it, the solve returned its last
    iterate and gait went on to the next phases, exit 1, its file holding an unsolved phase. Now:
    exit 130, the line, no GAIT.json (the older one removed at the start)."""
    import signal
    import subprocess
    import sys
    import time

    from support import REPO

    out = tmp_path / "GAIT.json"
    out.write_text('{"an older gait": true}')
    argv = [sys.executable, "-m", "humanoid_stack", "gait", "--phase", "walk", "--output", str(out)]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    try:
        line = p.stdout.readline()
        assert line.startswith("solving start_ss"), line
        time.sleep(1.0)  # into the solve (the walk's five phases take ~10 s)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        "humanoid-stack gait: interrupted (Ctrl-C): no GAIT.json written (one left at the output path by an "
        "earlier run was removed)"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--cyclic-steps", "0"], "field '--cyclic-steps' must be an integer >= 1 and <= 50; value 0"),
        (["--cyclic-steps", "51"], "field '--cyclic-steps' must be an integer >= 1 and <= 50; value 51"),
        (["--cyclic-steps", "2", "--phase", "cyclic"], "'--cyclic-steps' repeats the cyclic step of '--phase walk'"),
        (["--cyclic-steps", "2", "--method", "pmp"], "'--cyclic-steps' repeats the cyclic step of '--phase walk'"),
    ],
    ids=["none", "over the bound", "not a walk", "pmp"],
)
def test_gait_cyclic_steps_out_of_bounds_or_off_a_walk_exit_2_before_solving(argv, message, capsys, tmp_path):
    """--cyclic-steps N repeats the walk's cyclic step (1 to `humanoid_planner.bounds.MAX_CYCLIC_STEPS`;
    the walk it writes is checked in test/execution/test_execute_gait.py, which executes it)."""
    assert main(["gait", "--phase", "walk", *argv, "--output", str(tmp_path / "GAIT.json")]) == 2
    assert message in _one_line(capsys)
    assert not list(tmp_path.iterdir())


def test_gait_cyclic_steps_solves_the_walk_with_n_cyclic_steps(monkeypatch, tmp_path, capsys):
    """--cyclic-steps 4 hands the walk to `solve_cyclic_gait_sequence` with n = 4 (the periodic step
    solved once), not to the one-step walk."""
    from humanoid_planner.gait import phase_sequence

    calls = []

    def solve(problem, n_cyclic, progress=None):
        calls.append(n_cyclic)
        raise KeyboardInterrupt  # stop there (exit 130): the call is what is checked

    monkeypatch.setattr(phase_sequence, "solve_cyclic_gait_sequence", solve)
    assert main(["gait", "--phase", "walk", "--cyclic-steps", "4", "--output", str(tmp_path / "GAIT.json")]) == 130
    assert calls == [4]
