"""Strong (fixed) contact: the robot frame (P, d_P, b_P, n_P) matches the environment frame
(E, d_E, b_E, n_E): eq. (3.28)-(3.35), Escande 2008, §3.4.1.

Rows (6 equalities, then 2 inequalities c <= 0):
0-2  P^W - E = 0                 (3.28)-(3.30)  [m]
3    b_P^W . d_E = 0             (3.31)         [-]
4    n_P^W . d_E = 0             (3.32)
5    n_P^W . b_E = 0             (3.33)
6    -d_P^W . d_E <= 0           (3.34)  "same sense"
7    -b_P^W . b_E <= 0           (3.35)
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..base import EQUALITY, INEQUALITY
from ..kinematics import _dot_rows, _point_rows, _rotated_rows, frame_jacobian
from .contact_constraint import ContactConstraint

__all__ = ["StrongContact"]


class StrongContact(ContactConstraint):
    """The 8 constraints of a strong contact between ``robot_frame`` and ``env_frame``."""

    dim = 8
    kinds = (EQUALITY,) * 6 + (INEQUALITY,) * 2
    equations = "(3.28)-(3.35), Escande 2008, §3.4.1"

    kind_name = "strong_contact"

    def __init__(self, model, robot_frame, env_frame, name: str | None = None):
        super().__init__(model, robot_frame, env_frame, name)
        ef = env_frame
        self._targets = np.array([ef.d, ef.d, ef.b, -ef.d, -ef.b])  # the e of rows 3-7 (u . e)
        rf = robot_frame
        self._body = np.array([rf.b, rf.n, rf.n, rf.d, rf.b], float)  # the u of rows 3-7, in the body
        self._point = np.asarray(rf.point, float)
        self._env_point = np.asarray(ef.point, float)

    def evaluate(self, q, data):
        M = data.oMf[self.fid]
        J6 = frame_jacobian(self.model, data, self.fid)
        return _rows(M.rotation, M.translation, J6, self._point, self._env_point, self._body, self._targets)


@nb.njit(cache=True)
def _rows(R, t, J6, pb, E, B, T):
    """The 8 rows and their Jacobian (8, nv): rows 0-2 the point P^W = t + R pb minus E
    (`kinematics.point_jacobian`'s kernel), rows 3-7 u . e with u = R B_i (world) and e = T_i
    (`kinematics.dot_rows`'s kernel)."""
    c = np.empty(8)
    J = np.empty((8, J6.shape[1]))
    p, J[:3] = _point_rows(R, t, pb, J6)
    for a in range(3):
        c[a] = p[a] - E[a]
    c[3:], J[3:] = _dot_rows(_rotated_rows(R, B), T, J6[3:])
    return c, J
