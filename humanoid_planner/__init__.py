"""humanoid_planner: posture generator and multi-contact planner (001_escande.md), motion
interpolation, and the optimal gait generator `humanoid_planner.gait` (003_chesse.md).
No module here imports ROS; the nodes are in `humanoid_ros`."""
