"""Simulator: the `simulator` node with config/sim.yaml, optionally the web viewer and RViz2.

    ros2 launch humanoid_stack sim.launch.py                  # simulator only
    ros2 launch humanoid_stack sim.launch.py viewer:=true     # and the web viewer (http://127.0.0.1:8080)
    ros2 launch humanoid_stack sim.launch.py rviz:=true       # and RViz2 with rviz/humanoid.rviz

Parameters come from config/sim.yaml (the same file `humanoid-stack up sim` reads; its
`humanoid_stack_up` entry is the runner's node list and is ignored here). The simulator publishes
/robot_description and /tf, so no state publisher is started. The viewer takes its parameters
from config/standing.yaml (it follows /joint_states and /odom and draws /contacts there).

    ros2 launch humanoid_stack sim.launch.py namespace:=r1 scene:=incline viewer:=true use_sim_time:=true

Arguments ``robot`` and ``scene`` override the simulator's (``robot:=""``: the scene's robot; the
viewer takes ``scene`` too), ``use_sim_time`` the viewer's, and ``namespace`` moves the simulator
and the viewer (their topics, e.g. /r1/joint_states, and the frames on /tf: r1/...); the parameter
file's sections then apply to the namespaced nodes (`humanoid_stack.namespaces.launch_parameters`).
RViz2 stays in the root namespace.
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
    params = PathJoinSubstitution([share, "config", "sim.yaml"])
    viewer_params = PathJoinSubstitution([share, "config", "standing.yaml"])
    rviz_config = PathJoinSubstitution([share, "rviz", "humanoid.rviz"])
    namespace, scene = LaunchConfiguration("namespace"), LaunchConfiguration("scene")
    return LaunchDescription(
        [
            DeclareLaunchArgument("viewer", default_value="false", description="start the web viewer"),
            DeclareLaunchArgument("rviz", default_value="false", description="start RViz2 with rviz/humanoid.rviz"),
            DeclareLaunchArgument("robot", default_value="", description='the simulated robot ("": the scene\'s)'),
            DeclareLaunchArgument("scene", default_value="flat", description="the scene (name or file)"),
            DeclareLaunchArgument("use_sim_time", default_value="false", description="the viewer follows /clock"),
            DeclareLaunchArgument("namespace", default_value="", description="namespace of the nodes"),
            Node(
                package=PACKAGE,
                executable="simulator",
                name="simulator",
                namespace=namespace,
                parameters=[
                    launch_parameters(params, namespace),
                    {"robot": LaunchConfiguration("robot"), "scene": scene},
                ],
                output="screen",
            ),
            Node(
                package=PACKAGE,
                executable="viewer",
                name="viewer",
                namespace=namespace,
                parameters=[
                    launch_parameters(viewer_params, namespace),
                    {"scene": scene, "use_sim_time": LaunchConfiguration("use_sim_time")},
                ],
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
