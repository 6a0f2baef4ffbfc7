"""A URDF's mesh paths made absolute, without ament: `resolve_urdf_paths(urdf_path)`.

``package://PKG/...`` is looked for as a folder ``PKG`` beside or above the URDF, in
``ROS_PACKAGE_PATH`` / ``AMENT_PREFIX_PATH`` and in the ament index when it is importable;
``file://`` and relative paths are taken from the URDF's folder. Used by the robot loader
(`humanoid_model.robot.load_robot`) and the kinematic structures (`humanoid_control.kinematics`).
"""

from __future__ import annotations

import os
from pathlib import Path

from humanoid_model.exceptions import ModelError
from humanoid_model.files import check_input
from humanoid_model.urdf_description import read_urdf

__all__ = ["resolve_urdf_paths"]


def _package_search_roots(urdf_path: Path) -> list[Path]:
    roots = list(list(urdf_path.parents)[:4])
    for var in ("ROS_PACKAGE_PATH",):
        roots += [Path(p) for p in os.environ.get(var, "").split(os.pathsep) if p]
    for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
        if prefix:
            roots.append(Path(prefix) / "share")
    return roots


def _find_package(pkg: str, urdf_path: Path) -> Path | None:
    for root in _package_search_roots(urdf_path):
        if root.name == pkg and root.is_dir():
            return root
        if (root / pkg).is_dir():
            return root / pkg
    try:
        from ament_index_python.packages import get_package_share_directory

        return Path(get_package_share_directory(pkg))
    except Exception:
        return None


def resolve_urdf_paths(urdf_path: Path) -> str:
    """URDF text with every ``<mesh filename>`` made absolute (``package://``, ``file://``, relative)."""
    return read_urdf(Path(urdf_path)).xml_with_mesh_paths(lambda fname: _resolve_mesh(fname, urdf_path))


def _resolve_mesh(fname: str, urdf_path: Path) -> Path:
    """The mesh ``fname`` of ``urdf_path`` as an absolute path to a regular file within the input
    bound (`humanoid_model.files.check_input`: Pinocchio, coal and trimesh open it by its name)."""
    return check_input(_mesh_path(fname, urdf_path), f"mesh file of {urdf_path}", ModelError)


def _mesh_path(fname: str, urdf_path: Path) -> Path:
    if fname.startswith("package://"):
        pkg, _, rel = fname[len("package://") :].partition("/")
        base = _find_package(pkg, urdf_path)
        if base is None or not (base / rel).is_file():
            raise ModelError(
                f"{urdf_path}: cannot resolve mesh '{fname}': package '{pkg}' not found "
                f"beside/above the URDF, in ROS_PACKAGE_PATH or in the ament index"
            )
        return (base / rel).resolve()
    path = Path(fname[len("file://") :] if fname.startswith("file://") else fname)
    if not path.is_absolute():
        path = urdf_path.parent / path
    if not path.is_file():
        raise ModelError(f"{urdf_path}: mesh file not found: '{fname}' (looked at {path})")
    return path.resolve()
