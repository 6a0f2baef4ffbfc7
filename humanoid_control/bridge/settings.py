"""The bridge's validation settings, with their documented defaults (docs/bridge.md)."""

from __future__ import annotations

from dataclasses import dataclass

from humanoid_control.exceptions import BridgeError
from humanoid_model.validation import finite_number

__all__ = ["BridgeSettings", "POLICIES", "APPROACH_PROFILES", "APPROACH_JERK", "COMMAND_PERIOD"]

POLICIES = ("refuse", "retime", "topp")
APPROACH_PROFILES = ("cubic", "jerk_limited")
#: [rad/s³] (chosen) jerk limit of the jerk-limited approach: the default acceleration limit
#: (`A_MAX_DEFAULT`, 10 rad/s²) is reached in 0.1 s, ten periods of the 100 Hz control loop, so the
#: acceleration is ramped over ten commands instead of stepped; at the default approach_speed
#: (0.2 rad/s) the approach's peak acceleration is then sqrt(0.2 x 100) = 4.5 rad/s²
APPROACH_JERK = 100.0
#: [s] the period of the commands of a time-optimal retiming and a jerk-limited approach: the
#: robot bridge node's default control rate, 100 Hz (ros2_control's usual controller rate)
COMMAND_PERIOD = 0.01


@dataclass
class BridgeSettings:
    """How `validate` judges a trajectory.

    position_margin [rad]: positions must stay this far inside the URDF limits (0.01 rad, chosen:
        the URDF limits of a real robot are often its mechanical stops; ros2_control's
        joint_trajectory_controller keeps no margin).
    policy: ``"refuse"`` a trajectory whose velocity or acceleration exceeds a limit,
        ``"retime"`` it (stretch time until every limit holds; the report gives the factor), or
        ``"topp"`` it (time-optimal retiming along its path, `humanoid_control.bridge.topp`, sampled
        every command_period; the uniform stretch when that fails a check, with a note).
    start_tolerance [rad]: largest |first point - current position| accepted (0.01 rad: MoveIt's
        ``trajectory_execution.allowed_start_tolerance`` default).
    approach: when the first point is farther than start_tolerance, prepend a segment from the
        current position instead of refusing (off by default: the approach is a motion the trajectory does
        not hold, so the robot makes it only when the operator asks for it).
    approach_speed [rad/s]: peak joint speed of that approach segment (0.2 rad/s, chosen: slow
        enough to stop by hand-held emergency stop; also bounded by the joints' limits).
    approach_profile: ``"cubic"`` (one cubic or linear segment) or ``"jerk_limited"`` (Ruckig:
        time-optimal within approach_speed, a_max and approach_jerk, sampled every command_period;
        `humanoid_control.bridge.approach`).
    approach_jerk [rad/s³]: the jerk limit of the jerk-limited approach (`APPROACH_JERK`).
    command_period [s]: the period of the commands that ``topp`` and the jerk-limited approach
        sample (`COMMAND_PERIOD`; the node: 1 / rate).
    self_collision: check every point against the robot's collision model (off by default: it
        needs the robot model and costs ~0.1 ms per point).
    speed_scale in (0, 1]: time is stretched by 1 / speed_scale before any check (a first run at
        reduced speed).
    """

    position_margin: float = 0.01
    policy: str = "refuse"
    start_tolerance: float = 0.01
    approach: bool = False
    approach_speed: float = 0.2
    approach_profile: str = "cubic"
    approach_jerk: float = APPROACH_JERK
    command_period: float = COMMAND_PERIOD
    self_collision: bool = False
    speed_scale: float = 1.0

    def __post_init__(self):
        src = "bridge settings"
        self.position_margin = finite_number(
            self.position_margin, src, "position_margin", minimum=0.0, unit="[rad]", error=BridgeError
        )
        if self.policy not in POLICIES:
            raise BridgeError(f"{src}: field 'policy' must be one of {', '.join(POLICIES)}; value {self.policy!r}")
        self.start_tolerance = finite_number(
            self.start_tolerance, src, "start_tolerance", minimum=0.0, strict=True, unit="[rad]", error=BridgeError
        )
        self.approach_speed = finite_number(
            self.approach_speed, src, "approach_speed", minimum=0.0, strict=True, unit="[rad/s]", error=BridgeError
        )
        if self.approach_profile not in APPROACH_PROFILES:
            raise BridgeError(
                f"{src}: field 'approach_profile' must be one of {', '.join(APPROACH_PROFILES)}; "
                f"value {self.approach_profile!r}"
            )
        self.approach_jerk = finite_number(
            self.approach_jerk, src, "approach_jerk", minimum=0.0, strict=True, unit="[rad/s³]", error=BridgeError
        )
        self.command_period = finite_number(
            self.command_period, src, "command_period", minimum=0.0, strict=True, unit="[s]", error=BridgeError
        )
        self.speed_scale = finite_number(
            self.speed_scale, src, "speed_scale", minimum=0.0, strict=True, maximum=1.0, error=BridgeError
        )
        self.approach, self.self_collision = bool(self.approach), bool(self.self_collision)
