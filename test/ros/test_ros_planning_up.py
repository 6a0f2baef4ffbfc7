"""`humanoid-stack up planning` (config/planning.yaml): the state publisher, the web viewer
and the contact planner in another process, driven from this one as a user would: the ~/plan
action goal of the config file's header (the flat walk, shortened to 0.4 m as in
test_ros_contact_planner) answers the stance root poses; the planned stances reach
/contact_planner/stances (which the viewer draws: its `marker_topics`), the motion
/contact_planner/trajectory, which starts at the scene's posture (the lead-in); /robot_description has one publisher (the state publisher: no
simulator in this set); the viewer serves its page; SIGTERM ends the node set cleanly."""

import urllib.request

import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from support.plan_client import PlanClient, goal  # noqa: E402
from support.ros_up import Client, free_port, spinner, start_up, stop  # noqa: E402
from trajectory_msgs.msg import JointTrajectory  # noqa: E402
from visualization_msgs.msg import Marker, MarkerArray  # noqa: E402

TIMEOUT = 120.0  # [s] wall bound (chosen, as test_ros_contact_planner: the flat walk on a loaded 2-core machine)
GOAL_X = 0.4  # [m] the flat walk of test_contact_plan / test_ros_contact_planner


def test_up_planning_answers_a_plan_request_and_publishes_the_stances(repo_root):
    port = free_port()
    client = Client("test_up_planning")
    node, executor = client.node, client.executor
    stances, trajectories = [], []
    node.create_subscription(MarkerArray, "/contact_planner/stances", stances.append, 1)
    node.create_subscription(JointTrajectory, "/contact_planner/trajectory", trajectories.append, 1)
    plan = PlanClient(node)
    # a short motion (3 projections per transition, 90 deg/s): its checks are test_motion's
    sets = ["contact_planner.interpolation_steps=3", "contact_planner.joint_speed=90.0", f"viewer.port={port}"]
    proc = start_up(repo_root, "planning", "--duration", "100", *(a for s in sets for a in ("--set", s)))
    spin_until = spinner(executor, proc, TIMEOUT)
    answer, page, description = None, None, 0
    try:
        assert spin_until(plan.ready), "no /contact_planner/plan action"
        future = plan.send(goal(GOAL_X))
        assert spin_until(future.done), "no answer to the plan request"
        answer = future.result()
        assert spin_until(lambda: stances and trajectories)
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).status
        description = node.count_publishers("/robot_description")
    finally:
        out = stop(proc, sigterm=answer is not None)
        client.close()
    assert answer.success, answer.message
    poses = [s.base_pose for s in answer.stances]
    assert len(poses) >= 5, out[-3000:]  # the flat walk: at least 5 stances (test_ros_contact_planner)
    assert answer.contact_schedule.header.frame_id == "odom"
    assert poses[-1].position.x > GOAL_X - 0.1  # the base ends near the goal
    markers = stances[-1].markers
    assert markers[0].action == Marker.DELETEALL and len(markers) == 1 + 2 * len(poses)
    # the motion starts where the robot stands: the flat scene's posture (half-sitting), then the
    # lead-in to the first stance's witness (its root 21 cm forward, the first answered pose)
    from humanoid_model import load_robot
    from humanoid_model.scene import load_scene
    from humanoid_planner.planning.problem import scene_start_q

    robot = load_robot("hrp2")
    start = scene_start_q(load_scene("flat"), robot)
    traj = trajectories[-1]
    assert len(traj.points) > len(poses) and traj.joint_names == list(robot.joint_names)
    assert traj.points[0].positions == pytest.approx(start[7:].tolist(), abs=1e-9)
    assert poses[0].position.x > start[0] + 0.1  # the first witness is not the start posture
    assert page == 200 and description == 1
    assert proc.returncode == 0, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
