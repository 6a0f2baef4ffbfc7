"""The bridge's joint trajectory (a ``trajectory_msgs/JointTrajectory`` without ROS) and the
positions a controller commands along it.

`Trajectory` only checks shapes (one row per point, one column per joint name; a shape error is a
`BridgeError`); what it contains (names, NaN, times, limits) is judged by `validate`, which
answers with refusals rather than exceptions. `sample` is the controller's interpolation rule,
`humanoid_model.interpolation.sample`: cubic Hermite when velocities are given, linear otherwise
(as the simulator's controller, `humanoid_sim.stages.actuators.JointTrajectory`, and ros2_control's
joint_trajectory_controller without accelerations).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from humanoid_control.exceptions import BridgeError
from humanoid_model import interpolation
from humanoid_model.validation import short

__all__ = ["Trajectory", "sample", "sample_all"]


def _rows(value, n_points: int, n_joints: int, field: str, source: str) -> np.ndarray:
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise BridgeError(
            f"{source}: field '{field}' must be {n_points} rows of {n_joints} numbers; value {short(value)}"
        ) from None
    if a.shape != (n_points, n_joints):
        raise BridgeError(
            f"{source}: field '{field}' must be {n_points} rows of {n_joints} numbers "
            f"(one per point, one per joint name); value shape {a.shape}"
        )
    return a


@dataclass
class Trajectory:
    """``joint_names`` (n); ``times`` (N,) time_from_start [s]; ``positions`` (N, n) [rad] or [m];
    ``velocities`` and ``accelerations`` (N, n) or None. Shapes are checked here (`BridgeError`),
    values by `validate`."""

    joint_names: list[str]
    times: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray | None = None
    accelerations: np.ndarray | None = None
    source: str = "trajectory"  #: named in error messages (a topic or a file)

    def __post_init__(self):
        self.joint_names = [str(n) for n in self.joint_names]
        try:
            self.times = np.asarray(self.times, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise BridgeError(
                f"{self.source}: field 'points[].time_from_start' must be numbers; value {short(self.times)}"
            ) from None
        N, n = self.times.shape[0], len(self.joint_names)
        self.positions = _rows(self.positions, N, n, "points[].positions", self.source)
        if self.velocities is not None:
            self.velocities = _rows(self.velocities, N, n, "points[].velocities", self.source)
        if self.accelerations is not None:
            self.accelerations = _rows(self.accelerations, N, n, "points[].accelerations", self.source)

    @property
    def n_points(self) -> int:
        return int(self.times.shape[0])

    @property
    def duration(self) -> float:
        """time_from_start of the last point [s] (0 without points)."""
        return float(self.times[-1]) if self.n_points else 0.0

    def with_(self, **changes) -> Trajectory:
        """A copy with some fields replaced (shapes checked again)."""
        return replace(self, **changes)


def sample(traj: Trajectory, t) -> np.ndarray:
    """Positions (n,) the controller commands at time ``t`` after the start [s] ((m, n) for m times)."""
    return interpolation.sample(traj.times, traj.positions, traj.velocities, t)[0]


def sample_all(traj: Trajectory, t):
    """(positions, velocities, accelerations) the controller commands at ``t`` (see `sample`)."""
    return interpolation.sample(traj.times, traj.positions, traj.velocities, t)
