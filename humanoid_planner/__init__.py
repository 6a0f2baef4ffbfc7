"""humanoid_planner: the planning libraries. No module here imports ROS; the nodes are in
`humanoid_ros`.

- `posture`: the posture generator (Escande 2008, ch. 3 and 4): constraints, criteria, collision
  geometry and solvers;
- `contact`: the multi-contact planner (Escande 2008, ch. 5 and 6): best-first search over stances, its
  potentials and its posture-generator calls;
- `motion`: a motion from a contact plan (Escande 2008, §7.1): segments, body paths, projections
  of interpolated configurations on the stances, time law;
- `planning`: planning runs end to end (problems from scenes, the plan and its motion, the
  statistics, PLAN.json);
- `gait`: the optimal gait phase sequence of the planar BIP biped (Chessé 2002);
- `walking_pattern`: HRP-2's walking pattern by ZMP preview control (footsteps, CoM, swing feet);
- `exceptions`: `PlanningError`.
"""
