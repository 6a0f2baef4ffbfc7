"""`humanoid-stack demo --duration 6 --port N` (what `make demo` runs): the URL answers HTTP 200,
the simulator's /joint_states (HRP-2 standing near half-sitting under PD) and /contacts (force
arrows) arrive in this (another) process, exactly one node publishes /robot_description, and the
command exits 0 by itself."""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from visualization_msgs.msg import MarkerArray  # noqa: E402

pytestmark = pytest.mark.ros

DURATION = 6.0  # [s] demo run time asked for by issue 2
STANDING_TOL = 0.05  # [rad] PD sag and the scripted push stay well inside this (chosen; a fall is > 0.3)
STARTUP = 90.0  # [s] generous bound for imports + viser start on a loaded 2-core CI machine (chosen)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status
    except (urllib.error.URLError, OSError):
        return None


def test_demo_serves_publishes_and_exits_0(repo_root, tmp_path):
    from humanoid_model.robot import load_robot

    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    log = tmp_path / "demo.log"
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node("test_demo_listener", context=context)
    received = []
    node.create_subscription(JointState, "/joint_states", received.append, 10)
    contacts = []
    node.create_subscription(MarkerArray, "/contacts", contacts.append, 10)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    status, description_publishers = None, set()
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "humanoid_stack", "demo", "--duration", str(DURATION), "--port", str(port)],
            cwd=repo_root,
            env=dict(os.environ),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + STARTUP + DURATION
            while proc.poll() is None and time.monotonic() < deadline:
                executor.spin_once(timeout_sec=0.1)
                if status != 200:
                    status = http_status(url)
                description_publishers.add(node.count_publishers("/robot_description"))
            rc = proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
            node.destroy_node()
            context.try_shutdown()
    text = log.read_text()
    assert rc == 0, text[-3000:]
    assert url.rstrip("/") in text  # the URL is printed
    assert status == 200, text[-3000:]
    assert received, "no /joint_states message arrived\n" + text[-3000:]
    assert max(description_publishers) == 1  # exactly one node publishes /robot_description
    robot = load_robot("hrp2")
    msg = received[-1]
    assert list(msg.name) == robot.joint_names
    q = robot.q("half-sitting")
    expected = [q[robot.joint_index_q(name)] for name in msg.name]
    np.testing.assert_allclose(msg.position, expected, atol=STANDING_TOL)
    assert contacts, "no /contacts message arrived"
    assert any(m.ns == "forces" for arr in contacts for m in arr.markers)
