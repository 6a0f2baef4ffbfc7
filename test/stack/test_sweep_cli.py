"""`humanoid-stack sweep` refuses a bad sweep file or bad options before any job runs: exit 2 and
one line naming the file or the option, the field and the value."""

import pytest

from humanoid_stack.cli import main

GOOD = "kind: simulate\nbase: {scene: flat, duration: 0.1}\naxes:\n  seed: [0, 1]\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kind: simulat\n", "field 'kind' must be one of simulate, plan, execute; value 'simulat'"),
        ("kind: simulate\nbase: {scene: flat}\nbase2: 1\n", "unknown field 'base2' (did you mean 'base'?)"),
        ("kind: simulate\nbase: {scene: flat, duraton: 1}\n", "unknown argument 'duraton' (did you mean 'duration'?)"),
        ("kind: simulate\nbase: {scene: flat}\naxes: {seed: 3}\n", "field 'axes.seed' must be a non-empty list"),
        ("kind: simulate\nbase: {scene: flat}\naxes: {seed: []}\n", "field 'axes.seed' must be a non-empty list"),
        ("kind: simulate\nbase: {scene: flat, duration: -1}\n", "field 'base.duration' must be a finite number > 0"),
        ("kind: simulate\naxes: {seed: [0, 1.5]}\nbase: {scene: flat}\n", "field 'axes.seed[1]' must be an integer"),
        ("kind: simulate\nbase: {duration: 1}\n", "field 'base' must be a mapping with scene"),
        ("kind: simulate\nbase: {scene: flat, solver: newton}\n", "field 'base.solver' must be a contact solver"),
        ("kind: simulate\nbase: {scene: nowhere}\n", "nowhere"),
        ("kind: simulate\nbase: {scene: flat, solver.iters: 3}\n", "field 'base.solver.iters' must be solver.KEY"),
        ("kind: plan\nbase: {scene: flat, planner.density: -1}\n", "base.planner.density"),
        ("kind: plan\nbase: {scene: flat, goal: [1]}\n", "field 'base.goal' must be 2 finite numbers"),
        ("kind: execute\nbase: {motion: missing.json}\n", "missing.json"),
        (
            "kind: execute\nbase: {scene.ground.friction: 1}\n",
            "unknown argument 'scene.ground.friction'",
        ),
        ("kind: simulate\nbase: {scene: flat, seed: 1}\naxes: {seed: [0]}\n", "field 'axes.seed': also in base"),
        (
            "kind: simulate\nbase: {scene: flat}\naxes:\n  seed: "
            + str(list(range(101)))
            + "\n  dt: "
            + str([1e-3] * 100)
            + "\n",
            "must be a grid of at most 10000 jobs; value '10100 jobs'",
        ),
        ("- a list\n", "field '(document)' must be a mapping"),
        ("kind: [unclosed\n", "not valid YAML"),
    ],
)
def test_a_bad_sweep_file_exits_2_with_one_line(tmp_path, capsys, text, expected):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    rc = main(["sweep", str(path), "--output", str(tmp_path / "r.csv"), "--serial"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("humanoid-stack sweep: error: ") and err.count("\n") == 1, err
    assert expected in err
    assert not (tmp_path / "r.csv").exists()


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--output", "r.txt"], "option '--output' must end in .csv or .parquet"),
        (["--output", "nowhere/r.csv"], "nowhere"),
        (["--workers", "0"], "field '--workers' must be an integer >= 1"),
        (["--serial", "--address", "auto"], "options --serial and --address exclude each other"),
        (["--address", " "], "field '--address' must be HOST:PORT"),
    ],
)
def test_bad_options_exit_2_with_one_line(tmp_path, capsys, monkeypatch, options, expected):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(GOOD)
    rc = main(["sweep", "s.yaml", *options])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and expected in err, err
