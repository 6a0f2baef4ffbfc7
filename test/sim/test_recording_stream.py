"""Recordings streamed to disk and replay files read safely.

`humanoid-stack simulate` writes a JSON Lines recording as it runs (`humanoid_sim.runtime.recording`):
its memory stays constant however long the run, and a run cut off (killed, interrupted, a last
line cut short) replays up to its last complete frame with a warning. `view --replay` still reads
the format /1 JSON documents and the gait files. Every way a replay file can be bad ends in one
line naming the file and the field (or line), exit code 2, no traceback.
"""

import json
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from support.planned_stances import plan_header

from humanoid_stack.cli import main
from humanoid_viewer.exceptions import RecordingError, RecordingWarning
from humanoid_viewer.replay import load_recording

# ---------------------------------------------------------------------- constant memory
# The run of `simulate` (humanoid_sim.runtime.recording.record_run), in its own process so that RSS is
# that of the run alone. table_static (a table resting on 4 contacts: every frame holds 4
# contact records) at dt = 50 ms, a frame every step: 12,000 frames in 600 s of simulated time,
# ~8 s of wall time. An in-memory recorder (format /1) grows by 158 MB between 60 s and 600 s on
# this run (245 -> 403 MB), the streamed one by 0.
RSS_SCRIPT = """
import json, sys
from humanoid_model.scene import load_scene
from humanoid_sim.runtime.recording import record_run
from humanoid_sim.world import World

def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0

dt = 0.05
world = World.from_scene(load_scene("table_static"), dt=dt)
marks = {round(60 / dt): None, round(600 / dt): None}

def progress(k):
    if k in marks:
        marks[k] = rss_mb()

record_run(world, round(600 / dt), sys.argv[1], every=1, progress=progress)
print(json.dumps({"t60": marks[round(60 / dt)], "t600": marks[round(600 / dt)], "t": world.t}))
"""

RSS_GROWTH_MAX = 50.0  # [MB] between 60 s and 600 s of simulated time (chosen: about a third of the in-memory growth)


