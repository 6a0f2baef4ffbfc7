"""Field-level checks of a scene file: `FieldReader`, used by the scene loader
(`humanoid_model.scene`) and the generators (`humanoid_model.scene_generators`).

Every check raises `SceneError` naming the file, the field as a dotted path (``free_bodies[2].mass``)
and the value. Numbers and vectors go through `humanoid_model.validation` (``"<file>: field
'<field>' must be <requirement>; value <value>"``), then through the physical bounds of their key
(`FIELD_BOUNDS`: sizes, positions, masses, gravity, velocities, wrenches); the other problems read
``"<file>: field '<field>': <problem>; value <value>"``, with the value shortened by `validation.short`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from humanoid_model.exceptions import SceneError
from humanoid_model.files import check_input
from humanoid_model.scene_geometry import QUAT_NORM_TOL, Pose
from humanoid_model.scene_types import DEFAULT_FRICTION, DEFAULT_RESTITUTION, Shape
from humanoid_model.validation import did_you_mean, finite_number, finite_rows, finite_vector, message, short

__all__ = ["FieldReader", "Bound", "FIELD_BOUNDS", "MAX_FORCE", "MAX_TORQUE"]


@dataclass(frozen=True)
class Bound:
    """Physical bounds of a scene field: every entry's magnitude <= ``high`` and, when not zero,
    >= ``low``; with ``norm``, the vector's norm <= ``high`` instead. ``unit`` is quoted."""

    low: float
    high: float
    unit: str
    norm: bool = False

    def requirement(self) -> str:
        if self.norm:
            return f"of magnitude <= {self.high:g} [{self.unit}]"
        if self.low:
            return f"of magnitude in [{self.low:g}, {self.high:g}] [{self.unit}]"
        return f"within ±{self.high:g} [{self.unit}]"

    def holds(self, a: np.ndarray) -> bool:
        m = np.abs(a)
        if self.norm:  # the largest entry first: the norm of [0, 0, 1e300] would overflow
            return bool(m.max(initial=0.0) <= self.high and np.linalg.norm(a) <= self.high)
        return bool(np.all(m <= self.high) and not np.any((m > 0) & (m < self.low)))


# Physical bounds of scene fields by key (chosen, docs/scenes.md "Bounds"): far beyond any scene a
# humanoid meets, and small enough that inertias, contact quantities and their squares stay finite
# (1e300 overflows in sphere_inertia). Sizes of shapes: 1 µm to 10 km; positions within
# 10 km of the origin; masses 1 mg to 1000 t; gravity up to 1000 m/s² (about 100 g); velocities
# up to 10 km/s and 10^4 rad/s; wrench forces and torques up to MAX_FORCE / MAX_TORQUE (also the
# bounds of World.apply_wrench, `humanoid_sim.stages.wrenches`).
# Largest force [N] and torque [N·m] a scene or a user may apply (chosen: 1e6 N is the weight of
# 100 t, four orders above anything a humanoid of 50-110 kg can meet; a force of 1e30 N turns the
# state into garbage within a step).
MAX_FORCE = 1e6
MAX_TORQUE = 1e6
_SIZE = Bound(1e-6, 1e4, "m")
_POSITION = Bound(0.0, 1e4, "m")
FIELD_BOUNDS = {
    "radius": _SIZE,
    "length": _SIZE,
    "size": _SIZE,
    "size_min": _SIZE,
    "size_max": _SIZE,
    "extent": _SIZE,
    "scale": Bound(1e-6, 1e4, "-"),
    "mass": Bound(1e-6, 1e6, "kg"),
    "xyz": _POSITION,
    "height": _POSITION,
    "center": _POSITION,
    "point": _POSITION,
    "vertices": _POSITION,
    "gravity": Bound(0.0, 1e3, "m/s^2", norm=True),
    "linear": Bound(0.0, 1e4, "m/s", norm=True),
    "angular": Bound(0.0, 1e4, "rad/s", norm=True),
    "force": Bound(0.0, MAX_FORCE, "N", norm=True),
    "torque": Bound(0.0, MAX_TORQUE, "N m", norm=True),
}
UNBOUNDED = ("robot.joints",)  # sections whose keys are names (joint angles), not field kinds


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
        x = finite_number(
            d[key], self.source, self.field(where, key), minimum, maximum, strict=positive, error=SceneError
        )
        return self.bounded(x, d[key], key, where)

    def bounded(self, x, raw, key, where):
        """``x`` (a number or an array read from ``raw``) if it holds the `FIELD_BOUNDS` of
        ``key`` (none for other keys), else `SceneError` naming the field and the bound."""
        bound = FIELD_BOUNDS.get(key) if where not in UNBOUNDED else None
        if bound is not None and not bound.holds(np.atleast_1d(np.asarray(x, float))):
            raise SceneError(message(self.source, self.field(where, key), bound.requirement(), raw))
        return x

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
        return self.bounded(arr, d[key], key, where)

    def rows(self, d, key, where, width):
        """``d[key]`` (required) as rows of ``width`` finite numbers each."""
        if key not in d or d[key] is None:
            self.missing(where, key)
        arr = finite_rows(d[key], width, self.source, self.field(where, key), error=SceneError)
        return self.bounded(arr, d[key], key, where)

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
            try:  # a regular file within the input bound: trimesh and coal open it by its name
                check_input(fp, "mesh file", SceneError)
            except SceneError as exc:
                self.fail(f"{where}.file", f, str(exc))
            scale = self.vector(d, "scale", where, default=(1, 1, 1))
            if np.any(scale <= 0):
                self.fail(f"{where}.scale", d["scale"], "scale factors must be > 0")
            return Shape("mesh", file=fp, scale=scale)
        return Shape(kind)  # compound: handled by the caller
