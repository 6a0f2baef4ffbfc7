"""humanoid_ros: the ROS 2 nodes of humanoid_stack, and the helpers only nodes share.

Layers (import direction, enforced by import-linter in `make lint`):
``humanoid_stack`` > ``humanoid_ros`` > ``humanoid_sim | humanoid_planner | humanoid_control |
humanoid_viewer`` > ``humanoid_model``. Only this package (and the `humanoid_stack` runner above it)
imports rclpy or ROS message packages; the libraries below never do.

- `humanoid_ros.common`: `LATCHED`, `TFMessage` (None without tf2_msgs), `run_node`,
  `transform_stamped_list`, time stamp conversions, `diagnostic_array`, `WarnOnce`.
- `humanoid_ros.parameters`: `Parameter` and `ParameterTable`, the declarative parameter tables
  (declaration, validation, run-time changes, docs/ros.md rows).
- one module per node, named after its executable: `state_publisher`, `viewer`,
  `gait_generator`, `simulator`, `contact_planner`, `pilot` (around
  `humanoid_control.piloting.PilotSession`) and `robot_bridge` (around
  `humanoid_control.bridge.BridgeExecutor`); a large parameter table sits in `NAME_parameters`
  (`simulator_parameters`, `pilot_parameters`, `robot_bridge_parameters`).

A node module is ROS glue only: parameters in (its table), library call, messages out.
"""
