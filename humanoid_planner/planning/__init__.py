"""Planning runs end to end: a planning problem from a scene (`problem`), the contact plan and its
motion (`run`), the PG statistics by outcome code (`stats`, Escande 2008, Table 7.1) and the
checks of a request's poses and measured joints (`request`), the
PLAN.json document of a run (`plan_file`; the format, its writer and its reader:
`humanoid_model.formats.plan`). Used by `humanoid-stack plan`, the `contact_planner` node and
`benchmarks/planning.py`. No ROS imports. docs/planning.md.
"""

from .plan_file import plan_document
from .problem import PROBLEMS, PlanningProblem, measured, placed, problem_for, start_contacts, walk_problem
from .request import check_frame, request_pose, robot_joints
from .run import PlanningResult, run
from .stats import MEANINGS, OutcomeRow, entries, format_histogram, histogram, histogram_document

__all__ = [
    "MEANINGS",
    "check_frame",
    "PROBLEMS",
    "OutcomeRow",
    "PlanningProblem",
    "PlanningResult",
    "entries",
    "format_histogram",
    "histogram",
    "histogram_document",
    "measured",
    "placed",
    "plan_document",
    "problem_for",
    "request_pose",
    "robot_joints",
    "run",
    "start_contacts",
    "walk_problem",
]
