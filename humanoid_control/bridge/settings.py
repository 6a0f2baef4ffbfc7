"""The bridge's validation settings, with their documented defaults (docs/bridge.md)."""

from __future__ import annotations

from dataclasses import dataclass

from humanoid_control.exceptions import BridgeError
from humanoid_model.validation import finite_number

__all__ = ["BridgeSettings", "POLICIES"]

POLICIES = ("refuse", "retime")


@dataclass
class BridgeSettings:
    """How `validate` judges a trajectory.

    position_margin [rad]: positions must stay this far inside the URDF limits (0.01 rad, chosen:
        the URDF limits of a real robot are often its mechanical stops; ros2_control's
        joint_trajectory_controller keeps no margin).
    policy: ``"refuse"`` a trajectory whose velocity or acceleration exceeds a limit, or
        ``"retime"`` it (stretch time until every limit holds; the report gives the factor).
    start_tolerance [rad]: largest |first point - current position| accepted (0.01 rad: MoveIt's
        ``trajectory_execution.allowed_start_tolerance`` default).
    approach: when the first point is farther than start_tolerance, prepend a segment from the
        current position instead of refusing (off by default: the approach is a motion the trajectory does
        not hold, so the robot makes it only when the operator asks for it).
    approach_speed [rad/s]: peak joint speed of that approach segment (0.2 rad/s, chosen: slow
        enough to stop by hand-held emergency stop; also bounded by the joints' limits).
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
        self.speed_scale = finite_number(
            self.speed_scale, src, "speed_scale", minimum=0.0, strict=True, maximum=1.0, error=BridgeError
        )
        self.approach, self.self_collision = bool(self.approach), bool(self.self_collision)
