"""An executed contact plan's recording carries the planned stances (`humanoid_execution.plan_recording`,
docs/recording.md) and replays with them: a short plan on the flat scene (HRP-2 steps 0.2 m forward,
5 stances) executed in closed loop, its recording read back and replayed in the viewer."""

import json

import numpy as np
import pytest

from humanoid_execution.run import RunSettings, execute
from humanoid_model.formats.recording import recording_stream_header
from humanoid_model.planar_polygon import signed_distance
from humanoid_stack.cli import main
from humanoid_viewer.app import Viewer
from humanoid_viewer.replay import load_recording

PLAN_ARGS = ["flat", "--goal", "0.2,0", "--joint-speed", "60", "--base-speed", "0.3", "--base-rotation-speed", "30"]
ON_SUPPORT = 0.005  # [m] (chosen) a measured contact point this far outside the planned support polygon is still on it


@pytest.mark.slow  # 14 s of closed loop (the plan slowed from 4.9 s by the balance retiming)
def test_an_executed_plan_replays_with_its_stances_at_their_times_in_the_run(tmp_path):
    plan_path, run_path = tmp_path / "PLAN.json", tmp_path / "RUN.jsonl"
    assert main(["plan", *PLAN_ARGS, "--quiet", "--output", str(plan_path)]) == 0
    plan = json.loads(plan_path.read_text())
    run = execute(plan_path, RunSettings(extra_time=0.1), output=run_path)
    assert run.report.success, run.report.reason
    header = recording_stream_header(run_path)
    assert header["plan"]["source"] == str(plan_path)
    recorded = header["plan"]["stances"]
    assert [[c["location"] for c in s["contacts"]] for s in recorded] == [
        [c["location"] for c in s["contacts"]] for s in plan["stances"]
    ]
    rec = load_recording(run_path, run.world.robot)
    assert len(rec.stances) == len(plan["stances"]) and rec.contacts is not None
    # each stance at the time the run's reference reaches its witness posture: the plan slowed
    # where its dynamics need it (humanoid_control.wbc.retime), counted from the run's start
    ref = run.reference
    assert ref.duration > ref.nominal_duration
    for s, planned in zip(rec.stances, plan["stances"], strict=True):
        assert s.t >= planned["t"] + rec.t[0]
        np.testing.assert_allclose(ref.sample(ref.start + s.t - rec.t[0]).q[:7], planned["witness_q"][:7], atol=1e-6)
    # the robot's contacts at the end lie in the last stance's planned support polygon
    last = rec.stances[-1]
    assert rec.contacts[-1] and all(
        signed_distance(last.support_polygon, c.point[:2]) > -ON_SUPPORT for c in rec.contacts[-1]
    )
    viewer = Viewer(run.world.robot, scene="flat", port=0, verbose=False)
    try:
        viewer.load_replay(rec)
        for k in reversed(range(len(rec.stances))):  # the selector shows stance 0 first
            s = rec.stances[k]
            viewer.replay.stance_selector.value = viewer.replay.stance_selector.options[k]
            assert viewer.replay.stance_index == k and 0.0 <= rec.t[viewer.replay_index] - s.t < 0.011
            assert len(viewer.markers("replay/plan")[("plan", 0)].points) == 6 * len(s.contacts)
    finally:
        viewer.close()


def test_the_recorded_stances_are_on_the_runs_clock():
    """`recorded_plan`: a stance's plan time mapped through the retimed samples, from the run's
    start; the stances' contacts and polygons as planned; None for a motion that is no plan."""
    from types import SimpleNamespace

    from support.planned_stances import stance_entries

    from humanoid_execution.plan_recording import recorded_plan
    from humanoid_model.formats.plan import FORMAT

    stances = [{**s, "witness_q": [0.0, 0.0, 0.6, 0.0, 0.0, 0.0, 1.0]} for s in stance_entries(times=(0.0, 1.0, 1.5))]
    doc = {
        "format": FORMAT,
        "success": True,
        "stances": stances,
        "trajectory": {"t": [0.0, 1.0, 2.0], "q": [stances[0]["witness_q"]] * 3, "joint_names": []},
    }
    retimed = SimpleNamespace(t=np.array([0.0, 2.0, 3.0]), start=0.0)  # the first second slowed 2 times
    field = recorded_plan(doc, "PLAN.json", retimed, start=0.5)
    assert field["source"] == "PLAN.json" and [s["t"] for s in field["stances"]] == [0.5, 2.5, 3.0]
    for s, planned in zip(field["stances"], stances, strict=True):
        assert s["support_polygon"] == planned["support_polygon"] and s["kind"] == planned["kind"]
        assert [c["position"] for c in s["contacts"]] == [c["position"] for c in planned["contacts"]]
    assert recorded_plan({"trajectory": {}, "walking": {}}, "WALK.json", retimed, 0.0) is None
