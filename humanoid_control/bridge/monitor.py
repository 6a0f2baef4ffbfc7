"""Execution monitor: follows the measured joints while a trajectory runs (the checks of
ros2_control's joint_trajectory_controller: path tolerance, goal tolerance, goal time).

* While 0 <= t <= duration: every joint of the trajectory must stay within ``path_tolerance`` of
  the position the controller commands at t (`trajectory.sample`); beyond it the state becomes
  ``aborted`` (the caller holds the measured position) with the joint, the error and the time.
* After the duration: ``succeeded`` as soon as every joint is within ``goal_tolerance`` of the last
  point; ``aborted`` when that has not happened by duration + ``goal_time``.
* A joint missing from the measurement, or a non-finite measurement, aborts.

Tolerances are [rad] for every joint (a number) or per joint (a mapping; joints it does not name
get `PATH_TOLERANCE` / `GOAL_TOLERANCE`). Once aborted or succeeded the state stays.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from humanoid_control.bridge.trajectory import Trajectory, sample
from humanoid_control.exceptions import BridgeError

__all__ = ["ExecutionMonitor", "MonitorStatus", "PATH_TOLERANCE", "GOAL_TOLERANCE", "GOAL_TIME"]

# (chosen) tracking error that aborts: 4 × the PD lag of an arm moving at 1 rad/s in the simulator (< 0.05 rad)
PATH_TOLERANCE = 0.2  # [rad]
# (chosen) final error accepted as success: 2.5 × HRP-2's standing PD sag in the simulator (JTC's default 0: none)
GOAL_TOLERANCE = 0.05  # [rad]
GOAL_TIME = 2.0  # [s] (chosen) time after the last point to reach the goal tolerance


@dataclass
class MonitorStatus:
    """``state``: "running", "succeeded" or "aborted"; ``reason``: one line (empty while running)."""

    state: str
    reason: str = ""


def _per_joint(value, names, default, field) -> np.ndarray:
    if isinstance(value, Mapping):
        unknown = [n for n in value if n not in names]
        if unknown:
            raise BridgeError(f"execution monitor: field '{field}' names unknown joint '{unknown[0]}'")
        out = np.array([float(value.get(n, default)) for n in names])
    else:
        out = np.full(len(names), float(value))
    if not np.all(np.isfinite(out) & (out > 0)):
        raise BridgeError(f"execution monitor: field '{field}' must be finite and > 0; value {value!r}")
    return out


class ExecutionMonitor:
    """Follows one execution of ``traj`` (module docstring)."""

    def __init__(
        self,
        traj: Trajectory,
        path_tolerance=PATH_TOLERANCE,
        goal_tolerance=GOAL_TOLERANCE,
        goal_time: float = GOAL_TIME,
    ):
        self.traj = traj
        names = traj.joint_names
        self.path_tolerance = _per_joint(path_tolerance, names, PATH_TOLERANCE, "path_tolerance")
        self.goal_tolerance = _per_joint(goal_tolerance, names, GOAL_TOLERANCE, "goal_tolerance")
        self.goal_time = float(goal_time)
        if not (np.isfinite(self.goal_time) and self.goal_time >= 0):
            raise BridgeError(f"execution monitor: field 'goal_time' must be finite and >= 0; value {goal_time!r}")
        self.goal = traj.positions[-1].copy()
        self.status = MonitorStatus("running")

    def update(self, t_since_start: float, measured: Mapping[str, float]) -> MonitorStatus:
        """The state after a measurement at ``t_since_start`` [s] (`MonitorStatus`)."""
        if self.status.state != "running":
            return self.status
        names = self.traj.joint_names
        missing = [n for n in names if n not in measured]
        if missing:
            return self._abort(f"joint '{missing[0]}' is not in the measured joint states")
        q = np.array([float(measured[n]) for n in names])
        bad = np.flatnonzero(~np.isfinite(q))
        if bad.size:
            return self._abort(f"joint '{names[bad[0]]}' measured position is {q[bad[0]]}")
        t = float(t_since_start)
        end = self.traj.duration
        if t <= end:
            err = q - sample(self.traj, max(t, 0.0))
            over = np.abs(err) - self.path_tolerance
            j = int(np.argmax(over))
            if over[j] > 0:
                return self._abort(
                    f"path tolerance: joint '{names[j]}' is {err[j]:+.4g} rad from its command at t = {t:.4g} s "
                    f"(tolerance {self.path_tolerance[j]:g} rad)"
                )
            return self.status
        err = q - self.goal
        over = np.abs(err) - self.goal_tolerance
        if np.all(over <= 0):
            self.status = MonitorStatus("succeeded", f"goal reached {t - end:.4g} s after the last point")
            return self.status
        if t > end + self.goal_time:
            j = int(np.argmax(over))
            return self._abort(
                f"goal tolerance: joint '{names[j]}' is {err[j]:+.4g} rad from the goal {self.goal_time:g} s "
                f"after the last point (tolerance {self.goal_tolerance[j]:g} rad)"
            )
        return self.status

    def _abort(self, reason: str) -> MonitorStatus:
        self.status = MonitorStatus("aborted", reason)
        return self.status
