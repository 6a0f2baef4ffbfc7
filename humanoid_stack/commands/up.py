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

--namespace NS starts every node in namespace NS (rcl's -r __ns:=/NS): their topics, services and
actions move under /NS (joint_states becomes /NS/joint_states), the robot's frames on /tf get the
prefix NS/, and /clock, /tf, /tf_static and /diagnostics stay global. The file's sections apply
to the namespaced nodes. --remap FROM:=TO (repeatable) renames a topic or service for every node
(NODE:FROM:=TO for one node), as rcl's -r. See docs/ros.md "Namespaces and remapping".

examples:
  humanoid-stack up view
  humanoid-stack up view --set viewer.port=8081 --set state_publisher.robot=bip --duration 10
  humanoid-stack up sim --namespace r1 &  humanoid-stack up sim --namespace r2 --set simulator.scene=incline
  humanoid-stack up bridge --remap joint_states:=/hrp2/joint_states
""".format(nodes=", ".join(NODE_CLASSES))


def add_arguments(parser):
    parser.add_argument(
        "params",
        metavar="NAME|PARAMS.yaml",
        help="node set: config/NAME.yaml of the package, or a path to a parameter file",
    )
    add_run_options(parser)
    parser.add_argument(
        "--namespace",
        default="",
        metavar="NS",
        help="start every node in namespace NS (e.g. r1: /r1/joint_states, frames r1/...); default the root",
    )
    parser.add_argument(
        "--remap",
        dest="remaps",
        action="append",
        default=[],
        metavar="FROM:=TO",
        help="rename a topic or service of every node ([NODE:]FROM:=TO, rcl's -r); repeatable",
    )


def run(args) -> int:
    from humanoid_stack.runner import check_duration, load_node_set, run_nodes

    check_duration(args.duration)
    node_set = load_node_set(args.params, args.sets, args.namespace, args.remaps)
    print(
        f"humanoid-stack up: {node_set.path}: starting {', '.join(node_set.nodes)}"
        + (f" in namespace {node_set.namespace}" if node_set.namespace != "/" else "")
        + (f" for {args.duration:g} s" if args.duration else " (Ctrl-C to stop)"),
        flush=True,
    )
    return run_nodes(node_set, duration=args.duration, lifecycle=args.lifecycle)
