"""The gait_generator node with real rclpy: ~/generate (Trigger), ~/plan_walk (GetPlan),
~/trajectory and /diagnostics; failures answer with the reason and the node stays up."""

import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402

TIMEOUT = 60.0  # [s] includes one DS solve on a loaded 2-core machine


@pytest.fixture
def ros(ros_harness):
    h = ros_harness(timeout=TIMEOUT, period=0.05)
    return h.context, h.add, h.spin_until


def test_generate_plan_walk_and_failures(ros):
    from diagnostic_msgs.msg import DiagnosticArray
    from nav_msgs.srv import GetPlan
    from std_srvs.srv import Trigger
    from trajectory_msgs.msg import JointTrajectory

    from humanoid_ros.gait_generator import GaitGeneratorNode

    ctx, add, spin_until = ros
    node = add(GaitGeneratorNode(context=ctx, parameter_overrides=[Parameter("phase", value="ds")]))
    client = add(rclpy.create_node("gait_client", context=ctx))
    trajs, diags = [], []
    client.create_subscription(JointTrajectory, "/gait_generator/trajectory", trajs.append, 1)
    client.create_subscription(DiagnosticArray, "/diagnostics", diags.append, 10)
    gen = client.create_client(Trigger, "/gait_generator/generate")
    plan = client.create_client(GetPlan, "/gait_generator/plan_walk")
    assert spin_until(lambda: gen.service_is_ready() and plan.service_is_ready())

    def call(cli, req):
        fut = cli.call_async(req)
        assert spin_until(fut.done)
        return fut.result()

    res = call(gen, Trigger.Request())
    assert res.success, res.message
    assert "energy" in res.message
    assert spin_until(lambda: len(trajs) > 0 and len(diags) > 0)
    assert trajs[-1].joint_names[:3] == ["l_hip_pitch", "l_knee", "l_ankle_pitch"]
    assert len(trajs[-1].points) > 10
    assert any(kv.key == "total_energy_J" for kv in diags[-1].status[0].values)

    # infeasible request: failure with the reason, node stays up
    node.set_parameters([Parameter("params", value="nope")])
    res = call(gen, Trigger.Request())
    assert not res.success and "params" in res.message
    node.set_parameters([Parameter("params", value="thesis")])

    # GetPlan with an impossible distance (0.6 m < two steps): empty path, reason on /diagnostics
    n0 = len(diags)
    req = GetPlan.Request()
    req.goal.pose.position.x = 0.6
    out = call(plan, req)
    assert len(out.plan.poses) == 0
    assert spin_until(lambda: len(diags) > n0)
    assert "distance" in diags[-1].status[0].message

    # a feasible 1.5 m walk (two cyclic steps): the pelvis path ends 1.5 m further, at rest
    req = GetPlan.Request()
    req.start.pose.position.x = 2.0
    req.goal.pose.position.x = 3.5
    out = call(plan, req)
    poses = out.plan.poses
    assert len(poses) > 100
    advance = poses[-1].pose.position.x - poses[0].pose.position.x
    assert advance == pytest.approx(1.5, abs=0.06)  # rest postures differ by 5 cm (docs/gait.md)
    assert poses[0].pose.position.x > 2.0
    # and the node still answers
    res = call(gen, Trigger.Request())
    assert res.success
