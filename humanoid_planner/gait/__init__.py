"""Optimal gait generator for the sagittal BIP biped (Chessé 2002, spec ../shared/spec/003_chesse.md).

No ROS imports here; the ROS 2 node lives in ``humanoid_planner.gait.node``.
"""
