"""The checks of a planning request's inputs (`humanoid_planner.planning.request`): the frame of a
pose, its quaternion, and the measured joints a node keeps."""

import math

import pytest

from humanoid_model import load_robot
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.planning import check_frame, request_pose, robot_joints
from humanoid_planner.planning.request import UNKNOWN_NAMES_SHOWN


def test_a_pose_must_be_in_the_planning_frame_or_empty():
    check_frame("", "odom", "~/plan goal")
    check_frame("/odom", "odom", "~/plan goal")
    with pytest.raises(PlanningError, match=r"~/plan goal: field 'header.frame_id' must be the planning frame odom"):
        check_frame("map", "odom", "~/plan goal")


def test_a_unit_quaternion_gives_the_heading_and_others_are_refused():
    c, s = math.cos(0.3), math.sin(0.3)
    assert request_pose((1.0, -0.5, 0.2), (0.0, 0.0, s, c), "start") == pytest.approx((1.0, -0.5, 0.6))
    assert request_pose((0, 0, 0), (0.0, 0.0, 0.0, 1.004), "start")[2] == 0.0  # within the tolerance
    for quat in ((0, 0, 0, 0), (0, 0, 0, 2.0), (0, 0, 0, 1.01), (math.nan, 0, 0, 1), (1e200, 0, 0, 1)):
        with pytest.raises(PlanningError, match="start: field 'pose.orientation' must be a unit quaternion"):
            request_pose((0, 0, 0), quat, "start")
    with pytest.raises(PlanningError, match="field 'pose.position' must be finite"):
        request_pose((math.inf, 0, 0), (0, 0, 0, 1), "start")


def test_only_the_robots_joints_are_kept_and_the_unknown_ones_named_in_one_short_line():
    robot = load_robot("hrp2")
    names = [*(f"x{i}" * 100 for i in range(10_000)), robot.joint_names[0]]
    kept, line = robot_joints(robot, names, [0.5] * len(names))
    assert kept == {robot.joint_names[0]: 0.5}
    assert line.startswith("10000 joint names that robot 'hrp2' does not have, ignored: ")
    assert line.endswith(f"and {10_000 - UNKNOWN_NAMES_SHOWN} more") and len(line) < 400
    assert robot_joints(robot, robot.joint_names, [0.0] * 30) == (dict.fromkeys(robot.joint_names, 0.0), "")
