"""The file formats (`humanoid_model.formats`): each format's writer and reader round trip, each
reader refuses a malformed file in one line naming the file and the field, and the robot bridge's
stricter rules are checked on what the shared reader returns (the viewer reads the same files)."""

import json
import re

import numpy as np
import pytest
from support.planned_stances import plan_header, stance_entries

from humanoid_control.bridge import BridgeError, load_plan
from humanoid_model import load_robot
from humanoid_model.exceptions import ConfigError, PlanningError
from humanoid_model.formats import configurations as conf_format
from humanoid_model.formats import plan as plan_format
from humanoid_model.formats import recording as rec_format
from humanoid_model.formats import trajectory as traj_format
from humanoid_model.formats.detect import KINDS, document_kind, read_format_file
from humanoid_viewer.exceptions import RecordingError
from humanoid_viewer.replay import load_recording

NAMES = ["l_knee", "r_knee"]  # two of BIP's joints


@pytest.fixture(scope="module")
def bip():
    return load_robot("bip")


# ---------------------------------------------------------------------- simulator recording
POSE = ([0.1, 0.2, 0.3], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, -0.1], [0.0, 0.0, 0.0])
CONTACT = {
    "body_a": "box",
    "body_b": "ground",
    "point": [0.1, 0.2, 0.0],
    "normal": [0.0, 0.0, 1.0],
    "force": [0.0, 0.0, 9.81],
    "gap": -1e-4,
}


def _write_recording(path, frames=3, end=True, soles=False, plan=None):
    with rec_format.RecordingWriter(path) as out:
        out.write_header(
            scene="flat",
            scene_name="flat",
            robot="bip",
            dt=0.001,
            record_every=10,
            contacts=True,
            joint_names=NAMES,
            soles={"l_sole": {"body": "l_foot", "triangles": [[0, 1, 2]]}} if soles else None,
            plan=plan,
        )
        for k in range(frames):
            out.write_frame(
                0.01 * k + 1e-14,
                {"box": POSE},
                joints=([0.1 * k, 0.2], [0.0, 0.0], [1.23456789, 0.0]),
                contacts=[CONTACT] if k else [],
                soles={"l_sole": np.eye(3) * (1 + k)} if soles else None,
            )
        if end:
            out.write_end({"steps": 10 * (frames - 1)})
    return path


def test_recording_round_trip(tmp_path):
    path = _write_recording(tmp_path / "run.jsonl", soles=True)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines[0]["format"] == rec_format.FORMAT == "humanoid_stack.sim_recording/2"
    assert lines[0]["joints"] == {"names": NAMES} and lines[1]["t"] == 0.0  # times rounded to 1e-12
    assert lines[3]["joints"]["torques"] == [1.234568, 0.0]  # torques to 1e-6
    assert rec_format.recording_stream_header(path) == lines[0]
    stream = rec_format.read_recording_stream(path, ConfigError)
    assert stream.complete and stream.frames == 3 and stream.end == 5 and stream.doc["stats"] == {"steps": 20}
    rec = rec_format.parse_recording_document(stream.doc, str(path), ConfigError)
    np.testing.assert_allclose(rec.t, [0.0, 0.01, 0.02])
    assert rec.joint_names == NAMES and rec.joint_positions.shape == (3, 2) and rec.joint_positions[2, 0] == 0.2
    np.testing.assert_allclose(rec.bodies["box"][0], [POSE[0]] * 3)
    assert rec.contacts[0] == [] and rec.contacts[1][0].force[2] == pytest.approx(9.81)
    tri, pts = rec.soles["l_sole"]
    assert tri.tolist() == [[0, 1, 2]] and pts.shape == (3, 3, 3) and pts[2, 0, 0] == 3.0
    assert rec.scene == "flat" and rec.robot == "bip"
    # only the fields asked for (the bridge's times and joints)
    only = rec_format.read_recording_stream(path, ConfigError, keys=("joints",))
    assert set(only.doc) >= {"t", "joints"} and "bodies" not in only.doc and "contacts" not in only.doc


