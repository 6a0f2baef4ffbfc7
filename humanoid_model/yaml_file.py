"""The one reader of the project's YAML files (scenes, robot sidecars, node-set parameter files):
every way reading can fail becomes the caller's error class with a one-line message naming the
file, never a traceback (left to the parser, a binary file raises UnicodeDecodeError, a deeply
nested one RecursionError). The reading itself is `humanoid_model.documents.read_document`, shared with the
JSON replay files."""

from __future__ import annotations

from pathlib import Path

from humanoid_model.documents import read_document

__all__ = ["read_yaml"]


def read_yaml(path: Path, kind: str, error: type[Exception]):
    """The decoded document of the YAML file ``path`` (None when empty). ``kind`` names the file
    in messages ("scene YAML file", "parameter file", ...); any failure raises ``error``:
    unreadable, not UTF-8 text, not valid YAML, or nested too deep for the YAML reader."""
    return read_document(path, kind, error, "YAML")