def test_a_long_run_holds_constant_memory(tmp_path):
    out = tmp_path / "long.jsonl"
    r = subprocess.run([sys.executable, "-c", RSS_SCRIPT, str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout.strip().splitlines()[-1])
    assert m["t"] == pytest.approx(600.0)
    assert m["t600"] - m["t60"] < RSS_GROWTH_MAX, m
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + 12001 + 1  # header, a frame per step and t = 0, end line
    assert json.loads(lines[-1])["stats"]["steps"] == 12000


# ---------------------------------------------------------------------- cut-off runs
def _simulate(path, *extra):
    argv = ["simulate", "table_static", "--duration", "0.05", "--record-every", "10", "--quiet", "--output", str(path)]
    assert main([*argv, *extra]) == 0
    return path


def test_frames_are_lines_between_a_header_and_an_end_line(tmp_path):
    lines = _simulate(tmp_path / "run.jsonl").read_text().splitlines()
    header, frames, end = json.loads(lines[0]), [json.loads(x) for x in lines[1:-1]], json.loads(lines[-1])
    assert header["format"] == "humanoid_stack.sim_recording/2" and header["scene_name"] == "table_static"
    assert header["robot"] is None and header["dt"] == 0.001 and header["record_every"] == 10
    assert [f["t"] for f in frames] == pytest.approx([0.0, 0.01, 0.02, 0.03, 0.04, 0.05])
    assert all(set(f) == {"t", "bodies", "contacts"} for f in frames)
    assert set(end) == {"stats"} and end["stats"]["steps"] == 50


def test_the_header_and_first_frame_are_on_disk_at_once(tmp_path):
    """Before any flush period has passed: a run killed in its first second still replays."""
    from humanoid_model.scene import load_scene
    from humanoid_sim.runtime.recording import Recorder
    from humanoid_sim.world import World

    path = tmp_path / "start.jsonl"
    rec = Recorder(World.from_scene(load_scene("table_static")), path, every=10)
    try:
        lines = path.read_text().splitlines()
        assert len(lines) == 2 and json.loads(lines[1])["t"] == 0.0
        assert len(load_recording(path, None, warn=lambda text: None)) == 1
    finally:
        rec.close()


def test_a_last_line_cut_short_replays_the_complete_frames_with_a_warning(tmp_path, monkeypatch, capsys):
    """A run killed while writing: the end line is missing and the last frame is cut in the
    middle of a number. The replay keeps the 5 complete frames and warns once, naming the line."""
    path = _simulate(tmp_path / "cut.jsonl")
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:6]) + lines[6][: len(lines[6]) // 2])  # header + 5 frames + half of the 6th
    messages = []
    rec = load_recording(path, None, warn=messages.append)
    assert len(rec) == 5 and rec.t[-1] == pytest.approx(0.04)
    assert rec.bodies["table"][0].shape == (5, 3) and len(rec.contacts) == 5
    assert messages == [
        f"{path}: line 7 is cut short (the run was cut off): replaying the 5 complete frames up to t = 0.04 s"
    ]
    with pytest.warns(RecordingWarning, match="line 7 is cut short"):
        load_recording(path)

    # the command line: exit 0, the warning on stderr, the 5 frames handed to the viewer
    loaded = _fake_viewer(monkeypatch)
    assert main(["view", "none", "--replay", str(path), "--duration", "0.01"]) == 0
    err = capsys.readouterr().err
    assert f"humanoid-stack view: warning: {path}: line 7 is cut short" in err and "Traceback" not in err
    assert len(loaded[-1]) == 5


def test_a_run_stopped_by_an_exception_keeps_its_frames(tmp_path):
    """Ctrl-C (KeyboardInterrupt) at step 25 of record_run: frames 0, 10 and 20 are on disk,
    without the end line, and replay with a warning."""
    from humanoid_model.scene import load_scene
    from humanoid_sim.runtime.recording import record_run
    from humanoid_sim.world import World

    def progress(k):
        if k == 25:
            raise KeyboardInterrupt

    path = tmp_path / "stopped.jsonl"
    world = World.from_scene(load_scene("table_static"))
    with pytest.raises(KeyboardInterrupt):
        record_run(world, 50, path, every=10, progress=progress)
    messages = []
    rec = load_recording(path, None, warn=messages.append)
    assert rec.t.tolist() == pytest.approx([0.0, 0.01, 0.02])
    assert len(messages) == 1 and "no end line (the run was cut off): replaying the 3 complete frames" in messages[0]


def test_the_recorder_writes_an_executed_plans_stances_in_the_header(tmp_path):
    """`Recorder(..., plan=...)`: the header carries the planned stances (docs/recording.md) and the
    replay reads them back; without ``plan`` the header has none."""
    from humanoid_model.scene import load_scene
    from humanoid_sim.runtime.recording import Recorder
    from humanoid_sim.world import World

    field = plan_header(times=(0.0, 0.01, 0.02))
    world = World.from_scene(load_scene("table_static"))
    with Recorder(world, tmp_path / "planned.jsonl", every=10, plan=field) as rec:
        for _ in range(20):
            world.step()
            rec.maybe_record()
    with Recorder(world, tmp_path / "plain.jsonl") as rec:
        pass
    assert json.loads((tmp_path / "planned.jsonl").read_text().splitlines()[0])["plan"] == field
    assert "plan" not in json.loads((tmp_path / "plain.jsonl").read_text().splitlines()[0])
    replay = load_recording(tmp_path / "planned.jsonl")
    assert [s.t for s in replay.stances] == [0.0, 0.01, 0.02] and replay.stances[1].changed == "r_sole"
    assert load_recording(tmp_path / "plain.jsonl").stances is None


def _lines(path):
    """Number of complete lines in `path` so far (0 when it does not exist yet)."""
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_a_killed_simulate_replays(tmp_path):
    """SIGKILL to a running `simulate` (no clean-up at all): what reached the disk replays."""
    path = tmp_path / "killed.jsonl"
    argv = ["simulate", "table_static", "--duration", "600", "--dt", "0.01", "--record-every", "1", "--quiet"]
    proc = subprocess.Popen([sys.executable, "-m", "humanoid_stack", *argv, "--output", str(path)])
    try:
        # Wait for complete lines, not bytes: a frame of table_static is about 2.45 kB, so a byte
        # threshold (200 kB holds 81 frames) says nothing about the 100 frames asserted below.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and _lines(path) < 120:
            time.sleep(0.2)
        assert _lines(path) >= 120, "simulate wrote fewer than 120 lines in 60 s"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    messages = []
    rec = load_recording(path, None, warn=messages.append)
    assert len(rec) > 100 and np.all(np.diff(rec.t) > 0) and len(messages) == 1


# ---------------------------------------------------------------------- the formats read before
def _fake_viewer(monkeypatch):
    """Replace the web viewer by a stand-in that records the replays it is given."""
    import humanoid_viewer.app

    loaded = []

    class FakeViewer:
        url = "http://127.0.0.1:0/"

        def __init__(self, robot, scene, **kwargs):
            pass

        def load_replay(self, recording):
            loaded.append(recording)

        def play(self):
            pass

        def close(self):
            pass

    monkeypatch.setattr(humanoid_viewer.app, "Viewer", FakeViewer)
    return loaded


def _format_1(contacts=True):
    """A format /1 document, the older layout `view --replay` still reads (one JSON object)."""
    pose = {"position": [[0, 0, 0], [0, 0, 0]], "quaternion": [[0, 0, 0, 1], [0, 0, 0, 1]]}
    vel = {"linear_velocity": [[0, 0, 0]] * 2, "angular_velocity": [[0, 0, 0]] * 2}
    c = {"body_a": "table", "body_b": "ground", "point": [0.3, 0.2, 0], "normal": [0, 0, 1], "force": [0, 0, 2.45]}
    return {
        "format": "humanoid_stack.sim_recording/1",
        "scene": "table_static",
        "scene_name": "table_static",
        "robot": None,
        "t": [0.0, 0.01],
        "bodies": {"table": {**pose, **vel}},
        "contacts": [[], [{**c, "gap": 0.0}]] if contacts else [],
        "stats": {"steps": 10},
    }


def test_format_1_recordings_still_replay(tmp_path, monkeypatch, capsys):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(_format_1()))
    rec = load_recording(path)
    assert rec.t.tolist() == [0.0, 0.01] and rec.contacts[1][0].force[2] == pytest.approx(2.45)
    # --no-contacts wrote "contacts": [] (no list per frame), which the viewer refused before
    path.write_text(json.dumps(_format_1(contacts=False)))
    assert load_recording(path).contacts is None
    loaded = _fake_viewer(monkeypatch)
    assert main(["view", "none", "--replay", str(path), "--duration", "0.01"]) == 0
    assert len(loaded[-1]) == 2 and "warning" not in capsys.readouterr().err