def test_recording_cut_off_runs_give_their_complete_frames(tmp_path):
    path = _write_recording(tmp_path / "run.jsonl", frames=3, end=False)
    stream = rec_format.read_recording_stream(path, ConfigError)
    assert not stream.complete and stream.end is None and stream.cut is None and stream.frames == 3
    text = path.read_text()
    path.write_text(text[: len(text) - 20])  # the last frame cut in the middle
    stream = rec_format.read_recording_stream(path, ConfigError)
    assert stream.cut == 4 and stream.frames == 2


def test_recording_writer_refuses_what_it_cannot_write(tmp_path):
    out = rec_format.RecordingWriter(tmp_path / "nan.jsonl")
    with pytest.raises(ConfigError, match=r"recording: cannot write field 'output' = .*nan.jsonl"):
        out.write_frame(float("nan"), {})
    out.close()
    out.close()  # twice: nothing
    (tmp_path / "file").write_text("")
    with pytest.raises(ConfigError, match="cannot write field 'output'"):
        rec_format.RecordingWriter(tmp_path / "file" / "run.jsonl")


HEADER = {"format": "humanoid_stack.sim_recording/2", "scene": "flat", "robot": "bip", "joints": {"names": NAMES}}
FRAME = {"t": 0.0, "joints": {"positions": [0.0, 0.0]}}


@pytest.mark.parametrize(
    "lines, words",
    [
        ([HEADER, FRAME, {"stats": {}}, FRAME], "line 4: a line after the end line (the 'stats' line 3)"),
        ([HEADER, {"x": 1}], "line 2: field 't': a frame needs its time 't'"),
        ([HEADER, FRAME, {"t": 0.1}], "line 3: field 'joints': missing"),
        ([HEADER, FRAME, {**FRAME, "bodies": {}}], "line 3: field 'bodies': not in the first frame"),
        ([HEADER, FRAME, {"t": 0.1, "joints": 1}], "line 3: field 'joints': expected a mapping"),
        ([{**HEADER, "joints": None}, FRAME], "line 1: field 'joints.names': missing from the header line"),
        ([HEADER], "field 't': no complete frame to replay (the file ends"),
    ],
)
def test_recording_stream_refusals(tmp_path, lines, words):
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(ConfigError) as exc:
        rec_format.read_recording_stream(path, ConfigError)
    assert str(exc.value).startswith(f"{path}: ") and words in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize(
    "doc, words",
    [
        ({"t": [0.0, 1.0], "bodies": [1]}, "field 'bodies': expected a mapping"),
        ({"t": [0.0], "bodies": {"b": {"position": [[0, 0, 0]], "quaternion": [[0, 0, 0, 0]]}}}, "zero quaternion"),
        ({"t": [0.0], "joints": {"names": "l_knee", "positions": [[0.0]]}}, "field 'joints.names': expected a list"),
        ({"t": [0.0], "joints": {"names": NAMES, "positions": [[0.0, 0.0]] * 2}}, "field 'joints.positions' must be"),
        ({"t": [0.0, 1.0], "bodies": {}, "contacts": [[]]}, "field 'contacts': expected one list"),
        ({"t": [0.0], "bodies": {}, "contacts": [[{"point": [0, 0, 0], "force": 1e10}]]}, "contacts[0][0].force"),
        ({"t": [0.0], "bodies": {}, "soles": {"s": [[[0, 0, 0]]]}, "sole_triangles": {}}, "no surface triangles"),
        ({"t": [1.0, 0.0], "bodies": {}}, "field 't': times decrease at index 1"),
    ],
)
def test_recording_document_refusals(doc, words):
    with pytest.raises(ConfigError) as exc:
        rec_format.parse_recording_document(doc, "run.json", ConfigError)
    assert str(exc.value).startswith("run.json: field '") and words in str(exc.value)


