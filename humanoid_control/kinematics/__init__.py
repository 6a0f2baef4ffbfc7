"""The kinematic generator (Flückiger 1998): any structure from a URDF plus a sidecar
(closed loops, extra frames, sources, limits, initial configuration) and one constraint solver
per cycle for direct and inverse kinematics.

    from humanoid_control.kinematics import load_structure, FrameTarget, ComTask, PostureTask, prioritized
    s = load_structure("hrp2")                       # both feet welded to the ground
    hand = FrameTarget(s, "r_hand", mode="position")
    q = s.q0
    q, report = prioritized.solve(s, q, hand, ComTask(s), PostureTask(s))

Rows share one interface (`base.Constraint`: error and Jacobian in the tangent space), one module
per member: `closures` (`Weld`, `Ball`), `targets` (`FrameTarget`), `com` (`ComTask`, the CoM's
ground projection), `com_position` (`CenterOfMassTask`, the 3-D CoM), `frame_height`
(`FrameHeightTask`), `joints` (`JointTask`, `PostureTask`); registry `CONSTRAINTS`. The solvers
are `prioritized` (default) and `svd` (the thesis's reference method), both
``solve(structure, q, *tasks) -> (q_new, SolveReport)``; registry `SOLVERS`. Also: `sidecar`
and `structure` (loading), `rows`, `frame_rows`, `task_rows` and `hierarchy` (the solver's rows
and compiled core), `report` (`SolveReport`), `mad` and `mad_parser` (the thesis's MAD files).
Formats, thresholds and choices: docs/kinematics.md.
"""

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics import prioritized, svd
from humanoid_control.kinematics.base import Constraint
from humanoid_control.kinematics.closures import Ball, Weld
from humanoid_control.kinematics.com import ComTask, support_polygon
from humanoid_control.kinematics.com_position import CenterOfMassTask
from humanoid_control.kinematics.frame_height import FrameHeightTask
from humanoid_control.kinematics.joints import JointTask, PostureTask
from humanoid_control.kinematics.report import SolveReport
from humanoid_control.kinematics.sidecar import parse_kin_sidecar, read_kin_sidecar
from humanoid_control.kinematics.structure import KinematicStructure, build_structure, load_structure
from humanoid_control.kinematics.targets import FrameTarget

#: the solvers, by name (the first is the default)
SOLVERS = {"prioritized": prioritized.solve, "svd": svd.solve}
#: every constraint class (a test checks each satisfies `Constraint`)
CONSTRAINTS = (Weld, Ball, FrameTarget, ComTask, CenterOfMassTask, FrameHeightTask, JointTask, PostureTask)

__all__ = [
    "load_structure",
    "build_structure",
    "read_kin_sidecar",
    "parse_kin_sidecar",
    "KinematicStructure",
    "Constraint",
    "Weld",
    "Ball",
    "FrameTarget",
    "ComTask",
    "CenterOfMassTask",
    "FrameHeightTask",
    "JointTask",
    "PostureTask",
    "SolveReport",
    "support_polygon",
    "prioritized",
    "svd",
    "SOLVERS",
    "CONSTRAINTS",
    "KinematicsError",
]
