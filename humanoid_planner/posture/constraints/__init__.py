"""The posture constraints (Escande 2008, §3.4): one module per member of the family, each a
`base.PostureConstraint` (or `base.ExtendedConstraint`); the registry ``CONSTRAINTS`` (name ->
class) is in `humanoid_planner.posture`.

Contacts (on `contact_constraint.ContactConstraint`, the robot and environment frames):
- `strong_contact`: a fixed contact (3.28)-(3.35);
- `deformable_contact`: a fixed contact on a deformable surface, the normals within an angle;
- `light_contact`: a sliding contact on a plane (3.36)-(3.39);
- `pre_contact`: the contact point within a distance of a surface plane (3.40)-(3.43);
- `search_box_contact`: a light contact in a search box of contact parameters (6.1)-(6.6);
- `half_planes`: a contact point within a search box's half-planes on its surface (6.5).

Stability: `com_in_polygon` (the CoM over the support polygon, (3.63)); `force_stability`
(contact forces in friction cones, (3.68)-(3.70)).

Tasks: `com_position`, `frame_position`, `frame_orientation`, `gaze`, `keep_vertical` ((6.24));
the contact planner's goal tasks `com_region` and `point_region` (the CoM or a body point in an
axis-aligned box, on `box_region.BoxRegion`).

Bounds: `joint_limits` ((3.1)).

Collision ((3.47)): `self_collision` and `environment_collision` on capsules,
`stpbv_self_collision` and `stpbv_environment_collision` on STP-BVs, `geometry_self_collision` on
the robot's own collision shapes.

Wrappers of another constraint: `relaxed` (its equality rows relaxed to a band) and `with_band`
(its rows plus the band rows of its equalities, the fast-fail rule of Escande 2008, §3.2.1).
"""
