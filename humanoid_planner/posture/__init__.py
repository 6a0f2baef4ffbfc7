"""Posture generator (Escande 2008, ch. 3; its collision geometry, ch. 4): a posture that meets a set of constraints and
minimises a criterion, from a warm start. No ROS imports. docs/posture_generator.md.

- `base`: the two family interfaces, `PostureConstraint` (rows c(q) = 0 or <= 0 and their
  Jacobian; `ExtendedConstraint` with variables of its own) and `PostureCriterion`
  (``evaluate(q) -> (f, df/dv)``);
- `constraints/`: one module per constraint (contacts, stability, tasks, joint limits, collision,
  the contact planner's goal tasks and relaxations), registry ``CONSTRAINTS`` (name -> class);
- `criteria/`: one module per criterion, registry ``CRITERIA`` (name -> class);
- `geometry/`: capsules, STP-BVs, obstacles and their distances, for the collision constraints;
- `solver/`: the two-phase solver (`solve`: phase 1, then SLSQP), the Newton projection, the
  outcome codes of Table 7.1 and the call log;
- `problem`: `PostureProblem`, constraints and criterion over a tangent increment;
- `kinematics`: one kinematics pass per iterate, point and vector Jacobians; `joint_bounds`: the
  bounded 1-DOF joints;
- `frames`: the robot and environment frames a contact matches; `stance`: the constraints of a
  stance; `support_polygon`: a stance's support polygon.

The contact planner's potentials (`humanoid_planner.contact.potentials`) are criteria too.
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
from .solver.two_phase import PostureSolverSettings, solve
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
    "CONSTRAINTS",
    "CRITERIA",
    "EQUALITY",
    "GROUND",
    "INEQUALITY",
    "BoxRegion",
    "CallLog",
    "Capsule",
    "ComInPolygon",
    "ComPosition",
    "ComRegion",
    "ConfigurationDistance",
    "CriterionSum",
    "DeformableContact",
    "EnvironmentCollision",
    "EnvironmentFrame",
    "ExtendedConstraint",
    "ForceStability",
    "FrameOrientation",
    "FramePosition",
    "Gaze",
    "GeometrySelfCollision",
    "HalfPlanes",
    "JointLimitConstraint",
    "KeepVertical",
    "LightContact",
    "NewtonProjectionSettings",
    "NewtonProjector",
    "Obstacle",
    "Outcome",
    "PathDistance",
    "PointRegion",
    "PostureConstraint",
    "PostureCriterion",
    "PostureProblem",
    "PostureResult",
    "PotentialCriterion",
    "PreContact",
    "ReferencePosture",
    "Relaxed",
    "RobotContactFrame",
    "SearchBox",
    "SearchBoxContact",
    "SelfCollision",
    "PostureSolverSettings",
    "StpEnvironmentCollision",
    "StpSelfCollision",
    "StrongContact",
    "WithBand",
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
