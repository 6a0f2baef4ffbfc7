"""Individual body potentials U_{T_i} (Escande 2008, §6.3.3, (6.9)): a point
fixed on a body (a hand, a foot, a knee) follows its own position-only trajectory T_i, derived
from the guide's key postures by forward kinematics, "built the same way" as U_T (6.8):

    U_{T_i}(q) = U_m(D_i) - k l_i,   D_i = |x_i(q) - m_i|,   m_i, l_i: closest point of T_i and its abscissa

with x_i(q) the body point's world position [m] and T_i the rounded polyline (`curve`) through
its positions at the key postures (or through given world ``positions``: one position is an
attraction toward a target, e.g. a hand toward a can). No projection is needed (3-D, §6.3.3).
Gradient: (U_m'(D_i) dD_i/dx - k dl_i/dx) . J_i(q), J_i the point's Jacobian (3, nv).

The body potentials of one model share one kinematics pass per configuration (`_kinematics`: a
weighted sum of six of them evaluates the joint Jacobians once, not six times; the cache holds
the last configuration object per model and thread).

Numbers chosen: as `guide` (a = 1 m^-2, d0 = 0.5 m, k = 0.5 m^-1, max_deviation 0.1 m): a body
point is measured in metres like the root, so the same gains weigh it like the root's guide.
"""

from __future__ import annotations

import threading

import numpy as np
import pinocchio as pin

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import kinematics as kin

from .base import Potential, mixed
from .curve import RoundedPolyline

__all__ = ["BodyPotential"]

_SHARED = threading.local()  # .cache: id(model) -> (model, data, q): the last kinematics pass


def _kinematics(model, q):
    """A ``pin.Data`` of ``model`` updated at ``q`` (joint Jacobians, frames), shared by the body
    potentials of this thread: recomputed only when ``q`` is another array or holds other values."""
    cache = getattr(_SHARED, "cache", None)
    if cache is None:
        cache = _SHARED.cache = {}
    hit = cache.get(id(model))
    key = q.tobytes()  # the values' bytes: a cheaper equality test than np.array_equal on ~40 entries
    if hit is not None and hit[0] is model and hit[2] == key:
        return hit[1]
    data = hit[1] if hit is not None and hit[0] is model else model.createData()
    kin.update(model, data, q)
    cache[id(model)] = (model, data, key)
    return data


class BodyPotential(Potential):
    """U_{T_i} of the point ``point`` (3,) [m] fixed in frame ``frame`` of ``model``, along the
    positions it has at ``key_postures`` (k, nq), or along world ``positions`` (k, 3) [m]."""

    name = "body"
    equations = "(6.9) with U_{T_i} as (6.8), Escande 2008, §6.3.3"

    def __init__(
        self,
        model,
        frame: str,
        point=(0.0, 0.0, 0.0),
        key_postures=None,
        positions=None,
        a: float = 1.0,
        d0: float = 0.5,
        k: float = 0.5,
        max_deviation: float = 0.1,
    ):
        if (key_postures is None) == (positions is None):
            raise PlanningError(f"body potential {frame!r}: give either 'key_postures' or 'positions'")
        if not (a > 0 and d0 > 0 and k >= 0):
            raise PlanningError(f"body potential {frame!r}: fields a, d0 > 0 and k >= 0 required; {a}, {d0}, {k}")
        self.model, self.nv = model, model.nv
        self.frame = frame
        self.fid = kin.frame_id(model, frame, PlanningError)
        self.point = np.asarray(point, float).reshape(3)
        self.a, self.d0, self.k = float(a), float(d0), float(k)
        self.name = f"body:{frame}"
        self._data = model.createData()
        if positions is None:
            positions = [self.position(q) for q in np.atleast_2d(np.asarray(key_postures, float))]
        self.curve = RoundedPolyline(np.atleast_2d(np.asarray(positions, float)), max_deviation)

    def position(self, q) -> np.ndarray:
        """x_i(q): the point's world position [m]."""
        pin.framesForwardKinematics(self.model, self._data, np.asarray(q, float))
        return self._data.oMf[self.fid].act(self.point)

    def evaluate(self, q) -> tuple[float, np.ndarray]:
        data = _kinematics(self.model, np.asarray(q, float))
        x, J = kin.point_jacobian(self.model, data, self.fid, self.point)
        pr = self.curve.closest_point(x)
        u, du = mixed(pr.D, self.a, self.d0)
        return u - self.k * pr.s, (du * pr.dD - self.k * pr.ds) @ J
