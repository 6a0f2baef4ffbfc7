"""Where the package's data (urdf/, config/, launch/, rviz/) lives, and the one rule that turns a
"shipped name or path" into a file.

From a source checkout or an editable install, the data root is the repository root. From a
colcon or ROS install it is ``share/humanoid_stack`` (found with ament_index_python).

`resolve` is used for every name-or-path argument: robots (``hrp2`` or a URDF), scenes (``flat``
or a YAML file), a scene's robot (relative to the scene file), node-set parameter files (``demo``
or a YAML file) and the dynamic-model generator's URDF argument (robots plus bundled examples).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from functools import cache
from pathlib import Path

PACKAGE = "humanoid_stack"

__all__ = ["share_dir", "urdf_dir", "config_dir", "scenes_dir", "shipped_files", "resolve", "example_robot"]


@cache
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
            f"ament index lookup failed ({exc})"
        ) from exc


def urdf_dir() -> Path:
    """The shipped robots: ``NAME.urdf`` plus its ``NAME.yaml`` sidecar."""
    return share_dir() / "urdf"


def config_dir() -> Path:
    """The shipped node-set parameter files (``NAME.yaml``) and the ``scenes/`` folder."""
    return share_dir() / "config"


def scenes_dir() -> Path:
    """The shipped scenes (``NAME.yaml``)."""
    return share_dir() / "config" / "scenes"


def example_robot(rel: str) -> Path | None:
    """``robots/REL`` of the installed example-robot-data (the optional ``robots`` extra: Talos, G1, ...), or
    None without it (or without that file)."""
    import importlib.metadata

    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(dist.locate_file(f"cmeel.prefix/share/example-robot-data/robots/{rel}"))
    return path if path.is_file() else None


def shipped_files(folder: Path, suffix: str) -> dict[str, Path]:
    """``{stem: path}`` of the files ``folder/*suffix``, sorted by name (the shipped names)."""
    return {p.stem: p for p in sorted(Path(folder).glob(f"*{suffix}")) if p.is_file()}


def resolve(
    name_or_path,
    shipped: Mapping[str, Path],
    what: str,
    suffixes: tuple[str, ...],
    error: type[Exception],
    file_kind: str | None = None,
    base: Path | None = None,
    context: str | None = None,
) -> Path:
    """The file meant by a shipped name or a path.

    Rule, in this order:

    1. An existing file wins: ``base / name_or_path`` first when ``base`` (e.g. the folder of the
       scene file that names it) is given, then ``name_or_path`` itself (relative to the working
       directory). The path is returned resolved.
    2. A text that looks like a path (ends with one of ``suffixes``, any case, or contains a path
       separator) but names no file: ``error`` "<file_kind> not found: <path>", or "<path>: not a
       regular file" when something else (a FIFO, a device, a directory) is there.
    3. A shipped name: ``shipped[name]`` (e.g. ``shipped_files(urdf_dir(), ".urdf")``).
    4. Otherwise ``error`` "unknown <what> '<name>': not a shipped <what> (shipped: ...; did you
       mean '...'?) and not an existing <suffix> file".

    Args:
        shipped: the shipped names and their files.
        what: the noun of a name in messages (``robot``, ``scene``, ``node set``).
        suffixes: the file suffixes of that kind (``(".urdf",)``, ``(".yaml", ".yml")``).
        error: the caller's exception class (a `HumanoidStackError` subclass).
        file_kind: the noun of a file in messages (default ``"<what> file"``).
        context: prefix of the message, e.g. ``"scene.yaml: field 'robot.name'"``.
    """
    text = str(name_or_path)
    given = Path(text).expanduser()
    candidates = ([Path(base) / given] if base is not None else []) + [given]
    for candidate in candidates:
        if candidate.is_file():
            return candidate.resolve()
    prefix = f"{context}: " if context else ""
    file_kind = file_kind or f"{what} file"
    looks_like_path = text.lower().endswith(tuple(s.lower() for s in suffixes)) or "/" in text or "\\" in text
    if looks_like_path or isinstance(name_or_path, Path):
        for candidate in candidates:  # there, but a FIFO, a device, a directory: say so, never read it
            if candidate.exists():
                raise error(f"{prefix}{candidate}: not a regular file: not read as a {file_kind}")
        looked = " or ".join(str(c) for c in dict.fromkeys(candidates))
        raise error(f"{prefix}{file_kind} not found: {looked}")
    if text in shipped:
        return Path(shipped[text])
    names = sorted(shipped)
    hint = difflib.get_close_matches(text, names, n=1)
    raise error(
        f"{prefix}unknown {what} '{text}': not a shipped {what} (shipped: {', '.join(names) or 'none'}"
        + (f"; did you mean '{hint[0]}'?" if hint else "")
        + f") and not an existing {suffixes[0]} file"
    )
