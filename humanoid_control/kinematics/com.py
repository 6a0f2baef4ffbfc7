"""The centre-of-mass task: the CoM's ground projection (x, y) over a point, the humanoid use
of the solver (the CoM kept over the support polygon as a task). The thesis ignores masses
(Flückiger 1998, §3.1); this row is the modern addition.

    e = c_xy(q) - target_xy [m],  J = J_com[:2] (world axes)

`support_polygon` gives the convex hull of the welded soles' contact surfaces (the robot's
``contact_locations`` hulls) and `inside` tells whether a point is inside it, for checks and
for choosing the target (its centroid, or the current CoM projection).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_control.kinematics.base import Constraint
from humanoid_model.validation import finite_vector

__all__ = ["ComTask", "support_polygon", "inside"]


class ComTask(Constraint):
    """CoM x-y of ``structure`` at ``target`` (2,) [m] (default: its value at the initial configuration).

    Level 1 by default (chosen): balance is a hard constraint with the feet, above the commands.
    At level 2 a hand reaching for a target 3 m away pulled the CoM out of the support polygon
    (the least-squares compromise of one level); at level 1 it stays where it is."""

    dim = 2
    needs_com = True
    row_scale = np.ones(2)
    linear = np.ones(2, dtype=bool)

    def __init__(self, structure, target=None, weight=1.0, level=1, gain=1.0, name="com"):
        self.name, self.weight, self.level, self.gain = name, float(weight), int(level), float(gain)
        self.model = structure.model
        self.target = structure.com(structure.q0)[:2].copy()
        if target is not None:
            self.set_target(target)

    def set_target(self, target) -> None:
        """New x-y target [m] (finite, else `KinematicsError`)."""
        from humanoid_control.exceptions import KinematicsError

        self.target = finite_vector(target, 2, f"com task '{self.name}'", "target", error=KinematicsError)

    _data = None

    def evaluate(self, q, data):
        if data is not self._data:  # views of data's CoM and CoM Jacobian, kept with data (Pinocchio
            # never reallocates them): reading ``data.com[0]`` costs ~1.5 µs per cycle otherwise
            self._data, self._com, self._Jcom = data, data.com[0], data.Jcom
        return self._com[:2] - self.target, self._Jcom[:2]


def support_polygon(structure, q, frames_hulls) -> np.ndarray:
    """Counter-clockwise convex hull (k, 2) [m] of the world x-y of the points ``frames_hulls``:
    {frame name: (m, 3) points in that frame [m]} (e.g. the soles' contact hulls)."""
    data = structure.model.createData()
    pin.framesForwardKinematics(structure.model, data, q)
    pts = []
    for frame, hull in frames_hulls.items():
        M = data.oMf[structure.frame_id(frame, "support polygon")]
        pts.extend((M.rotation @ np.asarray(hull, float).T).T + M.translation)
    return _hull(np.asarray(pts)[:, :2])


def _cross(a, b) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def _hull(p: np.ndarray) -> np.ndarray:
    """Andrew's monotone chain, counter-clockwise."""
    p = p[np.lexsort((p[:, 1], p[:, 0]))]

    def half(points):
        out = []
        for x in points:
            while len(out) >= 2 and _cross(out[-1] - out[-2], x - out[-2]) <= 0:
                out.pop()
            out.append(x)
        return out

    lower, upper = half(p), half(p[::-1])
    return np.array(lower[:-1] + upper[:-1])


def inside(polygon: np.ndarray, point, margin: float = 0.0) -> bool:
    """Whether ``point`` (2,) lies inside the counter-clockwise ``polygon`` by at least ``margin`` [m]."""
    return signed_distance(polygon, point) >= margin


def signed_distance(polygon: np.ndarray, point) -> float:
    """Distance [m] from ``point`` to the nearest edge line, positive inside the polygon."""
    x = np.asarray(point, float)[:2]
    best = np.inf
    for a, b in zip(polygon, np.roll(polygon, -1, axis=0)):
        t = b - a
        best = min(best, _cross(t, x - a) / float(np.linalg.norm(t)))
    return best
