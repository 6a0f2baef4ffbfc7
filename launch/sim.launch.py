"""Simulator: the `simulator` node with config/sim.yaml, optionally the web viewer and RViz2.

    ros2 launch humanoid_stack sim.launch.py                  # simulator only
    ros2 launch humanoid_stack sim.launch.py viewer:=true     # and the web viewer (http://127.0.0.1:8080)
    ros2 launch humanoid_stack sim.launch.py rviz:=true       # and RViz2 with rviz/humanoid.rviz

Parameters come from config/sim.yaml (the same file `humanoid-stack up sim` reads; its
`humanoid_stack_up` entry is the runner's node list and is ignored here). The simulator publishes
/robot_description and /tf, so no state publisher is started. The viewer takes its parameters
from config/standing.yaml (it follows /joint_states and /odom and draws /contacts there).
"""

from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from launch import LaunchDescription

PACKAGE = "humanoid_stack"


def generate_launch_description():
    share = FindPackageShare(PACKAGE)
    params = PathJoinSubstitution([share, "config", "sim.yaml"])
    viewer_params = PathJoinSubstitution([share, "config", "standing.yaml"])
    rviz_config = PathJoinSubstitution([share, "rviz", "humanoid.rviz"])
    return LaunchDescription(
        [
            DeclareLaunchArgument("viewer", default_value="false", description="start the web viewer"),
            DeclareLaunchArgument("rviz", default_value="false", description="start RViz2 with rviz/humanoid.rviz"),
            Node(package=PACKAGE, executable="simulator", name="simulator", parameters=[params], output="screen"),
            Node(
                package=PACKAGE,
                executable="viewer",
                name="viewer",
                parameters=[viewer_params],
                output="screen",
                condition=IfCondition(LaunchConfiguration("viewer")),
            ),
            Node(
                package="rviz2",
                executable="rviz2",
                name="rviz2",
                arguments=["-d", rviz_config],
                output="screen",
                condition=IfCondition(LaunchConfiguration("rviz")),
            ),
        ]
    )
