"""The guide-trajectory potential U_T (6.7)/(6.8) (Escande 2008, §6.3.2; (6.8)'s first branch
with the 1/2 of `base.mixed`):

    U_T(q) = U_m(D) - k l,   D = |y(q) - m|,   U_m the mixed shape (a, d0) of `base.mixed`

with y(q) the guide coordinates (`coordinates`), T the polyline through the key postures' y with
its corners rounded (`curve.RoundedPolyline`), m the closest point of T to y(q) and l its
arc-length abscissa: "stay close to the guide" against "progress along it" (k).

Deviation from the thesis (docs/contact_planner.md, "Potentials"): the thesis finds m' by projecting
on the root's position/orientation subspace F and measures the progress l' there (T' = p(T) must
then be injective: the root moves slightly during posture changes, §6.3.2). Here m, D and l are all
taken in the weighted full coordinates y: the closest point in the same metric as the distance makes
dD/dy = (y - m)/D exactly (envelope), and a posture change at a fixed root is progress along T, so T
needs no injectivity fix. The weights of `coordinates` make the root dominate the metric, as the
thesis's projection does.

With ``progress`` "root" the progress l is the thesis's l': the arc-length abscissa of the closest
point of T' = p(T), the root's curve in F (the first six guide coordinates: position and scaled
rotation vector, rounded as T), to p(y); D stays the distance to T in the full coordinates. A
posture change at a fixed root is then no progress. Measured on the chair stand-up (Escande 2008,
§7.3): with the full-coordinate progress the search settles on the seat with both feet lifted and
the legs stretched toward the standing key posture (potential -0.04 at the sitting root, 288
expansions in 240 s without leaving the seat).

Gradient: dU_T/dv = (U_m'(D) dD/dy - k ds/dy) dy/dv.

Numbers chosen (the thesis gives none, §6.3.2): a = 1 m^-2 and d0 = 0.5 m (quadratic
within half a metre of the guide, linear beyond, so a far node is not pulled with a force growing
without bound); k = 0.5 m^-1: one metre of progress along T is worth as much as a node 1 m off
the guide (a d0 D - a d0²/2 = 0.375 at D = 1 m, close to k x 1 m), so the search follows T but may
leave it by tens of centimetres to find contacts; ``max_deviation`` 0.1 m of the rounding (about
the size of a contact surface: the rounded guide stays within a hand's width of the key
postures' corner).
"""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

from .base import Potential, mixed
from .coordinates import GuideCoordinates
from .curve import RoundedPolyline

__all__ = ["PROGRESS", "GuidePotential"]

PROGRESS = ("posture", "root")  #: where the guide's progress is measured (module docstring)


class GuidePotential(Potential):
    """U_T along the key configurations ``key_postures`` (k, nq) of ``model`` (module docstring);
    ``coordinates`` a `GuideCoordinates` (default weights)."""

    name = "guide"
    equations = "(6.7)-(6.8), Escande 2008, §6.3.2 (first branch with the 1/2)"

    def __init__(
        self,
        model,
        key_postures,
        a: float = 1.0,
        d0: float = 0.5,
        k: float = 0.5,
        max_deviation: float = 0.1,
        coordinates: GuideCoordinates | None = None,
        progress: str = "posture",
    ):
        if not (a > 0 and d0 > 0 and k >= 0):
            raise PlanningError(f"guide potential: fields a, d0 > 0 and k >= 0 required; {a}, {d0}, {k}")
        K = np.atleast_2d(np.asarray(key_postures, float))
        if K.shape[1] != model.nq or len(K) < 1:
            raise PlanningError(f"guide potential: field 'key_postures' must be (k, {model.nq}); shape {K.shape}")
        self.model, self.nv = model, model.nv
        self.a, self.d0, self.k = float(a), float(d0), float(k)
        self.coordinates = coordinates or GuideCoordinates(model)
        self.key_postures = K
        self.curve = RoundedPolyline([self.coordinates(q) for q in K], max_deviation)
        if progress not in PROGRESS:
            raise PlanningError(f"guide potential: field 'progress' must be one of {PROGRESS}; {progress!r}")
        #: the root's curve T' in F (progress "root"), or None: the progress is measured on T
        self.root_curve = (
            RoundedPolyline([self.coordinates(q)[:6] for q in K], max_deviation) if progress == "root" else None
        )

    def _progress(self, y, pr) -> tuple[float, np.ndarray]:
        """(l, dl/dy): along T (``pr`` its projection), or along the root's T' (module docstring)."""
        if self.root_curve is None:
            return pr.s, pr.ds
        root = self.root_curve.closest_point(y[:6])
        return root.s, np.concatenate([root.ds, np.zeros(len(y) - 6)])

    def progress(self, q) -> float:
        """l(q): the arc-length abscissa of the closest point of T (or of T', module docstring) [m]."""
        y = self.coordinates(q)
        return self._progress(y, self.curve.closest_point(y))[0]

    def evaluate(self, q) -> tuple[float, np.ndarray]:
        y, dy = self.coordinates.value_and_jacobian(q)
        pr = self.curve.closest_point(y)
        u, du = mixed(pr.D, self.a, self.d0)
        s, ds = self._progress(y, pr)
        grad_y = du * pr.dD - self.k * ds
        return u - self.k * s, grad_y @ dy
