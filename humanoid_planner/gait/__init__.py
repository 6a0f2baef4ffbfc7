"""Optimal gait generator for the sagittal BIP biped (Chessé 2002, spec ../shared/spec/003_chesse.md).

No ROS imports here; the ROS 2 node is ``humanoid_ros.gait_generator``.
"""
