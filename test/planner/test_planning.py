"""Planning runs end to end (`humanoid_planner.planning`) and `humanoid-stack plan`: PLAN.json
(docs/planning.md) read back by the shared reader `humanoid_model.formats.plan` and checked against
forward kinematics (each contact frame is where the witness posture puts the contact location, the
support polygon holds the witness's CoM), the statistics by outcome code (as Escande 2008, Table
7.1, §7.5.2) against the planner's own per-call log, and the command's exit codes: 0 with a plan, 1
with the reason on one line and the statistics still written when the search runs out of time, 2 for
bad input."""

import io
import json
import re

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model.exceptions import PlanningError
from humanoid_model.formats.plan import FORMAT, parse_contact_plan
from humanoid_planner.motion import PlannedSegment
from humanoid_planner.planning import format_histogram, histogram
from humanoid_planner.posture import Outcome
from humanoid_stack.cli import main


@pytest.fixture(scope="module")
def plan_file(flat_walk_plan):
    doc = json.loads(flat_walk_plan["path"].read_text())
    return doc, parse_contact_plan(doc, str(flat_walk_plan["path"]), PlanningError)


def test_plan_json_stances_match_the_witness_postures(robot, flat_walk_plan, plan_file):
    """Every contact's world frame is the contact location's frame at the witness (point within
    1e-5 m, axes within 1e-4 rad), the CoM of each witness is inside the support polygon written
    for its stance (or the smaller one: the transition rule, Escande 2008, §5.3.1.3), consecutive stances differ by one
    contact, and the trajectory rows are the witness rows at the stances' times."""
    doc, plan = plan_file
    assert doc["format"] == FORMAT and plan.success and plan.robot == "hrp2" and plan.scene == "flat"
    m, d = robot.model, robot.model.createData()
    assert plan.joint_names == robot.joint_names and plan.trajectory_q.shape[1] == 7 + len(robot.joint_names)
    nodes = flat_walk_plan["result"].plan.nodes
    assert len(plan.stances) == len(nodes)
    for k, (s, n) in enumerate(zip(plan.stances, nodes)):
        np.testing.assert_allclose(s.witness_q, n.q, atol=1e-12)
        pin.framesForwardKinematics(m, d, n.q)
        for c in s.contacts:
            loc = robot.contact_locations[c.location]
            M = d.oMf[m.getFrameId(loc.body)]
            np.testing.assert_allclose(M.act(np.asarray(loc.point, float)), c.position, atol=1e-5)
            R_robot = M.rotation @ np.column_stack([loc.tangent, np.cross(loc.normal, loc.tangent), loc.normal])
            assert np.linalg.norm(pin.log3(c.rotation.T @ R_robot)) < 1e-4
        i = int(np.argmin(np.abs(plan.trajectory_t - s.t)))
        np.testing.assert_allclose(plan.trajectory_q[i], s.witness_q, atol=1e-9)
        polygons = [s.support_polygon] + ([plan.stances[k - 1].support_polygon] if k else [])
        g = pin.centerOfMass(m, d, n.q)[:2]
        inside = [all(_left(P[j], P[(j + 1) % len(P)], g) for j in range(len(P))) for P in polygons]
        assert any(inside)
    for t in doc["transitions"]:
        a = {(c.location, c.x, c.y) for c in plan.stances[t["from"]].contacts}
        b = {(c.location, c.x, c.y) for c in plan.stances[t["to"]].contacts}
        assert len(a ^ b) == 1 and t["location"] in {x[0] for x in a ^ b}


def _left(a, b, g) -> bool:
    """Whether g is strictly left of the edge a -> b (inside a counter-clockwise polygon)."""
    return (b[0] - a[0]) * (g[1] - a[1]) - (b[1] - a[1]) * (g[0] - a[0]) > 0


@pytest.mark.spec("001", "A24")
def test_stats_count_every_pg_call_by_outcome_code(flat_walk_plan):
    """The histogram's rows sum to the planner's and the motion's logged calls; each row's count
    and total are the sums over purposes of that outcome; mean = total / count; Table 7.1's codes."""
    r = flat_walk_plan["result"]
    stats = flat_walk_plan["doc"]["stats"]
    assert stats["nodes_generated"] == r.plan.generated and stats["nodes_expanded"] == r.plan.expanded
    assert stats["pg_calls_search"]["calls"] == r.plan.stats.total_calls
    assert stats["pg_calls_motion"]["calls"] == r.motion.stats.total_calls >= 19 * len(r.motion.segments)  # k - 1 each
    assert stats["pg_calls"]["calls"] == r.plan.stats.total_calls + r.motion.stats.total_calls
    for row in stats["pg_calls"]["by_outcome"]:
        name = Outcome(row["code"]).name
        n = sum(v for (p, o), v in r.plan.stats.calls.items() if o == name)
        n += sum(v for (p, o), v in r.motion.stats.calls.items() if o == name)
        assert row["count"] == n and row["name"] == name
        assert row["mean_time"] == pytest.approx(row["total_time"] / n)


