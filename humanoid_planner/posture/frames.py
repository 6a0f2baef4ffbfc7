"""The two frames a contact matches (Escande 2008, §3.4.1, Fig. 3.4).

Robot side: (P, d_P, b_P, n_P) fixed in a body, from a `humanoid_model.contact_location.ContactLocation`
(n_P inward, d_P its tangent, b_P = n_P x d_P). Environment side: (E, d_E, b_E, n_E) in the
world, n_E the surface's outward normal, b_E = n_E x d_E. `EnvironmentFrame.on_surface` places
it on a planner surface by the contact parameters (x, y, theta) of Escande 2008, §5.3.1.1 and §6.1.1:
E = centroid + x t + y (n x t) and d_E = cos(theta) t + sin(theta) (n x t), with t the surface's
theta = 0 direction (`Surface.tangent`). Measuring (x, y) from the polygon's centroid is our
choice (the thesis does not fix an origin).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humanoid_planner.exceptions import PlanningError

__all__ = ["EnvironmentFrame", "RobotContactFrame"]


def _unit(v, what):
    v = np.asarray(v, float).reshape(3)
    n = np.linalg.norm(v)
    if not np.isfinite(n) or n < 1e-12:
        raise PlanningError(f"posture frames: field '{what}' must be a non-zero finite 3-vector; value {v.tolist()}")
    return v / n


@dataclass(frozen=True)
class RobotContactFrame:
    """(P, d_P, b_P, n_P) in the body frame of ``body``: point [m] and three unit vectors."""

    body: str
    point: np.ndarray
    d: np.ndarray
    b: np.ndarray
    n: np.ndarray

    @classmethod
    def from_location(cls, location) -> RobotContactFrame:
        """From a `ContactLocation` (normal inward, tangent d_P; b_P = n_P x d_P)."""
        n = _unit(location.normal, f"{location.name}.normal")
        d = _unit(location.tangent, f"{location.name}.tangent")
        if abs(n @ d) > 1e-9:
            raise PlanningError(f"contact {location.name!r}: field 'tangent' must be orthogonal to the normal")
        return cls(location.body, np.asarray(location.point, float).reshape(3), d, np.cross(n, d), n)

    @property
    def rotation(self) -> np.ndarray:
        """3x3 with columns (d_P, b_P, n_P) in the body frame."""
        return np.column_stack([self.d, self.b, self.n])


@dataclass(frozen=True)
class EnvironmentFrame:
    """(E, d_E, b_E, n_E) in the world: point [m] and three unit vectors (n_E outward)."""

    point: np.ndarray
    d: np.ndarray
    b: np.ndarray
    n: np.ndarray

    @classmethod
    def make(cls, point, normal, direction) -> EnvironmentFrame:
        """From E, n_E and a direction projected on the plane to give d_E."""
        n = _unit(normal, "normal")
        d = np.asarray(direction, float).reshape(3)
        d = _unit(d - (d @ n) * n, "direction (projected on the plane)")
        return cls(np.asarray(point, float).reshape(3), d, np.cross(n, d), n)

    @classmethod
    def on_surface(cls, surface, x: float = 0.0, y: float = 0.0, theta: float = 0.0) -> EnvironmentFrame:
        """The frame at contact parameters (x [m], y [m], theta [rad]) of a planner `Surface`."""
        t, s, n = surface.rotation.T
        E = surface.centroid + x * t + y * s
        return cls.make(E, n, np.cos(theta) * t + np.sin(theta) * s)

    @property
    def rotation(self) -> np.ndarray:
        """3x3 with columns (d_E, b_E, n_E) in the world."""
        return np.column_stack([self.d, self.b, self.n])
