"""The one reader of the project's YAML files (scenes, robot sidecars, node-set parameter files):
every way reading can fail becomes the caller's error class with a one-line message naming the
file, never a traceback (issue 14 §6: a binary file gave UnicodeDecodeError, a deeply nested one
RecursionError)."""

from __future__ import annotations

from pathlib import Path

import yaml

__all__ = ["read_yaml"]


def read_yaml(path: Path, kind: str, error: type[Exception]):
    """The decoded document of the YAML file ``path`` (None when empty). ``kind`` names the file
    in messages ("scene YAML file", "parameter file", ...); any failure raises ``error``:
    unreadable, not UTF-8 text, not valid YAML, or nested too deep for the YAML reader."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise error(f"{path}: not a text (UTF-8) file, so not a {kind}") from None
    except OSError as exc:
        raise error(f"{path}: cannot read the {kind}: {exc.strerror or exc}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise error(f"{path}: not valid YAML: {exc}") from None
    except RecursionError:
        raise error(f"{path}: nested too deeply to be a {kind} (the YAML reader's recursion limit)") from None
