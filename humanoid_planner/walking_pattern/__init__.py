"""Walking pattern generator for HRP-2 (ZMP preview control), the ROS-free, kinematics-free
part: a footstep list (`footsteps`), the reference ZMP it implies, Kajita's ZMP preview control
of the cart-table model for the CoM (Kajita et al., "Biped walking pattern generation by using preview control of
zero-moment point", ICRA 2003; `preview`), the swing-foot trajectories (`swing`) and the whole
pattern at the control period (`pattern`).

    from humanoid_planner.walking_pattern import WalkParameters, plan_pattern
    pattern = plan_pattern(WalkParameters(n_steps=2, step_length=0.2))
    pattern.t, pattern.com, pattern.zmp, pattern.zmp_ref, pattern.feet["r"]

The whole-body inverse kinematics that turns the pattern into joint trajectories lives in
`humanoid_control.walking_ik` (humanoid_planner may not import humanoid_control, the same layer);
`humanoid-stack walk` composes both. Method, constants and measurements: docs/walking.md.
"""

from humanoid_planner.walking_pattern.footsteps import FootGeometry, Footstep, WalkParameters, foot_geometry, footsteps
from humanoid_planner.walking_pattern.pattern import WalkPattern, plan_pattern
from humanoid_planner.walking_pattern.preview import PreviewController
from humanoid_planner.walking_pattern.swing import swing_profile

__all__ = [
    "Footstep",
    "FootGeometry",
    "WalkParameters",
    "footsteps",
    "foot_geometry",
    "PreviewController",
    "swing_profile",
    "WalkPattern",
    "plan_pattern",
]
