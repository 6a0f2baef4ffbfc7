"""Field-level checks of a scene file: `FieldReader`, used by the scene loader
(`humanoid_model.scene`) and the generators (`humanoid_model.scene_generators`).

Every check raises `SceneError` naming the file, the field as a dotted path (``free_bodies[2].mass``)
and the value. Numbers and vectors go through `humanoid_model.validation` (``"<file>: field
'<field>' must be <requirement>; value <value>"``); the other problems read ``"<file>: field
'<field>': <problem>; value <value>"``, with the value shortened by `validation.short`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from humanoid_model.exceptions import SceneError
from humanoid_model.scene_geometry import QUAT_NORM_TOL, Pose
from humanoid_model.scene_types import DEFAULT_FRICTION, DEFAULT_RESTITUTION, Shape
from humanoid_model.validation import did_you_mean, finite_number, finite_rows, finite_vector, short

__all__ = ["FieldReader"]


class FieldReader:
    """Reads and checks the values of one scene file (``path`` names it in every message)."""

    def __init__(self, path: Path):
        self.path = path

    @property
    def source(self) -> str:
        """The file, as messages name it."""
        return str(self.path)

    @staticmethod
    def field(where: str, key: str) -> str:
        """The dotted path of ``key`` inside ``where`` (``where`` empty: the top level)."""
        return f"{where}.{key}" if where else str(key)

    # -------------------------------------------------------------------------- errors
    def fail(self, where: str, value, problem: str):
        """Raise `SceneError`: ``"<file>: field '<where>': <problem>; value <value>"``."""
        raise SceneError(f"{self.source}: field '{where}': {problem}; value {short(value)}")

    def missing(self, where: str, key: str):
        """Raise `SceneError` for a required field ``where.key`` that is absent."""
        raise SceneError(f"{self.source}: field '{self.field(where, key)}' is missing (required)")

    def keys(self, d, where: str, allowed: Sequence[str], required: Sequence[str] = ()):
        """``d`` must be a mapping with keys among ``allowed`` (a typo gets a close-match hint)
        and every key of ``required`` present and not null."""
        if not isinstance(d, Mapping):
            self.fail(where, d, "expected a mapping")
        for k in d:
            if k not in allowed:
                self.fail(
                    self.field(where, k),
                    d[k],
                    f"unknown field '{k}'{did_you_mean(k, allowed)}; allowed: {', '.join(allowed)}",
                )
        for k in required:
            if k not in d or d[k] is None:
                self.missing(where, k)

    # -------------------------------------------------------------------------- values
    def number(self, d, key, where, default=None, minimum=None, maximum=None, positive=False, required=False):
        """``d[key]`` as a finite float (``positive``: > 0; else >= ``minimum``; <= ``maximum``),
        ``default`` when absent or null (an error when ``required``)."""
        if key not in d or d[key] is None:
            if required:
                self.missing(where, key)
            return default
        if positive:
            minimum = 0.0
        return finite_number(
            d[key], self.source, self.field(where, key), minimum, maximum, strict=positive, error=SceneError
        )

    def vector(self, d, key, where, n=3, default=None, required=False, nonzero=False):
        """``d[key]`` as ``n`` finite numbers (``nonzero``: not all zero), ``default`` when absent."""
        if key not in d or d[key] is None:
            if required:
                self.missing(where, key)
            return None if default is None else np.array(default, float)
        w = self.field(where, key)
        arr = finite_vector(d[key], n, self.source, w, SceneError)
        if nonzero and not np.any(arr):
            self.fail(w, d[key], "must not be the zero vector")
        return arr

    def rows(self, d, key, where, width):
        """``d[key]`` (required) as rows of ``width`` finite numbers each."""
        if key not in d or d[key] is None:
            self.missing(where, key)
        return finite_rows(d[key], width, self.source, self.field(where, key), error=SceneError)

    def name(self, d, where, taken: dict[str, str]) -> str:
        """``d['name']``: a non-empty string without '.', not yet in ``taken`` (then added)."""
        if "name" not in d or d["name"] is None:
            self.missing(where, "name")
        n = d["name"]
        if not isinstance(n, str) or not n or "." in n:
            self.fail(f"{where}.name", n, "expected a non-empty string without '.'")
        if n in taken:
            self.fail(f"{where}.name", n, f"duplicate name (already used by {taken[n]})")
        taken[n] = where
        return n

    def material(self, d, where, default_mu=DEFAULT_FRICTION, default_e=DEFAULT_RESTITUTION):
        """(friction mu >= 0, restitution e in [0, 1]) of ``d``, defaults when absent."""
        mu = self.number(d, "friction", where, default=default_mu, minimum=0.0)
        e = self.number(d, "restitution", where, default=default_e, minimum=0.0, maximum=1.0)
        return mu, e

    def pose(self, d, key, where) -> Pose:
        """``d[key]`` as a `Pose` (``{xyz, rpy_deg}`` or ``{xyz, quat}``); identity when absent."""
        if key not in d or d[key] is None:
            return Pose()
        p = d[key]
        w = self.field(where, key)
        self.keys(p, w, ("xyz", "rpy_deg", "quat"))
        xyz = self.vector(p, "xyz", w, default=(0, 0, 0))
        if "rpy_deg" in p and "quat" in p:
            self.fail(w, p, "give either rpy_deg or quat, not both")
        if "quat" in p:
            q = self.vector(p, "quat", w, n=4)
            if abs(np.linalg.norm(q) - 1.0) > QUAT_NORM_TOL:
                self.fail(
                    f"{w}.quat",
                    p["quat"],
                    f"quaternion (x, y, z, w) must have unit norm (norm {np.linalg.norm(q):.6g})",
                )
            return Pose(xyz, q / np.linalg.norm(q))
        rpy = self.vector(p, "rpy_deg", w, default=(0, 0, 0))
        return Pose.from_rpy_deg(xyz, rpy)

    def shape(self, d, where, allowed) -> Shape:
        """The `Shape` of ``d`` (its ``shape`` among ``allowed`` and that shape's sizes)."""
        kind = d.get("shape")
        if kind not in allowed:
            self.fail(f"{where}.shape", kind, f"unknown shape; expected one of {', '.join(allowed)}")
        if kind == "box":
            size = self.vector(d, "size", where, required=True)
            if np.any(size <= 0):
                self.fail(f"{where}.size", d["size"], "box extents must be > 0")
            return Shape("box", size=size)
        if kind == "sphere":
            return Shape("sphere", radius=self.number(d, "radius", where, required=True, positive=True))
        if kind == "cylinder":
            return Shape(
                "cylinder",
                radius=self.number(d, "radius", where, required=True, positive=True),
                length=self.number(d, "length", where, required=True, positive=True),
            )
        if kind == "plane":
            return Shape("plane")
        if kind == "mesh":
            f = d.get("file")
            if not isinstance(f, str) or not f:
                if f is None:
                    self.missing(where, "file")
                self.fail(f"{where}.file", f, "expected a file path (relative to the scene file)")
            fp = (self.path.parent / f).resolve()
            if not fp.is_file():
                self.fail(f"{where}.file", f, f"mesh file not found ({fp})")
            scale = self.vector(d, "scale", where, default=(1, 1, 1))
            if np.any(scale <= 0):
                self.fail(f"{where}.scale", d["scale"], "scale factors must be > 0")
            return Shape("mesh", file=fp, scale=scale)
        return Shape(kind)  # compound: handled by the caller
