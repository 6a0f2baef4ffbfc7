"""Plan files the bridge reads (humanoid_control.bridge.load_plan): GAIT.json from
`humanoid-stack gait`, simulator recordings (JSON Lines /2, also cut off, and /1), configuration
files; floating-base plans give their joint part with a note; bad files are one-line BridgeErrors."""

import dataclasses
import json

import numpy as np
import pytest

from humanoid_control.bridge import BridgeError, BridgeSettings, JointLimits, load_plan, validate
from humanoid_model import load_robot
from humanoid_planner.gait.phase_sequence import VIOLATION_MAX
from humanoid_stack.cli import main


@pytest.fixture(scope="module")
def bip():
    return load_robot("bip")


@pytest.fixture(scope="module")
def hrp2():
    return load_robot("hrp2")


@pytest.fixture(scope="module")
def gait_file(tmp_path_factory):
    """The BIP cyclic double-support phase, as `humanoid-stack gait` writes it (~3 s)."""
    out = tmp_path_factory.mktemp("gait") / "GAIT.json"
    assert main(["gait", "--robot", "bip", "--phase", "ds", "--output", str(out)]) == 0
    return out


def test_gait_json_gives_the_joint_part_and_says_so(gait_file, bip):
    traj, notes = load_plan(gait_file, bip)
    d = json.loads(gait_file.read_text())
    assert traj.joint_names == d["joint_names"]
    np.testing.assert_array_equal(traj.times, np.asarray(d["trajectory"]["t"]) - d["trajectory"]["t"][0])
    np.testing.assert_array_equal(traj.positions, d["trajectory"]["joint_positions"])
    assert traj.velocities is None
    assert any("floating-base" in n and "joint part" in n for n in notes)
    # validated against BIP standing at the gait's first point: too violent for the default
    # 10 rad/s² (refused), accepted once retimed, and the retimed motion is the same path
    lim = JointLimits.from_robot(bip)
    cur = dict(zip(lim.names, bip.joint_positions(bip.q()).values()))
    cur.update(zip(traj.joint_names, traj.positions[0]))
    rep = validate(traj, lim, cur)
    checks = {r.check for r in rep.refusals}
    assert not rep.ok and "acceleration_limits" in checks and checks <= {"acceleration_limits", "velocity_limits"}
    # the gait's speed limits are penalties (Chessé 2002, §II.3.5), accepted up to gait.phase_sequence.VIOLATION_MAX scale
    # units (0.1 rad/s): the secant speeds the bridge checks may pass the URDF limit by no more than that
    vmax = dict(zip(lim.names, lim.v_max))
    for r in rep.refusals:
        if r.check == "velocity_limits":
            assert abs(r.value) <= vmax[r.joint] + VIOLATION_MAX * 0.1, r.message
    rep = validate(traj, lim, cur, BridgeSettings(policy="retime"))
    assert rep.ok and rep.stretch > 1
    cols = [lim.names.index(n) for n in traj.joint_names]
    np.testing.assert_array_equal(rep.trajectory.positions[:, cols], traj.positions)


def test_gait_phases_layout(tmp_path, bip):
    names = ["l_knee", "r_knee"]
    doc = {
        "joint_names": names,
        "phases": [
            {"t": [0.0, 0.1, 0.2], "q": [[0.1, 0.2], [0.2, 0.3], [0.3, 0.4]]},
            {"t": [0.0, 0.1], "q": [[0.3, 0.4], [0.4, 0.5]], "base": [[0, 0, 1, 0, 0, 0, 1]] * 2},
        ],
    }
    path = tmp_path / "GAIT.json"
    path.write_text(json.dumps(doc))
    traj, notes = load_plan(path, bip)
    np.testing.assert_allclose(traj.times, [0.0, 0.1, 0.2, 0.3])  # second phase follows, junction once
    np.testing.assert_array_equal(traj.positions[:, 0], [0.1, 0.2, 0.3, 0.4])
    assert any("floating-base" in n for n in notes)


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """HRP-2 standing on flat for 20 ms, recorded every 5 steps (`humanoid-stack simulate`)."""
    out = tmp_path_factory.mktemp("rec") / "run.jsonl"
    argv = ["simulate", "flat", "--duration", "0.02", "--record-every", "5", "--quiet", "--output", str(out)]
    assert main(argv) == 0
    return out


