"""`humanoid-stack up pilot_sim` (config/pilot_sim.yaml): the simulator (HRP-2 standing
on `flat`, in gravity, under the joint trajectory controller), the web viewer and the pilot in
another process, driven from this one as a user would: a pose target 3 cm ahead of the right hand
on /pilot/target. The simulator accepts every command of the pilot (none rejected on
/diagnostics), its right-arm joints move toward the pilot's commanded ones (/pilot/joint_states,
the phantom), the viewer serves its page, and SIGTERM ends the node set cleanly."""

import urllib.request

import numpy as np
import pinocchio as pin
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from geometry_msgs.msg import PoseStamped  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from support.ros_up import Client, free_port, spinner, start_up, stop  # noqa: E402

from humanoid_control.kinematics import load_structure  # noqa: E402

TIMEOUT = 90.0  # [s] wall bound (chosen, as test_ros_bridge_up: the standing robot's contact solve, loaded 2 cores)
REACH = 0.03  # [m] the target's offset ahead of the hand (chosen: within reach from half-sitting)
FOLLOWED = 0.5  # (chosen) fraction of the commanded arm motion the simulated arm must have made
# (the PD-controlled arm lags the one-point commands and sags in gravity; standing still it would be 0)


def test_up_pilot_sim_drives_the_simulated_hand_and_serves_the_viewer(repo_root):
    structure = load_structure("hrp2")
    hand = structure.placement(structure.q0, "r_hand")  # the pilot's default frame, at its start
    port = free_port()
    client = Client("test_up_pilot_sim")
    node, executor = client.node, client.executor
    measured, commanded, rejected = [], [], []
    node.create_subscription(JointState, "/joint_states", measured.append, 10)
    node.create_subscription(JointState, "/pilot/joint_states", commanded.append, 10)

    def on_diagnostics(msg):
        for s in msg.status:
            values = {v.key: v.value for v in s.values}
            if "rejected_commands" in values:
                rejected.append(int(values["rejected_commands"]))

    node.create_subscription(DiagnosticArray, "/diagnostics", on_diagnostics, 100)
    pub = node.create_publisher(PoseStamped, "/pilot/target", 10)
    proc = start_up(repo_root, "pilot_sim", "--duration", "80", "--set", f"viewer.port={port}")
    spin_until = spinner(executor, proc, TIMEOUT)

    def arm(msg):
        return np.array([x for n, x in zip(msg.name, msg.position) if n.startswith("RARM_")])

    page = moved = None
    try:
        assert spin_until(lambda: measured and commanded and pub.get_subscription_count())
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10).status
        start = arm(measured[-1])
        target = PoseStamped()
        target.header.frame_id = "odom"
        p, o = target.pose.position, target.pose.orientation
        p.x, p.y, p.z = hand.translation + [REACH, 0.0, 0.0]
        quat = pin.Quaternion(hand.rotation)
        o.x, o.y, o.z, o.w = quat.x, quat.y, quat.z, quat.w
        pub.publish(target)
        # the pilot reaches the target (its commanded arm stops changing: 1 mm tolerance, a few cycles)
        assert spin_until(lambda: len(commanded) > 10 and np.abs(arm(commanded[-1]) - start).max() > 0.02)
        assert spin_until(lambda: np.abs(arm(commanded[-1]) - arm(commanded[-5])).max() < 1e-6)
        goal = arm(commanded[-1])

        def followed():
            step = goal - start
            return float((arm(measured[-1]) - start) @ step / (step @ step))

        spin_until(lambda: followed() >= FOLLOWED)
        moved = followed()
        spin_until(lambda: len(rejected) >= 2)  # a simulator status after the motion
    finally:
        out = stop(proc, sigterm=moved is not None)
        client.close()
    assert page == 200
    assert moved is not None and moved >= FOLLOWED, (moved, out[-3000:])
    assert rejected and rejected[-1] == 0, (rejected, out[-3000:])
    assert proc.returncode == 0, out[-3000:]
    assert "Traceback" not in out, out[-3000:]


def test_up_pilot_sim_survives_a_huge_twist_and_target(repo_root):
    """A Twist of 1e300 m/s held for half a second, then a PoseStamped 1e300 m away, sent to the
    running `up pilot_sim`: the process (simulator, viewer and pilot in one) keeps running, the
    pilot keeps commanding finite joints (/pilot/joint_states), and SIGTERM still ends it cleanly."""
    from geometry_msgs.msg import Twist

    port = free_port()
    client = Client("test_up_pilot_sim_huge")
    node, executor = client.node, client.executor
    commanded = []
    node.create_subscription(JointState, "/pilot/joint_states", commanded.append, 100)
    twist_pub = node.create_publisher(Twist, "/pilot/twist", 10)
    target_pub = node.create_publisher(PoseStamped, "/pilot/target", 10)
    proc = start_up(repo_root, "pilot_sim", "--duration", "60", "--set", f"viewer.port={port}")
    spin_until = spinner(executor, proc, TIMEOUT)
    alive = False
    try:
        assert spin_until(
            lambda: commanded and twist_pub.get_subscription_count() and target_pub.get_subscription_count()
        )
        twist = Twist()
        twist.linear.x = 1e300
        for _ in range(10):  # held for 0.5 s, as a device driver repeats it
            twist_pub.publish(twist)
            spinner(executor, proc, 0.05)(lambda: False)
        target = PoseStamped()
        target.header.frame_id = "odom"
        target.pose.position.x = target.pose.position.y = target.pose.position.z = 1e300
        target.pose.orientation.w = 1.0
        target_pub.publish(target)
        n = len(commanded)
        spin_until(lambda: len(commanded) >= n + 50)  # 2 s of commands at 25 Hz
        alive = proc.poll() is None and len(commanded) >= n + 50
    finally:
        out = stop(proc, sigterm=alive)
        client.close()
    assert alive, (proc.returncode, out[-3000:])
    assert all(np.isfinite(m.position).all() for m in commanded), out[-3000:]
    assert proc.returncode == 0, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
