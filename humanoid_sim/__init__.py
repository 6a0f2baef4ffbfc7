"""humanoid_sim: the physics simulator (000_chardonnet.md).

`world.World` holds the model, the state and the outputs and runs one module per stage of a step
(docs/simulator.md): `actuators` and `wrenches` (generalised forces), `integrator` (free velocity,
integration, momentum projection), `collision` with `geometry` (contacts), `contacts` (frames,
Jacobians, groups, per-contact data), `warm_start`, `joint_limits`, `delassus` (with the thesis's
`delassus_recursive` and `delassus_kernels`), `impacts`, `contact_solve` with `solvers/`, and
`step_stats` (timing and statistics). `state` holds the records a World hands out, `sensors`
reads them; `recording`, `diagnostics` and `pacing` serve the CLI and the node. The simulator node
(`humanoid_ros.simulator`) is a thin adapter over `session` (a world built from the node's
settings: scripted push, command checks from `commands`, output schedule, `markers`, physics
statistics) and `realtime` (the stepping thread paced to a real-time factor). Nothing in
`humanoid_sim` imports rclpy or ROS messages.
"""
