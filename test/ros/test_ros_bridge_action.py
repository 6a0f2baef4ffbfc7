"""The robot bridge's FollowJointTrajectory input (~/follow_joint_trajectory), driven as MoveIt's simple
controller manager drives a controller: a valid goal executes through the bridge on the simulator and
succeeds with the execution monitor's verdict; an unsafe one is refused with the validator's reason in the
result; a cancel stops and holds; the node keeps running after bad goals."""

import math

import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from action_msgs.msg import GoalStatus  # noqa: E402
from builtin_interfaces.msg import Duration  # noqa: E402
from control_msgs.action import FollowJointTrajectory  # noqa: E402
from rclpy.action import ActionClient  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from support.ros_bridge_stack import Stack  # noqa: E402
from trajectory_msgs.msg import JointTrajectoryPoint  # noqa: E402

Result = FollowJointTrajectory.Result
ARM = "RARM_JOINT0"


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    # `auto`: the bridge sends through the simulator's FollowJointTrajectory action, as to a ros2_control robot
    s = Stack(
        tmp_path_factory.mktemp("bridge_action"),
        domain_offset=7,
        bridge_params=[Parameter("controller_type", value="auto")],
    )
    s.action = ActionClient(s.client, FollowJointTrajectory, "/robot_bridge/follow_joint_trajectory")
    assert s.spin_until(lambda: s.action.wait_for_server(timeout_sec=0.0))
    yield s
    s.close()


def goal(names, points):
    g = FollowJointTrajectory.Goal()
    g.trajectory.joint_names = list(names)
    for t, q in points:
        sec = math.floor(t)
        g.trajectory.points.append(
            JointTrajectoryPoint(
                positions=[float(x) for x in q], time_from_start=Duration(sec=int(sec), nanosec=int((t - sec) * 1e9))
            )
        )
    return g


def run(s, g, cancel_after=None):
    sent = s.action.send_goal_async(g)
    assert s.spin_until(sent.done)
    handle = sent.result()
    assert handle.accepted
    if cancel_after is not None:
        s.spin(cancel_after)
        cancelled = handle.cancel_goal_async()
        assert s.spin_until(cancelled.done)
    result = handle.get_result_async()
    assert s.spin_until(result.done)
    return result.result().status, result.result().result


def test_a_goal_executes_through_the_bridge_and_succeeds_with_the_monitors_verdict(stack):
    s = stack
    q0 = s.joints()[ARM]
    status, result = run(s, goal([ARM], [(0.0, [q0]), (0.5, [q0 + 0.1]), (1.0, [q0 + 0.2])]))
    assert status == GoalStatus.STATUS_SUCCEEDED, result.error_string
    assert result.error_code == Result.SUCCESSFUL
    assert "succeeded" in result.error_string
    s.spin(0.3)
    assert s.joints()[ARM] == pytest.approx(q0 + 0.2, abs=0.02)


@pytest.mark.parametrize(
    "case, words",
    [
        ("unknown joint", "unknown"),
        ("nan", "nan"),
        ("empty", "empty"),
        ("too fast", "velocity"),
    ],
)
def test_an_unsafe_goal_is_refused_with_the_validators_reason(stack, case, words):
    s = stack
    q0 = s.joints()[ARM]
    goals = {
        "unknown joint": goal(["NO_SUCH_JOINT"], [(1.0, [0.1])]),
        "nan": goal([ARM], [(1.0, [math.nan])]),
        "empty": goal([ARM], []),
        "too fast": goal([ARM], [(0.0, [q0]), (0.01, [q0 + 0.3])]),  # policy refuse (the default)
    }
    status, result = run(s, goals[case])
    assert status == GoalStatus.STATUS_ABORTED
    assert result.error_code in (Result.INVALID_GOAL, Result.INVALID_JOINTS)
    assert words in result.error_string.lower(), result.error_string
    assert s.joints()[ARM] == pytest.approx(q0, abs=0.01)
    status, result = run(s, goal([ARM], [(0.0, [q0]), (0.5, [q0 + 0.02])]))  # the node keeps running
    assert status == GoalStatus.STATUS_SUCCEEDED, result.error_string


def test_a_cancelled_goal_stops_and_holds_mid_way(stack):
    s = stack
    q0 = s.joints()[ARM]
    status, result = run(s, goal([ARM], [(0.0, [q0]), (3.0, [q0 - 0.5])]), cancel_after=1.0)
    assert status == GoalStatus.STATUS_CANCELED, result.error_string
    s.spin(0.5)
    stopped = s.joints()[ARM]
    assert q0 - 0.45 < stopped < q0 - 0.02
    s.spin(0.5)
    assert s.joints()[ARM] == pytest.approx(stopped, abs=0.01)
