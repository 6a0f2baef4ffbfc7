"""Contact planning: the `contact_planner` node (config/planning.yaml), with the state publisher and
the web viewer drawing its stances.

    ros2 launch humanoid_stack planning.launch.py
    ros2 launch humanoid_stack planning.launch.py viewer:=false trajectory:=/robot_bridge/trajectory
    ros2 action send_goal /contact_planner/plan humanoid_stack_interfaces/action/PlanContacts \
        "{goal: {pose: {position: {x: 0.8}}}}"

``trajectory:=TOPIC`` remaps the planner's motion (``~/trajectory``, a JointTrajectory): to a
running robot bridge's ``/robot_bridge/trajectory`` it is checked and sent to the robot or the
simulator (docs/real_robot.md). The parameter file is the one `humanoid-stack up planning` reads
(its `humanoid_stack_up` entry is the runner's node list and is ignored here). ``namespace``
puts the three nodes in it (the remapped ``trajectory`` topic is given as an absolute name).
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
    params = PathJoinSubstitution([share, "config", "planning.yaml"])
    viewer = IfCondition(LaunchConfiguration("viewer"))
    namespace = LaunchConfiguration("namespace")
    params = launch_parameters(params, namespace)
    return LaunchDescription(
        [
            DeclareLaunchArgument(
                "trajectory",
                default_value="/contact_planner/trajectory",
                description="topic of the planned motion (JointTrajectory), e.g. /robot_bridge/trajectory",
            ),
            DeclareLaunchArgument(
                "viewer", default_value="true", description="the state publisher and the web viewer with the stances"
            ),
            DeclareLaunchArgument("namespace", default_value="", description="namespace of the nodes"),
            Node(
                package=PACKAGE,
                executable="contact_planner",
                name="contact_planner",
                namespace=namespace,
                parameters=[params],
                remappings=[("/contact_planner/trajectory", LaunchConfiguration("trajectory"))],
                output="screen",
            ),
            Node(
                package=PACKAGE,
                executable="state_publisher",
                name="state_publisher",
                namespace=namespace,
                parameters=[params],
                output="screen",
                condition=viewer,
            ),
            Node(
                package=PACKAGE,
                executable="viewer",
                name="viewer",
                namespace=namespace,
                parameters=[params],
                output="screen",
                condition=viewer,
            ),
        ]
    )
