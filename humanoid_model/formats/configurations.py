"""Configuration files: ``{"t": [...], "q": [[...], ...], "joint_names"?: [...]}``, a robot's
configurations over time (docs/viewer.md, layout 1; the robot bridge sends them too, docs/bridge.md).
Their writer and their reader.

Rows of ``q`` are full configurations (``nq`` values: base xyz [m], base quaternion xyzw, joints in
model order) or the actuated joints alone; with ``joint_names``, ``7 + len(joint_names)`` values
(base + those joints) or ``len(joint_names)`` values. Which of these a row is depends on the robot
that reads it, so the reader checks the shape only (one row of equal length per time).

    write_configurations("run.json", t, q)
    conf = parse_configurations(doc, "run.json", RecordingError)   # t, q, joint_names (or None)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from humanoid_model.exceptions import ConfigError
from humanoid_model.files import write_text
from humanoid_model.formats import fields

__all__ = [
    "Configurations",
    "configurations_document",
    "write_configurations",
    "is_configurations_document",
    "parse_configurations",
]


def configurations_document(t, q, joint_names=None) -> dict:
    """The document of times ``t`` (N,) [s] and rows ``q`` (N, w) (of ``joint_names`` when given)."""
    doc = {"t": np.asarray(t, float).tolist(), "q": np.asarray(q, float).tolist()}
    if joint_names is not None:
        doc["joint_names"] = list(joint_names)
    return doc


def write_configurations(path, t, q, joint_names=None, error=ConfigError) -> Path:
    """Write `configurations_document` as JSON to ``path`` atomically
    (`humanoid_model.files.write_text`); returns the path, ``error`` when it cannot be written."""
    return write_text(path, json.dumps(configurations_document(t, q, joint_names)), "configurations file", error)


@dataclass
class Configurations:
    """A configuration file, checked: times ``t`` (N,) non-decreasing [s], rows ``q`` (N, w) of
    finite numbers, ``joint_names`` or None."""

    t: np.ndarray
    q: np.ndarray
    joint_names: list[str] | None


def is_configurations_document(doc) -> bool:
    """Whether ``doc`` holds ``t`` and ``q``."""
    return isinstance(doc, dict) and "t" in doc and "q" in doc


def parse_configurations(doc: dict, src, error) -> Configurations:
    """The checked configurations of ``doc`` read from ``src``."""
    t = fields.times(doc["t"], src, "t", error)
    q = fields.rows(doc["q"], src, "q", error, n=len(t))
    names = doc.get("joint_names")
    return Configurations(t, q, None if names is None else fields.joint_names(names, src, "joint_names", error))
