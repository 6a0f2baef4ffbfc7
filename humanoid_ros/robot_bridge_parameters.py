"""Parameter table of the robot bridge node (`robot_bridge`, `humanoid_ros/robot_bridge.py`), as
data. The node imports `PARAMETERS`, `CONTROLLER_TYPES`, `DEFAULT_CONTROLLERS` and `NODE_NAME` from
here (and re-exports them); the validation defaults are `humanoid_control.bridge.BridgeSettings`'s
and the execution defaults `humanoid_control.bridge.ExecutorSettings`'s (docs/ros.md shows this
table, generated).

A separate module because the table is large; the tests read it without rclpy.
"""

from __future__ import annotations

from humanoid_control.bridge import (
    A_MAX_DEFAULT,
    GOAL_TIME,
    GOAL_TOLERANCE,
    PATH_TOLERANCE,
    STATE_TIMEOUT,
    BridgeSettings,
)
from humanoid_control.bridge.settings import APPROACH_PROFILES, POLICIES
from humanoid_ros.parameters import Parameter, ParameterTable

__all__ = ["NODE_NAME", "PARAMETERS", "CONTROLLER_TYPES", "DEFAULT_CONTROLLERS"]

NODE_NAME = "robot_bridge"

CONTROLLER_TYPES = ("auto", "follow_joint_trajectory", "joint_trajectory", "forward_position", "whole_body")
"""How the bridge talks to the controller: ``auto`` = the FollowJointTrajectory action when
control_msgs imports and the controller's action server answers, else the joint_trajectory topic;
``follow_joint_trajectory`` = the action only; ``joint_trajectory`` = the topic of
joint_trajectory_controller; ``forward_position`` = a forward position controller's commands,
streamed at `rate` with the bridge interpolating; ``whole_body`` = the whole motion (PLAN.json,
WALK.json, GAIT.json) to a whole-body controller (`<controller>/motion`, its progress on
`<controller>/status`, a hold on `<controller>/stop`; docs/execution.md)."""

DEFAULT_CONTROLLERS = {
    "auto": "joint_trajectory_controller",
    "follow_joint_trajectory": "joint_trajectory_controller",
    "joint_trajectory": "joint_trajectory_controller",
    "forward_position": "forward_position_controller",
    "whole_body": "whole_body_controller",
}
"""Controller name used when the `controller` parameter is "" (the simulator's names, docs/ros.md)."""

_S = BridgeSettings()  # the library's documented defaults are the table's


def _positive(name, default, unit, description, **kw):
    return Parameter(name, "double", default, description, unit=unit, minimum=0.0, exclusive_minimum=True, **kw)


