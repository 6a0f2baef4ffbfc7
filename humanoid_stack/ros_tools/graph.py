"""`ros topic list` and `ros node list`: the ROS graph as discovered in ``--spin-time`` seconds."""

from __future__ import annotations

from humanoid_stack.ros_tools.session import RosSession

__all__ = ["topic_list", "node_list", "node_names"]


def node_names(ros: RosSession, hidden: bool = False) -> list[str]:
    """The fully qualified names of the nodes ``ros`` has discovered, sorted; hidden ones (a name
    starting with ``_``, such as this command's own node) only when ``hidden``."""
    names = set()
    for name, namespace in ros.node.get_node_names_and_namespaces():
        if name.startswith("_") and not hidden:
            continue
        names.add(f"{namespace.rstrip('/')}/{name}")
    return sorted(names)


def topic_list(args) -> int:
    with RosSession() as ros:
        ros.spin_for(args.spin_time)
        for name, types in sorted(ros.node.get_topic_names_and_types()):
            print(f"{name} [{', '.join(types)}]" if args.show_types else name)
    return 0


def node_list(args) -> int:
    with RosSession() as ros:
        ros.spin_for(args.spin_time)
        for name in node_names(ros, hidden=args.all):
            print(name)
    return 0
