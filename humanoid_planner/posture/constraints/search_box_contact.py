"""Light contact restricted to a convex search box Y of contact parameters (x, y, theta): the
task T_Y of eq. (6.1)-(6.6), Escande 2008, §6.1.2.2 ((6.6) is printed on the angle of P - E from
d_E; the box's theta bound is on the contact orientation, the angle of d_P^W from d_E in the
tangent plane, as used here), and its conversion to a strong contact at the solution
(`updateContact`, §6.1.2.3).

(x, y) are the surface coordinates of `EnvironmentFrame.on_surface` (from the polygon's centroid
E along t and n x t), theta the angle of d_P^W from t about n_E. Rows:

0   (P^W - E) . n_E = 0                                (6.1)  [m]
1   d_P^W . n_E = 0                                    (6.2)  [-]
2   b_P^W . n_E = 0                                    (6.3)
3   -n_P^W . n_E <= 0                                  (6.4)
4.. (P^W - E) . a_i - b_i <= 0, one per half-plane     (6.5)  [m], a_i unit in the plane
    theta^- - theta <= 0, theta - theta^+ <= 0         (6.6)  [rad], only when theta^+ - theta^- < 2 pi

(6.5) is strict in the thesis; written <= here (a solver cannot hold a strict inequality). theta
is measured from the box's middle angle, atan2 being continuous within +-pi of it.

With ``max_angle`` alpha > 0 (a deformable surface, Escande 2008, §3.4.1, `deformable_contact`) rows 1-3
become the one quasi-colinearity row cos(alpha) - n_P^W . n_E <= 0 (the body may tilt by up to
alpha), and `to_strong` gives a `DeformableContact` with the same alpha.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

from humanoid_planner.exceptions import PlanningError

from ..base import EQUALITY, INEQUALITY, PostureConstraint
from ..frames import EnvironmentFrame, RobotContactFrame
from ..kinematics import (
    _dot_rows,
    _point_rows,
    _rotated_rows,
    frame_id,
    frame_jacobian,
    point_jacobian,
    vector_jacobian,
)
from .deformable_contact import DeformableContact
from .strong_contact import StrongContact

__all__ = ["SearchBox", "SearchBoxContact"]


@dataclass(frozen=True)
class SearchBox:
    """A convex box Y of contact parameters on ``surface``: half-planes ``A`` (k, 2) (unit rows)
    and ``b`` (k,) [m], A (x, y) <= b, and ``theta`` = (theta^-, theta^+) [rad]."""

    surface: object
    A: np.ndarray
    b: np.ndarray
    theta: tuple[float, float] = (-np.pi, np.pi)

    @classmethod
    def from_surface(cls, surface, theta=(-np.pi, np.pi)) -> SearchBox:
        """The whole surface polygon (its edges as half-planes) with the angle range ``theta``."""
        t, s, _ = surface.rotation.T
        V = (surface.vertices - surface.centroid) @ np.column_stack([t, s])  # (k, 2), counter-clockwise
        E = np.roll(V, -1, axis=0) - V
        A = np.column_stack([E[:, 1], -E[:, 0]])
        A /= np.linalg.norm(A, axis=1)[:, None]
        return cls(surface, A, np.einsum("ij,ij->i", A, V), tuple(map(float, theta)))

    @classmethod
    def rectangle(cls, surface, x, y, theta=(-np.pi, np.pi)) -> SearchBox:
        """x in [x0, x1], y in [y0, y1] [m] (surface coordinates), theta in ``theta``."""
        if not (x[0] < x[1] and y[0] < y[1] and theta[0] < theta[1]):
            raise PlanningError(f"search box: fields 'x', 'y', 'theta' must be increasing; values {x}, {y}, {theta}")
        A = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
        return cls(surface, A, np.array([x[1], -x[0], y[1], -y[0]]), tuple(map(float, theta)))


class SearchBoxContact(PostureConstraint):
    """A light contact of ``robot_frame`` on ``box.surface`` with (x, y, theta) inside ``box``."""

    equations = "(6.1)-(6.6), Escande 2008, §6.1.2.2"

    def __init__(
        self,
        model,
        robot_frame: RobotContactFrame,
        box: SearchBox,
        name: str = "search_box_contact",
        max_angle: float = 0.0,
    ):
        self.model = model
        self.max_angle = float(max_angle)
        self.robot_frame = robot_frame
        self.box = box
        self.name = name
        self.fid = frame_id(model, robot_frame.body)
        surf = box.surface
        self.t, self.s, _ = surf.rotation.T
        self.env = EnvironmentFrame.make(surf.centroid, surf.normal, self.t)
        self.a_world = box.A[:, :1] * self.t + box.A[:, 1:] * self.s  # (k, 3)
        lo, hi = box.theta
        self.bounded_theta = hi - lo < 2 * np.pi
        self.theta_mid, self.theta_half = (lo + hi) / 2, (hi - lo) / 2
        n_plane = 2 if self.max_angle > 0 else 4
        self.dim = n_plane + len(box.b) + 2 * self.bounded_theta
        self.kinds = (EQUALITY,) * (n_plane - 1) + (INEQUALITY,) * (self.dim - n_plane + 1)
        c, sn = np.cos(self.theta_mid), np.sin(self.theta_mid)
        self._packed = (  # `_rows`'s constant inputs
            np.asarray(robot_frame.point, float),
            np.array([robot_frame.d, robot_frame.b, robot_frame.n], float),
            self.env.point,
            self.env.n,
            np.ascontiguousarray(self.a_world),
            np.asarray(box.b, float),
            c * self.t + sn * self.s,  # u: the box's middle direction
            -sn * self.t + c * self.s,  # w = n_E x u
        )

    def evaluate(self, q, data):
        M = data.oMf[self.fid]
        J6 = frame_jacobian(self.model, data, self.fid)
        return _rows(
            M.rotation, M.translation, J6, *self._packed, self.max_angle, self.bounded_theta, self.theta_half, self.dim
        )

    def _theta(self, data, J6=None):
        """Angle [rad] of d_P^W from the box's middle direction about n_E, and its Jacobian (nv,)."""
        c, s = np.cos(self.theta_mid), np.sin(self.theta_mid)
        u, w = c * self.t + s * self.s, -s * self.t + c * self.s
        (d,), (Jd,) = vector_jacobian(self.model, data, self.fid, self.robot_frame.d[None], J6)
        x, y = d @ u, d @ w
        return math.atan2(y, x), (x * (w @ Jd) - y * (u @ Jd)) / (x * x + y * y)  # libm: same bits everywhere

    def parameters(self, q, data) -> tuple[float, float, float]:
        """(x [m], y [m], theta [rad]) of the contact at ``q`` (``data`` updated at q)."""
        p, _ = point_jacobian(self.model, data, self.fid, self.robot_frame.point)
        th, _ = self._theta(data)
        rel = p - self.env.point
        return float(rel @ self.t), float(rel @ self.s), float(self.theta_mid + th)

    def to_strong(self, q, data, name: str | None = None) -> StrongContact | DeformableContact:
        """`updateContact`: the strong contact at this contact's parameters at ``q`` (a
        `DeformableContact` with ``max_angle``)."""
        x, y, th = self.parameters(q, data)
        env = EnvironmentFrame.on_surface(self.box.surface, x, y, th)
        if self.max_angle > 0:
            return DeformableContact(self.model, self.robot_frame, env, self.max_angle, name=name or self.name)
        return StrongContact(self.model, self.robot_frame, env, name=name or self.name)


