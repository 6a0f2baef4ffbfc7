"""humanoid_model: robot and scene loading, contact locations, ROS-free; plus the state-publisher
node (`humanoid_model.node`, the only module here that imports rclpy) and the dynamic-model
generator (`humanoid_model.dynmodel`)."""
