"""`humanoid-stack simulate` (`humanoid_stack/commands/simulate.py`): the JSON Lines recording (read
back with the viewer's `read_recording_document`) has every
field of docs/recording.md, equals the same run through the Python API (`World.from_scene`,
`world.step()`, `world.state`), carries the weight in its contact forces, records joints for a
robot (also `--robot` with another robot than the scene's) and replays in the viewer; bad input
exits 2 with a message and writes nothing."""

import numpy as np
import pytest

from humanoid_stack.cli import main
from humanoid_viewer.replay import read_recording_document


@pytest.mark.parametrize("scene", ["incline", "table_static", "cube_stack", "sphere_drop"])
def test_free_body_scene_recording_has_the_documented_shape(tmp_path, scene):
    out = tmp_path / f"{scene}.jsonl"
    assert main(["simulate", scene, "--duration", "0.05", "--record-every", "5", "--quiet", "--output", str(out)]) == 0
    d = read_recording_document(out)
    assert d["format"] == "humanoid_stack.sim_recording/2" and d["robot"] is None
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
    out = tmp_path / "t.jsonl"
    assert (
        main(
            ["simulate", "table_static", "--duration", "0.02", "--record-every", "20", "--quiet", "--output", str(out)]
        )
        == 0
    )
    d = read_recording_document(out)
    last = d["contacts"][-1]
    assert last and all(c["body_a"] == "table" and c["body_b"] == "ground" for c in last)
    fz = sum(c["force"][2] for c in last)
    assert fz == pytest.approx(1.0 * 9.81, rel=5e-3)  # the scene's 1 kg and g
    assert all(abs(np.linalg.norm(c["normal"]) - 1) < 1e-9 for c in last)


def test_robot_run_records_joints(tmp_path):
    out = tmp_path / "flat.jsonl"
    assert (
        main(
            [
                "simulate",
                "flat",
                "--duration",
                "0.02",
                "--record-every",
                "10",
                "--quiet",
                "--solver",
                "nsgs",
                "--output",
                str(out),
            ]
        )
        == 0
    )
    d = read_recording_document(out)
    j = d["joints"]
    assert d["robot"] == "hrp2" and len(j["names"]) == 30
    assert np.array(j["positions"]).shape == (3, 30) and np.array(j["torques"]).shape == (3, 30)
    assert "hrp2" in d["bodies"]
    assert len(d["contacts"][-1]) == 8
    assert d["stats"]["solver"] == "nsgs"


@pytest.fixture(scope="module")
def table_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("rec") / "table.jsonl"
    assert (
        main(
            ["simulate", "table_static", "--duration", "0.03", "--record-every", "10", "--quiet", "--output", str(out)]
        )
        == 0
    )
    return read_recording_document(out)


def test_recording_has_every_documented_field(table_run):
    d = table_run
    n = len(d["t"])
    assert n == 4 and np.allclose(d["t"], [0.0, 0.01, 0.02, 0.03])
    for b in d["bodies"].values():
        assert np.allclose(np.linalg.norm(np.array(b["quaternion"]), axis=1), 1.0, atol=1e-9)
    assert d["contacts"][0] == []  # nothing solved before the first step
    for sample in d["contacts"][1:]:
        assert sample
        for c in sample:
            assert set(c) == {"body_a", "body_b", "point", "normal", "force", "gap"}
            assert len(c["point"]) == 3 and len(c["force"]) == 3 and isinstance(c["gap"], float)
            n_ = np.array(c["normal"])
            assert abs(np.linalg.norm(n_) - 1) < 1e-9
            assert np.array(c["force"]) @ n_ >= -1e-9  # unilateral
            assert abs(c["gap"]) < 1e-3  # resting: gap within the activation margin
    st = d["stats"]
    for k in (
        "steps",
        "dt",
        "solver",
        "median_step_time",
        "max_step_time",
        "stage_time",
        "solver_iterations",
        "unconverged_solves",
        "max_residuals",
    ):
        assert k in st
    assert 0 < st["median_step_time"] <= st["max_step_time"]
    assert set(st["stage_time"]) >= {"collision", "contacts", "delassus", "solve", "integration"}
    assert st["solver_iterations"]["total"] >= st["steps"] - 1  # one solve per contact step


