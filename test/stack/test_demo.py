"""`humanoid-stack demo --duration 6 --port N` (what `make demo` runs): the URL answers HTTP 200,
the simulator's /joint_states (HRP-2 standing near half-sitting under PD) and /contacts (force
arrows) arrive in this (another) process, exactly one node publishes /robot_description, and the
command exits 0 by itself.

The listener runs in a child process (`demo_listener.py`): rclpy / Fast DDS once segfaulted in its
`spin_once`, which in-process ended the whole pytest session. A listener killed by SIGSEGV is one
failed attempt, tried again once; any other failure fails the test."""

import json
import signal
import subprocess
import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("rclpy")
from support.ros_up import free_port  # noqa: E402

pytestmark = pytest.mark.ros

DURATION = 6.0  # [s] demo run time (chosen: the first scripted push of config/demo.yaml, at 2 s, and the recovery)
STANDING_TOL = 0.05  # [rad] PD sag and the scripted push stay well inside this (chosen; a fall is > 0.3)
STARTUP = 90.0  # [s] generous bound for imports + viser start on a loaded 2-core CI machine (chosen)
ATTEMPTS = 2  # a listener crashed by SIGSEGV in rclpy / Fast DDS is retried once (chosen)


def listen(repo_root, tmp_path, attempt):
    port = free_port()
    log, out = tmp_path / f"demo{attempt}.log", tmp_path / f"seen{attempt}.json"
    child = subprocess.run(
        [
            sys.executable,
            str(repo_root / "test" / "support" / "demo_listener.py"),
            str(port),
            str(DURATION),
            str(STARTUP),
        ]
        + [str(log), str(out)],
        cwd=repo_root,
        capture_output=True,
        text=True,
        timeout=STARTUP + DURATION + 120,
    )
    return child, log, out


def test_demo_serves_publishes_and_exits_0(repo_root, tmp_path):
    from humanoid_model.robot import load_robot

    for attempt in range(ATTEMPTS):
        child, log, out = listen(repo_root, tmp_path, attempt)
        if child.returncode != -signal.SIGSEGV:
            break
        warnings.warn(
            f"the demo listener segfaulted (attempt {attempt + 1}); stderr: {child.stderr[-500:]}", stacklevel=1
        )
    text = log.read_text() if log.exists() else ""
    assert child.returncode == 0, f"listener rc {child.returncode}\n{child.stderr[-3000:]}\n{text[-3000:]}"
    seen = json.loads(out.read_text())
    assert seen["rc"] == 0, text[-3000:]
    assert seen["url"].rstrip("/") in text  # the URL is printed
    assert seen["status"] == 200, text[-3000:]
    assert seen["joint_states"], "no /joint_states message arrived\n" + text[-3000:]
    assert seen["description_publishers"] == 1  # exactly one node publishes /robot_description
    robot = load_robot("hrp2")
    assert seen["last_names"] == robot.joint_names
    q = robot.q("half-sitting")
    expected = [q[robot.joint_index_q(name)] for name in seen["last_names"]]
    np.testing.assert_allclose(seen["last_positions"], expected, atol=STANDING_TOL)
    assert seen["contacts"], "no /contacts message arrived"
    assert "forces" in seen["contact_namespaces"]