def test_gait_files_still_replay(tmp_path, monkeypatch):
    """The layout `humanoid-stack gait --output GAIT.json` writes (indented JSON, `make demo-gait`)."""
    from humanoid_model.robot import load_robot

    bip = load_robot("bip")
    names = list(bip.joint_names)
    doc = {
        "joint_names": names,
        "trajectory": {
            "t": [0.0, 0.1],
            "joint_positions": [[0.0] * len(names), [0.1] * len(names)],
            "base_pose": [[0, 0, 0.8, 0, 0, 0, 1]] * 2,
        },
    }
    path = tmp_path / "GAIT.json"
    path.write_text(json.dumps(doc, indent=2))
    loaded = _fake_viewer(monkeypatch)
    assert main(["view", "bip", "--replay", str(path), "--duration", "0.01"]) == 0
    assert loaded[-1].q.shape == (2, bip.model.nq) and loaded[-1].q[1, 2] == pytest.approx(0.8)


# ---------------------------------------------------------------------- bad replay files
HEADER = {"format": "humanoid_stack.sim_recording/2", "scene": "table_static", "robot": None}


def _frame(t, z=0.0):
    return {"t": t, "bodies": {"table": {"position": [0, 0, z], "quaternion": [0, 0, 0, 1]}}}


def _jsonl(*lines) -> bytes:
    return b"".join((x if isinstance(x, bytes) else json.dumps(x).encode()) + b"\n" for x in lines)


