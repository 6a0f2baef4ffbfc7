"""Sweeps on Ray (`humanoid_execution.sweep.tasks`, `humanoid-stack sweep`): an embedded local Ray
runs the tasks, keeps their order, reports a failed task with its error while the others complete,
and leaves no process behind; a small simulate sweep of HRP-2 gives one row per grid point with
the documented columns, the same outputs as the same jobs run serially, a failed job (a scene
override the scene refuses) with its error, and a plot."""

import csv
import os
import time
from pathlib import Path

import pytest

from humanoid_execution.sweep.grid import read_sweep
from humanoid_execution.sweep.jobs import KINDS, run_jobs
from humanoid_execution.sweep.tasks import cluster, run_tasks
from humanoid_stack.cli import main

SWEEP = """\
kind: simulate
base: {scene: flat, robot: hrp2, duration: 0.2}
axes:
  scene.ground.friction: [0.4, -1.0]
  seed: [0, 1]
"""


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (from /proc)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        children = [c for c, pp in parents.items() if pp == p]
        out += children
        todo += children
    return out


def _power(base, exponent):
    if base == "fail":
        raise ValueError("made to fail")
    return base**exponent


def test_an_embedded_ray_runs_the_tasks_in_order_and_leaves_no_process():
    import ray

    assert not ray.is_initialized()
    before = set(_descendants(os.getpid()))
    ended = []
    args = [(2, k) for k in range(5)] + [("fail", 1)]
    outcomes = run_tasks(_power, args, workers=2, progress=False, on_result=lambda i, o: ended.append(i))
    assert [o.value for o in outcomes[:5]] == [1, 2, 4, 8, 16] and all(o.ok for o in outcomes[:5])
    assert not outcomes[5].ok and outcomes[5].value is None and outcomes[5].error == "ValueError: made to fail"
    assert sorted(ended) == list(range(6))
    assert not ray.is_initialized()
    deadline = time.monotonic() + 20.0
    while set(_descendants(os.getpid())) - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not set(_descendants(os.getpid())) - before, "Ray left processes behind"


@pytest.fixture(scope="module")
def local_ray():
    with cluster(workers=2) as ray:
        yield ray


@pytest.fixture(scope="module")
def ray_sweep(local_ray, tmp_path_factory):
    folder = tmp_path_factory.mktemp("sweep")
    (folder / "s.yaml").write_text(SWEEP)
    out = folder / "results.csv"
    rc = main(["sweep", str(folder / "s.yaml"), "--output", str(out), "--quiet"])
    with open(out, newline="") as f:
        return rc, list(csv.DictReader(f)), out, folder / "s.yaml"


def test_a_sweep_on_ray_has_one_row_per_grid_point_with_the_documented_columns(ray_sweep):
    rc, table, out, _ = ray_sweep
    assert rc == 1  # two jobs failed
    names = ["job", "scene.ground.friction", "seed", "status", *KINDS["simulate"].outputs, "wall_s", "error"]
    assert list(table[0]) == names
    assert [(r["job"], r["scene.ground.friction"], r["seed"]) for r in table] == [
        ("0", "0.4", "0"),
        ("1", "0.4", "1"),
        ("2", "-1.0", "0"),
        ("3", "-1.0", "1"),
    ]
    for r in table[:2]:
        assert r["status"] == "ok" and r["error"] == "" and r["fell"] == "False" and r["steps"] == "200"
        assert 0.7 < float(r["com_z_end_m"]) < 0.9 and float(r["median_step_ms"]) > 0 and float(r["wall_s"]) > 0
    assert out.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_failed_job_is_reported_with_its_error_and_the_others_complete(ray_sweep, capsys):
    _, table, _, _ = ray_sweep
    for r in table[2:]:
        assert r["status"] == "failed" and r["com_z_end_m"] == "" and r["steps"] == ""
        assert "field 'ground.friction' must be a finite number >= 0; value -1.0" in r["error"]
    assert [r["status"] for r in table[:2]] == ["ok", "ok"]


def test_ray_jobs_measure_what_the_same_jobs_measure_serially(ray_sweep, local_ray):
    _, table, _, path = ray_sweep
    sweep = read_sweep(path)
    serial = run_jobs("simulate", sweep.jobs[:2], serial=True, progress=False)
    on_ray = run_jobs("simulate", sweep.jobs[:2], progress=False)  # the module's Ray, left running
    assert local_ray.is_initialized()
    for s, r, row in zip(serial, on_ray, table, strict=False):
        for key in ("fell", "base_z_end_m", "com_z_end_m", "steps", "iterations_per_step"):
            assert s.value[key] == r.value[key] and str(s.value[key]) == row[key], key
