"""Motion from a contact plan (Escande 2008, §7.1): the segments between witness postures (and
the lead-in from the start posture) and the bodies that make or break contacts (`segments`),
their Cartesian paths with 2 cm normal approach and leave segments (`body_path`), the
posture-generator projection of interpolated configurations on the segment's stance
(`stance_projection`), the path planned on the stance manifold where those projections cannot
keep clear (`manifold_path`) and the via postures tried after it (`via`), the held contacts' drift
and the tasks' error (`stance_errors`), the check of a plan's segments during the search (`path_check`),
the sinusoidal time law with speed caps (`time_law`), and `generate_motion` that chains them
into a trajectory of full configurations at the control period; and the plan's dynamic motion
at robot speed (`centroidal`: the centroidal trajectory through its stances; `dynamic`: with the
swing paths), imported from their modules (they load CasADi). No ROS imports. docs/planning.md.
"""

from .body_path import BodyPath
from .generate import Motion, MotionSettings, body_paths, generate_motion
from .manifold_path import ManifoldPath, PlannedSegment, plan_on_stance
from .path_check import CutSegment, SegmentCheck
from .segments import LEAD_IN, Segment, lead_in_segment, plan_segments
from .stance_errors import contact_drift, task_error
from .stance_projection import project_on_stance
from .time_law import piece_costs, sinusoidal_samples

__all__ = [
    "LEAD_IN",
    "BodyPath",
    "CutSegment",
    "ManifoldPath",
    "Motion",
    "MotionSettings",
    "PlannedSegment",
    "Segment",
    "SegmentCheck",
    "body_paths",
    "contact_drift",
    "generate_motion",
    "lead_in_segment",
    "piece_costs",
    "plan_on_stance",
    "plan_segments",
    "project_on_stance",
    "sinusoidal_samples",
    "task_error",
]
