"""humanoid_sim: the physics simulator (000_chardonnet.md), a pipeline of one-module stages:
collision, contacts, delassus, solvers/, integrator, actuators, sensors, World. Only
`humanoid_sim.node` imports rclpy."""
