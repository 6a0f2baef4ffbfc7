"""The `humanoid-stack` command: every subcommand documents itself, errors exit 2 without traceback."""
import subprocess
import sys

import pytest

from humanoid_stack.cli import COMMANDS, build_parser, main


def _run(*args):
    return subprocess.run([sys.executable, "-m", "humanoid_stack", *args], capture_output=True, text=True,
                          timeout=120)


def test_help_lists_every_available_subcommand():
    r = _run("--help")
    assert r.returncode == 0
    sub = build_parser()._subparsers._group_actions[0].choices
    assert "info" in sub and "view" in sub
    for name in sub:
        assert name in r.stdout and name in COMMANDS


def test_every_subcommand_has_help(capsys):
    sub = build_parser()._subparsers._group_actions[0].choices
    for name in sub:
        with pytest.raises(SystemExit) as e:
            main([name, "--help"])
        assert e.value.code == 0
        text = capsys.readouterr().out
        assert f"humanoid-stack {name}" in text and len(text) > 80, name


def test_info_unknown_robot_is_a_clear_error():
    r = _run("info", "asimo")
    assert r.returncode == 2
    assert "unknown robot 'asimo'" in r.stderr and "Traceback" not in r.stderr


def test_info_hrp2_table():
    r = _run("info", "hrp2")
    assert r.returncode == 0, r.stderr
    assert "RLEG_JOINT0" in r.stdout and "r_sole" in r.stdout and "mass" in r.stdout
