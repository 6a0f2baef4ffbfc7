"""Posture generator (001_escande.md §3): constraints sharing one interface (`base`), the
criterion (4.11), and the solver. No ROS imports.

``CONSTRAINTS`` is the registry of the constraint family (name -> class), one module each.
"""

from .base import EQUALITY, INEQUALITY, PostureConstraint
from .com_in_polygon import ComInPolygon
from .frame_orientation import FrameOrientation
from .frame_position import FramePosition
from .frames import EnvironmentFrame, RobotContactFrame
from .gaze import Gaze
from .joint_limits import JointLimits
from .keep_vertical import KeepVertical
from .light_contact import LightContact
from .pre_contact import PreContact
from .search_box_contact import SearchBox, SearchBoxContact
from .strong_contact import StrongContact
from .support_polygon import support_polygon

CONSTRAINTS = {
    "joint_limits": JointLimits,
    "strong_contact": StrongContact,
    "light_contact": LightContact,
    "pre_contact": PreContact,
    "search_box_contact": SearchBoxContact,
    "com_in_polygon": ComInPolygon,
    "frame_position": FramePosition,
    "frame_orientation": FrameOrientation,
    "gaze": Gaze,
    "keep_vertical": KeepVertical,
}

__all__ = [
    "CONSTRAINTS",
    "EQUALITY",
    "INEQUALITY",
    "ComInPolygon",
    "EnvironmentFrame",
    "FrameOrientation",
    "FramePosition",
    "Gaze",
    "JointLimits",
    "KeepVertical",
    "LightContact",
    "PostureConstraint",
    "PreContact",
    "RobotContactFrame",
    "SearchBox",
    "SearchBoxContact",
    "StrongContact",
    "support_polygon",
]
