"""Scene generators: entries of a scene's ``generate:`` list that add bodies at load time.

``type: gravel`` scatters ``count`` small static box-shaped stones over a rectangle of the
ground, from a ``seed`` (NumPy PCG64 generator: the same seed and parameters give the same stones
on every machine). Each stone gets uniform random edge lengths in [size_min, size_max], a uniform
random yaw, roll and pitch uniform in [-max_tilt_deg, max_tilt_deg], and rests on the ground
(its lowest corner at ground height).
"""

from __future__ import annotations

import numpy as np

from humanoid_model.scene_geometry import Pose, rpy_to_matrix
from humanoid_model.scene_types import Shape, StaticBody

GRAVEL_KEYS = (
    "type",
    "name",
    "seed",
    "count",
    "center",
    "extent",
    "size_min",
    "size_max",
    "max_tilt_deg",
    "friction",
    "restitution",
)


# Most stones one gravel entry may produce (chosen: the shipped gravel scene has 60; each stone is a
# static box the broad phase tests every step, so 10^4 is far beyond a useful field, and a count
# of 10^12 would otherwise exhaust memory before any error).
MAX_STONES = 10_000


def generate(loader, d, where: str, names: dict[str, str], ground) -> list:
    """Bodies produced by the generator entry ``d``, checked through ``loader`` (a
    `humanoid_model.scene_fields.FieldReader`); ``names`` holds the body names taken so far."""
    loader.keys(d, where, GRAVEL_KEYS, required=("type",))
    if d["type"] != "gravel":
        loader.fail(f"{where}.type", d["type"], "unknown generator; expected one of gravel")
    return gravel(loader, d, where, names, ground)


def _integer(loader, d, key, where, minimum):
    v = loader.number(d, key, where, required=True, minimum=minimum)
    if v != int(v):
        loader.fail(f"{where}.{key}", d[key], "must be an integer")
    return int(v)


def gravel(loader, d, where, names, ground) -> list:
    """The stones of a ``type: gravel`` entry (see the module docstring)."""
    prefix = d.get("name", "stone")
    if not isinstance(prefix, str) or not prefix or "." in prefix:
        loader.fail(f"{where}.name", prefix, "expected a non-empty string without '.'")
    seed = _integer(loader, d, "seed", where, 0)
    count = _integer(loader, d, "count", where, 0)
    if count > MAX_STONES:
        loader.fail(f"{where}.count", d["count"], f"must be <= {MAX_STONES}")
    center = loader.vector(d, "center", where, n=2, required=True)
    extent = loader.vector(d, "extent", where, n=2, required=True)
    if np.any(extent <= 0):
        loader.fail(f"{where}.extent", d["extent"], "region lengths must be > 0")
    lo = loader.number(d, "size_min", where, required=True, positive=True)
    hi = loader.number(d, "size_max", where, required=True, positive=True)
    if hi < lo:
        loader.fail(f"{where}.size_max", hi, f"must be >= size_min ({lo})")
    tilt = np.radians(loader.number(d, "max_tilt_deg", where, default=0.0, minimum=0.0))
    mu, e = loader.material(d, where)
    z0 = ground.height if ground is not None else 0.0

    rng = np.random.default_rng(seed)
    bodies: list = []
    width = len(str(max(count - 1, 0)))
    for i in range(count):
        size = rng.uniform(lo, hi, size=3)
        xy = center + (rng.uniform(size=2) - 0.5) * extent
        rpy = np.array([rng.uniform(-tilt, tilt), rng.uniform(-tilt, tilt), rng.uniform(-np.pi, np.pi)])
        R = rpy_to_matrix(rpy)
        half_height = 0.5 * float(np.abs(R[2, :]) @ size)  # lowest corner below the centre
        name = f"{prefix}_{i:0{width}d}"
        if name in names:
            loader.fail(f"{where}.name", prefix, f"generated body '{name}' clashes with {names[name]}")
        names[name] = f"{where} (stone {i})"
        bodies.append(
            StaticBody(name, Shape("box", size=size), Pose.from_matrix([xy[0], xy[1], z0 + half_height], R), mu, e)
        )
    return bodies
