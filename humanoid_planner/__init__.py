"""humanoid_planner: the planning libraries. No module here imports ROS; the nodes are in
`humanoid_ros`.

- `posture`: the posture generator (001_escande.md §3): constraints, criteria, collision
  geometry and solvers;
- `contact`: the multi-contact planner (001_escande.md §5): best-first search over stances, its
  potentials and its posture-generator calls;
- `motion`: a motion from a contact plan (001_escande.md §6): segments, body paths, projections
  of interpolated configurations on the stances, time law;
- `planning`: planning runs end to end (problems from scenes, the plan and its motion, the
  statistics, PLAN.json);
- `gait`: the optimal gait phase sequence of the planar BIP biped (003_chesse.md);
- `walking_pattern`: HRP-2's walking pattern by ZMP preview control (footsteps, CoM, swing feet);
- `exceptions`: `PlanningError`.
"""
