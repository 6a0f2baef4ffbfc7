"""What the contact constraints (strong, light, pre-contact) share: a robot contact frame
(P, d_P, b_P, n_P) on a body and an environment frame (E, d_E, b_E, n_E) (`frames`)."""

from __future__ import annotations

from ..base import PostureConstraint
from ..frames import EnvironmentFrame, RobotContactFrame
from ..kinematics import frame_id

__all__ = ["ContactConstraint"]


class ContactConstraint(PostureConstraint):
    """A constraint between ``robot_frame`` and ``env_frame``; ``name`` defaults to the class's ``kind_name``."""

    kind_name = "contact"

    def __init__(self, model, robot_frame: RobotContactFrame, env_frame: EnvironmentFrame, name: str | None = None):
        self.model = model
        self.robot_frame = robot_frame
        self.env_frame = env_frame
        self.name = name or self.kind_name
        self.fid = frame_id(model, robot_frame.body)
