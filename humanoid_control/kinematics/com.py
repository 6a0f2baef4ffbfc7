"""The centre-of-mass task: the CoM's ground projection (x, y) over a point, the humanoid use
of the solver (the CoM kept over the support polygon as a task). The thesis ignores masses
(Flückiger 1998, §3.1); this row is the modern addition.

    e = c_xy(q) - target_xy [m],  J = J_com[:2] (world axes)

`support_polygon` gives the convex hull of the welded soles' contact surfaces (the robot's
``contact_locations`` hulls) and `inside` (`humanoid_model.planar_polygon`) tells whether a point
is inside it, for checks and for choosing the target (its centroid, or the current CoM projection).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_control.kinematics.base import Constraint
from humanoid_model.planar_polygon import convex_hull
from humanoid_model.validation import finite_vector

__all__ = ["ComTask", "support_polygon"]


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
    {frame name: (m, 3) points in that frame [m]} (e.g. the soles' contact hulls), exact
    coordinates (`humanoid_model.planar_polygon.convex_hull`)."""
    data = structure.model.createData()
    pin.framesForwardKinematics(structure.model, data, q)
    pts = []
    for frame, hull in frames_hulls.items():
        M = data.oMf[structure.frame_id(frame, "support polygon")]
        pts.extend((M.rotation @ np.asarray(hull, float).T).T + M.translation)
    return convex_hull(np.asarray(pts)[:, :2])