def test_histogram_groups_by_code_over_purposes_with_shares():
    items = [
        ("addition", Outcome.SUCCESS, 3, 0.3),
        ("goal", Outcome.INFEASIBLE_INEQUALITIES, 2, 0.02),
        ("transition", Outcome.SUCCESS, 1, 0.1),
        ("goal", Outcome.NO_PROGRESS, 2, 1.0),
    ]
    rows = histogram(items)
    assert [(int(r.outcome), r.count) for r in rows] == [(0, 4), (2, 2), (8, 2)]
    assert rows[0].mean == pytest.approx(0.1) and rows[0].share == pytest.approx(0.5)
    text = format_histogram(rows)
    assert "| 0 | success | 4 | 50.0 % | 0.1000 | 0.400 |" in text
    assert text.splitlines()[-1] == "| total | | 8 | 100 % | 0.1775 | 1.420 |"


def test_cli_plan_writes_the_plan_and_prints_the_histogram(tmp_path, capsys):
    out = tmp_path / "PLAN.json"
    argv = ["plan", "flat", "--steps", "2", "--joint-speed", "90", "--stats", "--quiet", "--output", str(out)]
    assert main(argv) == 0  # 2 steps and 90 deg/s: a short file (the motion's checks are test_motion's)
    text = capsys.readouterr().out
    assert "| 0 | success |" in text and "wrote" in text
    plan = parse_contact_plan(json.loads(out.read_text()), str(out), PlanningError)
    # k - 1 = 1 projection per segment, plus the refinements that 2 steps need (generate.py)
    assert plan.success and len(plan.stances) >= 5 and plan.stats["pg_calls_motion"]["calls"] >= 5


def test_cli_plan_no_motion_collision_marks_every_segment_unclear(tmp_path, capsys, plan_file):
    """``--no-motion-collision``: the thesis's projections, every segment listed in PLAN.json's
    ``trajectory.unclear_segments`` (the lead-in as -1; and no warning: asked for); the shared plan,
    made with the collision rows, lists none."""
    out = tmp_path / "PLAN.json"
    argv = ["plan", "flat", "--steps", "2", "--joint-speed", "90", "--quiet", "--no-motion-collision", "-o", str(out)]
    assert main(argv) == 0
    assert "warning" not in capsys.readouterr().err
    doc = json.loads(out.read_text())
    # the lead-in (-1) and the goal's segment too
    assert doc["trajectory"]["unclear_segments"] == list(range(-1, len(doc["stances"])))
    assert plan_file[0]["trajectory"]["unclear_segments"] == []