PARAMETERS = ParameterTable(
    NODE_NAME,
    [
        Parameter(
            "robot",
            "string",
            "hrp2",
            'shipped robot name or URDF path: joint names and limits, read at configure; `""` = the robot of the '
            "latched `/robot_description` (a simulator's or a state publisher's)",
        ),
        Parameter(
            "robot_like",
            "string",
            "",
            'with `robot` `""`: the shipped robot (or URDF file) whose sidecar and SRDF give the described robot '
            'its postures, contacts and collision rules; `""` = the shipped robot of the description\'s name, if any',
        ),
        Parameter(
            "robot_description_timeout",
            "double",
            10.0,
            'with `robot` `""`: longest wait for `/robot_description` at configure (chosen: a simulator started '
            "beside the bridge publishes it within a few seconds on a loaded machine)",
            unit="s",
            minimum=0.0,
            exclusive_minimum=True,
        ),
        Parameter(
            "controller_type",
            "string",
            "auto",
            "`auto`: FollowJointTrajectory action when control_msgs imports and the server answers, else the "
            "`joint_trajectory` topic; `forward_position`: stream `<controller>/commands` at `rate`; "
            "`whole_body`: the whole motion to a whole-body controller (`<controller>/motion`)",
            choices=CONTROLLER_TYPES,
        ),
        Parameter(
            "controller",
            "string",
            "",
            "controller name (topic prefix, relative: in the node's namespace; a leading `/` makes it absolute); "
            '`""` = the simulator\'s name for the type: '
            "`joint_trajectory_controller`, `forward_position_controller` or `whole_body_controller`",
        ),
        Parameter(
            "controller_joints",
            "string_array",
            [],
            "joint order of a forward position controller's `commands` (its `joints` parameter, robot-side "
            "names); `[]` = the URDF joint order",
        ),
        Parameter(
            "joint_map",
            "string_array",
            [],
            "joint renaming, `URDF_NAME=ROBOT_NAME` entries: outgoing commands use ROBOT_NAME, joint_states "
            "is read back to URDF names; unlisted joints keep their name",
        ),
        Parameter(
            "motion_topic",
            "string",
            "~/motion",
            "topic of the motions to execute (std_msgs/String: a PLAN.json, WALK.json or GAIT.json document, "
            "checked as a plan file; e.g. `contact_planner/motion`)",
            non_empty=True,
        ),
        _positive(
            "rate",
            100.0,
            "Hz",
            "control loop: execution monitor, watchdog and the forward controller's stream (chosen: "
            "ros2_control's usual controller rate)",
        ),
        Parameter(
            "policy",
            "string",
            _S.policy,
            "a trajectory beyond a velocity or acceleration limit: `refuse` it, `retime` it (time "
            "stretched until every limit holds; the factor is reported), or `topp` it (time-optimal along its "
            "path, TOPP-RA, commands every 1 / `rate`; the uniform stretch when that fails a check, with a note)",
            choices=POLICIES,
            dynamic=True,
        ),
        Parameter(
            "position_margin",
            "double",
            _S.position_margin,
            "positions must stay this far inside the URDF limits (chosen; `humanoid_control.bridge.BridgeSettings`)",
            unit="rad",
            minimum=0.0,
            dynamic=True,
        ),
        _positive(
            "start_tolerance",
            _S.start_tolerance,
            "rad",
            "largest |first point - measured position| (MoveIt's `allowed_start_tolerance` default)",
            dynamic=True,
        ),
        Parameter(
            "approach",
            "bool",
            _S.approach,
            "when the start is farther than `start_tolerance`, prepend an approach segment from the measured "
            "position instead of refusing",
            dynamic=True,
        ),
        _positive(
            "approach_speed",
            _S.approach_speed,
            "rad/s",
            "peak joint speed of the approach segment (chosen)",
            dynamic=True,
        ),
        Parameter(
            "approach_profile",
            "string",
            _S.approach_profile,
            "the approach segment: `cubic` (one cubic or linear segment) or `jerk_limited` (Ruckig: time-optimal "
            "within `approach_speed`, the acceleration limit and `approach_jerk`, commands every 1 / `rate`)",
            choices=APPROACH_PROFILES,
            dynamic=True,
        ),
        _positive(
            "approach_jerk",
            _S.approach_jerk,
            "rad/s³",
            "jerk limit of the jerk-limited approach (chosen: the default acceleration limit in 0.1 s, "
            "`humanoid_control.bridge.settings.APPROACH_JERK`)",
            dynamic=True,
        ),
        Parameter(
            "self_collision",
            "bool",
            _S.self_collision,
            "check every point against the robot's collision model",
            dynamic=True,
        ),
        Parameter(
            "speed_scale",
            "double",
            _S.speed_scale,
            "time is stretched by 1 / speed_scale before any check (a first run at reduced speed)",
            minimum=0.0,
            exclusive_minimum=True,
            maximum=1.0,
            dynamic=True,
        ),
        _positive(
            "max_acceleration",
            A_MAX_DEFAULT,
            "rad/s²",
            "acceleration limit of every joint (a URDF has none; chosen, `humanoid_control/bridge/limits.py`: "
            "give the robot's datasheet value)",
        ),
        _positive(
            "path_tolerance",
            PATH_TOLERANCE,
            "rad",
            "abort and hold when a measured joint is farther than this from the commanded motion (chosen: "
            "`humanoid_control.bridge.PATH_TOLERANCE`)",
            dynamic=True,
        ),
        _positive(
            "goal_tolerance",
            GOAL_TOLERANCE,
            "rad",
            "success when every joint is this close to the last point (chosen: "
            "`humanoid_control.bridge.GOAL_TOLERANCE`)",
            dynamic=True,
        ),
        _positive(
            "goal_time",
            GOAL_TIME,
            "s",
            "time after the last point within which the goal tolerance must be met (chosen: "
            "`humanoid_control.bridge.GOAL_TIME`)",
            dynamic=True,
        ),
        _positive(
            "state_timeout",
            STATE_TIMEOUT,
            "s",
            "watchdog: stop and hold when a joint's newest finite /joint_states position is older than this "
            "during execution, steady clock (chosen: 10 periods of the simulator's 50 Hz)",
            dynamic=True,
        ),
        Parameter("dry_run", "bool", False, "validate and report, never publish a command", dynamic=True),
        Parameter("preempt", "bool", False, "a valid new trajectory replaces the one executing", dynamic=True),
        Parameter(
            "execute_file",
            "string",
            "",
            "plan file that ~/execute_file sends: GAIT.json, a simulator recording, PLAN.json",
            dynamic=True,
        ),
        Parameter(
            "allow_unclear_motion",
            "bool",
            False,
            "~/execute_file sends a PLAN.json whose motion has segments projected without collision rows "
            "(trajectory.unclear_segments: they may pass through an obstacle or the robot); false: refused",
            dynamic=True,
        ),
        Parameter(
            "allow_unconverged_gait",
            "bool",
            False,
            "~/execute_file sends a GAIT.json with a phase its solver did not converge on (phases[i].converged "
            "false: the rows there are the solver's last iterate, not a solved gait); false: refused",
            dynamic=True,
        ),
    ],
)
"""The robot bridge's parameters (docs/ros.md, "robot_bridge")."""
