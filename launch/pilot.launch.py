"""Piloting: the `pilot` node driving HRP-2's right hand (both feet welded) in the simulator, with
the web viewer (config/pilot_sim.yaml), or a real robot's controllers.

    ros2 launch humanoid_stack pilot.launch.py                 # simulator + web viewer + pilot
    ros2 launch humanoid_stack pilot.launch.py viewer:=false   # simulator + pilot
    ros2 launch humanoid_stack pilot.launch.py sim:=false joint_states:=/hrp2/joint_states
                                                               # a real robot: web viewer + pilot

Then drive the hand with a 6-DOF mouse or a joystick remapped to /pilot/twist or /pilot/joy, or
pose targets on /pilot/target (docs/piloting.md). Parameters come from config/pilot_sim.yaml (the
file `humanoid-stack up pilot_sim` reads; its `humanoid_stack_up` entry is the runner's node list
and is ignored here). With ``sim:=false`` the pilot starts from the measured joints
(`start_from: measured`, so its first command does not pull the robot to half-sitting) and both
nodes read the robot's joint state topic (``joint_states``); the pilot publishes one-point
JointTrajectory messages on joint_trajectory_controller/joint_trajectory (its `controller`
parameter names another controller: remap or edit the file). ``namespace:=r1`` moves every node
(/r1/pilot/twist, /r1/joint_states, ...).
"""

from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition, UnlessCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare

from humanoid_stack.namespaces import launch_parameters
from launch import LaunchDescription

PACKAGE = "humanoid_stack"


def _node(executable, condition, parameters, remappings=()):
    """One humanoid_stack node, named after its executable, in the namespace argument's namespace
    (its parameter file's section moved there), logging to the screen."""
    namespace = LaunchConfiguration("namespace")
    return Node(
        package=PACKAGE,
        executable=executable,
        name=executable,
        namespace=namespace,
        parameters=[launch_parameters(parameters[0], namespace), *parameters[1:]],
        remappings=list(remappings),
        output="screen",
        condition=condition,
    )


def generate_launch_description():
    params = PathJoinSubstitution([FindPackageShare(PACKAGE), "config", "pilot_sim.yaml"])
    sim, viewer = LaunchConfiguration("sim"), LaunchConfiguration("viewer")
    remap = [("joint_states", LaunchConfiguration("joint_states"))]
    return LaunchDescription(
        [
            DeclareLaunchArgument("sim", default_value="true", description="the simulator stands in for the robot"),
            DeclareLaunchArgument("viewer", default_value="true", description="start the web viewer"),
            DeclareLaunchArgument(
                "joint_states", default_value="joint_states", description="the robot's joint state topic"
            ),
            DeclareLaunchArgument("namespace", default_value="", description="namespace of the nodes"),
            _node("simulator", IfCondition(sim), [params]),
            _node("viewer", IfCondition(viewer), [params], remap),
            _node("pilot", IfCondition(sim), [params]),
            _node("pilot", UnlessCondition(sim), [params, {"start_from": "measured"}], remap),
        ]
    )
