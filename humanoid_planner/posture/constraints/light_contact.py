"""Light (sliding) contact on a plane: eq. (3.36)-(3.39), Escande 2008, §3.4.1.

Rows (3 equalities, then 1 inequality c <= 0); 2 translations and 1 rotation stay free:
0  (P^W - E) . n_E = 0     (3.36)  [m]
1  d_P^W . n_E = 0         (3.37)  [-]
2  b_P^W . n_E = 0         (3.38)
3  -n_P^W . n_E <= 0       (3.39)
"""

from __future__ import annotations

import numpy as np

from ..base import EQUALITY, INEQUALITY
from ..frames import EnvironmentFrame, RobotContactFrame
from ..kinematics import dot_rows, frame_jacobian, point_jacobian
from .contact_constraint import ContactConstraint

__all__ = ["LightContact", "plane_rows"]


def plane_rows(model, data, fid, robot_frame: RobotContactFrame, env_frame: EnvironmentFrame):
    """The four rows (3.36)-(3.39) (equally (3.40)-(3.43) without the threshold) and their Jacobian
    (4, nv)."""
    rf, ef = robot_frame, env_frame
    J6 = frame_jacobian(model, data, fid)
    p, Jp = point_jacobian(model, data, fid, rf.point, J6)
    R = data.oMf[fid].rotation
    c, J = dot_rows(np.array([R @ rf.d, R @ rf.b, R @ rf.n]), np.array([ef.n, ef.n, -ef.n]), J6[3:])
    return np.concatenate([[(p - ef.point) @ ef.n], c]), np.vstack([ef.n @ Jp, J])


class LightContact(ContactConstraint):
    """The 4 constraints of a light contact of ``robot_frame`` on the plane of ``env_frame``."""

    dim = 4
    kinds = (EQUALITY,) * 3 + (INEQUALITY,)
    equations = "(3.36)-(3.39), Escande 2008, §3.4.1"

    kind_name = "light_contact"

    def evaluate(self, q, data):
        return plane_rows(self.model, data, self.fid, self.robot_frame, self.env_frame)
