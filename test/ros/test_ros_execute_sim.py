"""`humanoid-stack up execute_sim` (config/execute_sim.yaml): a planning request performed by the
simulated HRP-2 end to end, as on a robot, with real DDS on loopback: the contact planner plans the
flat walk from the robot's measured state, the robot bridge checks the plan and sends it to the
simulator's whole-body controller, which walks the robot there in the simulator's loop and reports
its progress. Before that (the bridge in dry run, then switched to sending), each unsafe class of
motion is refused by the bridge before anything moves: a joint beyond its limit, a NaN, a start far
from where the robot stands, a plan of another robot, a plan with unclear segments, and a bare
joint trajectory (a whole-body controller needs the contact schedule); a motion that is not JSON or
is another robot's, sent to the simulator's controller past the bridge, is refused there in one
line and the node runs on."""

import copy
import json
import time

import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from builtin_interfaces.msg import Duration  # noqa: E402
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from rcl_interfaces.srv import SetParameters  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from support.plan_client import PlanClient, goal  # noqa: E402
from support.ros_up import Client, free_port, spinner, start_up, stop  # noqa: E402
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint  # noqa: E402

TIMEOUT = 420.0  # [s] wall bound (chosen): planning ~3 s, then the 14.5 s walk, 33 s in the shared process here
GOAL_X = 0.4  # [m] the flat walk of test_ros_planning_up
STATE_TRIES = 20  # plan requests, 0.5 s apart, while the planner has no measured state yet (chosen)


def _bridge_errors(diags):
    error = DiagnosticStatus.ERROR
    return [s.message for d in diags for s in d.status if s.name.startswith("robot_bridge") and s.level == error]


