"""`humanoid-stack up NAME|PARAMS.yaml`: start a node set in one process (no ros2 launch)."""

from __future__ import annotations

from humanoid_stack.runner import NODE_CLASSES, add_run_options  # light: yaml only, no rclpy

HELP = "start the nodes of a ROS 2 parameter file in one process (MultiThreadedExecutor)"
DESCRIPTION = """\
Start the node set of a ROS 2 parameter file in ONE process, without ros2 launch.

NAME is a file config/NAME.yaml of the package (e.g. 'view', 'demo'); a path to any .yaml file
works too. The file is an ordinary ROS 2 parameter file ('node: ros__parameters: {{...}}', also
usable with --ros-args --params-file); the nodes to start are listed in it as

    humanoid_stack_up:
      ros__parameters:
        nodes: [state_publisher, viewer]

Registered nodes: {nodes} (see docs/ros.md). Ctrl-C stops every node and exits 0.

examples:
  humanoid-stack up view
  humanoid-stack up view --set viewer.port=8081 --set state_publisher.robot=bip --duration 10
""".format(nodes=", ".join(NODE_CLASSES))


def add_arguments(parser):
    parser.add_argument(
        "params",
        metavar="NAME|PARAMS.yaml",
        help="node set: config/NAME.yaml of the package, or a path to a parameter file",
    )
    add_run_options(parser)


def run(args) -> int:
    from humanoid_stack.runner import check_duration, load_node_set, run_nodes

    check_duration(args.duration)
    node_set = load_node_set(args.params, args.sets)
    print(
        f"humanoid-stack up: {node_set.path}: starting {', '.join(node_set.nodes)}"
        + (f" for {args.duration:g} s" if args.duration else " (Ctrl-C to stop)"),
        flush=True,
    )
    return run_nodes(node_set, duration=args.duration, lifecycle=args.lifecycle)