def test_recording_no_contacts_document():
    """`simulate --no-contacts` wrote ``"contacts": []`` in format /1: no contacts recorded."""
    rec = rec_format.parse_recording_document({"t": [0.0, 1.0], "bodies": {}, "contacts": []}, "x", ConfigError)
    assert rec.contacts is None and rec.joint_names is None


def test_recording_round_trip_of_an_executed_plans_stances(tmp_path):
    """The header's ``plan`` (an executed contact plan's stances, times on the run's clock) reads
    back as the plan reader's stances, in the same format version; a recording without it has
    none, and the bridge (joints only) does not read it."""
    field = plan_header(source="PLAN.json")
    path = _write_recording(tmp_path / "run.jsonl", plan=field)
    header = json.loads(path.read_text().splitlines()[0])
    assert header["format"] == rec_format.FORMAT and header["plan"] == field
    stream = rec_format.read_recording_stream(path, ConfigError)
    plan = rec_format.parse_recording_document(stream.doc, str(path), ConfigError).plan
    assert plan.source == "PLAN.json" and [s.t for s in plan.stances] == [0.0, 0.15, 0.3]
    for stance, entry in zip(plan.stances, stance_entries(), strict=True):
        assert isinstance(stance, plan_format.PlanStance) and stance.witness_q.size == 0
        assert (stance.kind, stance.changed) == (entry["kind"], entry["changed"])
        np.testing.assert_allclose(stance.support_polygon, entry["support_polygon"])
        assert [c.location for c in stance.contacts] == [c["location"] for c in entry["contacts"]]
        for c, e in zip(stance.contacts, entry["contacts"], strict=True):
            assert c.surface == e["surface"]
            for key in ("position", "quaternion", "hull"):
                np.testing.assert_allclose(getattr(c, key), e[key])
    assert rec_format.parse_recording_document(stream.doc, str(path), ConfigError, keys=("joints",)).plan is None
    plain = rec_format.read_recording_stream(_write_recording(tmp_path / "plain.jsonl"), ConfigError)
    assert rec_format.parse_recording_document(plain.doc, "plain.jsonl", ConfigError).plan is None


def _stances_changed(edit) -> dict:
    stances = stance_entries()
    edit(stances)
    return {"source": "PLAN.json", "stances": stances}


@pytest.mark.parametrize(
    "plan, words",
    [
        (3, "field 'plan': expected {source, stances}"),
        ({"source": "PLAN.json"}, "field 'plan.stances': missing"),
        ({"source": 1, "stances": []}, "field 'plan.source': expected the plan file's name"),
        ({"stances": {}}, "field 'plan.stances': expected a list of stances"),
        (
            _stances_changed(lambda s: s[0]["contacts"][0].update(position=[0, 0])),
            "field 'plan.stances[0].contacts[0].position' must be 3 finite numbers",
        ),
        (
            _stances_changed(lambda s: s[1]["contacts"][0].update(quaternion=[0, 0, 0, 0])),
            "field 'plan.stances[1].contacts[0].quaternion' must be a non-zero quaternion",
        ),
        (
            _stances_changed(lambda s: s[0]["contacts"][1].pop("surface")),
            "field 'plan.stances[0].contacts[1].surface' is missing",
        ),
        (_stances_changed(lambda s: s[2].update(contacts=[])), "field 'plan.stances[2].contacts' must be a non-empty"),
        (
            _stances_changed(lambda s: s[1].update(support_polygon=[[0, 0, 0]])),
            "field 'plan.stances[1].support_polygon' must be",
        ),
        (_stances_changed(lambda s: s[2].update(t=0.1)), "field 'plan.stances[2].t': times decrease (0.15 -> 0.1)"),
    ],
)
def test_recording_plan_refusals(tmp_path, bip, plan, words):
    """A malformed ``plan`` is one line naming its field, from the reader and the viewer's replay."""
    path = _write_recording(tmp_path / "bad.jsonl", plan=plan)
    doc = rec_format.read_recording_stream(path, ConfigError).doc
    with pytest.raises(ConfigError) as exc:
        rec_format.parse_recording_document(doc, str(path), ConfigError)
    text = str(exc.value)
    assert text.startswith(f"{path}: field 'plan") and words in text and "\n" not in text
    with pytest.raises(RecordingError, match=re.escape(words)):
        load_recording(path, bip)


