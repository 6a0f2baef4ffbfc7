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
