"""The bridge's execution monitor: path tolerance during the motion (abort), goal tolerance within
the goal time after it (success or abort), missing or non-finite measurements (abort)."""

import numpy as np
import pytest

from humanoid_control.bridge import PATH_TOLERANCE, BridgeError, ExecutionMonitor, Trajectory, sample

EPS = 1e-6


@pytest.fixture
def traj():
    # a: 0 -> 1 rad in 1 s then back in 1 s (linear); b held at 0.2 rad
    return Trajectory(["a", "b"], [0.0, 1.0, 2.0], [[0.0, 0.2], [1.0, 0.2], [0.0, 0.2]])


def measured(tr, t, offset=(0.0, 0.0)):
    q = sample(tr, t) + np.asarray(offset)
    return dict(zip(tr.joint_names, q))


def test_following_the_command_runs_then_succeeds(traj):
    mon = ExecutionMonitor(traj, path_tolerance=0.1, goal_tolerance=0.01, goal_time=0.5)
    for t in np.linspace(0, 2, 41):
        assert mon.update(t, measured(traj, t)).state == "running"
    status = mon.update(2.05, measured(traj, 2.0))
    assert status.state == "succeeded" and status.reason


@pytest.mark.parametrize("sign", [1, -1])
def test_path_tolerance_boundary(traj, sign):
    tol = 0.1
    mon = ExecutionMonitor(traj, path_tolerance=tol)
    assert mon.update(0.5, measured(traj, 0.5, (sign * tol * (1 - EPS), 0.0))).state == "running"
    status = mon.update(0.6, measured(traj, 0.6, (0.0, sign * tol * (1 + EPS))))
    assert status.state == "aborted"
    assert "path tolerance" in status.reason and "'b'" in status.reason and "t = 0.6" in status.reason
    # aborted is final
    assert mon.update(0.7, measured(traj, 0.7)).state == "aborted"


def test_per_joint_path_tolerance(traj):
    mon = ExecutionMonitor(traj, path_tolerance={"a": 0.5})
    assert PATH_TOLERANCE == 0.2
    assert mon.update(0.5, measured(traj, 0.5, (0.4, 0.0))).state == "running"
    assert mon.update(0.55, measured(traj, 0.55, (0.0, 0.2 * (1 - EPS)))).state == "running"  # b: default 0.2
    assert mon.update(0.6, measured(traj, 0.6, (0.0, 0.2 * (1 + EPS)))).state == "aborted"
    with pytest.raises(BridgeError, match="unknown joint 'c'"):
        ExecutionMonitor(traj, path_tolerance={"c": 0.1})
    with pytest.raises(BridgeError, match="path_tolerance"):
        ExecutionMonitor(traj, path_tolerance=0.0)


def test_goal_tolerance_and_goal_time_boundaries(traj):
    tol, goal_time = 0.01, 0.5
    # outside the goal tolerance, still within the goal time: running
    mon = ExecutionMonitor(traj, goal_tolerance=tol, goal_time=goal_time)
    assert mon.update(2.0 + goal_time * (1 - EPS), measured(traj, 2.0, (tol * (1 + EPS), 0.0))).state == "running"
    # reached just inside the tolerance before the goal time: success
    assert mon.update(2.0 + goal_time * (1 - EPS), measured(traj, 2.0, (tol * (1 - EPS), 0.0))).state == "succeeded"
    # never reached: aborted just after the goal time, naming the joint
    mon = ExecutionMonitor(traj, goal_tolerance=tol, goal_time=goal_time)
    status = mon.update(2.0 + goal_time * (1 + EPS), measured(traj, 2.0, (tol * (1 + EPS), 0.0)))
    assert status.state == "aborted" and "goal tolerance" in status.reason and "'a'" in status.reason


def test_missing_or_non_finite_measurement_aborts(traj):
    mon = ExecutionMonitor(traj)
    status = mon.update(0.1, {"a": 0.1})
    assert status.state == "aborted" and "'b'" in status.reason
    mon = ExecutionMonitor(traj)
    status = mon.update(0.1, {"a": float("nan"), "b": 0.2})
    assert status.state == "aborted" and "'a'" in status.reason