# ---------------------------------------------------------------------- GAIT.json / WALK.json
def _gait_doc():
    phase = traj_format.gait_phase(
        name="cyclic_ds",
        kind="ds",
        method="direct",
        duration=0.17,
        t_start=0.0,
        t=np.array([0.0, 0.17]),
        coordinates=["x", "y"],
        q=np.zeros((2, 2)),
        qd=np.zeros((2, 2)),
        tau_names=["t1"],
        tau=np.ones((2, 1)),
        contact_forces={"F": np.ones(2)},
        energy=1.5,
        closure_residual_max=1e-6,
        root_leg="r",
        origin_x=0.0,
        checks={"energy": 1.5},
        converged=True,
    )
    samples = traj_format.trajectory_samples([0.0, 0.17], [[0.1, 0.2], [0.3, 0.4]], [[0, 0, 0.8, 0, 0, 0, 1]] * 2)
    return traj_format.gait_document(
        robot="bip",
        params="thesis",
        method="direct",
        phases=[phase],
        total_energy=1.5,
        joint_names=NAMES,
        trajectory=samples,
    )


def test_gait_file_round_trip(tmp_path):
    doc = _gait_doc()
    (tmp_path / "out").mkdir()  # the writer creates no folder (humanoid_model.files.write_text)
    path = traj_format.write_trajectory_file(tmp_path / "out" / "GAIT.json", doc)
    back = json.loads(path.read_text())
    assert back == doc and list(back) == [
        "robot",
        "params",
        "method",
        "phases",
        "total_energy",
        "joint_names",
        "trajectory",
    ]
    assert back["trajectory"]["base_pose_format"] == traj_format.BASE_POSE_FORMAT
    assert back["phases"][0]["tau"] == [[1.0], [1.0]] and back["phases"][0]["contact_forces"] == {"F": [1.0, 1.0]}
    tr = traj_format.parse_trajectory(back, str(path), ConfigError)
    assert tr.joint_names == NAMES and tr.t.tolist() == [0.0, 0.17]
    np.testing.assert_array_equal(tr.joint_positions, [[0.1, 0.2], [0.3, 0.4]])
    assert tr.base_pose.shape == (2, 7) and document_kind(back) == "trajectory"


def test_walk_file_round_trip(tmp_path):
    samples = traj_format.trajectory_samples(
        np.array([0.0, 0.005]), np.zeros((2, 2)), np.tile([0, 0, 0.6, 0, 0, 0, 1.0], (2, 1))
    )
    doc = traj_format.walk_document(robot="hrp2", joint_names=NAMES, trajectory=samples, walking={"com": [[0, 0, 0.8]]})
    path = traj_format.write_trajectory_file(tmp_path / "WALK.json", doc)
    back = json.loads(path.read_text())
    assert back == doc and back["walking"] == {"com": [[0, 0, 0.8]]}
    assert "walking" not in traj_format.walk_document(robot="hrp2", joint_names=NAMES, trajectory=samples)
    tr = traj_format.parse_trajectory(back, str(path), ConfigError)
    assert tr.joint_names == NAMES and tr.base_pose[0, 2] == 0.6


def test_gait_phases_are_read_one_after_the_other():
    doc = {
        "joint_names": NAMES,
        "phases": [
            {"t": [0.0, 0.1], "q": [[0.1, 0.2]] * 2},
            {"t": [0.0, 0.1], "q": [[0.3, 0.4]] * 2, "base": [[0, 0, 1, 0, 0, 0, 1]] * 2},  # restarts: shifted
            {"t": [0.5, 0.6], "q": [[0.5, 0.6]] * 2, "joint_names": NAMES[::-1]},  # absolute: kept
        ],
    }
    phases = traj_format.parse_phases(doc, "GAIT.json", ConfigError)
    assert [ph.t.tolist() for ph in phases] == [[0.0, 0.1], [0.1, 0.2], [0.5, 0.6]]
    assert phases[0].base is None and phases[1].base.shape == (2, 7) and phases[2].joint_names == NAMES[::-1]
    assert document_kind(doc) == "phases"


