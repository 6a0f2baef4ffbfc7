"""The `humanoid-stack ros` command group: the ros2 CLI's everyday verbs (topic list|echo|pub, param
get|set|list, service call, action send_goal, node list) with rclpy only, for the default install,
whose PyPI wheels have no `ros2` command. `parser` builds the arguments without importing ROS; the
other modules import rclpy and run one verb each (`graph`, `topic`, `param`, `calls`) on the node
of `session`, with the message conversions of `messages`."""