Q30 = [0.0] * 30  # HRP-2's 30 actuated joints
BAD = {
    # JSON documents
    "deep": (b"[" * 100_000 + b"]" * 100_000, "nested too deeply to be a replay file"),
    "binary": (bytes(range(256)) * 8, "not a text (UTF-8) file"),
    "huge_int": (b'{"t": [' + b"9" * 5000 + b"]}", "not valid JSON"),
    "q_1e308": (json.dumps({"t": [0, 0.1], "q": [Q30, [1e308] * 30]}).encode(), "field 'q'"),
    "t_1e308": (json.dumps({"t": [0, 1e308], "q": [Q30, Q30]}).encode(), "field 't'"),
    "base_1e308": (
        json.dumps(
            {
                "t": [0, 0.1],
                "joints": {"names": ["RLEG_JOINT0"], "positions": [[0], [0]]},
                "bodies": {"hrp2": {"position": [[0, 0, 0.6]] * 2, "quaternion": [[0, 0, 0, 1e308], [0, 0, 0, 1]]}},
            }
        ).encode(),
        "field 'bodies.hrp2.quaternion'",
    ),
    "force_1e308": (
        json.dumps({"t": [0, 0.1], "q": [Q30, Q30], "contacts": [[], [{"point": [0, 0, 0], "force": 1e308}]]}).encode(),
        "field 'contacts[1][0].force'",
    ),
    # JSON Lines recordings: the line, or the field of the gathered frames
    "line_deep": (_jsonl(HEADER, _frame(0), b"[" * 100_000), "line 3: nested too deeply to be a recording"),
    "line_binary": (_jsonl(HEADER, bytes(range(128, 256)), _frame(0)), "line 2: not a text (UTF-8) line"),
    "line_broken": (_jsonl(HEADER, b'{"t": 0,', _frame(0.1)), "line 2: not valid JSON (column 9"),
    "line_no_t": (_jsonl(HEADER, _frame(0), {"x": 1}), "line 3: field 't'"),
    "line_missing_key": (_jsonl(HEADER, _frame(0), {"t": 0.1}), "line 3: field 'bodies': missing"),
    "line_1e308": (_jsonl(HEADER, _frame(0), _frame(0.1, 1e308), {"stats": {}}), "field 'bodies.table.position'"),
    "header_only": (_jsonl(HEADER), "field 't': no complete frame to replay (the file ends"),
    "header_cut_frame": (
        _jsonl(HEADER) + b'{"t": 0.0, "bo',
        "field 't': no complete frame to replay (line 2 is cut short",
    ),
    "after_end": (_jsonl(HEADER, _frame(0), {"stats": {}}, _frame(0.1)), "line 4: a line after the end line"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_replay_file_is_one_line_naming_the_file_and_the_field(tmp_path, capsys, name):
    data, words = BAD[name]
    path = tmp_path / f"{name}.json"
    path.write_bytes(data)
    robot = "none" if name.startswith(("line", "after", "header")) else "hrp2"
    assert main(["view", robot, "--replay", str(path), "--port", "0", "--duration", "0.01"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"humanoid-stack view: error: {path}") and words in err, err
    with pytest.raises(RecordingError):
        load_recording(path, None)


def test_a_deeply_nested_replay_in_a_separate_process(tmp_path):
    """As a user runs it: exit 2 and one line, no RecursionError traceback."""
    path = tmp_path / "deep.json"
    path.write_bytes(b'{"t": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    r = subprocess.run(
        [sys.executable, "-m", "humanoid_stack", "view", "hrp2", "--replay", str(path), "--duration", "0.01"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert (
        r.stderr.strip()
        == f"humanoid-stack view: error: {path}: nested too deeply to be a replay file (the JSON reader's recursion limit)"
    )
