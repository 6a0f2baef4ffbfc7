"""`humanoid-stack up NAME` in another process, driven from a test's rclpy executor as a user
would (the node-set tests: test_ros_bridge_up.py, test_ros_pilot_up.py, test_ros_planning_up.py)."""

import os
import signal
import socket
import subprocess
import sys
import time


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now (the OS picks it), for a node set's web viewer."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """The test's own node ``name`` on a private rclpy context, added to its executor (the user's
    side of a node set); `close` ends both."""

    def __init__(self, name: str):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(name, context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    def close(self):
        import rclpy

        self.node.destroy_node()
        rclpy.try_shutdown(context=self.context)


def start_up(repo_root, name: str, *args: str) -> subprocess.Popen:
    """`python -m humanoid_stack up NAME ARGS...` in the repository, output captured as text."""
    return subprocess.Popen(
        [sys.executable, "-m", "humanoid_stack", "up", name, *args],
        cwd=repo_root,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def spinner(executor, proc: subprocess.Popen, timeout: float):
    """``spin_until(cond)``: spin ``executor`` until ``cond()`` (True), the process ended or
    ``timeout`` [s] passed (False)."""

    def spin_until(cond) -> bool:
        deadline = time.monotonic() + timeout
        while proc.poll() is None and time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.05)
            if cond():
                return True
        return False

    return spin_until


def stop(proc: subprocess.Popen, sigterm: bool = True) -> str:
    """End the node set (SIGTERM, as a service manager does, or a kill when ``sigterm`` is
    False: the test failed before) and return its output."""
    if sigterm and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            return proc.communicate(timeout=60)[0]
        except subprocess.TimeoutExpired:
            pass
    if proc.poll() is None:
        proc.kill()
    return proc.communicate()[0]
