"""The Makefile's set-up guards, run on a copy of the Makefile
with stand-in programs, so that nothing is installed:

- a Python older than 3.10 stops `make` with a clear message naming the version and the fix;
- a sourced ROS 2 (rclpy importable) gives a venv with --system-site-packages and no ROS wheels;
  without one the venv is isolated and the ROS 2 wheels of requirements-ros.txt are installed;
- chromium is installed with apt-get only when it is missing; without root (and no password-less
  sudo) `make` fails and names the command to run.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from support import REPO

PREREQUISITES = ("Makefile", "requirements.txt", "requirements-ros.txt", "setup.py", "setup.cfg", "pyproject.toml")


@pytest.fixture
def tree(tmp_path):
    """A folder with the Makefile and the files its venv target depends on."""
    for name in PREREQUISITES:
        shutil.copy(REPO / name, tmp_path / name)
    return tmp_path


def make_binary():
    make = shutil.which("make")
    if make is None:
        pytest.fail("`make` is missing: the README's set-up needs it (apt-get install make)")
    return make


def script(path: Path, text: str) -> Path:
    path.write_text("#!/bin/sh\n" + text)
    path.chmod(0o755)
    return path


def run_make(tree, target, env=None, **variables):
    args = [make_binary(), "-C", str(tree), target, *[f"{k}={v}" for k, v in variables.items()]]
    return subprocess.run(args, capture_output=True, text=True, timeout=60, env=dict(os.environ, **(env or {})))


def test_python_older_than_3_10_is_refused(tree):
    python = script(tree / "python3.9", 'case "$1" in --version) echo "Python 3.9.18";; esac\nexit 1\n')
    result = run_make(tree, "venv", PYTHON=python)
    assert result.returncode != 0
    assert "needs Python >= 3.10" in result.stderr and "Python 3.9.18" in result.stderr, result.stderr
    assert "make PYTHON=" in result.stderr  # names the way out
    assert not (tree / ".venv").exists()


# A stand-in Python >= 3.10: `-c CODE` succeeds, except `import rclpy` when RCLPY_RC != 0; any other
# call (`-m venv ...`) is logged and fails, so make stops before installing anything.
FAKE_PYTHON = """if [ "$1" = "-c" ]; then
  case "$2" in *rclpy*) exit "$RCLPY_RC";; *) exit 0;; esac
fi
echo "$@" >> "$CALLS"
exit 3
"""


@pytest.mark.parametrize("rclpy_rc, system_site", [(0, True), (1, False)])
def test_sourced_ros_2_gives_a_venv_with_system_site_packages(tree, rclpy_rc, system_site):
    python = script(tree / "python3", FAKE_PYTHON)
    calls = tree / "calls.log"
    result = run_make(tree, "venv", env={"RCLPY_RC": str(rclpy_rc), "CALLS": str(calls)}, PYTHON=python)
    assert result.returncode != 0  # the stand-in cannot create a venv
    venv_call = calls.read_text().splitlines()[0]
    assert venv_call.startswith("-m venv") and venv_call.endswith(".venv")
    assert ("--system-site-packages" in venv_call) == system_site
    if system_site:
        assert "system ROS 2 found" in result.stdout
    else:
        assert "installing the ROS 2 Kilted wheels" in result.stdout


@pytest.fixture
def bin_dir(tmp_path):
    """A PATH with only stand-ins: `id` (uid from FAKE_UID) and a logging `apt-get`."""
    path = tmp_path / "bin"
    path.mkdir()
    script(path / "id", 'echo "$FAKE_UID"\n')
    script(path / "apt-get", 'echo "$@" >> "$CALLS"\n')
    return path


def run_chromium_target(tree, bin_dir, uid):
    calls = tree / "apt.log"
    result = run_make(tree, "chromium", env={"PATH": str(bin_dir), "FAKE_UID": str(uid), "CALLS": str(calls)})
    return result, (calls.read_text().splitlines() if calls.exists() else [])


def test_chromium_present_runs_no_apt_get(tree, bin_dir):
    script(bin_dir / "chromium", "exit 0\n")
    result, apt_calls = run_chromium_target(tree, bin_dir, uid=1000)
    assert result.returncode == 0, result.stderr
    assert apt_calls == []


def test_chromium_missing_is_installed_as_root(tree, bin_dir):
    result, apt_calls = run_chromium_target(tree, bin_dir, uid=0)
    assert result.returncode == 0, result.stderr
    assert apt_calls == ["update -qq", "install -y -qq chromium"]


def test_chromium_missing_without_privileges_names_the_command(tree, bin_dir):
    result, apt_calls = run_chromium_target(tree, bin_dir, uid=1000)  # no sudo on this PATH
    assert result.returncode != 0
    assert "sudo apt-get install -y chromium" in result.stderr, result.stderr
    assert apt_calls == []
