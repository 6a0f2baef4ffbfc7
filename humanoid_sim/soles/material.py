"""Linear isotropic sole materials and the layer stack of a sole (Chardonnet
2009, §4.3.2, eqs. (4.4)–(4.8); per-element Lamé coefficients as §4.3.2 allows).

    rubber = Material(E=3e6, nu=0.4)  # the thesis's chosen sole (Chardonnet 2009, §4.4.1)
    stack = (Layer(0.01, Material(3e6, 0.25)), Layer(0.01, Material(1e6, 0.25)))  # top first

A `Layer` is a slab of the sole of one material; a stack is listed from the foot interface (top,
Dirichlet side) down to the ground side. Bad values raise `ConfigError` in the shared one-line
wording of `humanoid_model.validation`.
"""

from __future__ import annotations

from dataclasses import dataclass

from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import finite_number, message

__all__ = ["Material", "Layer", "RUBBER", "lame"]


def lame(E: float, nu: float) -> tuple[float, float]:
    """(μ_L, λ_L) [Pa] of Young's modulus E [Pa] and Poisson's ratio ν [-] (Chardonnet 2009,
    eq. (4.7)): μ = E / (2(1+ν)), λ = E ν / ((1+ν)(1−2ν))."""
    return E / (2.0 * (1.0 + nu)), E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))


@dataclass(frozen=True)
class Material:
    """Linear isotropic elastic material: E [Pa] > 0, ν [-] in (−1, 0.5) (ν = 0.5 is
    incompressible: λ is infinite and linear tetrahedra lock; refused)."""

    E: float
    nu: float
    source: str = "soles.material"

    def __post_init__(self):
        object.__setattr__(self, "E", finite_number(self.E, self.source, "E", minimum=0.0, strict=True, unit="Pa"))
        nu = finite_number(self.nu, self.source, "nu", minimum=-1.0, strict=True, maximum=0.5)
        if nu >= 0.5:
            raise ConfigError(message(self.source, "nu", "a finite number > -1 and < 0.5", self.nu))
        object.__setattr__(self, "nu", nu)

    @property
    def lame(self) -> tuple[float, float]:
        """(μ_L, λ_L) [Pa], eq. 4.7."""
        return lame(self.E, self.nu)


@dataclass(frozen=True)
class Layer:
    """A slab of the sole: thickness [m] > 0 and its `Material`."""

    thickness: float
    material: Material
    source: str = "soles.layer"

    def __post_init__(self):
        t = finite_number(self.thickness, self.source, "thickness", minimum=0.0, strict=True, unit="m")
        object.__setattr__(self, "thickness", t)
        if not isinstance(self.material, Material):
            raise ConfigError(message(self.source, "material", "a soles.Material", self.material))


RUBBER = Material(3e6, 0.4)  # E = 3 MPa, ν = 0.4: the thesis's chosen sole (Chardonnet 2009, §4.4.1)
