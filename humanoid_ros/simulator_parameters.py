"""Parameter table of the simulator node (`simulator`, `humanoid_ros/simulator.py`), as data.

The node imports `PARAMETERS`, `CONTROLLERS`, `TOPICS` and `NODE_NAME` from here (and re-exports
them): ``self.p = PARAMETERS.declare(self)`` declares and checks every parameter, and
``PARAMETERS.on_set_parameters(...)`` checks the run-time changes. docs/ros.md shows this table
(generated from it: names, defaults, ranges and refusals); the start-only
values become a `humanoid_sim.runtime.session.SessionSettings`, whose defaults are these.

A separate module because the table is large; the tests read it without rclpy.
"""

from __future__ import annotations

from humanoid_model.display import FORCE_SCALE
from humanoid_ros.parameters import Parameter, ParameterTable
from humanoid_sim.world import MAX_DT  # [s] the one largest step of the simulator (chosen there)

NODE_NAME = "simulator"

CONTROLLERS = (
    "joint_trajectory_controller",
    "forward_position_controller",
    "forward_effort_controller",
    "whole_body_controller",
)
"""Command interfaces of ros2_control's controllers that the simulator answers to, and the stack's
whole-body controller (a torque controller in the simulator's loop, `humanoid_execution.whole_body`)."""

TOPICS = {
    "joint_trajectory_controller": "joint_trajectory_controller/joint_trajectory",
    "forward_position_controller": "forward_position_controller/commands",
    "forward_effort_controller": "forward_effort_controller/commands",
    "whole_body_controller": "whole_body_controller/motion",
}
"""Command topic of each controller (relative: in the node's namespace)."""


def _positive(name, default, unit, description, **kw):
    return Parameter(name, "double", default, description, unit=unit, minimum=0.0, exclusive_minimum=True, **kw)


def _non_negative(name, default, unit, description, **kw):
    return Parameter(name, "double", default, description, unit=unit, minimum=0.0, **kw)