@nb.njit(cache=True)
def _rows(R, t, J6, pb, B, E, nE, A, b, u, w, max_angle, bounded, half, dim):
    """`SearchBoxContact.evaluate`'s rows (module docstring) and Jacobian (dim, nv): the point
    P^W = t + R pb (`kinematics`' point kernel), the body vectors (d_P, b_P, n_P) = R B_i against
    n_E (its dot kernel), the half-planes a_i . (P^W - E) - b_i, and theta = atan2(d_P . w, d_P . u)
    with d theta = ((d_P . u) (d_P x w) - (d_P . w) (d_P x u)) . omega / |.|^2."""
    nv = J6.shape[1]
    c = np.empty(dim)
    J = np.empty((dim, nv))
    p, Jp = _point_rows(R, t, pb, J6)
    U = _rotated_rows(R, B)
    T = np.empty((3, 3))
    for a in range(3):
        T[0, a], T[1, a], T[2, a] = nE[a], nE[a], -nE[a]
    cu, Ju = _dot_rows(U, T, J6[3:])
    rel = np.empty(3)
    for a in range(3):
        rel[a] = p[a] - E[a]
    c[0] = rel[0] * nE[0] + rel[1] * nE[1] + rel[2] * nE[2]
    for j in range(nv):
        J[0, j] = nE[0] * Jp[0, j] + nE[1] * Jp[1, j] + nE[2] * Jp[2, j]
    if max_angle > 0:  # rows 0 and 3: the plane and cos(alpha) - n_P . n_E <= 0
        c[1] = cu[2] + math.cos(max_angle)
        J[1] = Ju[2]
        r = 2
    else:
        c[1:4] = cu
        J[1:4] = Ju
        r = 4
    for i in range(A.shape[0]):
        c[r] = A[i, 0] * rel[0] + A[i, 1] * rel[1] + A[i, 2] * rel[2] - b[i]
        for j in range(nv):
            J[r, j] = A[i, 0] * Jp[0, j] + A[i, 1] * Jp[1, j] + A[i, 2] * Jp[2, j]
        r += 1
    if bounded:
        d0, d1, d2 = U[0, 0], U[0, 1], U[0, 2]
        x = d0 * u[0] + d1 * u[1] + d2 * u[2]
        y = d0 * w[0] + d1 * w[1] + d2 * w[2]
        th = math.atan2(y, x)
        rr = x * x + y * y
        g0 = (x * (d1 * w[2] - d2 * w[1]) - y * (d1 * u[2] - d2 * u[1])) / rr
        g1 = (x * (d2 * w[0] - d0 * w[2]) - y * (d2 * u[0] - d0 * u[2])) / rr
        g2 = (x * (d0 * w[1] - d1 * w[0]) - y * (d0 * u[1] - d1 * u[0])) / rr
        c[r], c[r + 1] = th - half, -th - half
        for j in range(nv):
            g = g0 * J6[3, j] + g1 * J6[4, j] + g2 * J6[5, j]
            J[r, j], J[r + 1, j] = g, -g
    return c, J