TR = {"t": [0.0, 1.0], "joint_positions": [[0.1, 0.2]] * 2}


@pytest.mark.parametrize(
    "doc, words",
    [
        ({"joint_names": NAMES, "trajectory": {"t": [0.0]}}, "field 'trajectory.joint_positions': missing"),
        ({"trajectory": TR}, "field 'joint_names': missing"),
        ({"joint_names": "l_knee", "trajectory": TR}, "field 'joint_names': expected a list of joint names"),
        (
            {"joint_names": NAMES, "trajectory": {**TR, "joint_positions": [[0.1]] * 2}},
            "'trajectory.joint_positions' must be 2 rows of 2",
        ),
        ({"joint_names": NAMES, "trajectory": {**TR, "t": [1.0, 0.0]}}, "field 'trajectory.t': times decrease"),
        (
            {"joint_names": NAMES, "trajectory": {**TR, "base_pose": [[0] * 6] * 2}},
            "'trajectory.base_pose' must be 2 rows of 7",
        ),
    ],
)
def test_trajectory_refusals(doc, words):
    with pytest.raises(ConfigError) as exc:
        traj_format.parse_trajectory(doc, "GAIT.json", ConfigError)
    assert str(exc.value).startswith("GAIT.json: field '") and words in str(exc.value)


@pytest.mark.parametrize(
    "doc, words",
    [
        ({"phases": []}, "field 'phases': expected a non-empty list"),
        ({"phases": [1]}, "field 'phases[0]': expected {t, q, joint_names}"),
        ({"phases": [{"q": [[0.0]]}]}, "field 'phases[0].t': missing"),
        ({"phases": [{"t": [0.0], "q": [[0.0]]}]}, "field 'phases[0].joint_names': missing (give it per phase"),
        ({"joint_names": NAMES, "phases": [{"t": [0.0], "q": [[0.0]] * 2}]}, "field 'phases[0].q' must be 1 rows"),
        (
            {"joint_names": NAMES, "phases": [{"t": [0.0], "q": [[0.0] * 9], "base": [[0] * 7]}]},
            "with a 'base' the rows hold the 2 joints only",
        ),
    ],
)
def test_phases_refusals(doc, words):
    with pytest.raises(ConfigError) as exc:
        traj_format.parse_phases(doc, "GAIT.json", ConfigError)
    assert str(exc.value).startswith("GAIT.json: field '") and words in str(exc.value)


# ---------------------------------------------------------------------- PLAN.json
def _plan_doc(success=True):
    contact = plan_format.contact_entry(
        location="l_sole",
        surface="floor",
        x=0.0,
        y=0.1,
        theta=0.0,
        body="LLEG_LINK5",
        position=np.array([0.0, 0.1, 0.0]),
        quaternion=(0.0, 0.0, 0.0, 1.0),
        hull=np.zeros((4, 3)),
    )
    row = [0.0, 0.0, 0.6, 0.0, 0.0, 0.0, 1.0, 0.123456789012345, -0.5]
    stance = plan_format.stance_entry(
        contacts=[contact],
        witness_q=row,
        support_polygon=np.eye(3)[:, :2],
        t=0.0,
        kind="root",
        changed=None,
        potential=np.float64(2.0),
    )
    return plan_format.plan_document(
        scene="flat",
        robot="bip",
        algorithm="vbfp",
        seed=0,
        time_limit=10,
        goal={"kind": "walk"},
        success=success,
        reason="" if success else "time limit",
        stances=[stance] if success else [],
        transitions=[
            plan_format.transition_entry(start=0, kind="added", location="r_sole", surface="floor", t=(0.0, 1.0))
        ],
        goal_q=row if success else None,
        t=np.array([0.0, 1.0]) if success else [],
        q=[row, row] if success else [],
        joint_names=NAMES,
        dt=1.0,
        unclear_segments=[],
        stats={"nodes_generated": 1},
    )


