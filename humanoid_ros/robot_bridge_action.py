"""The robot bridge's FollowJointTrajectory input (`~/follow_joint_trajectory`): the backend of
`humanoid_ros.follow_joint_trajectory.FollowJointTrajectoryServer` over the bridge's
`humanoid_control.bridge.BridgeExecutor`.

A goal is what a message on ``~/trajectory`` is: converted (`robot_bridge.trajectory_from_msg`),
validated and executed by `BridgeExecutor.submit` (its refusal is the result's error_string); the
execution monitor's verdict, a watchdog stop, a ``~/stop`` or a preempting motion end it (the
result carries the reason); a cancel stops and holds the commanded set-point. In ``dry_run`` a valid
goal succeeds at once with the validator's report ("would execute"), and nothing is sent.
"""

from __future__ import annotations

import numpy as np

from humanoid_control.exceptions import BridgeError
from humanoid_ros.follow_joint_trajectory import TrajectoryVerdict
from humanoid_sim.runtime.session import TrajectoryProgress

__all__ = ["BridgeTrajectories", "SOURCE"]

SOURCE = "~/follow_joint_trajectory"


class BridgeTrajectories:
    """The backend (module docstring): ``executor`` the node's `BridgeExecutor`, ``convert`` the
    node's message -> `Trajectory` conversion."""

    def __init__(self, executor, convert):
        self.executor = executor
        self.convert = convert

    def start(self, goal):
        traj = self.convert(goal.trajectory, SOURCE)
        ok, text = self.executor.submit(traj, SOURCE)
        if not ok:
            raise BridgeError(text)
        ex = self.executor.execution
        if ex is None or ex.source != SOURCE:  # dry run: validated, nothing sent
            return (None, list(traj.joint_names), text)
        return (ex, list(traj.joint_names), text)

    def verdict(self, run):
        ex, _, text = run
        if ex is None:
            return TrajectoryVerdict("succeeded", text)
        if ex.outcome is None:
            return TrajectoryVerdict("running")
        return TrajectoryVerdict(*ex.outcome)

    def progress(self, run):
        ex, names, _ = run
        t, desired = self.executor.desired(ex)
        measured = dict(self.executor.measured)
        d = np.array([desired[n] for n in names])
        a = np.array([measured.get(n, np.nan) for n in names])
        zero = np.zeros(len(names))
        return TrajectoryProgress(names, t, ex.trajectory.duration, d, zero, a, zero, True)

    def stop(self, run):
        ex = run[0]
        if ex is not None:
            self.executor.stop("the FollowJointTrajectory goal was cancelled", ex)
