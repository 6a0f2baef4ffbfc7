"""The argument parser of `humanoid-stack ros`: the ros2 CLI's verbs with its argument shapes, so
that `humanoid-stack ros topic pub ...` takes what `ros2 topic pub ...` takes. Imports no ROS
(the docs' commands are parsed by a test without DDS); each leaf sets ``ros_verb`` to
``(module, function)`` of `humanoid_stack.ros_tools` that runs it."""

from __future__ import annotations

import argparse

__all__ = ["add_arguments", "DISCOVERY_TIME", "WAIT_TIME"]

DISCOVERY_TIME = 1.0  # [s] spin before listing the graph (chosen: loopback discovery takes well under it)
WAIT_TIME = 10.0  # [s] default wait for a server, a node, a subscriber or a topic's type (chosen)


def _positive(kind):
    def convert(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be a {'number' if kind is float else 'whole number'}; value {text!r}"
            ) from None
        if not value > 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"must be > 0 and finite; value {text!r}")
        return value

    convert.__name__ = "positive number" if kind is float else "positive integer"
    return convert


def _leaf(sub, name, verb, help_text, examples=()):
    epilog = ("examples:\n" + "\n".join(f"  {e}" for e in examples)) if examples else None
    p = sub.add_parser(
        name, help=help_text, description=help_text, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.set_defaults(ros_verb=verb)
    return p


def _group(sub, name, help_text):
    p = sub.add_parser(name, help=help_text, description=help_text)
    return p.add_subparsers(dest=f"ros_{name}_verb", metavar="VERB", required=True)


def _timeout(p, default, what):
    shown = "until Ctrl-C" if default is None else f"{default:g} s"
    p.add_argument(
        "--timeout", type=_positive(float), default=default, metavar="S", help=f"{what} (default: {shown}); then exit 2"
    )


def _spin_time(p):
    p.add_argument(
        "--spin-time",
        type=_positive(float),
        default=DISCOVERY_TIME,
        metavar="S",
        help=f"discovery time before listing (default {DISCOVERY_TIME:g} s)",
    )


def _topic(sub):
    verbs = _group(sub, "topic", "list, echo and publish topics (ros2 topic)")
    p = _leaf(verbs, "list", ("graph", "topic_list"), "list the topics of the graph (ros2 topic list)")
    p.add_argument("-t", "--show-types", action="store_true", help="add each topic's type")
    _spin_time(p)

    p = _leaf(
        verbs,
        "echo",
        ("topic", "echo"),
        "print the messages of a topic as YAML documents (ros2 topic echo)",
        ["humanoid-stack ros topic echo /diagnostics", "humanoid-stack ros topic echo --once /joint_states"],
    )
    p.add_argument("topic", metavar="TOPIC", help="topic name, e.g. /joint_states")
    p.add_argument("type", metavar="TYPE", nargs="?", help="pkg/msg/Name (default: the type its publishers use)")
    p.add_argument("--once", action="store_true", help="print the first message and exit")
    p.add_argument("--count", type=_positive(int), metavar="N", help="print N messages and exit")
    _timeout(p, None, "longest wait for the messages; without --once or --count, how long to echo")

    p = _leaf(
        verbs,
        "pub",
        ("topic", "pub"),
        "publish a message given as YAML, once or at a rate (ros2 topic pub)",
        [
            "humanoid-stack ros topic pub --once /chatter std_msgs/msg/String '{data: hello}'",
            'humanoid-stack ros topic pub -r 20 /pilot/twist geometry_msgs/msg/Twist "{linear: {x: 0.5}}"',
        ],
    )
    p.add_argument("topic", metavar="TOPIC", help="topic name")
    p.add_argument("type", metavar="TYPE", help="pkg/msg/Name, e.g. geometry_msgs/msg/Twist")
    p.add_argument("values", metavar="YAML", nargs="?", default="{}", help="the message's fields (default '{}')")
    how = p.add_mutually_exclusive_group()
    how.add_argument("-1", "--once", action="store_true", help="publish one message and exit")
    how.add_argument("-t", "--times", type=_positive(int), metavar="N", help="publish N messages and exit")
    p.add_argument("-r", "--rate", type=_positive(float), default=1.0, metavar="HZ", help="publishing rate (default 1)")
    p.add_argument(
        "-w",
        "--wait-matching-subscriptions",
        type=int,
        metavar="N",
        help="wait for N subscribers before publishing (default: 1 with --once or --times, else 0)",
    )
    _timeout(p, WAIT_TIME, "longest wait for the subscribers")


def _param(sub):
    verbs = _group(sub, "param", "get, set and list a node's parameters (ros2 param)")
    p = _leaf(
        verbs,
        "get",
        ("param", "get"),
        "print a parameter's value (ros2 param get)",
        ["humanoid-stack ros param get /robot_bridge speed_scale"],
    )
    p.add_argument("node", metavar="NODE", help="node name, e.g. /simulator")
    p.add_argument("name", metavar="NAME", help="parameter name")
    _timeout(p, WAIT_TIME, "longest wait for the node")
    p = _leaf(
        verbs,
        "set",
        ("param", "set_"),
        "set a parameter; VALUE is read as YAML: 0.5, true, [1, 2], text (ros2 param set)",
        ["humanoid-stack ros param set /robot_bridge speed_scale 0.5"],
    )
    p.add_argument("node", metavar="NODE", help="node name")
    p.add_argument("name", metavar="NAME", help="parameter name")
    p.add_argument("value", metavar="VALUE", help="the new value, as YAML")
    _timeout(p, WAIT_TIME, "longest wait for the node")
    p = _leaf(verbs, "list", ("param", "list_"), "list a node's parameters, or every node's (ros2 param list)")
    p.add_argument("node", metavar="NODE", nargs="?", help="node name (default: every node)")
    _timeout(p, WAIT_TIME, "longest wait for the node")
    _spin_time(p)


def _service(sub):
    verbs = _group(sub, "service", "call a service (ros2 service)")
    p = _leaf(
        verbs,
        "call",
        ("calls", "service_call"),
        "call a service with a request given as YAML and print the response (ros2 service call)",
        ["humanoid-stack ros service call /robot_bridge/stop std_srvs/srv/Trigger"],
    )
    p.add_argument("service", metavar="SERVICE", help="service name")
    p.add_argument("type", metavar="TYPE", help="pkg/srv/Name, e.g. std_srvs/srv/Trigger")
    p.add_argument("values", metavar="YAML", nargs="?", default="{}", help="the request's fields (default '{}')")
    _timeout(p, WAIT_TIME, "longest wait for the server and for its response")


def _action(sub):
    verbs = _group(sub, "action", "send a goal to an action server (ros2 action)")
    p = _leaf(
        verbs,
        "send_goal",
        ("calls", "send_goal"),
        "send a goal given as YAML, print its result; exit 2 unless it succeeds (ros2 action send_goal)",
        [
            "humanoid-stack ros action send_goal /robot_bridge/follow_joint_trajectory "
            "control_msgs/action/FollowJointTrajectory '{trajectory: {joint_names: [HEAD_JOINT0]}}' --feedback"
        ],
    )
    p.add_argument("action", metavar="ACTION", help="action name")
    p.add_argument("type", metavar="TYPE", help="pkg/action/Name, e.g. control_msgs/action/FollowJointTrajectory")
    p.add_argument("values", metavar="YAML", help="the goal's fields")
    p.add_argument("-f", "--feedback", action="store_true", help="print the feedback messages")
    p.add_argument(
        "--server-timeout",
        type=_positive(float),
        default=WAIT_TIME,
        metavar="S",
        help=f"longest wait for the action server (default {WAIT_TIME:g} s); then exit 2",
    )
    _timeout(p, None, "longest wait for the result")


def _node(sub):
    verbs = _group(sub, "node", "list the nodes (ros2 node)")
    p = _leaf(verbs, "list", ("graph", "node_list"), "list the nodes of the graph (ros2 node list)")
    p.add_argument("-a", "--all", action="store_true", help="also the hidden nodes (names starting with _)")
    _spin_time(p)


def add_arguments(parser):
    """The `ros` command's verbs: topic list|echo|pub, param get|set|list, service call,
    action send_goal, node list."""
    sub = parser.add_subparsers(dest="ros_group", metavar="GROUP", required=True)
    for add in (_topic, _param, _service, _action, _node):
        add(sub)