def test_plan_file_round_trip(tmp_path):
    doc = _plan_doc()
    assert doc["format"] == plan_format.FORMAT == "humanoid_stack.contact_plan/1" and document_kind(doc) == "plan"
    assert doc["trajectory"]["q"][0][7] == round(0.123456789012345, plan_format.DIGITS)
    assert doc["transitions"] == [
        {"from": 0, "to": 1, "kind": "added", "location": "r_sole", "surface": "floor", "t": [0.0, 1.0]}
    ]
    path = plan_format.write_plan(tmp_path / "PLAN.json", doc)
    text = path.read_text()
    assert text.endswith("}\n") and ", " not in text  # compact
    plan = plan_format.parse_contact_plan(json.loads(text), str(path), ConfigError)
    assert plan.success and plan.robot == "bip" and plan.joint_names == NAMES and plan.unclear_segments == []
    np.testing.assert_array_equal(plan.trajectory_t, [0.0, 1.0])
    c = plan.stances[0].contacts[0]
    assert c.location == "l_sole" and c.position.tolist() == [0.0, 0.1, 0.0] and c.hull.shape == (4, 3)
    failed = plan_format.parse_contact_plan(_plan_doc(success=False), "FAILED.json", ConfigError)
    assert not failed.success and failed.reason == "time limit" and failed.trajectory_q.shape == (0, 9)
    with pytest.raises(PlanningError, match="cannot write the plan file"):
        plan_format.write_plan(tmp_path / "no" / "dir" / "PLAN.json", doc)


@pytest.mark.parametrize(
    "change, words",
    [
        ({"format": "humanoid_stack.contact_plan/0"}, "field 'format' must be 'humanoid_stack.contact_plan/1'"),
        ({"stances": []}, "field 'stances' must be non-empty with a non-empty trajectory"),
        ({"success": "yes"}, "field 'success' must be true or false"),
        ({"trajectory": None}, "field 'trajectory' must be a mapping"),
    ],
)
def test_plan_refusals(change, words):
    with pytest.raises(ConfigError) as exc:
        plan_format.parse_contact_plan({**_plan_doc(), **change}, "PLAN.json", ConfigError)
    assert str(exc.value).startswith("PLAN.json: field '") and words in str(exc.value)


def test_plan_trajectory_refusals():
    doc = _plan_doc()
    bad = {**doc, "trajectory": {**doc["trajectory"], "unclear_segments": "1"}}
    with pytest.raises(ConfigError, match="field 'trajectory.unclear_segments' must be a list of segment indices"):
        plan_format.parse_contact_plan(bad, "PLAN.json", ConfigError)
    bad = {**doc, "trajectory": {**doc["trajectory"], "t": [1.0, 0.0]}}
    with pytest.raises(ConfigError, match="field 'trajectory.t' must be non-decreasing times"):
        plan_format.parse_contact_plan(bad, "PLAN.json", ConfigError)


# ---------------------------------------------------------------------- configurations, detection
def test_configurations_round_trip(tmp_path):
    path = conf_format.write_configurations(tmp_path / "q.json", [0.0, 0.5], [[0.1, 0.2], [0.3, 0.4]], NAMES)
    doc = json.loads(path.read_text())
    assert doc == {"t": [0.0, 0.5], "q": [[0.1, 0.2], [0.3, 0.4]], "joint_names": NAMES}
    conf = conf_format.parse_configurations(doc, str(path), ConfigError)
    assert conf.joint_names == NAMES and conf.q.shape == (2, 2) and document_kind(doc) == "configurations"
    assert conf_format.parse_configurations({"t": [0.0], "q": [[1.0]]}, "x", ConfigError).joint_names is None
    with pytest.raises(ConfigError, match=r"q.json: field 'q' must be 2 rows"):
        conf_format.parse_configurations({"t": [0.0, 0.5], "q": [[0.1]]}, "q.json", ConfigError)
    with pytest.raises(ConfigError, match=r"q.json: field 'joint_names': expected a list of joint names"):
        conf_format.parse_configurations({"t": [0.0], "q": [[0.1]], "joint_names": [1]}, "q.json", ConfigError)


