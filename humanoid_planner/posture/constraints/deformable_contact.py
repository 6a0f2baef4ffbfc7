"""Fixed contact with a deformable surface: the strong contact (3.28)-(3.35) with its
perpendicularity rows replaced by quasi-colinearity (Escande 2008, §3.4.1, deformable surfaces:
some u . v = 0 become u . v' >= a, with a from the vector norms and the largest angle allowed).

Rows (3 equalities, then 3 inequalities c <= 0), ``max_angle`` = alpha [rad]:
0-2  P^W - E = 0                    (3.28)-(3.30)  [m]
3    cos(alpha) - n_P^W . n_E <= 0  the normals within alpha (replaces (3.32)-(3.33))  [-]
4    cos(alpha) - d_P^W . d_E <= 0  the tangents within alpha (replaces (3.31), implies (3.34))
5    -b_P^W . b_E <= 0              (3.35) "same sense"

The contact point is fixed, the body may tilt and turn by up to alpha about it. Used by the
contact planner for the thighs on a seat (docs/contact_planner.md): with both thighs and both soles
fixed, the strong contact's orientation rows of the two legs are linearly dependent (the floor
and the seat are parallel planes, and a thigh and the sole of one leg pin both ends of the
knee-ankle chain), which the quasi-colinearity leaves free within alpha.
"""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

from ..base import EQUALITY, INEQUALITY
from ..kinematics import dot_rows, frame_jacobian, point_jacobian
from .contact_constraint import ContactConstraint

__all__ = ["DeformableContact"]


class DeformableContact(ContactConstraint):
    """A fixed contact point between ``robot_frame`` and ``env_frame`` with the body's frame within
    ``max_angle`` [rad] (0 < max_angle < pi/2) of the environment frame's (module docstring)."""

    dim = 6
    kinds = (EQUALITY,) * 3 + (INEQUALITY,) * 3
    equations = "(3.28)-(3.30), (3.35) and the quasi-colinearity of Escande 2008, §3.4.1"

    kind_name = "deformable_contact"

    def __init__(self, model, robot_frame, env_frame, max_angle: float, name: str | None = None):
        super().__init__(model, robot_frame, env_frame, name)
        if not 0 < max_angle < np.pi / 2:
            raise PlanningError(f"deformable contact: field 'max_angle' must be in (0, pi/2) rad; value {max_angle}")
        self.max_angle = float(max_angle)
        ef = env_frame
        self._targets = -np.array([ef.n, ef.d, ef.b])  # the e of rows 3-5 (u . e)
        self._offset = np.array([np.cos(max_angle), np.cos(max_angle), 0.0])

    def evaluate(self, q, data):
        rf, ef = self.robot_frame, self.env_frame
        J6 = frame_jacobian(self.model, data, self.fid)
        p, Jp = point_jacobian(self.model, data, self.fid, rf.point, J6)
        R = data.oMf[self.fid].rotation
        c = np.empty(6)
        J = np.empty((6, self.model.nv))
        c[:3], J[:3] = p - ef.point, Jp
        c[3:], J[3:] = dot_rows(np.array([R @ rf.n, R @ rf.d, R @ rf.b]), self._targets, J6[3:])
        c[3:] += self._offset
        return c, J
