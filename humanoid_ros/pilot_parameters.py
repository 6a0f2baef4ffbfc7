"""Parameter table of the piloting node (`pilot`, `humanoid_ros/pilot.py`), as data. The node
imports `PARAMETERS`, `OUTPUTS`, `DEFAULT_CONTROLLERS` and `NODE_NAME` from here (and re-exports
them); docs/ros.md shows this table, generated.

A separate module because the table is large; the tests read it without rclpy.
"""

from __future__ import annotations

from humanoid_control.kinematics import SOLVERS
from humanoid_control.pilot_jerk import PILOT_JERK
from humanoid_control.piloting import COMMAND_FRAMES, TRACKING_TOLERANCE
from humanoid_ros.parameters import Parameter, ParameterTable

__all__ = ["NODE_NAME", "PARAMETERS", "OUTPUTS", "DEFAULT_CONTROLLERS"]

NODE_NAME = "pilot"

OUTPUTS = ("joint_trajectory", "forward_position", "none")
DEFAULT_CONTROLLERS = {
    "joint_trajectory": "joint_trajectory_controller",
    "forward_position": "forward_position_controller",
    "none": "",
}
"""Controller name used when the `controller` parameter is "" (the simulator's names, docs/ros.md)."""

PARAMETERS = ParameterTable(
    NODE_NAME,
    [
        Parameter(
            "robot",
            "string",
            "hrp2",
            "kinematic structure: a shipped name (`urdf/kinematics/NAME.kin.yaml`: hrp2, hybrid_planar, macdac, "
            'cross_delta, redundant_6r) or a path to a NAME.kin.yaml sidecar (docs/kinematics.md); `""` = the '
            "robot of the latched `/robot_description` at the start, with the sidecar of `robot_like`",
        ),
        Parameter(
            "robot_like",
            "string",
            "",
            'with `robot` `""`: the kinematic structure (shipped name or NAME.kin.yaml) whose frames, closures, '
            'sources and initial posture apply to the described robot; `""` = the structure of the description\'s '
            "robot name (hrp2)",
        ),
        Parameter(
            "robot_description_timeout",
            "double",
            10.0,
            'with `robot` `""`: longest wait for `/robot_description` at the start (chosen: a simulator started '
            "beside the pilot publishes it within a few seconds on a loaded machine)",
            unit="s",
            minimum=0.0,
            exclusive_minimum=True,
        ),
        Parameter(
            "frame",
            "string",
            "r_hand",
            "the driven frame (a link, joint or sidecar frame of the structure; default: HRP-2's right hand "
            "of `urdf/kinematics/hrp2.kin.yaml`); an unknown name stops the start",
            non_empty=True,
        ),
        Parameter(
            "mode",
            "string",
            "pose",
            "what of the frame follows the target: the 6-D `pose`, its `position` or its `orientation`",
            choices=("pose", "position", "orientation"),
        ),
        Parameter(
            "solver",
            "string",
            "prioritized",
            "kinematic solver (docs/kinematics.md): `prioritized` (chosen default: priority levels, damping near "
            "singularities, joints saturated 0.01 rad inside their limits) or `svd` (the thesis's reference "
            "method, Flückiger 1998, §3.4.3: every row at one priority, no damping; its step clipped 0.01 rad "
            "inside the limits), to compare the two on a structure",
            choices=tuple(SOLVERS),
        ),
        Parameter(
            "command_frame",
            "string",
            "world",
            "axes of the twist and joystick commands: `world`, `tool` (the driven frame's axes) or `view` (the "
            "axes of the camera on `view_topic`: x right, y down, z into the screen; world axes until one "
            "arrives); rotations pivot about the driven frame's origin in all three (chosen: eq. (3.28) of "
            "Flückiger 1998 turns world-axis rotations about the world origin)",
            choices=COMMAND_FRAMES,
            dynamic=True,
        ),
        Parameter(
            "view_topic",
            "string",
            "viewer/camera",
            "geometry_msgs/PoseStamped of the camera whose axes `command_frame: view` uses (frame world or "
            "odom): the web viewer node publishes its browser's camera there",
            non_empty=True,
        ),
        Parameter(
            "sensitivity",
            "double_array",
            [0.1, 0.5],
            "[linear m/s, angular rad/s] per unit of twist or joystick axis (chosen: 10 cm/s and about 29°/s "
            "at a unit deflection); the per-cycle increment is this times "
            "1/rate, so speed does not depend on the rate (the thesis's increment is the deflection times the "
            "sensitivity per frame, Flückiger 1998, §6.1.1.1)",
            length=2,
            minimum=0.0,
            dynamic=True,
        ),
        Parameter(
            "command_timeout",
            "double",
            0.1,
            "a twist or joystick command older than this stops moving the target (chosen: moveit_servo's "
            "`incoming_command_timeout`; joy_node repeats a held stick at 20 Hz)",
            unit="s",
            minimum=0.0,
            exclusive_minimum=True,
            dynamic=True,
        ),
        Parameter(
            "rate",
            "double",
            25.0,
            "solver cycle and command rate (the thesis's >= 25 Hz, Flückiger 1998, §5.1.1)",
            unit="Hz",
            minimum=0.0,
            exclusive_minimum=True,
            maximum=1000.0,
        ),
        Parameter(
            "jerk_filter",
            "bool",
            False,
            "filter the commands sent with a jerk-limited time-optimal move toward each cycle's command "
            "(Ruckig online, `humanoid_control.pilot_jerk`): the acceleration ramps instead of stepping; off: "
            "the commands are the solved ones",
        ),
        Parameter(
            "max_jerk",
            "double",
            PILOT_JERK,
            "jerk limit of the command filter (chosen: the 10 rad/s² acceleration limit in 0.1 s, "
            "`humanoid_control.pilot_jerk.PILOT_JERK`)",
            unit="rad/s³",
            minimum=0.0,
            exclusive_minimum=True,
        ),
        Parameter(
            "output",
            "string",
            "joint_trajectory",
            "`joint_trajectory`: one-point JointTrajectory on `/<controller>/joint_trajectory`; "
            "`forward_position`: Float64MultiArray on `/<controller>/commands` (URDF joint order); `none`",
            choices=OUTPUTS,
        ),
        Parameter(
            "controller",
            "string",
            "",
            "controller name (topic prefix, relative: in the node's namespace); `\"\"` = the simulator's name "
            "for the output: "
            "`joint_trajectory_controller`, or `forward_position_controller`",
        ),
        Parameter(
            "joy_axes",
            "string_array",
            ["0", "1", "2", "3", "4", "5"],
            "~/joy axis of each twist component (linear x, y, z, angular x, y, z): an index, `-INDEX` "
            "(inverted) or `none`. Default: a 6-axis joystick in twist order, as spacenav's /spacenav/joy",
            length=6,
        ),
        Parameter(
            "joy_deadband",
            "double",
            0.05,
            "|axis| below this counts as 0 (chosen)",
            minimum=0.0,
            maximum=1.0,
            exclusive_maximum=True,
            dynamic=True,
        ),
        Parameter(
            "tolerance",
            "double",
            TRACKING_TOLERANCE,
            "target reached when |position error| + length_scale·|rotation error| is below this; above it and no "
            "longer shrinking: out of reach, /diagnostics WARN (chosen: 1 mm hand tracking, the bound of the "
            "kinematic generator's HRP-2 tests, docs/kinematics.md)",
            unit="m",
            minimum=0.0,
            exclusive_minimum=True,
            dynamic=True,
        ),
        Parameter(
            "start_from",
            "string",
            "initial",
            "`initial`: the structure's initial configuration; `measured`: wait for the first /joint_states "
            "and start from it (joints clipped to their limits, world closures such as HRP-2's feet "
            "re-anchored where they are, targets and posture taken there): use it with a real robot, so "
            "the first command does not pull it to the initial configuration",
            choices=("initial", "measured"),
        ),
        Parameter(
            "diagnostics_period",
            "double",
            1.0,
            "period of the /diagnostics status (chosen, as the simulator); refusals are reported at once",
            unit="s",
            minimum=0.0,
            exclusive_minimum=True,
        ),
    ],
)
"""The piloting node's parameters (docs/ros.md, "pilot")."""
