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

__all__ = ["resolve_urdf_paths", "resolve_urdf_text_paths"]


def _package_search_roots(urdf_path: Path | None) -> list[Path]:
    roots = list(list(urdf_path.parents)[:4]) if urdf_path is not None else []
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
    urdf_path = urdf_path if isinstance(urdf_path, Path) else Path(urdf_path)  # (an XacroPath keeps its arguments)
    return read_urdf(urdf_path).xml_with_mesh_paths(lambda fname: _resolve_mesh(fname, urdf_path))


def resolve_urdf_text_paths(urdf_text: str, base: Path | None = None) -> str:
    """URDF XML text (a ROS ``robot_description``) with every ``<mesh filename>`` made absolute:
    ``package://`` as for a file (the folders above ``base`` included when given), ``file://`` and
    relative paths from the folder ``base`` (`ModelError` for a relative path without one)."""
    anchor = None if base is None else Path(base) / "robot_description"  # a file in `base`: its parents are searched
    return read_urdf(str(urdf_text)).xml_with_mesh_paths(lambda fname: _resolve_mesh(fname, anchor))


def _resolve_mesh(fname: str, urdf_path: Path | None) -> Path:
    """The mesh ``fname`` of ``urdf_path`` as an absolute path to a regular file within the input
    bound (`humanoid_model.files.check_input`: Pinocchio, coal and trimesh open it by its name)."""
    return check_input(_mesh_path(fname, urdf_path), f"mesh file of {urdf_path or '<urdf string>'}", ModelError)


def _mesh_path(fname: str, urdf_path: Path | None) -> Path:
    if fname.startswith("package://"):
        pkg, _, rel = fname[len("package://") :].partition("/")
        base = _find_package(pkg, urdf_path)
        if base is None or not (base / rel).is_file():
            raise ModelError(
                f"{urdf_path or '<urdf string>'}: cannot resolve mesh '{fname}': package '{pkg}' not found "
                f"beside/above the URDF, in ROS_PACKAGE_PATH or in the ament index"
            )
        return (base / rel).resolve()
    path = Path(fname[len("file://") :] if fname.startswith("file://") else fname)
    if not path.is_absolute():
        if urdf_path is None:
            raise ModelError(f"<urdf string>: mesh '{fname}' is relative: give the folder it is relative to")
        path = urdf_path.parent / path
    if not path.is_file():
        raise ModelError(f"{urdf_path or '<urdf string>'}: mesh file not found: '{fname}' (looked at {path})")
    return path.resolve()