def _unsafe(good):
    """The unsafe variants of the good plan document, one class each."""
    names = good["trajectory"]["joint_names"]
    knee = 7 + names.index("RLEG_JOINT3")
    out = {}
    over = copy.deepcopy(good)
    for row in over["trajectory"]["q"][len(over["trajectory"]["q"]) // 2 :]:
        row[knee] = 3.0  # beyond the knee's upper limit (2.61 rad)
    out["limit"] = over
    nan = copy.deepcopy(good)
    nan["trajectory"]["q"][10][knee] = float("nan")
    out["nan"] = nan
    far = copy.deepcopy(good)
    for row in far["trajectory"]["q"]:
        row[knee] += 0.3  # the first point 0.3 rad from the measured knee, the whole motion shifted
    out["start"] = far
    other = copy.deepcopy(good)
    other["robot"] = "bip"
    out["robot"] = other
    unclear = copy.deepcopy(good)
    unclear["trajectory"]["unclear_segments"] = [1]
    out["unclear"] = unclear
    return out


def test_up_execute_sim_refuses_unsafe_motions_then_walks_a_planned_flat_walk(repo_root):
    port = free_port()
    client = Client("test_up_execute_sim")
    node, executor = client.node, client.executor
    status, odom, diags, plans = [], [], [], []
    node.create_subscription(String, "/whole_body_controller/status", lambda m: status.append(json.loads(m.data)), 50)
    node.create_subscription(Odometry, "/odom", odom.append, 10)
    node.create_subscription(DiagnosticArray, "/diagnostics", diags.append, 100)
    node.create_subscription(String, "/contact_planner/motion", lambda m: plans.append(m.data), 1)
    motion_pub = node.create_publisher(String, "/contact_planner/motion", 1)
    wbc_pub = node.create_publisher(String, "/whole_body_controller/motion", 1)
    traj_pub = node.create_publisher(JointTrajectory, "/robot_bridge/trajectory", 1)
    plan = PlanClient(node)
    bridge_parameters = node.create_client(SetParameters, "/robot_bridge/set_parameters")
    sets = [f"viewer.port={port}", "robot_bridge.dry_run=true"]  # the plan is checked, not sent, at first
    proc = start_up(repo_root, "execute_sim", "--duration", str(TIMEOUT), *(a for x in sets for a in ("--set", x)))
    spin_until = spinner(executor, proc, TIMEOUT)
    answer, refusals, before_walk = None, {}, None
    try:
        assert spin_until(plan.ready), "no /contact_planner/plan action"
        assert spin_until(lambda: odom), "no /odom"
        for _ in range(STATE_TRIES):  # the planner refuses until its own /joint_states arrived
            future = plan.send(goal(GOAL_X))
            assert spin_until(future.done), "no answer to the plan request"
            answer = future.result()
            if answer.success or "received yet" not in answer.message:
                break
            wait = time.monotonic() + 0.5
            spin_until(lambda wait=wait: time.monotonic() > wait)
        assert answer.success, answer.message
        if not spin_until(lambda: plans):
            raise AssertionError(f"no plan on /contact_planner/motion\n{stop(proc)[-4000:]}")
        good_text = plans[-1]  # (this node hears its own publications on that topic too)
        good = json.loads(good_text)
        # each unsafe class, published as the planner publishes a plan: refused in one line
        for kind, doc in _unsafe(good).items():
            before = len(_bridge_errors(diags))
            motion_pub.publish(String(data=json.dumps(doc)))
            assert spin_until(lambda before=before: len(_bridge_errors(diags)) > before), kind
            refusals[kind] = _bridge_errors(diags)[-1]
        before = len(_bridge_errors(diags))
        traj = JointTrajectory(joint_names=good["trajectory"]["joint_names"])
        traj.points = [JointTrajectoryPoint(positions=good["trajectory"]["q"][0][7:], time_from_start=Duration(sec=1))]
        traj_pub.publish(traj)
        assert spin_until(lambda: len(_bridge_errors(diags)) > before), "a bare joint trajectory"
        refusals["trajectory"] = _bridge_errors(diags)[-1]
        # straight to the simulator's controller, past the bridge: refused in one line, the node runs on
        for text in ("{not json", json.dumps(_unsafe(good)["robot"])):
            seen = len(status)
            wbc_pub.publish(String(data=text))
            assert spin_until(lambda seen=seen: len(status) > seen), text[:20]
        direct = list(status)
        before_walk = (odom[-1].pose.pose.position.x, len(status))
        # now for real: the bridge sends the checked plan, the simulated robot walks it
        assert spin_until(bridge_parameters.service_is_ready)
        request = SetParameters.Request(parameters=[Parameter("dry_run", value=False).to_parameter_msg()])
        done = bridge_parameters.call_async(request)
        assert spin_until(done.done) and done.result().results[0].successful
        motion_pub.publish(String(data=good_text))
        walk = before_walk[1]  # the walk's statuses come after the two refusals
        ended = spin_until(lambda: len(status) > walk and status[-1]["state"] in ("done", "holding", "refused"))
        assert ended, (status[-1:], _bridge_errors(diags)[-3:])
        end_x = odom[-1].pose.pose.position.x
    finally:
        out = stop(proc, sigterm=answer is not None)
        client.close()
    assert answer.success and len(answer.stances) >= 5, out[-3000:]
    # nothing reached the controller while the unsafe motions were refused, nor did the robot move
    assert abs(before_walk[0]) < 0.01, before_walk
    assert [s["state"] for s in direct] == ["refused", "refused"], direct
    assert "not valid JSON" in direct[0]["reason"] and "'bip'" in direct[1]["reason"], direct
    assert all("\n" not in s["reason"] for s in direct), direct
    assert "RLEG_JOINT3" in refusals["limit"] and "limit" in refusals["limit"], refusals["limit"]
    assert "finite" in refusals["nan"], refusals["nan"]
    assert "start" in refusals["start"], refusals["start"]
    assert "'bip'" in refusals["robot"], refusals["robot"]
    assert "unclear_segments" in refusals["unclear"], refusals["unclear"]
    assert "whole motion" in refusals["trajectory"], refusals["trajectory"]
    # the walk: the controller reported it done without a hold, and the base ends at the plan's end
    states = [s["state"] for s in status[before_walk[1] :]]
    stops = [line for line in out.splitlines() if "[robot_bridge]: stopped" in line]
    assert states[-1] == "done" and "holding" not in states, f"{states[-3:]}; the bridge: {stops[:1]}; {out[-3000:]}"
    assert status[-1]["plan_time"] == pytest.approx(status[-1]["nominal_duration"], abs=0.01)
    assert end_x == pytest.approx(answer.stances[-1].base_pose.position.x, abs=0.02)
    assert odom[-1].pose.pose.position.z > 0.5  # standing: HRP-2's base at ~0.65 m
    assert proc.returncode == 0 and "Traceback" not in out, out[-3000:]
