"""The sweep's grid and job kinds (`humanoid_execution.sweep.grid`, `jobs`), run serially: the job
list is the axes' cartesian product (the last axis fastest) with the defaults and the dotted groups
filled in; a plan job and an execute job measure what the planner and the closed loop report; the
simulate job's fall rule is the closed loop's."""

import math

import numpy as np
import pytest

from humanoid_execution.sweep.grid import sweep_from_dict
from humanoid_execution.sweep.jobs import KINDS, _fall, run_jobs
from humanoid_sim.runtime.closed_loop import FALL_HEIGHT, FALL_TILT
from humanoid_stack.cli import main


def test_the_jobs_are_the_cartesian_product_of_the_axes_with_the_defaults(tmp_path):
    doc = {
        "kind": "simulate",
        "base": {"scene": "flat", "duration": 0.5, "scene.ground.restitution": 0.0},
        "axes": {"solver": ["nsgs_newton", "nsgs"], "seed": [0, 1, 2], "solver.max_iterations": [50]},
    }
    sweep = sweep_from_dict(doc, "s.yaml", tmp_path)
    assert len(sweep.jobs) == 6 and sweep.points[1] == {"solver": "nsgs_newton", "seed": 1, "solver.max_iterations": 50}
    assert [(p["solver"], p["seed"]) for p in sweep.points] == [
        (s, k) for s in ("nsgs_newton", "nsgs") for k in range(3)
    ]
    job = sweep.jobs[4]
    assert job == {
        "scene": "flat",
        "robot": None,
        "duration": 0.5,
        "dt": 1e-3,
        "solver": "nsgs",
        "seed": 1,
        "scene_overrides": {"ground.restitution": 0.0},
        "solver_settings": {"max_iterations": 50},
    }


def test_a_scene_or_motion_file_is_relative_to_the_sweep_file(tmp_path):
    (tmp_path / "W.json").write_text("{}")
    sweep = sweep_from_dict({"kind": "execute", "base": {"motion": "W.json"}}, "s.yaml", tmp_path)
    assert sweep.jobs == [
        {
            "motion": str(tmp_path / "W.json"),
            "scene": None,
            "controller": "wbc",
            "model_error": 0.0,
            "seed": 0,
            "extra_time": 1.0,
            "retime": True,
        }
    ]


def test_the_simulate_fall_rule_is_the_closed_loops():
    def q(z, tilt):
        return np.r_[0.0, 0.0, z, math.sin(tilt / 2), 0.0, 0.0, math.cos(tilt / 2)]

    assert not _fall(q(0.6, FALL_TILT - 0.01), 0.6, 0.0)
    assert _fall(q(0.6, FALL_TILT + 0.01), 0.6, 0.0)
    assert not _fall(q(0.1 + FALL_HEIGHT * 0.6 + 1e-3, 0.0), 0.6, 0.1)
    assert _fall(q(0.1 + FALL_HEIGHT * 0.6 - 1e-3, 0.0), 0.6, 0.1)


def test_a_plan_job_reports_the_search_as_the_planner_does():
    from humanoid_model import load_robot
    from humanoid_model.scene import load_scene
    from humanoid_planner.planning import problem_for

    sweep = sweep_from_dict({"kind": "plan", "base": {"scene": "flat", "goal": [0.4, 0.0]}}, "s.yaml", None)
    (outcome,) = run_jobs("plan", sweep.jobs, serial=True, progress=False)
    row = outcome.result()
    assert set(row) == set(KINDS["plan"].outputs)
    problem = problem_for(load_scene("flat"), load_robot("hrp2"), (0.4, 0.0), seed=0)
    plan = problem.planner.plan(problem.start, problem.start_q)
    assert row["success"] is True and row["reason"] == "" and row["motion_s"] is None
    assert (row["generated"], row["expanded"], row["stances"]) == (plan.generated, plan.expanded, len(plan.nodes))


def test_an_execute_job_reports_the_closed_loops_result(tmp_path):
    walk = tmp_path / "W.json"
    assert main(["walk", "--steps", "1", "--output", str(walk)]) == 0
    doc = {"kind": "execute", "base": {"motion": "W.json", "extra_time": 0.1, "controller": "pd"}}
    sweep = sweep_from_dict(doc, "s.yaml", tmp_path)
    (outcome,) = run_jobs("execute", sweep.jobs, serial=True, progress=False)
    row = outcome.result()
    assert set(row) == set(KINDS["execute"].outputs)
    assert row["success"] is True and row["fell"] is False
    assert row["duration_s"] == pytest.approx(3.9, abs=0.01) and 0.0 < row["com_rms_mm"] < 50.0
