"""The simulator node's haptic interface (docs/haptics.md) with real
rclpy (the harness of test_ros_simulator.py; conftest isolates DDS): ~/haptic_pointer,
~/haptic_attach, ~/haptic_release, ~/haptic_force; a NaN pointer refused while the node keeps
stepping; an attach refused with its reason."""

import numpy as np
import pytest

pytestmark = [pytest.mark.ros, pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")]

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from geometry_msgs.msg import PoseStamped, WrenchStamped  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from humanoid_ros.simulator import SimulatorNode  # noqa: E402

TIMEOUT = 90.0  # [s] wall bound on a loaded 2-core machine (chosen, as test_ros_simulator.py)
BOX = (1.0, 0.0, 0.05)  # [m] the box centre: 1 m in front of HRP-2, resting on the floor (chosen)

SCENE = f"""
name: haptic_box
description: HRP-2 standing, a 1 kg box 1 m in front of it (test_ros_simulator_haptics.py).
gravity: [0, 0, -9.81]
ground: {{height: 0.0, friction: 0.4, restitution: 0.0}}
free_bodies:
  - name: box
    shape: box
    size: [0.1, 0.1, 0.1]
    mass: 1.0
    pose: {{xyz: [{BOX[0]}, {BOX[1]}, {BOX[2]}]}}
robot:
  name: hrp2
  posture: half-sitting
"""


def pose(x, y, z):
    m = PoseStamped()
    m.header.frame_id = "odom"
    m.pose.position.x, m.pose.position.y, m.pose.position.z = float(x), float(y), float(z)
    m.pose.orientation.w = 1.0
    return m


def test_attach_pulls_the_box_toward_the_pointer_and_renders_the_opposite_force(ros_harness, tmp_path):
    """Attach to the box, pointer 10 cm ahead along +x: the box slides toward it (k_p·0.1 = 50 N
    against 3.9 N of friction) and ~/haptic_force is −x (the spring pulls the hand back toward the
    object, eq. 3.63); settled, the box is within μ m g / k_p = 7.8 mm (+1 mm) of the pointer and
    the force within μ m g; touch mode pushes it on and renders −x; a NaN pointer is refused with a message and the steps go on; release
    stops ~/haptic_force; an unknown body is refused with its name."""
    scene = tmp_path / "haptic_box.yaml"
    scene.write_text(SCENE)
    h = ros_harness(timeout=TIMEOUT, period=0.02)
    fast = [Parameter("real_time_factor", value=0.0), Parameter("publish_rate", value=100.0)]
    node = h.add(
        SimulatorNode(
            context=h.context,
            parameter_overrides=[*fast, Parameter("scene", value=str(scene)), Parameter("haptic.body", value="box")],
        )
    )
    client = h.add(rclpy.create_node("haptic_user", context=h.context))
    pointer = client.create_publisher(PoseStamped, "/simulator/haptic_pointer", 10)
    forces, bodies = [], []
    client.create_subscription(WrenchStamped, "/simulator/haptic_force", forces.append, 100)
    client.create_subscription(Odometry, "/free_bodies", bodies.append, 100)
    clients = {a: client.create_client(Trigger, f"/simulator/haptic_{a}") for a in ("attach", "touch", "release")}

    def call(action):
        assert h.spin_until(clients[action].service_is_ready)
        future = clients[action].call_async(Trigger.Request())
        assert h.spin_until(future.done)
        return future.result()

    res = call("attach")
    assert not res.success and "no pointer pose" in res.message
    assert h.spin_until(lambda: pointer.get_subscription_count())
    pointer.publish(pose(*BOX))
    assert h.spin_until(lambda: node.world.haptics is not None and node.world.haptics.position is not None)
    res = call("attach")
    assert res.success, res.message
    x0 = node.world.body_state("box").position[0]
    pointer.publish(pose(BOX[0] + 0.1, BOX[1], BOX[2]))
    assert h.spin_until(lambda: node.world.body_state("box").position[0] > x0 + 0.05)
    assert h.spin_until(lambda: len(forces) > 5)
    fx = np.array([m.wrench.force.x for m in forces])
    # the first non-zero force, the first after the 10 cm move: opposite to the displacement (messages
    # published between the attach and the moved pointer's arrival carry 0, or rounding such as 8e-17 N
    # on a loaded machine)
    moved = fx[np.abs(fx) > 1e-6]
    assert moved.size and moved[0] < -5.0, fx[:5]
    assert forces[-1].header.frame_id == "odom"
    t_move = node.world.t
    assert h.spin_until(lambda: node.world.t > t_move + 1.5)  # ζ = 1/√2 and friction: settled
    k = len(forces)
    assert h.spin_until(lambda: len(forces) > k)
    f_end = forces[-1].wrench.force
    assert abs(f_end.x) <= 0.4 * 9.81 * 1.0 + 0.05  # what static friction can hold, μ m g
    assert node.world.body_state("box").position[0] == pytest.approx(BOX[0] + 0.1, abs=0.4 * 9.81 / 500.0 + 1e-3)
    # /free_bodies: one Odometry per free body (the box), pose in odom, twist in the box's frame;
    # the box slid toward +x, and rests where the world has it
    assert {(m.header.frame_id, m.child_frame_id) for m in bodies} == {("odom", "box")}
    assert max(m.twist.twist.linear.x for m in bodies) > 0.05
    p = bodies[-1].pose.pose.position
    assert [p.x, p.y, p.z] == pytest.approx(node.world.body_state("box").position, abs=1e-4)

    n, t = node.rejected, node.world.t
    bad = pose(BOX[0] + 0.1, BOX[1], BOX[2])
    bad.pose.position.y = float("nan")
    pointer.publish(bad)
    assert h.spin_until(lambda: node.rejected == n + 1)
    assert "position" in node.last_rejection and "nan" in node.last_rejection
    assert h.spin_until(lambda: node.world.t > t + 0.2) and node.stepper_alive and not node.paused
    assert np.isfinite(node.world.haptics.position).all()

    assert call("release").success
    assert h.spin_until(lambda: not node.world.haptics.active)
    h.spin_until(lambda: False, timeout=0.3)
    k = len(forces)
    h.spin_until(lambda: False, timeout=0.5)
    assert len(forces) == k  # no feedback while nothing is coupled

    # touch: the pointer sphere (r = 1 cm) 3 cm into the box's −x face pushes it on until the depth is
    # μ m g / k_p = 7.8 mm: about 2 cm
    bx = node.world.body_state("box").position[0]
    pointer.publish(pose(bx - 0.3, BOX[1], BOX[2]))
    assert h.spin_until(lambda: node.world.haptics.position[0] == pytest.approx(bx - 0.3))
    assert call("touch").success
    pointer.publish(pose(bx - 0.03, BOX[1], BOX[2]))
    assert h.spin_until(lambda: node.world.body_state("box").position[0] > bx + 0.01)
    k = len(forces)
    assert h.spin_until(lambda: len(forces) > k and forces[-1].wrench.force.x < -1.0)
    assert call("release").success

    assert node.set_parameters([Parameter("haptic.body", value="no_such_body")])[0].successful
    res = call("attach")
    assert not res.success and "no_such_body" in res.message
