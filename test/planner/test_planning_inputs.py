"""`humanoid-stack plan`'s input checks, bounds, output and interruption (docs/planning.md).

Every planner setting, however it arrives (the options, ``--set KEY=JSON``, a scene, a library
call), is checked by one rule per field (`humanoid_planner.contact.settings_check`): a wrongly typed
value is one line and exit 2, never a traceback from deep in the search; every count a user gives
is bounded (`humanoid_planner.bounds`). PLAN.json is written atomically once the run ends, and an
older file at the output path is removed when the run starts: a full disk or Ctrl-C leaves no file
there to be taken for this run's plan, and Ctrl-C exits 130 with one line.
"""

import errno
import json
import os
import signal
import subprocess
import sys
from dataclasses import fields

import pytest
from support import REPO

from humanoid_planner.bounds import MAX_SEED
from humanoid_planner.contact import PlannerSettings
from humanoid_planner.contact.settings_check import RULES
from humanoid_planner.exceptions import PlanningError
from humanoid_stack.cli import main


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    return err


WRONG_TYPES = [
    ('dl="x"', "'--set dl' must be a finite number > 0"),
    ("metric=5", "'--set metric' must be a mapping of some of the fields a_theta, eps"),
    ("solver=5", "'--set solver' must be a mapping of some of the fields tolerance"),
    ('workers="x"', "'--set workers' must be an integer >= 0 and <= 64"),
    ('locations=["nose"]', "field 'locations' must name contact locations of robot 'hrp2'"),
    ('threshold="x"', "'--set threshold' must be a number"),
    ("theta_range=5", "'--set theta_range' must be [lo, hi] [rad]"),
    ("time_limit=-1", "'--set time_limit' must be a finite number > 0 s and <= 86400 s"),
    ('max_candidates="x"', "'--set max_candidates' must be an integer >= 0 and <= 1000"),
]


@pytest.mark.parametrize("item, message", WRONG_TYPES, ids=[w[0] for w in WRONG_TYPES])
def test_a_wrongly_typed_set_value_is_one_line_and_exit_2(item, message, capsys, tmp_path):
    """The --set values go through the checks the options have (time_limit=-1 and
    max_candidates="x" were accepted; the others raised TypeError, AttributeError or KeyError
    from inside the planner)."""
    assert main(["plan", "flat", "--quiet", "--output", str(tmp_path / "PLAN.json"), "--set", item]) == 2
    err = one_line(capsys)
    assert message in err, err
    assert not (tmp_path / "PLAN.json").exists()


BEYOND = [
    (["--steps", "201"], "option '--steps' must be an integer >= 1 and <= 200"),
    (["--steps", "100000000"], "option '--steps' must be an integer >= 1 and <= 200"),
    (["--seed", str(MAX_SEED + 1)], "option '--seed' must be an integer >= 0 and <= 4294967295"),
    (["--time-limit", "86401"], "option '--time-limit' must be a finite number > 0 s and <= 86400 s"),
    (["--dt", "1e-300"], "option '--dt' must be a finite number >= 0.0001 s and <= 0.1 s"),
    (["--dt", "1e308"], "option '--dt' must be a finite number >= 0.0001 s and <= 0.1 s"),
    (["--joint-speed", "1e-300"], "option '--joint-speed' must be a finite number >= 0.0572958 deg/s"),
    (["--set", "workers=65"], "'--set workers' must be an integer >= 0 and <= 64"),
    (["--set", "max_candidates=1001"], "'--set max_candidates' must be an integer >= 0 and <= 1000"),
    (["--set", "max_expanded=100001"], "'--set max_expanded' must be an integer >= 1 and <= 100000"),
    (["--set", "density=1001"], "'--set density' must be a finite number > 0 1/m and <= 1000 1/m"),
    (["--set", f"seed={MAX_SEED + 1}"], "'--set seed' must be an integer >= 0 and <= 4294967295"),
    (["--set", 'solver={"max_iterations": 10001}'], "'--set solver.max_iterations' must be an integer >= 1"),
    (["--set", 'metric={"eps": 0}'], "'--set metric.eps' must be a finite number > 0 m"),
]


@pytest.mark.parametrize("argv, message", BEYOND, ids=[" ".join(b[0]) for b in BEYOND])
def test_every_count_and_period_is_bounded_before_anything_loads(argv, message, capsys, tmp_path):
    """--steps 1e8 ran forever; --dt 1e-300 and --joint-speed 1e-300 ended in a traceback after
    the search; --dt 1e308 exited 0 with a "successful" plan of one sample."""
    assert main(["plan", "flat", "--quiet", "--output", str(tmp_path / "PLAN.json"), *argv]) == 2
    assert message in one_line(capsys)


def test_every_planner_setting_has_a_rule_and_the_library_applies_it():
    assert set(RULES) == {f.name for f in fields(PlannerSettings)}
    with pytest.raises(PlanningError, match=r"planner settings: field 'dl' must be a finite number > 0 m; value 'x'"):
        PlannerSettings(dl="x")
    s = PlannerSettings(theta_range=[-1, 1], locations=["r_sole"], metric={"eps": 0.05})  # JSON-like values
    assert s.theta_range == (-1.0, 1.0) and s.locations == ("r_sole",) and s.metric.eps == 0.05


def test_a_motion_of_more_samples_than_the_bound_is_no_plan_not_an_endless_one(monkeypatch, tmp_path, capsys):
    """The motion's samples are bounded (`humanoid_planner.bounds.MAX_SAMPLES`, lowered here to 100
    so that the default motion, ~7,000 samples, passes it): the run ends with exit 1 and the reason."""
    import humanoid_planner.motion.generate as generate

    monkeypatch.setattr(generate, "MAX_SAMPLES", 100)
    out = tmp_path / "PLAN.json"
    assert main(["plan", "flat", "--quiet", "--output", str(out)]) == 1
    err = one_line(capsys)
    assert "no plan: time law: the motion needs more than" in err and "samples of 0.005 s" in err, err
    assert json.loads(out.read_text())["success"] is False


def test_a_full_disk_leaves_no_plan_file_and_exits_2(monkeypatch, tmp_path, capsys):
    """The disk fills while PLAN.json is written (os.fsync raises ENOSPC): one line, exit 2, and no
    file at the path, neither a truncated one (a 1 MiB tmpfs kept 1,048,576 bytes of the 3 MB plan)
    nor the older plan that was there, nor a temporary file."""
    out = tmp_path / "PLAN.json"
    out.write_text('{"an older plan": true}')

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    assert main(["plan", "flat", "--quiet", "--output", str(out)]) == 2
    assert f"{out}: cannot write the plan file: No space left on device" in one_line(capsys)
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_exits_130_with_one_line_and_leaves_no_plan_file(tmp_path):
    """SIGINT to a running `plan` (a 3 m walk: the search runs for seconds): exit 130 and one line
    on stderr, where it exited 0 in silence and left the older PLAN.json for the wrong goal."""
    out = tmp_path / "PLAN.json"
    out.write_text('{"an older plan": true}')
    argv = [sys.executable, "-m", "humanoid_stack", "plan", "flat", "--goal", "3,0", "--output", str(out)]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    try:
        line = p.stdout.readline()  # the first progress line: the search runs
        assert line.startswith("nodes "), line
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert err.strip().splitlines() == [
        "humanoid-stack plan: interrupted (Ctrl-C): no plan file written (one left at the output path by an "
        "earlier run was removed)"
    ]
    assert list(tmp_path.iterdir()) == []