def test_recording_equals_the_python_api_run(table_run):
    """Same engine from Python: the recorded final pose and contact forces equal those of
    World.from_scene + world.step() (deterministic; recording rounds to 1e-9)."""
    from humanoid_sim.world import World

    w = World.from_scene("table_static")
    w.step(30)
    b = w.state.bodies["table"]
    rec = table_run["bodies"]["table"]
    assert np.allclose(rec["position"][-1], b.position, atol=2e-9)
    assert np.allclose(rec["quaternion"][-1], b.quaternion, atol=2e-9)
    _, F = w.contact_forces_world()
    Frec = np.array([c["force"] for c in table_run["contacts"][-1]])
    assert Frec.shape == F.shape and np.allclose(Frec, F, atol=1e-8)
    g = np.linalg.norm(w.scene.gravity)
    assert Frec[:, 2].sum() == pytest.approx(w.scene.free_bodies[0].mass * g, rel=5e-3)


def test_robot_option_with_another_robot_than_the_scenes(tmp_path):
    """flat's robot is HRP-2 in 'half-sitting'; --robot bip uses BIP's default posture (BIP has no
    'half-sitting'), not the scene's posture (no "unknown posture 'half-sitting'")."""
    out = tmp_path / "bip.jsonl"
    assert (
        main(
            [
                "simulate",
                "flat",
                "--robot",
                "bip",
                "--duration",
                "0.01",
                "--record-every",
                "10",
                "--quiet",
                "--output",
                str(out),
            ]
        )
        == 0
    )
    d = read_recording_document(out)
    assert d["robot"] == "bip" and "bip" in d["bodies"] and "hrp2" not in d["bodies"]
    assert len(d["joints"]["names"]) == np.array(d["joints"]["velocities"]).shape[1]
    assert len(d["contacts"][-1]) == 8  # both soles on the ground


@pytest.mark.parametrize(
    "argv, words",
    [
        (["simulate", "no_such_scene"], ["no_such_scene"]),
        (["simulate", "flat", "--dt", "0"], ["--dt", "0.0"]),
        (["simulate", "incline", "--dt", "-0.001"], ["--dt", "-0.001"]),
        (["simulate", "incline", "--dt", "nan"], ["--dt", "nan"]),
        (["simulate", "flat", "--duration", "nan"], ["--duration"]),
        (["simulate", "incline", "--duration", "0.0004"], ["--duration", "0.0004"]),
        (["simulate", "incline", "--set", "incline.angle_deg"], ["incline.angle_deg"]),
        (["simulate", "sphere_drop", "--set", "sphere.radius=0"], ["radius", "0"]),
        (["simulate", "incline", "--solver", "magic"], ["solver", "magic"]),
        (["simulate", "incline", "--solver", ""], ["solver"]),
        (["simulate", "incline", "--record-every", "0"], ["--record-every"]),
        (["simulate", "flat", "--robot", "nobody"], ["nobody"]),
        (["simulate", "flat", "--duration", "1e9"], ["--duration", "at most 10000000 steps"]),
        (["simulate", "flat", "--duration", "1000", "--record-every", "1"], ["--record-every", "150000 frames"]),
    ],
)
def test_bad_input_exits_2_with_message_and_writes_nothing(tmp_path, capsys, argv, words):
    """Bad input (unknown scene, solver or robot; dt <= 0 or NaN; a duration that is NaN or
    shorter than one step; a bad --set; --record-every 0) exits 2 with a message naming the option
    and the value, no traceback, and no recording file."""
    out = tmp_path / "x.jsonl"
    assert main(argv + ["--quiet", "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for w in words:
        assert w in err
    assert not out.exists()


def test_viewer_replays_the_recording(tmp_path):
    from humanoid_model import load_robot
    from humanoid_viewer.replay import load_recording

    out = tmp_path / "flat.jsonl"
    assert (
        main(["simulate", "flat", "--duration", "0.02", "--record-every", "10", "--quiet", "--output", str(out)]) == 0
    )
    rec = load_recording(out, load_robot("hrp2"))
    assert rec.q.shape == (3, 37) and len(rec.contacts[-1]) == 8


def test_a_recording_in_a_missing_folder_is_refused_and_the_folder_not_made(tmp_path, capsys):
    """The recording's folder must exist, as for every output (it was created on the user's behalf)."""
    out = tmp_path / "missing" / "run.jsonl"
    assert main(["simulate", "sphere_drop", "--duration", "0.01", "--quiet", "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"humanoid-stack simulate: error: {out}: folder {out.parent} does not exist: cannot write the recording "
        "(create it first)"
    )
    assert not out.parent.exists()
