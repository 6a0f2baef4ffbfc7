"""Light contact restricted to a convex search box Y of contact parameters (x, y, theta): the
task T_Y of eq. (6.1)-(6.6), 001_escande.md:295 (thesis L2359-2375, erratum 8 at :27: the theta
bound is on the contact orientation, the angle of d_P^W from d_E in the tangent plane), and its
conversion to a strong contact at the solution (`updateContact`, thesis L2396).

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

With ``max_angle`` alpha > 0 (a deformable surface, thesis L878, `deformable_contact`) rows 1-3
become the one quasi-colinearity row cos(alpha) - n_P^W . n_E <= 0 (the body may tilt by up to
alpha), and `to_strong` gives a `DeformableContact` with the same alpha.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humanoid_planner.exceptions import PlanningError

from .base import EQUALITY, INEQUALITY, PostureConstraint
from .deformable_contact import DeformableContact
from .frames import EnvironmentFrame, RobotContactFrame
from .kinematics import frame_id, point_jacobian, vector_jacobian
from .light_contact import plane_rows
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

    equations = "(6.1)-(6.6), 001_escande.md:295"

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

    def evaluate(self, q, data):
        c4, J4, p, Jp, J6 = plane_rows(self.model, data, self.fid, self.robot_frame, self.env, full=True)
        if self.max_angle > 0:  # rows 0 and 3: the plane and cos(alpha) - n_P . n_E <= 0
            c4, J4 = c4[[0, 3]] + [0.0, np.cos(self.max_angle)], J4[[0, 3]]
        rows = [c4, self.a_world @ (p - self.env.point) - self.box.b]
        jacs = [J4, self.a_world @ Jp]
        if self.bounded_theta:
            th, Jth = self._theta(data, J6)
            rows.append(np.array([th - self.theta_half, -th - self.theta_half]))
            jacs.append(np.stack([Jth, -Jth]))
        return np.concatenate(rows), np.vstack(jacs)

    def _theta(self, data, J6=None):
        """Angle [rad] of d_P^W from the box's middle direction about n_E, and its Jacobian (nv,)."""
        c, s = np.cos(self.theta_mid), np.sin(self.theta_mid)
        u, w = c * self.t + s * self.s, -s * self.t + c * self.s
        (d,), (Jd,) = vector_jacobian(self.model, data, self.fid, self.robot_frame.d[None], J6)
        x, y = d @ u, d @ w
        return float(np.arctan2(y, x)), (x * (w @ Jd) - y * (u @ Jd)) / (x * x + y * y)

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
