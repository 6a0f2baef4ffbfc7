"""Posture generator (001_escande.md §3): constraints sharing one interface (`base`), the
criterion (4.11), the problem over a tangent increment and the solver (phase 1 + SLSQP, outcome
codes of Table 7.1). No ROS imports. docs/planner.md.

``CONSTRAINTS`` is the registry of the constraint family (name -> class), one module each;
``CRITERIA`` that of the criteria (`base.PostureCriterion`).
"""

from .base import EQUALITY, INEQUALITY, ExtendedConstraint, PostureConstraint, PostureCriterion
from .constraints.box_region import BoxRegion
from .constraints.com_in_polygon import ComInPolygon
from .constraints.com_position import ComPosition
from .constraints.com_region import ComRegion
from .constraints.deformable_contact import DeformableContact
from .constraints.environment_collision import EnvironmentCollision
from .constraints.force_stability import ForceStability
from .constraints.frame_orientation import FrameOrientation
from .constraints.frame_position import FramePosition
from .constraints.gaze import Gaze
from .constraints.geometry_self_collision import GeometrySelfCollision
from .constraints.half_planes import HalfPlanes
from .constraints.joint_limits import JointLimitConstraint
from .constraints.keep_vertical import KeepVertical
from .constraints.light_contact import LightContact
from .constraints.point_region import PointRegion
from .constraints.pre_contact import PreContact
from .constraints.relaxed import Relaxed
from .constraints.search_box_contact import SearchBox, SearchBoxContact
from .constraints.self_collision import SelfCollision
from .constraints.stpbv_environment_collision import StpEnvironmentCollision
from .constraints.stpbv_self_collision import StpSelfCollision
from .constraints.strong_contact import StrongContact
from .constraints.with_band import WithBand
from .criteria.configuration_distance import ConfigurationDistance
from .criteria.criterion_sum import CriterionSum
from .criteria.path_distance import PathDistance
from .criteria.potential_criterion import PotentialCriterion
from .criteria.reference_posture import ReferencePosture
from .frames import EnvironmentFrame, RobotContactFrame
from .geometry.capsules import Capsule, robot_capsules, self_collision_pairs
from .geometry.obstacles import GROUND, Obstacle
from .problem import PostureProblem
from .solver.call_log import CallLog, recording
from .solver.collision_solve import solve_avoiding
from .solver.newton_projection import NewtonProjectionSettings, NewtonProjector, newton_project
from .solver.outcome import Outcome, PostureResult
from .solver.two_phase import SolverSettings, solve
from .stance import contacts_at, stance_constraints
from .support_polygon import support_polygon

CRITERIA = {
    "reference_posture": ReferencePosture,
    "path_distance": PathDistance,
    "potential": PotentialCriterion,
    "criterion_sum": CriterionSum,
    "configuration_distance": ConfigurationDistance,
}

CONSTRAINTS = {
    "joint_limits": JointLimitConstraint,
    "strong_contact": StrongContact,
    "deformable_contact": DeformableContact,
    "light_contact": LightContact,
    "pre_contact": PreContact,
    "search_box_contact": SearchBoxContact,
    "com_in_polygon": ComInPolygon,
    "com_position": ComPosition,
    "force_stability": ForceStability,
    "frame_position": FramePosition,
    "frame_orientation": FrameOrientation,
    "gaze": Gaze,
    "keep_vertical": KeepVertical,
    "self_collision": SelfCollision,
    "environment_collision": EnvironmentCollision,
    "stpbv_self_collision": StpSelfCollision,
    "stpbv_environment_collision": StpEnvironmentCollision,
    "geometry_self_collision": GeometrySelfCollision,
    "half_planes": HalfPlanes,
    "com_region": ComRegion,
    "point_region": PointRegion,
    "relaxed": Relaxed,
    "with_band": WithBand,
}

__all__ = [
    "ConfigurationDistance",
    "WithBand",
    "Relaxed",
    "PointRegion",
    "HalfPlanes",
    "ComRegion",
    "BoxRegion",
    "CONSTRAINTS",
    "CRITERIA",
    "EQUALITY",
    "INEQUALITY",
    "CallLog",
    "Capsule",
    "ComInPolygon",
    "ComPosition",
    "CriterionSum",
    "DeformableContact",
    "EnvironmentCollision",
    "EnvironmentFrame",
    "ExtendedConstraint",
    "ForceStability",
    "GROUND",
    "FrameOrientation",
    "FramePosition",
    "Gaze",
    "JointLimitConstraint",
    "KeepVertical",
    "LightContact",
    "Obstacle",
    "Outcome",
    "PathDistance",
    "PostureConstraint",
    "PostureCriterion",
    "PostureProblem",
    "PostureResult",
    "PotentialCriterion",
    "PreContact",
    "NewtonProjectionSettings",
    "NewtonProjector",
    "ReferencePosture",
    "RobotContactFrame",
    "SearchBox",
    "SearchBoxContact",
    "SelfCollision",
    "GeometrySelfCollision",
    "SolverSettings",
    "StpEnvironmentCollision",
    "StpSelfCollision",
    "StrongContact",
    "contacts_at",
    "newton_project",
    "recording",
    "robot_capsules",
    "self_collision_pairs",
    "solve",
    "solve_avoiding",
    "stance_constraints",
    "support_polygon",
]