def test_simulator_recording_stream(recording, hrp2):
    traj, notes = load_plan(recording, hrp2)
    lines = [json.loads(s) for s in recording.read_text().splitlines()]
    frames = [f for f in lines[1:] if "t" in f]
    assert traj.joint_names == lines[0]["joints"]["names"] == hrp2.joint_names
    np.testing.assert_allclose(traj.times, [f["t"] for f in frames])
    np.testing.assert_array_equal(traj.positions, [f["joints"]["positions"] for f in frames])
    assert any("simulator recording" in n for n in notes)
    # a run cut off mid-line: the complete frames, with a note
    cut = recording.with_name("cut.jsonl")
    text = recording.read_text().splitlines()
    cut.write_text("\n".join(text[:3]) + "\n" + text[3][: len(text[3]) // 2])
    traj, notes = load_plan(cut, hrp2)
    assert traj.n_points == 2 and any("cut short" in n for n in notes)


def test_stream_format_name_matches_the_simulator(recording):
    from humanoid_model.formats.recording import FORMAT, recording_stream_header

    assert json.loads(recording.read_text().splitlines()[0])["format"] == FORMAT
    assert recording_stream_header(recording)["format"] == FORMAT


def test_contact_plan_gives_the_joint_part_and_says_so(flat_walk_plan, hrp2, tmp_path):
    """PLAN.json (`humanoid-stack plan`): its trajectory's joint columns and times, a floating-base
    note; validated against HRP-2 at the plan's first posture it passes the velocity and
    acceleration limits (10 deg/s cap, C² path: 0.3 rad/s² against the default 10 rad/s²) and
    the default 0.01 rad position margin (the planner keeps the joints 0.02 rad inside their
    limits; without that margin the witness postures sat on CHEST_JOINT1's lower limit, and the
    same check refuses the plan moved onto it). A plan without motion is refused with its reason."""
    doc = flat_walk_plan["doc"]
    traj, notes = load_plan(flat_walk_plan["path"], hrp2)
    q = np.asarray(doc["trajectory"]["q"])
    assert traj.joint_names == doc["trajectory"]["joint_names"] == hrp2.joint_names
    np.testing.assert_array_equal(traj.times, doc["trajectory"]["t"])
    np.testing.assert_array_equal(traj.positions, q[:, 7:])
    assert any("PLAN.json" in n for n in notes)
    assert any("floating-base" in n and "joint part" in n for n in notes)
    lim = JointLimits.from_robot(hrp2)
    start = dict(zip(traj.joint_names, traj.positions[0]))
    rep = validate(traj, lim, start)
    assert rep.ok, [r.message for r in rep.refusals]
    assert BridgeSettings().position_margin == 0.01
    j = traj.joint_names.index("CHEST_JOINT1")
    on_limit = dataclasses.replace(traj, positions=traj.positions.copy())
    on_limit.positions[:, j] += lim.lower[j] - on_limit.positions[:, j].min()  # its lowest point on the limit
    moved = dict(zip(traj.joint_names, on_limit.positions[0]))
    assert {r.check for r in validate(on_limit, lim, moved).refusals} == {"position_limits"}
    failed = {
        **doc,
        "success": False,
        "reason": "time limit 1 s",
        "stances": [],
        "trajectory": {**doc["trajectory"], "t": [], "q": []},
    }
    path = tmp_path / "FAILED.json"
    path.write_text(json.dumps(failed))
    with pytest.raises(BridgeError, match=r"field 'success' is false: the planner found no motion \(time limit 1 s\)"):
        load_plan(path, hrp2)


def test_simulator_recording_v1_and_configurations(tmp_path, hrp2):
    names = hrp2.joint_names
    q0 = np.array(list(hrp2.joint_positions(hrp2.q()).values()))
    doc = {"t": [0.5, 1.0], "joints": {"names": names, "positions": [q0.tolist(), q0.tolist()]}, "robot": "bip"}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    traj, notes = load_plan(path, hrp2)
    np.testing.assert_array_equal(traj.times, [0.0, 0.5])
    assert any("shifted" in n for n in notes) and any("written for robot 'bip'" in n for n in notes)
    full = np.tile(hrp2.q(), (2, 1))
    path = tmp_path / "conf.json"
    path.write_text(json.dumps({"t": [0.0, 1.0], "q": full.tolist()}))
    traj, notes = load_plan(path, hrp2)
    np.testing.assert_allclose(traj.positions, [q0, q0])
    assert any("floating-base" in n for n in notes)


@pytest.mark.parametrize(
    "content, field",
    [
        ("[1, 2]", "JSON object"),
        ('{"format": "humanoid_stack.contact_plan/1"}', "trajectory"),
        ('{"format": "humanoid_stack.other_plan/1"}', "PLAN.json is"),
        ('{"joint_names": ["l_knee"], "trajectory": {"t": [0, 1], "joint_positions": [[0.1]]}}', "joint_positions"),
        ('{"joint_names": "l_knee", "trajectory": {"t": [0], "joint_positions": [[0.1]]}}', "joint_names"),
        ('{"hello": 1}', "not a plan"),
        ("{not json", "not valid JSON"),
    ],
)
def test_bad_plan_files_raise_one_line(tmp_path, bip, content, field):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(BridgeError) as exc:
        load_plan(path, bip)
    msg = str(exc.value)
    assert field in msg and str(path) in msg and "\n" not in msg.strip()


def test_a_contact_plan_with_unclear_segments_is_refused_unless_allowed(flat_walk_plan, hrp2, tmp_path):
    """A PLAN.json whose motion lists segments projected without collision rows
    (``trajectory.unclear_segments``, e.g. the under-table plan's, or any ``--no-motion-collision``
    plan) may pass through an obstacle: refused naming them and the way to send it anyway; with
    ``allow_unclear`` it loads, the same trajectory, and a note names them. A malformed list is
    refused naming the field. The session's walk lists none and loads."""
    doc = flat_walk_plan["doc"]
    assert doc["trajectory"]["unclear_segments"] == []
    path = tmp_path / "UNCLEAR.json"
    path.write_text(json.dumps({**doc, "trajectory": {**doc["trajectory"], "unclear_segments": [1, 3]}}))
    with pytest.raises(BridgeError, match=r"field 'trajectory.unclear_segments' is \[1, 3\]: .*allow_unclear_motion"):
        load_plan(path, hrp2)
    traj, notes = load_plan(path, hrp2, allow_unclear=True)
    np.testing.assert_array_equal(traj.positions, np.asarray(doc["trajectory"]["q"])[:, 7:])
    assert any("segments [1, 3] of the motion may touch" in n for n in notes)
    path.write_text(json.dumps({**doc, "trajectory": {**doc["trajectory"], "unclear_segments": "1"}}))
    with pytest.raises(BridgeError, match=r"field 'trajectory.unclear_segments' must be a list of segment indices"):
        load_plan(path, hrp2, allow_unclear=True)


def test_only_a_regular_plan_file_within_the_bound_is_read(tmp_path, bip):
    """A FIFO with no writer, /dev/zero, a directory and a file over PLAN_MAX_BYTES (sparse: no
    disk used) are refused at once, in one line, before any reader opens them."""
    import os
    import threading

    from humanoid_control.bridge.plan_files import PLAN_MAX_BYTES

    fifo = tmp_path / "plan.fifo"
    os.mkfifo(fifo)
    big = tmp_path / "BIG.json"
    with open(big, "wb") as f:
        f.truncate(PLAN_MAX_BYTES + 1)
    for path, why in (
        (fifo, "a FIFO (named pipe), not a regular file"),
        ("/dev/zero", "a character device, not a regular file"),
        (tmp_path, "a directory, not a regular file"),
        (big, f"{PLAN_MAX_BYTES + 1} bytes, more than the {PLAN_MAX_BYTES} bytes of a plan file"),
    ):
        result = []

        def read(path=path, result=result):
            try:
                load_plan(path, bip)
            except BridgeError as exc:
                result.append(str(exc))

        reader = threading.Thread(target=read, daemon=True)  # a blocked read must not hang the test run
        reader.start()
        reader.join(10.0)
        assert result, f"{path}: still reading after 10 s"
        assert result[0].startswith(str(path)) and why in result[0] and "\n" not in result[0], result[0]


def _edited(doc, path, **phase):
    """``doc`` with every phase updated by ``phase``, written to ``path``."""
    path.write_text(json.dumps({**doc, "phases": [{**p, **phase} for p in doc["phases"]]}))
    return path


def test_a_gait_with_an_unconverged_phase_is_refused_unless_allowed(gait_file, bip, tmp_path):
    """A GAIT.json whose solver did not converge on a phase (its rows there are the last iterate:
    an iteration limit, or Ctrl-C that CasADi swallowed) was sent like a solved one. Now it is refused
    naming the phase and the way to send it anyway; with ``allow_unconverged`` it loads, the same
    trajectory, with a note. A file without ``converged`` (an older writer) is judged by its
    ``checks.success``; a ``converged`` that is not a boolean is refused naming the field; the
    ``phases`` layout is held to the same rule."""
    doc = json.loads(gait_file.read_text())
    assert [p["converged"] for p in doc["phases"]] == [True]
    good, _ = load_plan(gait_file, bip)
    bad = _edited(doc, tmp_path / "UNCONVERGED.json", converged=False)
    with pytest.raises(BridgeError, match=r"field 'phases\[0\].converged' is false: the gait solver did not converge"):
        load_plan(bad, bip)
    traj, notes = load_plan(bad, bip, allow_unconverged=True)
    np.testing.assert_array_equal(traj.positions, good.positions)
    assert any("did not converge on cyclic_ds (phases[0]) (sent: allow_unconverged_gait)" in n for n in notes)
    older = {**doc, "phases": [{k: v for k, v in p.items() if k != "converged"} for p in doc["phases"]]}
    older["phases"][0]["checks"] = {**older["phases"][0]["checks"], "success": False}
    (tmp_path / "OLDER.json").write_text(json.dumps(older))
    with pytest.raises(BridgeError, match=r"phases\[0\].converged' is false"):
        load_plan(tmp_path / "OLDER.json", bip)
    with pytest.raises(BridgeError, match=r"field 'phases\[0\].converged': expected true or false, got 'no'"):
        load_plan(_edited(doc, tmp_path / "TEXT.json", converged="no"), bip, allow_unconverged=True)
    layout = {
        "joint_names": ["l_knee"],
        "phases": [{"name": "ss", "t": [0.0, 0.1], "q": [[0.1], [0.2]], "converged": False}],
    }
    (tmp_path / "PHASES.json").write_text(json.dumps(layout))
    with pytest.raises(BridgeError, match="did not converge on ss"):
        load_plan(tmp_path / "PHASES.json", bip)
    assert load_plan(tmp_path / "PHASES.json", bip, allow_unconverged=True)[0].n_points == 2
