"""The robot bridge never lowers a standing robot: HRP-2 standing on `flat` under gravity and the
simulator's PD (it sags below every set-point it holds), the bridge in front of it, real rclpy
nodes on loopback (`ros_bridge_stack.Stack` with the shipped scene).

A hold that commands the measured, sagged posture lowers the robot by one more sag at every
~/stop: 16 stops, one every 0.25 s of simulated time, take the right knee from 0.882 to 1.043
rad (+0.012 to +0.019 rad per stop), CHEST_JOINT1 to its stop (-0.0873 rad) after 5, and the robot
falls after 10 (base 0.647 -> 0.169 m); one every 2 s does the same (falls after 7; measured). So the spacing
here is 0.25 s of simulated time (the simulator runs as fast as it can: `real_time_factor` 0).
"""

import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from diagnostic_msgs.msg import DiagnosticStatus  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from support.ros_bridge_stack import Stack  # noqa: E402

STOPS = 16
STEP = 0.25  # [s] simulated time from one ~/stop to the next (chosen: the sag of one stop forms within it)
# [rad] (chosen) how far the knee and the chest may move over the stops: a tenth of what one stop
# lowered them by (0.012 rad); a robot at rest under a constant set-point moves far less
STILL = 0.0012
SWAY = 1e-4  # [rad] (chosen) the robot has stopped swaying: a tenth of STILL over STEP
STANDING = 0.6  # [m] base height of a standing HRP-2 (0.647 m half-sitting; fallen: 0.17 m)
KNEE, CHEST, ARM = "RLEG_JOINT3", "CHEST_JOINT1", "RARM_JOINT0"


@pytest.fixture(scope="module")
def stand(tmp_path_factory):
    s = Stack(
        tmp_path_factory.mktemp("bridge_stand"),
        domain_offset=5,
        scene="flat",
        sim_params=[Parameter("real_time_factor", value=0.0)],
    )
    yield s
    s.close()


def sim_time(s) -> float:
    stamp = s.states[-1].header.stamp
    return stamp.sec + 1e-9 * stamp.nanosec


def spin_sim(s, seconds):
    """Spin until the simulator's /joint_states are `seconds` of simulated time further."""
    t0 = sim_time(s)
    assert s.spin_until(lambda: sim_time(s) >= t0 + seconds, timeout=120.0)


def sway_ends(s):
    """Spin until the knee and the chest move less than SWAY over STEP of simulated time (the robot
    sways for ~2.5 s after it is set down, and after an arm motion)."""

    def still():
        before = s.joints()
        spin_sim(s, STEP)
        return all(abs(s.joints()[j] - before[j]) < SWAY for j in (KNEE, CHEST))

    assert s.spin_until(still, timeout=120.0)


def base_height(s) -> float:
    return float(s.sim.world.q[2])


def stops(s):
    """STOPS calls of ~/stop, STEP of simulated time apart -> their answers."""
    answers = []
    for _ in range(STOPS):
        answers.append(s.call(s.services["stop"]).message)
        spin_sim(s, STEP)
    return answers


def assert_where_it_was(s, ref):
    now = s.joints()
    for joint in (KNEE, CHEST):
        assert abs(now[joint] - ref[joint]) <= STILL, (joint, ref[joint], now[joint])
    assert base_height(s) > STANDING


def test_sixteen_stops_leave_the_standing_robot_where_it_was(stand):
    """16 stops with nothing commanded send nothing; after a motion cut by a stop, 16 more stops
    send that one set-point again each time; the knee and the chest stay within STILL (measured:
    under 0.0001 rad), the robot stands."""
    s = stand
    sway_ends(s)
    ref, c0 = s.joints(), len(s.commands)
    answers = stops(s)
    assert_where_it_was(s, ref)
    assert all(a.endswith("nothing commanded yet: nothing sent") for a in answers), answers[0]
    assert len(s.commands) == c0

    q = s.joints()
    n0 = len(s.diags)
    s.send([ARM], [(0.0, [q[ARM]], [0.0]), (1.0, [q[ARM] - 0.1], [0.0])])
    assert s.wait_diag(n0, "executing").level == DiagnosticStatus.OK
    spin_sim(s, 0.5)
    cut = s.call(s.services["stop"]).message
    assert "holding the commanded position" in cut, cut
    sway_ends(s)  # the robot settles on the hold
    ref, c1 = s.joints(), len(s.commands)
    held = list(s.commands[-1].points[0].positions)
    answers = stops(s)
    assert all(a.endswith("holding the last commanded position") for a in answers), answers[0]
    assert len(s.commands) == c1 + STOPS
    assert all(list(c.points[0].positions) == held for c in s.commands[c1:])
    assert_where_it_was(s, ref)