def test_document_kinds_and_files(tmp_path):
    assert KINDS == ("plan", "trajectory", "phases", "configurations", "recording")
    assert document_kind({"t": [0.0], "bodies": {}}) == "recording" and document_kind({"t": [0.0]}) is None
    assert document_kind([1]) is None
    stream_path = _write_recording(tmp_path / "run.jsonl")
    doc, stream = read_format_file(stream_path, "replay file", ConfigError)
    assert stream is not None and document_kind(doc) == "recording" and len(doc["t"]) == 3
    json_path = tmp_path / "q.json"
    json_path.write_text(json.dumps({"t": [0.0], "q": [[0.0]]}))
    doc, stream = read_format_file(json_path, "replay file", ConfigError)
    assert stream is None and document_kind(doc) == "configurations"
    with pytest.raises(ConfigError, match="nothere.json: cannot read the replay file"):
        read_format_file(tmp_path / "nothere.json", "replay file", ConfigError)


# ---------------------------------------------------------------------- the bridge's stricter rules
def _write(path, doc):
    path.write_text(json.dumps(doc))
    return path


def test_bridge_requires_the_same_joint_names_in_every_phase(tmp_path, bip):
    """The viewer replays phases naming their joints in any order; the bridge refuses them."""
    doc = {
        "phases": [
            {"t": [0.0, 0.1], "q": [[0.1, 0.2]] * 2, "joint_names": NAMES},
            {"t": [0.2], "q": [[0.3, 0.4]], "joint_names": NAMES[::-1]},
        ]
    }
    path = _write(tmp_path / "GAIT.json", doc)
    assert len(load_recording(path, bip)) == 3
    with pytest.raises(BridgeError, match=r"field 'phases\[1\].joint_names' must be the same in every phase"):
        load_plan(path, bip)


def test_bridge_drops_the_repeated_junction_sample_the_viewer_keeps(tmp_path, bip):
    doc = {
        "joint_names": NAMES,
        "phases": [{"t": [0.0, 0.1], "q": [[0.1, 0.2]] * 2}, {"t": [0.0, 0.1], "q": [[0.1, 0.2], [0.3, 0.4]]}],
    }
    path = _write(tmp_path / "GAIT.json", doc)
    assert load_recording(path, bip).t.tolist() == pytest.approx([0.0, 0.1, 0.1, 0.2])
    traj, _ = load_plan(path, bip)
    assert traj.times.tolist() == pytest.approx([0.0, 0.1, 0.2]) and traj.positions[-1].tolist() == [0.3, 0.4]


def test_bridge_needs_joint_rows_and_a_robot_in_recordings(tmp_path, bip):
    """Rows of base + joints in phases, a recording of free bodies only: read by the shared
    readers (the viewer replays them), refused by the bridge."""
    doc = {"joint_names": NAMES, "phases": [{"t": [0.0], "q": [[0, 0, 1, 0, 0, 0, 1, 0.1, 0.2]]}]}
    path = _write(tmp_path / "GAIT.json", doc)
    assert load_recording(path, bip).q[0, 2] == 1.0
    with pytest.raises(BridgeError, match=r"field 'phases\[0\].q' must be 1 rows of 2 values; value shape \(1, 9\)"):
        load_plan(path, bip)
    bodies = {"t": [0.0], "bodies": {"box": {"position": [[0, 0, 0]], "quaternion": [[0, 0, 0, 1]]}}}
    path = _write(tmp_path / "boxes.json", bodies)
    assert list(load_recording(path).bodies) == ["box"]
    with pytest.raises(BridgeError, match="not a plan"):
        load_plan(path, bip)
    header = {"format": rec_format.FORMAT, "scene": "flat", "robot": None}
    frame = {"t": 0.0, "bodies": {"box": {"position": [0, 0, 0], "quaternion": [0, 0, 0, 1]}}}
    path = tmp_path / "boxes.jsonl"
    path.write_text(json.dumps(header) + "\n" + json.dumps(frame) + "\n")
    assert len(load_recording(path, None, warn=lambda text: None)) == 1
    with pytest.raises(BridgeError, match="line 1: field 'joints.names': missing \\(a recording without a robot\\)"):
        load_plan(path, bip)


