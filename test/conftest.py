"""Shared pytest set-up.

DDS isolation: every test session gets its own ROS_DOMAIN_ID (derived from the process id) and
discovery limited to localhost, so concurrent runs on one machine never see each other.
"""
import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("ROS_DOMAIN_ID", str(100 + os.getpid() % 100))
os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
os.environ.setdefault("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp")
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(__file__).resolve().parents[1] / ".venv" / "numba_cache"))

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def venv_bin() -> Path:
    """Folder of the interpreter running the tests (holds the humanoid-stack console script)."""
    return Path(sys.executable).parent


class RosHarness:
    """One private rclpy context + executor for a test: add nodes, spin until a condition holds."""

    def __init__(self, timeout: float, period: float):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

        self._rclpy = rclpy
        self.timeout, self.period = timeout, period
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.nodes = []

    def add(self, node):
        self.nodes.append(node)
        self.executor.add_node(node)
        return node

    def spin_until(self, cond, timeout=None) -> bool:
        import time

        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=self.period)
            if cond():
                return True
        return False

    def close(self):
        for node in reversed(self.nodes):
            if hasattr(node, "close"):
                node.close()
            self.executor.remove_node(node)
            node.destroy_node()
        self.executor.shutdown()
        self._rclpy.shutdown(context=self.context)


@pytest.fixture
def ros_harness():
    """Factory: ``ros_harness(timeout=20.0, period=0.05)`` -> RosHarness, torn down after the test."""
    made = []

    def make(timeout: float = 20.0, period: float = 0.05) -> RosHarness:
        made.append(RosHarness(timeout, period))
        return made[-1]

    yield make
    for harness in made:
        harness.close()
