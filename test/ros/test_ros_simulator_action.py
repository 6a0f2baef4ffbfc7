"""The simulator's FollowJointTrajectory action server (joint_trajectory_controller's interface), driven
by an action client that does what MoveIt's simple controller manager does: wait for the server, send a
goal with a zero stamp, read the result's error_code and error_string, cancel on a stop."""

import math

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy")
from action_msgs.msg import GoalStatus  # noqa: E402
from builtin_interfaces.msg import Duration  # noqa: E402
from control_msgs.action import FollowJointTrajectory  # noqa: E402
from control_msgs.msg import JointTolerance  # noqa: E402
from rclpy.action import ActionClient  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from trajectory_msgs.msg import JointTrajectoryPoint  # noqa: E402

from humanoid_ros.simulator import FOLLOW_JOINT_TRAJECTORY, SimulatorNode  # noqa: E402

TIMEOUT = 90.0  # [s] wall bound on a loaded 2-core machine (chosen)
HEAD = "HEAD_JOINT0"
Result = FollowJointTrajectory.Result


def point(positions, t):
    return JointTrajectoryPoint(
        positions=list(positions), time_from_start=Duration(sec=int(t), nanosec=int(round((t % 1) * 1e9)))
    )


def goal_of(names, points, goal_tolerance=None):
    goal = FollowJointTrajectory.Goal()
    goal.trajectory.joint_names = list(names)
    goal.trajectory.points = points
    if goal_tolerance is not None:
        goal.goal_tolerance = [JointTolerance(name=n, position=goal_tolerance) for n in names]
        goal.goal_time_tolerance = Duration(sec=1)
    return goal


@pytest.fixture
def sim(ros_harness):
    h = ros_harness(timeout=TIMEOUT, period=0.01)
    node = h.add(
        SimulatorNode(
            context=h.context,
            parameter_overrides=[Parameter("real_time_factor", value=1.0), Parameter("publish_rate", value=50.0)],
        )
    )
    client_node = h.add(rclpy.create_node("moveit_like_client", context=h.context))
    client = ActionClient(client_node, FollowJointTrajectory, FOLLOW_JOINT_TRAJECTORY)
    assert h.spin_until(lambda: client.wait_for_server(timeout_sec=0.0))
    return h, node, client


def send(h, client, goal, feedback=None, cancel_after=None):
    """(status, result) of ``goal``; ``cancel_after`` [s of wall time] cancels it as MoveIt's stop does."""
    import time

    sent = client.send_goal_async(goal, feedback_callback=feedback)
    assert h.spin_until(sent.done)
    handle = sent.result()
    assert handle.accepted  # every goal is accepted: a refusal comes back as the result, with its reason
    if cancel_after is not None:
        end = time.monotonic() + cancel_after
        h.spin_until(lambda: time.monotonic() > end)
        cancelled = handle.cancel_goal_async()
        assert h.spin_until(cancelled.done)
    result = handle.get_result_async()
    assert h.spin_until(result.done)
    return result.result().status, result.result().result


def head(node):
    w = node.session.world
    return float(w.q[w.act_q][node.robot.joint_names.index(HEAD)])


def test_a_goal_moves_the_joint_with_feedback_and_succeeds_within_its_tolerance(sim):
    h, node, client = sim
    start = head(node)
    feedback = []
    goal = goal_of([HEAD], [point([start + 0.2], 0.5), point([start + 0.3], 1.0)], goal_tolerance=0.02)
    status, result = send(h, client, goal, feedback=lambda m: feedback.append(m.feedback))
    assert status == GoalStatus.STATUS_SUCCEEDED, result.error_string
    assert result.error_code == Result.SUCCESSFUL
    assert head(node) == pytest.approx(start + 0.3, abs=0.02)
    assert len(feedback) >= 10  # 50 Hz over a 1 s motion
    assert all(list(f.joint_names) == [HEAD] for f in feedback)
    for f in feedback:  # error = desired - actual, as joint_trajectory_controller reports it
        assert f.error.positions[0] == pytest.approx(f.desired.positions[0] - f.actual.positions[0], abs=1e-12)
    assert feedback[-1].index == 2
    assert max(abs(f.error.positions[0]) for f in feedback) < 0.1  # tracked: the PD lags a few hundredths


@pytest.mark.parametrize(
    "case, code, words",
    [
        ("unknown joint", Result.INVALID_JOINTS, "unknown joint"),
        ("nan", Result.INVALID_GOAL, "NaN"),
        ("empty", Result.INVALID_GOAL, "empty"),
        ("decreasing time", Result.INVALID_GOAL, "strictly increasing"),
        ("beyond the limit", Result.INVALID_GOAL, "limit"),
    ],
)
def test_a_bad_goal_is_aborted_with_the_reason_and_the_node_keeps_running(sim, case, code, words):
    h, node, client = sim
    start = head(node)
    goals = {
        "unknown joint": goal_of(["NO_SUCH_JOINT"], [point([0.1], 1.0)]),
        "nan": goal_of([HEAD], [point([math.nan], 1.0)]),
        "empty": goal_of([HEAD], []),
        "decreasing time": goal_of([HEAD], [point([0.1], 1.0), point([0.2], 0.5)]),
        "beyond the limit": goal_of([HEAD], [point([10.0], 1.0)]),
    }
    status, result = send(h, client, goals[case])
    assert status == GoalStatus.STATUS_ABORTED
    assert result.error_code == code
    assert words.lower() in result.error_string.lower(), result.error_string
    assert head(node) == pytest.approx(start, abs=0.01)  # nothing moved
    status, result = send(h, client, goal_of([HEAD], [point([start + 0.05], 0.3)], goal_tolerance=0.02))
    assert status == GoalStatus.STATUS_SUCCEEDED, result.error_string


def test_a_cancelled_goal_stops_mid_way_and_holds(sim):
    h, node, client = sim
    start = head(node)
    goal = goal_of([HEAD], [point([start + 0.5], 3.0)])
    status, result = send(h, client, goal, cancel_after=0.8)
    assert status == GoalStatus.STATUS_CANCELED
    stopped = head(node)
    assert start + 0.02 < stopped < start + 0.45  # it moved, and did not reach the goal
    h.spin_until(lambda: False, timeout=0.5)
    assert head(node) == pytest.approx(stopped, abs=0.01)  # held where it stopped


def test_a_newer_goal_preempts_the_running_one(sim):
    h, node, client = sim
    start = head(node)
    first = client.send_goal_async(goal_of([HEAD], [point([start + 0.4], 2.0)]))
    assert h.spin_until(first.done)
    status, result = send(h, client, goal_of([HEAD], [point([start - 0.1], 0.5)], goal_tolerance=0.02))
    assert status == GoalStatus.STATUS_SUCCEEDED, result.error_string
    old = first.result().get_result_async()
    assert h.spin_until(old.done)
    assert old.result().status == GoalStatus.STATUS_ABORTED
    assert "preempted" in old.result().result.error_string
    assert np.isclose(head(node), start - 0.1, atol=0.02)