def test_bridge_refuses_a_plan_without_motion_the_reader_accepts(tmp_path, bip):
    doc = _plan_doc(success=False)
    assert not plan_format.parse_contact_plan(doc, "FAILED.json", BridgeError).success
    path = _write(tmp_path / "FAILED.json", doc)
    with pytest.raises(BridgeError, match=r"field 'success' is false: the planner found no motion \(time limit\)"):
        load_plan(path, bip)
    with pytest.raises(RecordingError, match="field 'success': false: the planner found no motion to replay"):
        load_recording(path, bip)


def test_bridge_reads_the_shared_readers_refusals(tmp_path, bip):
    """A malformed file is refused by the bridge and the viewer with the same field named."""
    doc = {"joint_names": NAMES, "trajectory": {"t": [0.0, float("inf")], "joint_positions": [[0.0, 0.0]] * 2}}
    path = tmp_path / "GAIT.json"
    path.write_text(json.dumps(doc))
    for reader, error in (
        (lambda: load_plan(path, bip), BridgeError),
        (lambda: load_recording(path, bip), RecordingError),
    ):
        with pytest.raises(error, match=r"GAIT.json: field 'trajectory.t' must be a list of finite numbers within"):
            reader()


def test_a_recording_of_an_unknown_format_version_names_it_and_the_known_ones(tmp_path, capsys):
    """A JSON Lines recording whose header names another version was reported as "not valid JSON"."""
    from humanoid_model.formats.detect import read_format_file
    from humanoid_stack.cli import main

    path = tmp_path / "run.jsonl"
    path.write_text(
        json.dumps({**HEADER, "format": "humanoid_stack.sim_recording/3"}) + "\n" + json.dumps(FRAME) + "\n"
    )
    with pytest.raises(ConfigError) as err:
        read_format_file(path, "replay file", ConfigError)
    msg = str(err.value)
    assert "'humanoid_stack.sim_recording/3' is not one this version reads" in msg and "not valid JSON" not in msg
    assert "'humanoid_stack.sim_recording/2', JSON Lines, and 'humanoid_stack.sim_recording/1'" in msg
    assert main(["view", "--replay", str(path), "--duration", "1"]) == 2
    out = capsys.readouterr().err.strip()
    assert out.startswith("humanoid-stack view: error: ") and "sim_recording/3" in out and "\n" not in out


def test_a_full_disk_leaves_the_older_trajectory_file_whole(tmp_path, monkeypatch):
    """WALK.json / GAIT.json are written atomically: a write that fails (os.fsync raising ENOSPC)
    leaves the file that was there as it was, and no temporary file (the plain write left a
    truncated file: 16,384 bytes of a 28 kB GAIT.json on a 16 kB tmpfs)."""
    import errno
    import os

    path = tmp_path / "WALK.json"
    path.write_text('{"older": true}')

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(ConfigError, match=r"WALK.json: cannot write the WALK.json: No space left on device"):
        traj_format.write_trajectory_file(path, _gait_doc(), "WALK.json", ConfigError)
    assert path.read_text() == '{"older": true}' and [p.name for p in tmp_path.iterdir()] == ["WALK.json"]
