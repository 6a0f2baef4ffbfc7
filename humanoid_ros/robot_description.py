"""/robot_description as a robot source, for the nodes whose `robot` parameter is ``""`` (the robot
bridge at configure, the pilot at start; docs/ros.md, "The robot from /robot_description").

    text = read_robot_description(node, timeout=10.0)     # the latched URDF text, or ConfigError
    robot = robot_from_description(node, timeout, like="")  # humanoid_model.robot.Robot

The topic is std_msgs/String with the `LATCHED` QoS (reliable, transient local), as the simulator
and the state publisher publish it (mesh paths as ``file://`` URIs): a node started after the
publisher still gets the last description. It is read by a private, hidden node of the caller's
context spun by an executor of its own, so the read needs none of the caller's executor: it works
in a constructor, in a lifecycle transition called by a service of the node itself, under
`humanoid-stack up` (one process) and under `run_node`. The name is resolved by the caller
(its namespace and remappings apply).

``like`` gives the robot what a URDF alone does not say (postures, contact locations, collision
rules): a shipped robot name or a URDF file (`humanoid_model.robot.robot_from_urdf_text`); ``""``
takes the description's own ``<robot name>`` when a shipped robot has that name, else none. The
pilot takes a kinematic structure of the text instead (`structure_like`: a NAME.kin.yaml's frames,
closures and sources).
"""

from __future__ import annotations

import time

from std_msgs.msg import String

from humanoid_model.exceptions import ConfigError, HumanoidStackError
from humanoid_ros.common import LATCHED

__all__ = [
    "ROBOT_DESCRIPTION",
    "read_robot_description",
    "robot_from_description",
    "shipped_like",
    "structure_like",
]

ROBOT_DESCRIPTION = "/robot_description"
"""The topic the simulator and the state publisher publish the robot's URDF on."""

_POLL = 0.05  # [s] (chosen) longest wait of one spin of the private executor: a Ctrl-C is seen this soon


def read_robot_description(node, timeout: float, topic: str = ROBOT_DESCRIPTION) -> str:
    """The URDF text of the latest ``topic`` message as ``node`` resolves the name, waiting at most
    ``timeout`` [s] (module docstring). `ConfigError` naming the node, the topic and the timeout
    when none arrives."""
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node

    name = node.resolve_topic_name(topic)
    reader = Node(
        f"_{node.get_name()}_robot_description",
        namespace=node.get_namespace(),
        context=node.context,
        use_global_arguments=False,
        start_parameter_services=False,
        enable_rosout=False,
    )
    received: list[str] = []
    reader.create_subscription(String, name, lambda msg: received.append(msg.data), LATCHED)
    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(reader)
    deadline = time.monotonic() + timeout
    try:
        while not received:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            executor.spin_once(timeout_sec=min(_POLL, left))
    finally:
        executor.remove_node(reader)
        reader.destroy_node()
        executor.shutdown()
    if not received:
        raise ConfigError(
            f"node '{node.get_name()}': parameter robot is \"\" (the robot of {name}): no {name} message "
            f"(std_msgs/String, transient local) within {timeout:g} s (parameter robot_description_timeout); "
            "start a simulator or a state publisher on the same ROS_DOMAIN_ID first, or set robot to a robot "
            "name or URDF file"
        )
    return received[-1]


def shipped_like(text: str, like: str) -> str | None:
    """The ``like`` robot for description ``text``: ``like`` itself when given, else the URDF's own
    ``<robot name>`` when a shipped robot has it, else None."""
    if like:
        return like
    from humanoid_model.paths import shipped_files, urdf_dir
    from humanoid_model.urdf_description import read_urdf

    try:
        own = read_urdf(text).name
    except HumanoidStackError:
        return None  # robot_from_urdf_text reports what is wrong with the text
    return own if own in shipped_files(urdf_dir(), ".urdf") else None


def structure_like(text: str, like: str) -> str:
    """The kinematic structure (`humanoid_control.kinematics.load_structure`'s name or file) for
    description ``text``: ``like`` when given, else the shipped structure of the URDF's own
    ``<robot name>``; `ConfigError` when there is none."""
    if like:
        return like
    from humanoid_control.kinematics.structure import shipped_structures
    from humanoid_model.urdf_description import read_urdf

    try:
        own = read_urdf(text).name
    except HumanoidStackError as exc:
        raise ConfigError(f"the robot of {ROBOT_DESCRIPTION}: {exc}") from None
    if own not in shipped_structures():
        raise ConfigError(
            f"the robot of {ROBOT_DESCRIPTION} is {own!r}, which has no shipped kinematic structure: set robot_like "
            f"to a NAME.kin.yaml (shipped: {', '.join(shipped_structures())})"
        )
    return own


def robot_from_description(node, timeout: float, like: str = "", topic: str = ROBOT_DESCRIPTION):
    """The `humanoid_model.robot.Robot` of the description on ``topic`` (`read_robot_description`),
    its postures, contacts and collision rules those of ``like`` (`shipped_like`). `ConfigError`
    naming the node and the topic when none arrives or the text is no robot."""
    from humanoid_model.robot import robot_from_urdf_text

    text = read_robot_description(node, timeout, topic)
    try:
        return robot_from_urdf_text(text, like=shipped_like(text, like))
    except HumanoidStackError as exc:
        where = node.resolve_topic_name(topic)
        raise ConfigError(f"node '{node.get_name()}': the robot of {where}: {exc}") from None
