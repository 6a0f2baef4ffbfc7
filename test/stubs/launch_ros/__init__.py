"""Stand-in for ROS 2 `launch_ros` (records only; see test/stubs/README.md)."""
