"""Walking pattern generator for HRP-2 (issue 12), the ROS-free, kinematics-free part: a
footstep list, the reference ZMP it implies, Kajita's ZMP preview control of the cart-table
model for the CoM (Kajita et al., "Biped walking pattern generation by using preview control of
zero-moment point", ICRA 2003) and the swing-foot trajectories.

    from humanoid_planner.walking import WalkParameters, plan_pattern
    pattern = plan_pattern(WalkParameters(n_steps=2, step_length=0.2))
    pattern.t, pattern.com, pattern.zmp, pattern.zmp_ref, pattern.feet["r"]

The whole-body inverse kinematics that turns the pattern into joint trajectories lives in
`humanoid_control.walking_ik` (humanoid_planner may not import humanoid_control, the same layer);
`humanoid-stack walk` composes both. Method, constants and measurements: docs/walking.md.
"""

from humanoid_planner.walking.footsteps import FootGeometry, Footstep, WalkParameters, foot_geometry, footsteps
from humanoid_planner.walking.pattern import WalkPattern, plan_pattern
from humanoid_planner.walking.preview import PreviewController
from humanoid_planner.walking.swing import swing_profile

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
