"""The gait_generator node with real rclpy: the ~/generate action (GenerateGait) for a phase and for a
walk of a distance, ~/trajectory and /diagnostics; failures abort with the reason and the node stays up."""

import math

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from action_msgs.msg import GoalStatus  # noqa: E402
from rclpy.action import ActionClient  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402

TIMEOUT = 120.0  # [s] includes a walk's solves on a loaded 2-core machine


@pytest.fixture
def ros(ros_harness):
    h = ros_harness(timeout=TIMEOUT, period=0.05)
    return h.context, h.add, h.spin_until


def seconds(d):
    return d.sec + 1e-9 * d.nanosec


def test_generate_a_phase_a_walk_and_failures(ros):
    from diagnostic_msgs.msg import DiagnosticArray
    from humanoid_stack_interfaces.action import GenerateGait
    from trajectory_msgs.msg import JointTrajectory

    from humanoid_ros.gait_generator import GaitGeneratorNode

    ctx, add, spin_until = ros
    node = add(GaitGeneratorNode(context=ctx, parameter_overrides=[Parameter("phase", value="ds")]))
    client = add(rclpy.create_node("gait_client", context=ctx))
    trajs, diags = [], []
    client.create_subscription(JointTrajectory, "/gait_generator/trajectory", trajs.append, 1)
    client.create_subscription(DiagnosticArray, "/diagnostics", diags.append, 10)
    action = ActionClient(client, GenerateGait, "/gait_generator/generate")
    assert spin_until(action.server_is_ready)

    def run(**fields):
        sent = action.send_goal_async(GenerateGait.Goal(**fields))
        assert spin_until(sent.done) and sent.result().accepted
        out = sent.result().get_result_async()
        assert spin_until(out.done)
        return out.result().status, out.result().result

    status, res = run()  # the node's phase: one double support
    assert status == GoalStatus.STATUS_SUCCEEDED and res.success, res.message
    assert "energy" in res.message and res.energy > 0
    assert spin_until(lambda: len(trajs) > 0 and len(diags) > 0)
    assert trajs[-1].joint_names[:3] == ["l_hip_pitch", "l_knee", "l_ankle_pitch"]
    assert len(res.trajectory.points) == len(trajs[-1].points) > 10
    assert any(kv.key == "total_energy_J" for kv in diags[-1].status[0].values)
    # a double support holds both feet over the whole phase: one phase of the schedule, two contacts
    phases = res.contact_schedule.phases
    assert len(phases) >= 1 and all(len(p.contacts) == 2 for p in phases)

    # infeasible requests: aborted with the reason, node stays up
    node.set_parameters([Parameter("params", value="nope")])
    status, res = run()
    assert status == GoalStatus.STATUS_ABORTED and not res.success and "params" in res.message
    node.set_parameters([Parameter("params", value="thesis")])
    status, res = run(distance=0.6)  # 0.6 m < two steps
    assert status == GoalStatus.STATUS_ABORTED and "distance" in res.message
    status, res = run(distance=math.nan)
    assert status == GoalStatus.STATUS_ABORTED and "finite" in res.message

    # a feasible 1.5 m walk (two cyclic steps) from x = 2: the pelvis ends 1.5 m further, at rest
    status, res = run(distance=1.5, start_x=2.0)
    assert status == GoalStatus.STATUS_SUCCEEDED, res.message
    base = np.array([[p.transforms[0].translation.x, p.transforms[0].translation.z] for p in res.base_motion.points])
    assert len(base) > 100 and list(res.base_motion.joint_names) == ["root_joint"]
    assert base[-1, 0] - base[0, 0] == pytest.approx(1.5, abs=0.06)  # rest postures differ by 5 cm (docs/gait.md)
    assert base[0, 0] > 2.0
    # the schedule covers the walk, phases consecutive; single supports hold one sole on the ground
    phases = res.contact_schedule.phases
    spans = [(seconds(p.start), seconds(p.end)) for p in phases]
    assert spans[0][0] == 0.0 and spans[-1][1] == pytest.approx(seconds(res.trajectory.points[-1].time_from_start))
    assert all(b[0] == pytest.approx(a[1]) for a, b in zip(spans, spans[1:]))
    singles = [p for p in phases if len(p.contacts) == 1]
    assert singles and all(p.contacts[0].location in ("l_sole", "r_sole") for p in singles)
    for p in phases:  # every held contact frame lies on the ground (z = 0) when its phase starts
        for c in p.contacts:
            assert abs(c.pose.position.z) < 5e-3, (c.location, c.pose.position.z)
