"""humanoid_planner: posture generator and multi-contact planner (001_escande.md), motion
interpolation, and the optimal gait generator `humanoid_planner.gait` (003_chesse.md).
Only `*/node.py` modules import rclpy."""
