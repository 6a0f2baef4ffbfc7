"""`ros topic echo` and `ros topic pub`: a topic's messages printed as YAML, a message built from
YAML and published once, N times or at a rate."""

from __future__ import annotations

import time

from rclpy.duration import Duration
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from humanoid_stack.exceptions import RosToolError
from humanoid_stack.ros_tools.messages import interface_type, parse_values, set_fields, to_yaml, type_name
from humanoid_stack.ros_tools.parser import DISCOVERY_TIME, WAIT_TIME
from humanoid_stack.ros_tools.session import RosSession

__all__ = ["echo", "pub", "resolve_name"]

ACK_TIME = 2.0  # [s] longest wait for the subscribers to acknowledge the last message before exiting (chosen)
DEPTH = 10  # history depth of the echo subscription and the publisher (chosen: the ros2 CLI's)


def resolve_name(ros: RosSession, name: str, kind: str = "topic") -> str:
    """``name`` (absolute, relative or ``~/``) expanded for this command's node; `RosToolError` when
    it is not a valid ROS name."""
    try:
        if kind == "service":
            return ros.node.resolve_service_name(name)
        return ros.node.resolve_topic_name(name)
    except Exception as exc:  # rclpy's InvalidTopicNameException / InvalidServiceNameException, or rcl's
        reason = " ".join(str(exc).split()).split(":")[0] if str(exc) else type(exc).__name__
        raise RosToolError(f"'{name}' is not a valid {kind} name ({reason})") from None


def _published_type(ros: RosSession, topic: str, timeout: float):
    def types():
        return dict(ros.node.get_topic_names_and_types()).get(topic)

    found = ros.wait_until(
        types, timeout, f"topic {topic}: not in the graph after {timeout:g} s, so its type is unknown (give TYPE)"
    )
    if len(found) > 1:
        raise RosToolError(f"topic {topic} has several types ({', '.join(found)}): give TYPE")
    return interface_type(found[0], "msg")


def _echo_qos(ros: RosSession, topic: str) -> QoSProfile:
    """A subscription matching every publisher of ``topic``: reliable when all of them are,
    transient local (latched messages) when all of them are, as the ros2 CLI chooses."""
    infos = ros.node.get_publishers_info_by_topic(topic)
    reliable = bool(infos) and all(i.qos_profile.reliability == ReliabilityPolicy.RELIABLE for i in infos)
    latched = bool(infos) and all(i.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL for i in infos)
    return QoSProfile(
        depth=DEPTH,
        reliability=ReliabilityPolicy.RELIABLE if reliable else ReliabilityPolicy.BEST_EFFORT,
        durability=DurabilityPolicy.TRANSIENT_LOCAL if latched else DurabilityPolicy.VOLATILE,
    )


def echo(args) -> int:
    wanted = 1 if args.once else args.count  # None: until Ctrl-C
    cls = interface_type(args.type, "msg") if args.type else None
    with RosSession() as ros:
        topic = resolve_name(ros, args.topic)
        if cls is None:
            cls = _published_type(ros, topic, args.timeout or WAIT_TIME)
        else:  # let the publishers be discovered, for the QoS
            _discover_publishers(ros, topic)
        received = []

        def show(msg):
            if wanted is not None and len(received) >= wanted:
                return
            received.append(msg)
            print(to_yaml(msg) + "---", flush=True)

        ros.node.create_subscription(cls, topic, show, _echo_qos(ros, topic))
        try:
            ros.wait_until(
                lambda: wanted is not None and len(received) >= wanted,
                args.timeout,
                lambda: f"topic {topic}: {len(received)} of {wanted or 1} message(s) after {args.timeout:g} s",
            )
        except RosToolError:
            if wanted is not None or not received:  # without a count, --timeout ends the echo
                raise
    return 0


def _discover_publishers(ros: RosSession, topic: str):
    """Spin until ``topic`` has a publisher or `DISCOVERY_TIME` has passed (no error: it may come later)."""
    deadline = time.monotonic() + DISCOVERY_TIME
    while ros.node.count_publishers(topic) == 0 and time.monotonic() < deadline:
        ros.spin_for(0.05)


def _too_few(ros: RosSession, topic: str, cls, count: int, wait: int, timeout: float) -> str:
    other = [t for t in dict(ros.node.get_topic_names_and_types()).get(topic, []) if t != type_name(cls)]
    also = f" (the topic has the type {', '.join(other)} in the graph)" if other else ""
    return f"topic {topic}: {count} of {wait} subscriber(s) after {timeout:g} s{also}"


def pub(args) -> int:
    cls = interface_type(args.type, "msg")
    msg = set_fields(cls(), parse_values(args.values, "message"), "message")
    times = 1 if args.once else args.times  # None: until Ctrl-C
    wait = args.wait_matching_subscriptions
    if wait is None:
        wait = 1 if times else 0
    with RosSession() as ros:
        topic = resolve_name(ros, args.topic)
        # reliable and transient local: offers what any subscriber may ask for
        qos = QoSProfile(
            depth=DEPTH, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL
        )
        publisher = ros.node.create_publisher(cls, topic, qos)
        if wait > 0:
            ros.wait_until(
                lambda: publisher.get_subscription_count() >= wait,
                args.timeout,
                lambda: _too_few(ros, topic, cls, publisher.get_subscription_count(), wait, args.timeout),
            )
        period, sent, start = 1.0 / args.rate, 0, time.monotonic()
        while times is None or sent < times:
            ros.spin_for(start + sent * period - time.monotonic())
            publisher.publish(msg)
            sent += 1
            print(f"publishing #{sent}: {type(msg).__name__} on {topic}", flush=True)
        publisher.wait_for_all_acked(Duration(seconds=ACK_TIME))
        ros.spin_for(0.1)
    return 0