def test_cli_plan_warns_naming_the_segments_projected_without_collision_rows(tmp_path, capsys, monkeypatch):
    """A motion with segments the collision rows could not keep (`Motion.unclear`, stubbed here on
    the flat walk's motion: the walk has none): exit 0, one warning line on stderr naming them,
    and PLAN.json lists them."""
    import importlib

    # the module (the package exports its function under the same name)
    run_module = importlib.import_module("humanoid_planner.planning.run")

    real = run_module.generate_motion

    def unclear(*args, **kwargs):
        m = real(*args, **kwargs)
        m.unclear = [1, 3]
        m.planned = [PlannedSegment(1, False, 2.5, 40, "no path in 30000 state checks")]
        return m

    monkeypatch.setattr(run_module, "generate_motion", unclear)
    out = tmp_path / "PLAN.json"
    assert main(["plan", "flat", "--steps", "2", "--joint-speed", "90", "--quiet", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    err, out_text = captured.err.strip(), captured.out
    assert err.startswith("humanoid-stack plan: warning: segments [1, 3]") and "\n" not in err
    doc = json.loads(out.read_text())
    assert doc["trajectory"]["unclear_segments"] == [1, 3]
    # the path planner's segments: a line each, and PLAN.json's statistics
    assert "motion: segment 1: no planned path in 2.5 s: no path in 30000 state checks" in out_text
    assert doc["stats"]["motion_planned_segments"] == [
        {"index": 1, "found": False, "time": 2.5, "states": 40, "reason": "no path in 30000 state checks", "knots": 0}
    ]


def test_cli_plan_without_a_plan_exits_1_with_the_reason_and_still_writes_the_stats(tmp_path, capsys):
    """A time limit the search cannot meet (it is checked before each expansion): exit 1, one line
    on stderr with the reason, PLAN.json with success false and the statistics."""
    out = tmp_path / "PLAN.json"
    assert main(["plan", "flat", "--time-limit", "1e-9", "--output", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("humanoid-stack plan: no plan: time limit") and "\n" not in err
    doc = json.loads(out.read_text())
    assert doc["success"] is False and doc["stances"] == [] and doc["trajectory"]["t"] == []
    assert doc["stats"]["pg_calls"]["calls"] >= 1  # the root's projection was made and logged
    assert parse_contact_plan(doc, str(out), PlanningError).reason.startswith("time limit")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--goal", "1,x"], "option '--goal' must be X,Y"),
        (["--time-limit", "0"], "option '--time-limit' must be a finite number > 0"),
        (["--steps", "0"], "option '--steps' must be an integer >= 1"),
        (["--plan-time", "-1"], "option '--plan-time' must be a finite number >= 0"),
        (["--robot", "nobot"], "nobot"),
        (["--output", "/nonexistent/dir/PLAN.json"], "option '--output': folder '/nonexistent/dir' does not exist"),
        (["--set", "reac=0"], "unknown planner setting 'reac' (did you mean 'reach'?)"),
        (["--set", "reach"], "option '--set' must be KEY=VALUE"),
        (["--set", "reach=abc"], "option '--set reach': the value must be JSON"),
    ],
)
def test_cli_plan_bad_input_exits_2_with_a_one_line_reason(argv, message, capsys):
    assert main(["plan", "flat", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


def test_cli_plan_unknown_scene_and_scene_without_a_problem(tmp_path, capsys, scene_file):
    assert main(["plan", "no_such_scene"]) == 2
    assert "no_such_scene" in capsys.readouterr().err
    path = scene_file("name: bare\nsurfaces: [{name: floor, vertices: [[-1, -1, 0], [1, -1, 0], [1, 1, 0]]}]\n")
    assert main(["plan", str(path)]) == 2
    assert "no planning problem defined" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["stairs", "table_can", "under_table", "chair_table", "glass"])
def test_scene_problems_keep_the_witnesses_clear_of_the_scene_bodies(name, robot, monkeypatch, tmp_path):
    """Every shipped scene with a planning section builds its problem with the scene's static
    bodies as obstacles, through `problem_for` (what the plan command and the node call): the
    planner's obstacle list is the scene's boxes by name and pose and the ground (its top face at
    the scene's ground height), and `humanoid-stack plan` hands that problem to the search
    (captured; 1e-9 s limit: exit 1 after the root's PG call)."""
    import humanoid_planner.planning as planning
    from humanoid_model.scene import load_scene

    scene = load_scene(name)
    problem = planning.problem_for(scene, robot)
    obstacles = {o.name: o.translation for o in problem.planner.feas.obstacles}
    boxes = {b.name: b.pose.xyz for b in scene.bodies if b.shape.kind == "box"}
    ground = next(o for o in problem.planner.feas.obstacles if o.name == "ground")
    assert ground.translation[2] + ground.shape.halfSide[2] == scene.ground.height
    boxes["ground"] = ground.translation
    assert boxes and obstacles.keys() == boxes.keys()
    for k, xyz in boxes.items():
        np.testing.assert_allclose(obstacles[k], xyz)
    if name != "stairs":
        return
    built = []
    real = planning.problem_for
    monkeypatch.setattr(planning, "problem_for", lambda *a, **k: built.append(real(*a, **k)) or built[-1])
    argv = ["plan", name, "--time-limit", "1e-9", "--quiet", "--output", str(tmp_path / "p.json")]
    assert main(argv + ["--set", "placed_candidates=true", "--set", "density=2.5"]) == 1
    assert [o.name for o in built[0].planner.feas.obstacles] == list(obstacles)
    # --set reaches the planner's settings; the rest stay the scene's
    s, default = built[0].planner.s, problem.planner.s
    assert (
        (s.placed_candidates, s.density, s.candidates)
        == (True, 2.5, default.candidates)
        != (
            default.placed_candidates,
            default.density,
            default.candidates,
        )
    )


def test_a_measured_start_takes_the_base_pose_and_the_named_joints_clipped_to_their_limits(robot):
    """`planning.measured` (the contact_planner node's `start_from: state`): base position and
    normalised quaternion as given, the named joints set (others kept, unknown names ignored), the
    joints clipped to their limits; the flat walk's problem accepts it with both soles in its start
    stance; a non-finite or zero pose is refused."""
    from humanoid_model.scene import load_scene
    from humanoid_planner.planning import measured, problem_for
    from humanoid_planner.planning.problem import scene_start_q

    scene = load_scene("flat")
    q0 = scene_start_q(scene, robot)
    yaw = 0.4
    quat = 2.0 * np.array([0.0, 0.0, np.sin(yaw / 2), np.cos(yaw / 2)])  # not normalised: the node's input as sent
    moved = robot.joint_names[3]
    joints = {moved: q0[robot.joint_index_q(moved)] + 1e-3, robot.joint_names[0]: 1e3, "not_a_joint": 7.0}
    q = measured(q0, robot, (0.3, -0.2, q0[2]), quat, joints)
    assert q[:3] == pytest.approx([0.3, -0.2, q0[2]])
    assert q[3:7] == pytest.approx([0.0, 0.0, np.sin(yaw / 2), np.cos(yaw / 2)])
    assert q[robot.joint_index_q(moved)] == pytest.approx(joints[moved])
    assert q[robot.joint_index_q(robot.joint_names[0])] == robot.q_upper[0]  # clipped
    others = [i for i, n in enumerate(robot.joint_names) if n not in joints]
    assert np.array_equal(q[7:][others], q0[7:][others])
    problem = problem_for(scene, robot, start_q=q)
    assert sorted(c.location for c in problem.start.contacts) == ["l_sole", "r_sole"]
    for bad in ((np.nan, 0, 0.6), (0, 0, 0.6)):
        with pytest.raises(PlanningError, match="measured start"):
            measured(q0, robot, bad, quat if np.isnan(bad[0]) else np.zeros(4), {})


def test_cli_plan_takes_robot_algorithm_seed_and_goal_and_shows_progress(tmp_path, capsys):
    """The request's flags reach the plan (PLAN.json's ``robot``, ``algorithm``, ``seed`` and goal
    point; a BFP walk to 0.3 m) and, without ``--quiet``, the progress line names nodes generated
    and expanded, the best potential and the elapsed time (one line per second off a terminal,
    the first at once)."""
    out = tmp_path / "PLAN.json"
    argv = ["plan", "flat", "--robot", "hrp2", "--algorithm", "bfp", "--seed", "3", "--goal", "0.3,0"]
    assert main(argv + ["--steps", "2", "--joint-speed", "90", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert re.search(r"^nodes \d+ generated, \d+ expanded; best potential [-0-9.e]+; \d+\.\d s$", text, re.M), text
    doc = json.loads(out.read_text())
    assert (doc["robot"], doc["algorithm"], doc["seed"]) == ("hrp2", "bfp", 3)
    assert doc["goal"]["point"] == [0.3, 0.0]


class _Stream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def test_progress_line_rewrites_a_terminal_and_prints_once_per_second_elsewhere():
    from humanoid_planner.contact.search import Progress
    from humanoid_stack.commands.plan import ProgressLine

    steps = [
        Progress(g, e, 1.0 / g, t) for g, e, t in ((1, 0, 0.0), (2, 1, 0.4), (3, 1, 1.1), (4, 2, 1.5), (5, 2, 2.2))
    ]
    log = _Stream(tty=False)
    line = ProgressLine(log)
    for p in steps:
        line(p)
    line.end()
    rows = log.getvalue().splitlines()
    assert [r.split(",")[0] for r in rows] == ["nodes 1 generated", "nodes 3 generated", "nodes 5 generated"]
    assert rows[1] == "nodes 3 generated, 1 expanded; best potential 0.3333; 1.1 s"
    term = _Stream(tty=True)
    line = ProgressLine(term)
    for p in steps:
        line(p)
    line.end()
    assert term.getvalue().count("\r") == 5 and term.getvalue().endswith("2.2 s\n")


def test_a_note_prints_its_own_line_and_the_terminal_line_comes_back_below_it():
    """The path check's lines (`ProgressLine.note`): a line of their own in a log; on a terminal
    the progress line is cleared, the note printed, and the progress line drawn again."""
    from humanoid_planner.contact.search import Progress
    from humanoid_stack.commands.plan import ProgressLine

    log = _Stream(tty=False)
    line = ProgressLine(log)
    line(Progress(3, 1, 0.5, 0.0))
    line.note("motion check: segment 5: no clear motion: its transition is cut")
    assert log.getvalue().splitlines()[-1] == "motion check: segment 5: no clear motion: its transition is cut"
    term = _Stream(tty=True)
    line = ProgressLine(term)
    line(Progress(3, 1, 0.5, 0.0))
    line.note("cut")
    line.end()
    shown = term.getvalue()
    assert shown.endswith("\r\033[Kcut\nnodes 3 generated, 1 expanded; best potential 0.5; 0.0 s\n")
