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

import numba as nb
import numpy as np

from .base import EQUALITY, INEQUALITY
from .contact import ContactConstraint
from .kinematics import frame_jacobian

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
    """The 8 rows and their Jacobian (8, nv), written out: rows 0-2 the point P^W = t + R pb
    minus E, with J = J6[:3] - [r]x J6[3:] (`kinematics.point_jacobian`); rows 3-7 u . e with
    u = R B_i (world) and e = T_i, J = (u x e) . J6[3:] (`kinematics.dot_rows`)."""
    nv = J6.shape[1]
    c = np.empty(8)
    J = np.empty((8, nv))
    r = np.empty(3)
    for a in range(3):
        r[a] = R[a, 0] * pb[0] + R[a, 1] * pb[1] + R[a, 2] * pb[2]
        c[a] = t[a] + r[a] - E[a]
    for j in range(nv):
        wx, wy, wz = J6[3, j], J6[4, j], J6[5, j]
        J[0, j] = J6[0, j] - (r[1] * wz - r[2] * wy)
        J[1, j] = J6[1, j] - (r[2] * wx - r[0] * wz)
        J[2, j] = J6[2, j] - (r[0] * wy - r[1] * wx)
    for i in range(5):
        u0 = R[0, 0] * B[i, 0] + R[0, 1] * B[i, 1] + R[0, 2] * B[i, 2]
        u1 = R[1, 0] * B[i, 0] + R[1, 1] * B[i, 1] + R[1, 2] * B[i, 2]
        u2 = R[2, 0] * B[i, 0] + R[2, 1] * B[i, 1] + R[2, 2] * B[i, 2]
        e0, e1, e2 = T[i, 0], T[i, 1], T[i, 2]
        c[3 + i] = u0 * e0 + u1 * e1 + u2 * e2
        x0, x1, x2 = u1 * e2 - u2 * e1, u2 * e0 - u0 * e2, u0 * e1 - u1 * e0
        for j in range(nv):
            J[3 + i, j] = x0 * J6[3, j] + x1 * J6[4, j] + x2 * J6[5, j]
    return c, J