PARAMETERS = ParameterTable(
    NODE_NAME,
    [
        Parameter("robot", "string", "", 'robot name or URDF path; `""` = the scene\'s robot (a robot is required)'),
        Parameter("scene", "string", "flat", "shipped scene name or scene file (`docs/scenes.md`)"),
        Parameter(
            "dt",
            "double",
            1e-3,
            "time step, as `humanoid-stack simulate --dt` (the thesis's δt = 1 ms, Chardonnet 2009, "
            "§3.1.6; the upper bound is chosen: 100 × that step)",
            unit="s",
            minimum=0.0,
            exclusive_minimum=True,
            maximum=MAX_DT,
        ),
        Parameter("solver", "string", "nsgs_newton", "contact solver (`docs/solvers.md`)", non_empty=True),
        _positive(
            "solver_tolerance",
            1e-6,
            "",
            "convergence thresholds on the true residuals: complementarity max |f_n v_n| [N·m/s] and "
            "penetration max(−v_n) [m/s] (the bounds of acceptance test 000 B4; chosen)",
        ),
        Parameter(
            "solver_max_iterations",
            "int",
            500,
            "sweep budget; a solve that hits it is reported in /diagnostics (WARN) and the step uses the "
            "best iterate (the `SolverSettings` default; chosen)",
            minimum=1,
        ),
        _non_negative(
            "solver_time_budget",
            0.005,
            "s",
            "wall-clock budget of one contact solve, 0 = none; a solve that hits it is reported like the sweep "
            "budget and the step uses the best iterate (chosen: 70 × a standing HRP-2 solve; without it a robot "
            "folded by violent commands hits 500 sweeps every step and runs 300 times slower than real time). "
            "Results then depend on the machine in those steps only: set 0 for reproducible runs",
        ),
        _non_negative("real_time_factor", 1.0, "", "pacing: 1.0 = wall clock, 0 = as fast as possible", dynamic=True),
        _positive(
            "publish_rate",
            50.0,
            "Hz",
            "rate in simulated time of joint_states, odom, free_bodies, /tf, F/T wrenches and imu (chosen)",
        ),
        _non_negative(
            "clock_rate",
            0.0,
            "Hz",
            "rate in simulated time of /clock; 0 = every step, so that the timers of a `use_sim_time` node fire "
            "at their own rate (chosen: a thinned clock slows their timers; it costs about 0.14 ms a step, "
            'docs/ros.md "/clock"); a positive rate thins it to every round(1 / (clock_rate · dt)) steps',
        ),
        _positive(
            "contacts_rate",
            10.0,
            "Hz",
            "rate in simulated time of /contacts (chosen: viewers redraw every marker of a message)",
        ),
        _positive("diagnostics_period", 1.0, "s", "wall-clock period of /diagnostics (chosen)"),
        Parameter(
            "controller",
            "string",
            CONTROLLERS[0],
            "active command topic; commands on the others are logged once and ignored. After a switch the "
            "previous command holds until the first message on the new topic (leaving whole_body_controller: "
            "the PD holds the measured posture)",
            choices=CONTROLLERS,
            dynamic=True,
        ),
        Parameter("gravity_compensation", "bool", False, "add the gravity torques to the PD law (feedforward)"),
        Parameter(
            "gains.groups",
            "string_array",
            [],
            "PD gain groups: joint-name prefixes such as `RLEG`, later groups win; unlisted joints keep the "
            "default gains of `humanoid_sim/stages/actuators.py` (ω_n = 2π·10 rad/s, ζ = 1 on the feet-welded inertia)",
        ),
        Parameter(
            "gains.kp",
            "double_array",
            [],
            "proportional gain of each group",
            unit="N·m/rad",
            length_of="gains.groups",
            minimum=0.0,
        ),
        Parameter(
            "gains.kv",
            "double_array",
            [],
            "derivative gain of each group",
            unit="N·m·s/rad",
            length_of="gains.groups",
            minimum=0.0,
        ),
        _positive("external_wrench_duration", 0.1, "s", "how long a `~/external_wrench` message acts", dynamic=True),
        Parameter(
            "push.link",
            "string",
            "",
            'scripted push: the link whose origin a world-frame wrench pushes (`""` = no push)',
        ),
        Parameter(
            "push.force", "double_array", [0.0, 0.0, 0.0], "scripted push: force, world frame", unit="N", length=3
        ),
        Parameter(
            "push.torque", "double_array", [0.0, 0.0, 0.0], "scripted push: torque, world frame", unit="N·m", length=3
        ),
        _non_negative("push.start", 1.0, "s", "scripted push: simulated time of the first push"),
        _positive("push.duration", 0.1, "s", "scripted push: how long each push acts"),
        _non_negative("push.period", 0.0, "s", "scripted push: repeated every period when > 0 (0 = once)"),
        Parameter(
            "haptic.body",
            "string",
            "",
            "haptics: the free body or robot link that `~/haptic_attach` and `~/haptic_touch` couple to the "
            "pointer (`docs/haptics.md`)",
            dynamic=True,
        ),
        Parameter(
            "haptic.point",
            "double_array",
            [],
            "haptics: attach point in the body frame; `[]` = where the pointer is at the attach call (the "
            "thesis's stylus button, Chardonnet 2009, §3.4), else 3 values",
            unit="m",
            dynamic=True,
        ),
        Parameter(
            "haptic.admittance",
            "double_array",
            [],
            "haptics: `[]` = the robot stays under its PD; `[M_d, B_d]` [kg·m², N·m·s/rad] = attached to a robot "
            "link, the robot is compliant: its set-point follows M_d q̈_d + B_d q̇_d = J_eᵀ f_e "
            "(Chardonnet 2009, §3.4.1, eq. (3.65); values not given by the thesis, docs/haptics.md)",
            dynamic=True,
        ),
        _positive(
            "haptic.stiffness",
            500.0,
            "N/m",
            "haptics: k_p of the attach spring and of the touch contact; k_v = √(2 m k_p) "
            "(Chardonnet 2009, §3.4, eq. (3.63); k_p chosen: the thesis gives none)",
            dynamic=True,
        ),
        _non_negative(
            "haptic.angular_stiffness",
            2.0,
            "N·m/rad",
            "haptics: rotational stiffness of the 6-D attach spring, damping √(2 I k_r) (chosen)",
            dynamic=True,
        ),
        _non_negative("haptic.radius", 0.01, "m", "haptics: touch-mode pointer sphere radius (chosen)", dynamic=True),
        _non_negative(
            "haptic.weight",
            1.0,
            "",
            "haptics: touch mode, the force on the body = −weight × rendered force (the thesis's arbitrary "
            "weight, Chardonnet 2009, §3.4; 1 = Newton's third law)",
            dynamic=True,
        ),
        Parameter(
            "frame_prefix",
            "string",
            "",
            "prepended to the robot's frame names in /tf, /tf_static and the frame ids of odom, imu and the F/T "
            'wrenches (`odom` stays as is); `""` = the node\'s namespace (`/r1` -> `r1/`; none in the root '
            'namespace: docs/ros.md "Namespaces and remapping")',
        ),
        _positive(
            "contact_force_scale",
            FORCE_SCALE,
            "m/N",
            "length of the /contacts force arrows and friction cones per newton (chosen: HRP-2's ~70 N per "
            "sole corner gives 21 cm arrows that clear the foot)",
        ),
    ],
)
"""The simulator's parameters (docs/ros.md, "simulator")."""
