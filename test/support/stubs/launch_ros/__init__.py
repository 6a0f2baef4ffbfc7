"""Stand-in for ROS 2 `launch_ros` (records only; see test/support/stubs/README.md)."""
