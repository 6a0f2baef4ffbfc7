"""The surface half-planes of a search box for a contact point: (P^W - E) . a_i - b_i <= 0 [m],
(6.5) of Escande 2008, §6.1.2.2, the "surface bounding inequalities" of the contact planner's
pre-contact test (§6.1.3). The half-planes are a `search_box_contact.SearchBox`'s, in the surface
coordinates of `frames.EnvironmentFrame.on_surface` (from the polygon's centroid E along t and
n x t), written in the world.

Rows (one inequality per half-plane of the box) [m]; Jacobian a_i^T dP^W/dv (the point Jacobian).
"""

from __future__ import annotations

from ..base import INEQUALITY, PostureConstraint
from ..frames import RobotContactFrame
from ..kinematics import frame_id, point_jacobian

__all__ = ["HalfPlanes"]


class HalfPlanes(PostureConstraint):
    """The surface half-planes of a search box for a contact point: (P^W - E) . a_i - b_i <= 0 [m]
    ((6.5), Escande 2008, §6.1.2.2; the "surface bounding inequalities" of the pre-contact test,
    §6.1.3)."""

    equations = "(6.5), Escande 2008, §6.1.2.2"

    def __init__(self, model, robot_frame: RobotContactFrame, search_box, name: str = "half_planes"):
        self.model, self.robot_frame, self.name = model, robot_frame, name
        self.fid = frame_id(model, robot_frame.body)
        surf = search_box.surface
        t, s, _ = surf.rotation.T
        self.origin = surf.centroid
        self.a_world = search_box.A[:, :1] * t + search_box.A[:, 1:] * s
        self.b = search_box.b
        self.dim = len(self.b)
        self.kinds = (INEQUALITY,) * self.dim

    def evaluate(self, q, data):
        p, Jp = point_jacobian(self.model, data, self.fid, self.robot_frame.point)
        return self.a_world @ (p - self.origin) - self.b, self.a_world @ Jp
