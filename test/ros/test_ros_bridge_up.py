"""`humanoid-stack up bridge_sim` (config/bridge_sim.yaml): the simulator (HRP-2
standing on `flat` under PD, in gravity) and the robot bridge in another process, driven from this
one as a user would: a head motion published on /robot_bridge/trajectory executes and the head
follows; a trajectory that does not start at the measured position is refused with the reason on
/diagnostics; `up` activated the bridge (a lifecycle node) at the start, and SIGTERM during a
motion deactivates it, which stops the motion and holds, before the node set ends cleanly."""

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


def head_motion(start: float, first: float, seconds: int = 1) -> JointTrajectory:
    """HEAD from `first` (t = 0) to start + DELTA (t = `seconds`), velocities 0 at both ends."""
    msg = JointTrajectory(joint_names=[HEAD])
    msg.points = [
        JointTrajectoryPoint(positions=[first], velocities=[0.0], time_from_start=Duration(sec=0)),
        JointTrajectoryPoint(positions=[start + DELTA], velocities=[0.0], time_from_start=Duration(sec=seconds)),
    ]
    return msg


STALE = "the start state is unknown"  # the bridge's refusal while its /joint_states are older than state_timeout
RESENDS = 3  # a motion refused only for a stale state is sent again at most this often (chosen, below)


def send_until_decided(pub, spin_until, diags, motion) -> str | None:
    """Publish ``motion`` on /robot_bridge/trajectory and wait for the bridge's verdict on it: the
    message of its "succeeded" or "refused" diagnostic (None: none came). A refusal for a stale
    state is the watchdog doing its work (the simulator and the bridge share one process and its
    GIL, and a loaded machine can hold the bridge's /joint_states past state_timeout); the same
    motion is then sent again, at most RESENDS times, so that the test is about execution."""
    verdict = None
    for _ in range(RESENDS):
        n0 = len(diags)

        def decided(n0=n0):
            return next((d.message for d in diags[n0:] if "succeeded" in d.message or "refused" in d.message), None)

        pub.publish(motion)
        if not spin_until(lambda: decided() is not None):
            return None
        verdict = decided()
        if STALE not in verdict:
            return verdict
    return verdict


def report(diags, gaps, out) -> str:
    """A failure's context: every bridge diagnostic, the longest gap between two /joint_states this
    client received (wall) and the end of the node set's output."""
    gap = max(gaps, default=float("nan"))
    return "\n".join([d.message for d in diags] + [f"longest /joint_states gap here: {gap:.3f} s", out[-3000:]])


def gap_recorder(states):
    """A /joint_states callback that keeps the messages in ``states`` and returns (callback, gaps):
    the wall-clock gaps [s] between consecutive messages."""
    gaps, last = [], []

    def on_state(msg):
        now = time.monotonic()
        if last:
            gaps.append(now - last[0])
        last[:] = [now]
        states.append(msg)

    return on_state, gaps


def test_up_bridge_sim_executes_a_head_motion_and_refuses_a_wrong_start(repo_root):
    client = Client("test_up_bridge_sim")
    node, executor = client.node, client.executor
    states, diags = [], []
    on_state, gaps = gap_recorder(states)
    node.create_subscription(JointState, "/joint_states", on_state, 10)
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

    refused = executed = followed = moving = None
    try:
        assert spin_until(lambda: states and pub.get_subscription_count())
        time.sleep(1.0)  # let the standing robot settle (PD sag)
        executor.spin_once(timeout_sec=0.05)
        start = head()
        pub.publish(head_motion(start, start + 0.05))  # 0.05 rad off the measured head: start_state
        assert spin_until(lambda: diag("refused", 0) is not None)
        refused = diag("refused", 0).message
        start = head()
        executed = send_until_decided(pub, spin_until, diags, head_motion(start, start))
        followed = abs(head() - (start + DELTA))
        n0 = len(diags)
        start = head()
        pub.publish(head_motion(start, start, seconds=20))  # still executing at the SIGTERM
        moving = spin_until(lambda: diag("executing", n0) is not None)
    finally:
        out = stop(proc, sigterm=followed is not None)
        client.close()
    assert "start_state" in refused, refused
    assert executed and "succeeded" in executed, report(diags, gaps, out)
    assert followed < 0.05, followed  # the bridge's goal tolerance (config/bridge_sim.yaml: default)
    assert "humanoid-stack up: robot_bridge: active" in out, out[-3000:]
    assert moving, report(diags, gaps, out)
    assert "deactivated; holding the commanded position" in out, out[-3000:]  # the deactivate at the SIGTERM
    assert proc.returncode == 0, out[-3000:]
    assert "Traceback" not in out, out[-3000:]


def test_up_inactive_refuses_until_the_lifecycle_command_activates_the_bridge(repo_root):
    """`up bridge_sim --lifecycle inactive`: the bridge refuses a motion with "not active";
    `humanoid-stack lifecycle robot_bridge activate` (its ~/change_state service from another
    process) arms it and the same motion executes; `state` reports it; a node that does not exist
    is a one-line error, exit 2."""
    import subprocess
    import sys

    def lifecycle(*args):
        return subprocess.run(
            [sys.executable, "-m", "humanoid_stack", "lifecycle", *args],
            cwd=repo_root,
            capture_output=True,
            text=True,
            timeout=120,
        )

    client = Client("test_up_lifecycle")
    node, executor = client.node, client.executor
    states, diags = [], []
    on_state, gaps = gap_recorder(states)
    node.create_subscription(JointState, "/joint_states", on_state, 10)
    node.create_subscription(
        DiagnosticArray,
        "/diagnostics",
        lambda m: diags.extend(s for s in m.status if s.name.startswith("robot_bridge")),
        100,
    )
    pub = node.create_publisher(JointTrajectory, "/robot_bridge/trajectory", 10)
    proc = start_up(repo_root, "bridge_sim", "--duration", "90", "--lifecycle", "inactive")
    spin_until = spinner(executor, proc, TIMEOUT)

    def head():
        return dict(zip(states[-1].name, states[-1].position))[HEAD]

    def diag(text, n0):
        return next((d for d in diags[n0:] if text in d.message), None)

    refused = before = activated = after = executed = missing = None
    try:
        assert spin_until(lambda: states and pub.get_subscription_count())
        time.sleep(1.0)
        executor.spin_once(timeout_sec=0.05)
        start = head()
        pub.publish(head_motion(start, start))
        assert spin_until(lambda: diag("refused", 0) is not None)
        refused = diag("refused", 0).message
        before = lifecycle("robot_bridge", "state")
        activated = lifecycle("robot_bridge", "activate")
        after = lifecycle("/robot_bridge", "state")
        executor.spin_once(timeout_sec=0.05)
        start = head()
        executed = send_until_decided(pub, spin_until, diags, head_motion(start, start))
        missing = lifecycle("no_such_node", "state", "--timeout", "1")
    finally:
        out = stop(proc, sigterm=executed is not None)
        client.close()
    assert "not active" in refused, refused
    assert before.returncode == 0 and before.stdout.strip() == "/robot_bridge: inactive", before
    assert activated.returncode == 0 and activated.stdout.strip() == "/robot_bridge: active", activated
    assert after.stdout.strip() == "/robot_bridge: active", after
    assert executed and "succeeded" in executed, report(diags, gaps, out)
    assert missing.returncode == 2 and "no lifecycle node /no_such_node answers" in missing.stderr, missing
    assert "Traceback" not in missing.stderr + out, out[-3000:]
    assert proc.returncode == 0, out[-3000:]
