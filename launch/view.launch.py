"""View a robot: state publisher + web viewer, optionally RViz2.

    ros2 launch humanoid_stack view.launch.py                # web viewer on http://127.0.0.1:8080
    ros2 launch humanoid_stack view.launch.py rviz:=true     # and RViz2 with rviz/humanoid.rviz
    ros2 launch humanoid_stack view.launch.py viewer:=false rviz:=true

Parameters come from config/view.yaml (the same file `humanoid-stack up view` reads); its
`humanoid_stack_up` entry is the runner's node list and is ignored here. Arguments: ``robot``
(both nodes'), ``use_sim_time`` and ``namespace`` (the state publisher and the viewer; their
frames on /tf get the namespace as prefix; RViz2 stays in the root namespace).
"""

from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from humanoid_stack.namespaces import launch_parameters
from launch import LaunchDescription

PACKAGE = "humanoid_stack"


def generate_launch_description():
    share = FindPackageShare(PACKAGE)
    params = PathJoinSubstitution([share, "config", "view.yaml"])
    rviz_config = PathJoinSubstitution([share, "rviz", "humanoid.rviz"])
    namespace = LaunchConfiguration("namespace")
    overrides = {"robot": LaunchConfiguration("robot"), "use_sim_time": LaunchConfiguration("use_sim_time")}
    return LaunchDescription(
        [
            DeclareLaunchArgument("rviz", default_value="false", description="start RViz2 with rviz/humanoid.rviz"),
            DeclareLaunchArgument(
                "viewer",
                default_value="true",
                description="start the web viewer (also the /joint_states source of this set: its posture sliders)",
            ),
            DeclareLaunchArgument("robot", default_value="hrp2", description="the robot (name or URDF path)"),
            DeclareLaunchArgument("use_sim_time", default_value="false", description="follow /clock"),
            DeclareLaunchArgument("namespace", default_value="", description="namespace of the nodes"),
            Node(
                package=PACKAGE,
                executable="state_publisher",
                name="state_publisher",
                namespace=namespace,
                parameters=[launch_parameters(params, namespace), overrides],
                output="screen",
            ),
            Node(
                package=PACKAGE,
                executable="viewer",
                name="viewer",
                namespace=namespace,
                parameters=[launch_parameters(params, namespace), overrides],
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
