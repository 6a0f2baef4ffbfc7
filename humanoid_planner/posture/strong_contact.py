"""Strong (fixed) contact: the robot frame (P, d_P, b_P, n_P) matches the environment frame
(E, d_E, b_E, n_E): eq. (3.28)-(3.35), 001_escande.md:110-114 (thesis L846-862).

Rows (6 equalities, then 2 inequalities c <= 0):
0-2  P^W - E = 0                 (3.28)-(3.30)  [m]
3    b_P^W . d_E = 0             (3.31)         [-]
4    n_P^W . d_E = 0             (3.32)
5    n_P^W . b_E = 0             (3.33)
6    -d_P^W . d_E <= 0           (3.34)  "same sense"
7    -b_P^W . b_E <= 0           (3.35)
"""

from __future__ import annotations

import numpy as np

from .base import EQUALITY, INEQUALITY
from .contact import ContactConstraint
from .kinematics import dot_rows, frame_jacobian, point_jacobian

__all__ = ["StrongContact"]


class StrongContact(ContactConstraint):
    """The 8 constraints of a strong contact between ``robot_frame`` and ``env_frame``."""

    dim = 8
    kinds = (EQUALITY,) * 6 + (INEQUALITY,) * 2
    equations = "(3.28)-(3.35), 001_escande.md:110-114"

    kind_name = "strong_contact"

    def __init__(self, model, robot_frame, env_frame, name: str | None = None):
        super().__init__(model, robot_frame, env_frame, name)
        ef = env_frame
        self._targets = np.array([ef.d, ef.d, ef.b, -ef.d, -ef.b])  # the e of rows 3-7 (u . e)

    def evaluate(self, q, data):
        rf, ef = self.robot_frame, self.env_frame
        J6 = frame_jacobian(self.model, data, self.fid)
        p, Jp = point_jacobian(self.model, data, self.fid, rf.point, J6)
        R = data.oMf[self.fid].rotation
        d, b, n = R @ rf.d, R @ rf.b, R @ rf.n
        c = np.empty(8)
        J = np.empty((8, self.model.nv))
        c[:3], J[:3] = p - ef.point, Jp
        c[3:], J[3:] = dot_rows(np.array([b, n, n, d, b]), self._targets, J6[3:])
        return c, J
