"""Deformable sole declarations of a robot (the ``soles:`` section of its ``NAME.yaml``; the sole
model of Chardonnet 2009, §4.3; docs/soles.md "Switching soles on").

    soles:
      r_sole: {contact: r_sole, length: 0.22, width: 0.13, resolution: [0.0733, 0.0433, 0.01],
               layers: [{thickness: 0.02, E: 3.0e+6, nu: 0.4}]}

A sole is a length × width box of layers (listed from the foot down) fastened under the contact
location ``contact`` (a ``kind: sole`` entry of ``contacts:``): the sole frame's origin is the
location's ``point`` (the centre of the sole's top face, the foot interface), its x axis the
location's ``tangent``, its z axis the location's ``normal`` (into the foot), y = z × x. The
simulator uses it when a scene sets ``robot.soles: fem`` (`humanoid_sim.soles.world_coupling`).
``resolution`` [m] is the target element edge, one value or one per axis (x, y, z).

Only plain data lives here (humanoid_model is below humanoid_sim); the FEM is built by
`humanoid_sim.soles`. Bad entries raise the caller's error class (`ModelError` for a robot YAML)
with the shared one-line wording of `humanoid_model.validation`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from humanoid_model.exceptions import ModelError
from humanoid_model.validation import finite_number, finite_vector, message

__all__ = ["SoleLayer", "SoleSpec", "read_soles", "SOLE_MODELS", "PAD_LAYERS"]

SOLE_MODELS = ("rigid", "fem")  # the values of a scene's robot.soles (rigid: the default)


@dataclass(frozen=True)
class SoleLayer:
    """One slab of a sole: thickness [m] > 0, Young's modulus E [Pa] > 0, Poisson's ratio nu in (−1, 0.5)."""

    thickness: float
    E: float
    nu: float


#: The thesis's two-layer pad sole (Chardonnet 2009, §4.6: a 3 MPa top layer over 1 MPa pads, ν = 0.25) as two full
#: layers, top first; the thicknesses are not given: 1.5 cm + 0.5 cm (chosen: the simple sole's 2 cm in all; with
#: 1 cm + 1 cm HRP-2 falls in the walking benchmark, docs/walking.md "Pad soles")
PAD_LAYERS = (SoleLayer(0.015, 3e6, 0.25), SoleLayer(0.005, 1e6, 0.25))


@dataclass(frozen=True)
class SoleSpec:
    """A sole fastened under a contact location (module docstring).

    name: the entry's name; contact: the contact location; body: its link; origin (3,) [m]: the
    top-face centre in the body frame; rotation (3 × 3): the sole axes (columns x, y, z) in the
    body frame; length, width [m]; layers: `SoleLayer` tuple, top first; resolution (3,) [m]:
    target element edge per axis. Hashable (tuples), so a built FEM can be cached per spec."""

    name: str
    contact: str
    body: str
    origin: tuple
    rotation: tuple
    length: float
    width: float
    layers: tuple
    resolution: tuple

    @property
    def thickness(self) -> float:
        """Total thickness [m]."""
        return float(sum(layer.thickness for layer in self.layers))

    @property
    def placement(self) -> tuple[np.ndarray, np.ndarray]:
        """(R (3 × 3), p (3,)): the sole frame in the body frame."""
        return np.array(self.rotation, float), np.array(self.origin, float)


def _layer(d, source, field, error) -> SoleLayer:
    if not isinstance(d, Mapping) or set(d) - {"thickness", "E", "nu"} or not {"thickness", "E", "nu"} <= set(d):
        raise error(message(source, field, "a mapping {thickness [m], E [Pa], nu}", d))
    t = finite_number(d["thickness"], source, f"{field}.thickness", minimum=0.0, strict=True, unit="m", error=error)
    E = finite_number(d["E"], source, f"{field}.E", minimum=0.0, strict=True, unit="Pa", error=error)
    nu = finite_number(d["nu"], source, f"{field}.nu", minimum=-1.0, strict=True, maximum=0.5, error=error)
    if nu >= 0.5:
        raise error(message(source, f"{field}.nu", "a number > -1 and < 0.5 (0.5 is incompressible)", d["nu"]))
    return SoleLayer(t, E, nu)


def read_soles(section, contacts, source: str, error=ModelError) -> dict[str, SoleSpec]:
    """The `SoleSpec` of each entry of a YAML ``soles:`` mapping. contacts: name ->
    `humanoid_model.contact_location.ContactLocation` (anything with body, point, normal, tangent);
    source: the file, for messages."""
    if section is None:
        return {}
    if not isinstance(section, Mapping):
        raise error(message(source, "soles", "a mapping name -> sole", section))
    out = {}
    keys = {"contact", "length", "width", "resolution", "layers"}
    for name, d in section.items():
        w = f"soles.{name}"
        if not isinstance(d, Mapping) or set(d) - keys or not keys <= set(d):
            raise error(message(source, w, f"a mapping with the keys {sorted(keys)}", d))
        loc = contacts.get(d["contact"]) if isinstance(d["contact"], str) else None
        if loc is None:
            raise error(message(source, f"{w}.contact", f"a contact location ({', '.join(contacts)})", d["contact"]))
        length = finite_number(d["length"], source, f"{w}.length", minimum=0.0, strict=True, unit="m", error=error)
        width = finite_number(d["width"], source, f"{w}.width", minimum=0.0, strict=True, unit="m", error=error)
        res = d["resolution"]
        res = finite_vector([res] * 3 if isinstance(res, (int, float)) else res, 3, source, f"{w}.resolution", error)
        if np.any(res <= 0):
            raise error(message(source, f"{w}.resolution", "one or three lengths > 0 [m]", d["resolution"]))
        layers = d["layers"]
        if not isinstance(layers, list) or not layers:
            raise error(message(source, f"{w}.layers", "a non-empty list of layers", layers))
        z = np.asarray(loc.normal, float)
        x = np.asarray(loc.tangent, float)
        R = np.column_stack([x, np.cross(z, x), z])
        out[name] = SoleSpec(
            name=name,
            contact=d["contact"],
            body=loc.body,
            origin=tuple(float(v) for v in loc.point),
            rotation=tuple(tuple(float(v) for v in row) for row in R),
            length=length,
            width=width,
            layers=tuple(_layer(layer, source, f"{w}.layers[{i}]", error) for i, layer in enumerate(layers)),
            resolution=tuple(float(v) for v in res),
        )
    return out
