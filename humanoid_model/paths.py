"""Where the package's data (urdf/, config/, launch/, rviz/) lives.

From a source checkout or an editable install, that is the repository root. From a colcon or
ROS install it is ``share/humanoid_stack`` (found with ament_index_python).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

PACKAGE = "humanoid_stack"


@lru_cache(maxsize=None)
def share_dir() -> Path:
    """Root of the package data: a folder holding urdf/, config/, launch/ and rviz/."""
    here = Path(__file__).resolve().parents[1]
    if (here / "urdf").is_dir() and (here / "config").is_dir():
        return here
    try:
        from ament_index_python.packages import get_package_share_directory

        return Path(get_package_share_directory(PACKAGE))
    except Exception as exc:  # pragma: no cover - only in broken installs
        raise FileNotFoundError(
            f"cannot find the {PACKAGE} data folders (urdf/, config/): not in {here} and "
            f"ament index lookup failed ({exc})") from exc


def urdf_dir() -> Path:
    return share_dir() / "urdf"


def config_dir() -> Path:
    return share_dir() / "config"


def scenes_dir() -> Path:
    return share_dir() / "config" / "scenes"
