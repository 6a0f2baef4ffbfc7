"""View a robot: state publisher + web viewer, optionally RViz2.

    ros2 launch humanoid_stack view.launch.py                # web viewer on http://127.0.0.1:8080
    ros2 launch humanoid_stack view.launch.py rviz:=true     # and RViz2 with rviz/humanoid.rviz
    ros2 launch humanoid_stack view.launch.py viewer:=false rviz:=true

Parameters come from config/view.yaml (the same file `humanoid-stack up view` reads); its
`humanoid_stack_up` entry is the runner's node list and is ignored here.
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
    params = PathJoinSubstitution([share, "config", "view.yaml"])
    rviz_config = PathJoinSubstitution([share, "rviz", "humanoid.rviz"])
    return LaunchDescription(
        [
            DeclareLaunchArgument("rviz", default_value="false", description="start RViz2 with rviz/humanoid.rviz"),
            DeclareLaunchArgument(
                "viewer",
                default_value="true",
                description="start the web viewer (also the /joint_states source of this set: its posture sliders)",
            ),
            Node(
                package=PACKAGE,
                executable="state_publisher",
                name="state_publisher",
                parameters=[params],
                output="screen",
            ),
            Node(
                package=PACKAGE,
                executable="viewer",
                name="viewer",
                parameters=[params],
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
