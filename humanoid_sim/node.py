"""ROS 2 simulator node (``humanoid-stack up sim``, ``launch/sim.launch.py``).

The simulator node lives here; it is the only module of ``humanoid_sim`` that
imports rclpy (owned by the simulator-node engineer, issue 3 "The simulator node").
Work in progress.
"""
