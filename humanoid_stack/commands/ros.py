"""`humanoid-stack ros GROUP VERB ...`: the ros2 CLI's everyday verbs with rclpy only, for the
default install (PyPI wheels, no `ros2` command)."""

from __future__ import annotations

HELP = "talk to running nodes without a system ROS 2: topics, parameters, services, actions (as ros2 does)"
COMPILES = False  # runs no numba kernel: the compilation notice (cli.main) would only import numba
DESCRIPTION = """\
The ros2 CLI's everyday verbs, with the same arguments, for the default install (ROS 2 wheels from
PyPI, which have no `ros2` command): wherever the docs say `ros2 X ...`, `humanoid-stack ros X ...`
does the same. ROS_DOMAIN_ID, ROS_AUTOMATIC_DISCOVERY_RANGE and RMW_IMPLEMENTATION are read from
the environment, as ros2 reads them.

  topic list [-t]                          topic echo TOPIC [TYPE] [--once] [--count N]
  topic pub TOPIC TYPE 'YAML' [--once | --times N | --rate HZ]
  param get NODE NAME                      param set NODE NAME VALUE     param list [NODE]
  service call SERVICE TYPE ['YAML']       action send_goal ACTION TYPE 'YAML' [--feedback]
  node list

Types are pkg/msg/Name, pkg/srv/Name, pkg/action/Name (or pkg/Name); values are YAML mappings of
the fields ('{linear: {x: 0.5}}'). Messages print as YAML. An unknown type, bad YAML, an unknown
field, a value of the wrong type or a timeout prints one line and exits 2; Ctrl-C ends echo and a
publishing loop with exit 0. docs/ros.md, "Commands on the default install".

examples:
  humanoid-stack ros topic echo --once /joint_states
  humanoid-stack ros topic pub -r 20 /pilot/twist geometry_msgs/msg/Twist "{linear: {x: 0.5}}"
  humanoid-stack ros param set /robot_bridge speed_scale 0.5
  humanoid-stack ros service call /robot_bridge/stop std_srvs/srv/Trigger
"""


def add_arguments(parser):
    from humanoid_stack.ros_tools.parser import add_arguments as add  # light: argparse only

    add(parser)


def run(args) -> int:
    import importlib

    module, function = args.ros_verb
    verb = getattr(importlib.import_module(f"humanoid_stack.ros_tools.{module}"), function)
    try:
        return verb(args)
    except KeyboardInterrupt:  # echo and the publishing loop run until Ctrl-C, as ros2's do: their normal end
        if getattr(args, "ros_group", None) == "topic":
            return 0
        raise
