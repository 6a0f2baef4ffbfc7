"""`colcon build` of the package into a temporary install tree (colcon-common-extensions from PyPI
builds an ament_python package without a ROS install), and the installed tree works."""

import os
import runpy
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import setuptools
from support import REPO

PACKAGE = "humanoid_stack"
SKIP = {".git", ".venv", "interfaces", "build", "install", "log", "__pycache__", ".pytest_cache", "node_modules"}


def nodes_of_setup_py():
    original = setuptools.setup
    setuptools.setup = lambda **kwargs: None
    try:
        return runpy.run_path(str(REPO / "setup.py"), run_name="__main__")["NODES"]
    finally:
        setuptools.setup = original


@pytest.fixture(scope="module")
def install(tmp_path_factory):
    """Copy the working tree (colcon may write egg-info into a source tree) and build it."""
    tmp = tmp_path_factory.mktemp("colcon")
    src = tmp / "src" / PACKAGE
    shutil.copytree(REPO, src, ignore=lambda d, names: [n for n in names if n in SKIP or n.endswith(".egg-info")])
    colcon = shutil.which("colcon", path=str(Path(sys.executable).parent)) or shutil.which("colcon")
    assert colcon, "colcon not found: it is pinned in requirements.txt (colcon-common-extensions)"
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    result = subprocess.run(
        [
            colcon,
            "--log-base",
            str(tmp / "log"),
            "build",
            "--base-paths",
            str(tmp / "src"),
            "--build-base",
            str(tmp / "build"),
            "--install-base",
            str(tmp / "install"),
        ],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return tmp / "install" / PACKAGE  # colcon's default isolated layout: install/<package>/


def test_share_tree_is_installed(install):
    share = install / "share" / PACKAGE
    for folder in ("launch", "urdf", "config", "rviz"):
        expected = sorted(
            p.relative_to(REPO).as_posix()
            for p in (REPO / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        )
        got = sorted(p.relative_to(share).as_posix() for p in (share / folder).rglob("*") if p.is_file())
        assert expected and got == expected, folder
    assert (share / "package.xml").is_file()
    assert (install / "share" / "ament_index" / "resource_index" / "packages" / PACKAGE).is_file()


def test_every_node_executable_is_installed(install):
    nodes = nodes_of_setup_py()
    assert {"state_publisher", "viewer"} <= set(nodes)
    for name in [*nodes, "humanoid-stack"]:
        exe = install / "lib" / PACKAGE / name
        assert exe.is_file() and os.access(exe, os.X_OK), f"lib/{PACKAGE}/{name} missing"


def installed_env(install):
    site = next((install / "lib").glob("python3*/site-packages"))
    return dict(
        os.environ,
        PYTHONPATH=f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
        AMENT_PREFIX_PATH=f"{install}{os.pathsep}{os.environ.get('AMENT_PREFIX_PATH', '')}",
    )


def test_installed_package_finds_its_data_in_share(install, tmp_path):
    code = "import humanoid_model.paths as p; print(p.__file__); print(p.share_dir())"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=installed_env(install),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    module_file, share = out.stdout.split()
    assert Path(module_file).is_relative_to(install)
    assert Path(share) == install / "share" / PACKAGE


@pytest.mark.ros
def test_installed_state_publisher_runs(install, tmp_path):
    """`ros2 run humanoid_stack state_publisher` equivalent, from the install tree; Ctrl-C exits 0."""
    proc = subprocess.Popen(
        [str(install / "lib" / PACKAGE / "state_publisher"), "--ros-args", "-p", "robot:=hrp2"],
        cwd=tmp_path,
        env=installed_env(install),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait for the start-up log line, not a fixed time
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if "robot 'hrp2'" in line:
            break
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    log = "".join(lines) + out
    assert "robot 'hrp2' (30 joints" in log, log
    assert proc.returncode == 0, log
