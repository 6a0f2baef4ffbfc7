"""`humanoid-stack up bridge_sim` (config/bridge_sim.yaml): the simulator (HRP-2
standing on `flat` under PD, in gravity) and the robot bridge in another process, driven from this
one as a user would: a head motion published on /robot_bridge/trajectory executes and the head
follows; a trajectory that does not start at the measured position is refused with the reason on
/diagnostics; SIGTERM ends the node set cleanly."""

import time

import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from builtin_interfaces.msg import Duration  # noqa: E402
from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from support.ros_up import Client, spinner, start_up, stop  # noqa: E402
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint  # noqa: E402

TIMEOUT = 90.0  # [s] wall bound (chosen: the standing robot's contact solve on a loaded 2-core machine)
HEAD = "HEAD_JOINT1"  # head pitch
DELTA = 0.1  # [rad] head motion in 1 s (0.1 rad/s, far inside its limits)


def head_motion(start: float, first: float) -> JointTrajectory:
    """HEAD from `first` (t = 0) to start + DELTA (t = 1 s), velocities 0 at both ends."""
    msg = JointTrajectory(joint_names=[HEAD])
    msg.points = [
        JointTrajectoryPoint(positions=[first], velocities=[0.0], time_from_start=Duration(sec=0)),
        JointTrajectoryPoint(positions=[start + DELTA], velocities=[0.0], time_from_start=Duration(sec=1)),
    ]
    return msg


def test_up_bridge_sim_executes_a_head_motion_and_refuses_a_wrong_start(repo_root):
    client = Client("test_up_bridge_sim")
    node, executor = client.node, client.executor
    states, diags = [], []
    node.create_subscription(JointState, "/joint_states", states.append, 10)
    node.create_subscription(
        DiagnosticArray,
        "/diagnostics",
        lambda m: diags.extend(s for s in m.status if s.name.startswith("robot_bridge")),
        100,
    )
    pub = node.create_publisher(JointTrajectory, "/robot_bridge/trajectory", 10)
    proc = start_up(repo_root, "bridge_sim", "--duration", "60")
    spin_until = spinner(executor, proc, TIMEOUT)

    def head():
        return dict(zip(states[-1].name, states[-1].position))[HEAD]

    def diag(text, n0):
        return next((d for d in diags[n0:] if text in d.message), None)

    refused = executed = followed = None
    try:
        assert spin_until(lambda: states and pub.get_subscription_count())
        time.sleep(1.0)  # let the standing robot settle (PD sag)
        executor.spin_once(timeout_sec=0.05)
        start = head()
        pub.publish(head_motion(start, start + 0.05))  # 0.05 rad off the measured head: start_state
        assert spin_until(lambda: diag("refused", 0) is not None)
        refused = diag("refused", 0).message
        n0 = len(diags)
        start = head()
        pub.publish(head_motion(start, start))
        executed = spin_until(lambda: diag("succeeded", n0) is not None)
        followed = abs(head() - (start + DELTA))
    finally:
        out = stop(proc, sigterm=followed is not None)
        client.close()
    assert "start_state" in refused, refused
    assert executed, [d.message for d in diags] + [out[-3000:]]
    assert followed < 0.05, followed  # the bridge's goal tolerance (config/bridge_sim.yaml: default)
    assert proc.returncode == 0, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
