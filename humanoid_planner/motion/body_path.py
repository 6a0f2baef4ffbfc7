"""The Cartesian path of a body that makes or breaks a contact (Escande 2008, §7.1.2): a straight
segment of length ``approach`` along the surface's outward normal when it leaves a contact, a
similar one when it arrives, a C¹ cubic Hermite spline in between; the orientation is constant on
the straight segments and interpolated (SLERP, the geodesic of SO(3)) along the spline.

The path is parameterised by s in [0, 1] (the segment's interpolation parameter, j / k at the
k-step projection j). The straight segments take ``fraction`` of s each (when present) and the
spline the rest.

Numbers: ``approach`` 0.02 m, the thesis's HRP-2 segment (§7.1.2). Chosen:
``fraction`` 0.2: with the thesis's k = 20 steps (§7.3.3) each straight segment holds 4
projections, so the normal approach is followed by the interpolated motion, not only by its ends
(a length-proportional share would give a 2 cm segment of a 30 cm step a single step). The
spline's end tangents are the unit normal (leaving: outward, arriving: inward) times the chord
length abs(B - A), or the chord itself at an end without a contact; with the normal at both ends
the spline rises by chord / 4 above the straight line (a 0.3 m step lifts the foot 7.5 cm above
the 2 cm segments), which clears the surface it left. ``lift`` scales both tangents: the spline
then rises lift x chord / 4 (`generate.body_paths` lifts a path whose body would cross an
obstacle, e.g. a sole stepping over a tread to the next). ``offset`` (3,) [m] bends the spline
by 16 u^2 (1 - u)^2 offset (u its own parameter): the whole offset at its middle, nothing and
no slope at its ends, so the path stays C¹ (`generate` bends a path sideways where the
projections cannot follow it clear of the robot itself, e.g. a sole stepping past the other
shin).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_planner.exceptions import PlanningError

__all__ = ["APPROACH", "FRACTION", "BodyPath"]

APPROACH = 0.02  #: [m] Escande 2008, §7.1.2
FRACTION = 0.2  #: share of s per straight segment (module docstring)


def _hermite(u: float, a, b, ta, tb) -> np.ndarray:
    u2, u3 = u * u, u * u * u
    return (2 * u3 - 3 * u2 + 1) * a + (u3 - 2 * u2 + u) * ta + (-2 * u3 + 3 * u2) * b + (u3 - u2) * tb


@dataclass(frozen=True)
class BodyPath:
    """From the pose (``R0``, ``p0``) to (``R1``, ``p1``) [m] of a body point; ``n0``: the outward
    normal of the contact left at the start (None: no contact there), ``n1`` the one made at the
    end; ``orientation`` False: the position alone is prescribed."""

    R0: np.ndarray
    p0: np.ndarray
    R1: np.ndarray
    p1: np.ndarray
    n0: np.ndarray | None = None
    n1: np.ndarray | None = None
    approach: float = APPROACH
    fraction: float = FRACTION
    #: whether the projection holds the body's orientation as well as its point's position
    #: (`generate.body_paths`: not where too few joints lie between it and another contact)
    orientation: bool = True
    lift: float = 1.0  #: scale of the spline's end tangents along the normals (module docstring)
    offset: np.ndarray | None = None  #: [m] the spline's bend at its middle (module docstring)

    def __post_init__(self):
        if not (0.0 < self.fraction < 0.5 and self.approach >= 0.0 and self.lift >= 1.0):
            raise PlanningError(
                f"body path: fields 'fraction' in (0, 0.5), 'approach' >= 0 [m] and 'lift' >= 1 required; "
                f"{self.fraction}, {self.approach}, {self.lift}"
            )

    @property
    def s_leave(self) -> float:
        """End of the leaving segment in s (0 without one)."""
        return self.fraction if self.n0 is not None else 0.0

    @property
    def s_arrive(self) -> float:
        """Start of the arriving segment in s (1 without one)."""
        return 1.0 - self.fraction if self.n1 is not None else 1.0

    @property
    def a(self) -> np.ndarray:
        """Start of the spline [m]."""
        return self.p0 + (self.approach * self.n0 if self.n0 is not None else 0.0)

    @property
    def b(self) -> np.ndarray:
        """End of the spline [m]."""
        return self.p1 + (self.approach * self.n1 if self.n1 is not None else 0.0)

    def position(self, s: float) -> np.ndarray:
        """The point's position [m] at ``s`` in [0, 1]."""
        s = min(max(float(s), 0.0), 1.0)
        a, b = self.a, self.b
        if s < self.s_leave:
            return self.p0 + (s / self.s_leave) * (a - self.p0)
        if s > self.s_arrive:
            return b + ((s - self.s_arrive) / (1.0 - self.s_arrive)) * (self.p1 - b)
        chord = b - a
        length = float(np.linalg.norm(chord))
        ta = self.lift * length * self.n0 if self.n0 is not None else chord
        tb = -self.lift * length * self.n1 if self.n1 is not None else chord
        u = self._u(s)
        bend = 0.0 if self.offset is None else 16.0 * u * u * (1.0 - u) ** 2 * np.asarray(self.offset, float)
        return _hermite(u, a, b, ta, tb) + bend

    def rotation(self, s: float) -> np.ndarray:
        """The body's rotation (3, 3) at ``s``: R0 on the leaving segment, R1 on the arriving one,
        the geodesic between them along the spline."""
        u = self._u(min(max(float(s), 0.0), 1.0))
        return self.R0 @ pin.exp3(u * pin.log3(self.R0.T @ self.R1))

    def _u(self, s: float) -> float:
        """The spline's own parameter in [0, 1] at ``s``."""
        lo, hi = self.s_leave, self.s_arrive
        return min(max((s - lo) / (hi - lo), 0.0), 1.0)
