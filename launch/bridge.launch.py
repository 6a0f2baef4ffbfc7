"""Robot bridge: the `robot_bridge` node for a real robot (config/bridge.yaml), or with the
simulator standing in for the robot (config/bridge_sim.yaml).

    ros2 launch humanoid_stack bridge.launch.py               # real robot: dry run, quarter speed
    ros2 launch humanoid_stack bridge.launch.py sim:=true     # simulator + bridge

A real robot's topics differ from ours by name only: remap them here or on the command line
(docs/real_robot.md), e.g. ``joint_states`` -> ``/hrp2/joint_states``; ``namespace:=r1`` moves the
nodes (and the parameter files' sections with them: `humanoid_stack.namespaces.launch_parameters`).
The parameter files are the ones `humanoid-stack up bridge` and `humanoid-stack up bridge_sim` read (their
`humanoid_stack_up` entry is the runner's node list and is ignored here).
"""

from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition, UnlessCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from humanoid_stack.namespaces import launch_parameters
from launch import LaunchDescription

PACKAGE = "humanoid_stack"


def generate_launch_description():
    share = FindPackageShare(PACKAGE)
    robot_params = PathJoinSubstitution([share, "config", "bridge.yaml"])
    sim_params = PathJoinSubstitution([share, "config", "bridge_sim.yaml"])
    sim = LaunchConfiguration("sim")
    joint_states, namespace = LaunchConfiguration("joint_states"), LaunchConfiguration("namespace")
    return LaunchDescription(
        [
            DeclareLaunchArgument("sim", default_value="false", description="the simulator stands in for the robot"),
            DeclareLaunchArgument(
                "joint_states", default_value="joint_states", description="the robot's joint state topic"
            ),
            DeclareLaunchArgument("namespace", default_value="", description="namespace of the nodes"),
            Node(
                package=PACKAGE,
                executable="robot_bridge",
                name="robot_bridge",
                namespace=namespace,
                parameters=[launch_parameters(robot_params, namespace)],
                remappings=[("joint_states", joint_states)],
                output="screen",
                condition=UnlessCondition(sim),
            ),
            Node(
                package=PACKAGE,
                executable="simulator",
                name="simulator",
                namespace=namespace,
                parameters=[launch_parameters(sim_params, namespace)],
                output="screen",
                condition=IfCondition(sim),
            ),
            Node(
                package=PACKAGE,
                executable="robot_bridge",
                name="robot_bridge",
                namespace=namespace,
                parameters=[launch_parameters(sim_params, namespace)],
                output="screen",
                condition=IfCondition(sim),
            ),
        ]
    )
