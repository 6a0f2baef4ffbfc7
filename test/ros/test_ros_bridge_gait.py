"""The robot bridge executing the BIP cyclic gait from GAIT.json (and refusing it marked
unconverged unless allowed), and streaming to a forward position controller: real
rclpy nodes on loopback, the simulator standing in for the robot (`ros_bridge_stack.Stack`).

The robot. BIP floats in a scene without gravity or ground, joints under the simulator's PD, base
free (a fixed base or a standing robot would serve too; neither exists here: a scene cannot weld
a robot's base, and BIP standing in gravity falls when only the joint part of a walking gait is
played, since the gait balances through the base motion it leaves out). Floating without gravity,
the joints' tracking is what the bridge commands and measures; the base drifts with the joints'
reaction and nothing else. It starts at the gait's first joint positions (scene overrides), so
the start-state check passes as on a robot brought to the gait's start.

The gait. `humanoid-stack gait --robot bip --phase cyclic` (DS 0.17 s + SS 0.5 s, 0.67 s,
6 sagittal joints, base pose per sample). Its joint accelerations along the linear interpolation
(up to ~190 rad/s² at the 5 ms samples, at the double-support / single-support junction) exceed
the bridge's default 10 rad/s² (`humanoid_control/bridge/limits.py`, a chosen value for a URDF
without acceleration limits), so it runs with the `retime` policy, stretched ~7.6 times (measured),
as a lab would first play it.
"""

import json

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from diagnostic_msgs.msg import DiagnosticStatus  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from support.ros_bridge_stack import Stack, settle  # noqa: E402

from humanoid_control.bridge import load_plan, sample  # noqa: E402
from humanoid_model import load_robot  # noqa: E402
from humanoid_ros.robot_bridge import trajectory_from_msg  # noqa: E402
from humanoid_stack.cli import main  # noqa: E402

TRACK = 0.05  # [rad] tracking tolerance of a valid motion (chosen, as test_ros_bridge.py)


@pytest.fixture(scope="module")
def gait_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("gait") / "GAIT.json"
    assert main(["gait", "--robot", "bip", "--phase", "cyclic", "--output", str(out)]) == 0
    return out


def values_of(status) -> dict:
    return {kv.key: kv.value for kv in status.values}


def tracking_errors(stack, traj, names):
    """Largest |measured - commanded| over `names` of every /joint_states inside the motion."""
    start = stack.sim.world.actuator.trajectory_start
    errors = []
    for m in stack.states:
        t = m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec - start
        if 0 <= t <= traj.duration:
            want = dict(zip(traj.joint_names, sample(traj, t)))
            got = dict(zip(m.name, m.position))
            errors.append(max(abs(got[n] - want[n]) for n in names))
    return np.array(errors)


def test_bip_cyclic_gait_from_gait_json_executes_and_the_joints_follow(tmp_path, gait_file):
    """~/execute_file with the gait's GAIT.json: the joint part is sent (the report says the base
    motion is not), retimed within the limits, the six gait joints follow the commanded
    interpolation within TRACK all along, end within the goal tolerance of the gait's last point,
    and the bridge reports success; the nine joints the gait does not name hold still."""
    bip = load_robot("bip")
    plan, _ = load_plan(gait_file, bip)
    start = dict(zip(plan.joint_names, plan.positions[0].tolist()))
    stack = Stack(
        tmp_path,
        robot="bip",
        domain_offset=1,
        joints=start,
        # the stack's watchdog margin (ros_bridge_stack.STATE_TIMEOUT)
        bridge_params=[
            Parameter("policy", value="retime"),
            Parameter("execute_file", value=str(gait_file)),
        ],
    )
    try:
        settle(stack)
        q0 = stack.joints()
        n0, c0 = len(stack.diags), len(stack.commands)
        res = stack.call(stack.services["execute_file"])
        assert res.success, res.message
        executing = stack.wait_diag(n0, "executing")
        assert executing.level == DiagnosticStatus.OK
        values = values_of(executing)
        assert any("floating-base" in v and "joint part" in v for v in values.values()), values
        stretch = float(values["stretch"])
        assert stretch > 1.0
        assert stack.spin_until(lambda: len(stack.commands) > c0)
        sent = trajectory_from_msg(stack.commands[c0], "test")
        assert sent.joint_names == stack.names  # every joint named: the others hold
        assert sent.duration == pytest.approx(plan.duration * stretch, rel=1e-5)  # stretch printed with 6 digits
        done = stack.wait_diag(n0, "succeeded")
        assert done.level == DiagnosticStatus.OK
        errors = tracking_errors(stack, sent, plan.joint_names)
        assert len(errors) > 100 * plan.duration * stretch * 0.8  # /joint_states at 100 Hz all along
        assert errors.max() < TRACK, errors.max()
        end = stack.joints()
        goal = dict(zip(plan.joint_names, plan.positions[-1]))
        for n in plan.joint_names:
            assert abs(end[n] - goal[n]) < stack.bridge.p["goal_tolerance"], n
        others = [n for n in stack.names if n not in plan.joint_names]
        assert len(others) == 9
        # the gait's joints' reaction moves the free base, not the other joints (PD, 1 mrad: chosen)
        assert max(abs(end[n] - q0[n]) for n in others) < 1e-3
    finally:
        stack.close()


def test_a_gait_with_an_unconverged_phase_is_refused_by_execute_file_unless_allowed(tmp_path, gait_file):
    """~/execute_file with the gait's GAIT.json marked unconverged on its phase (``converged``
    false: the rows are the solver's last iterate): with the default parameters refused, naming the
    phase and `allow_unconverged_gait`, nothing sent; with `allow_unconverged_gait: true` accepted
    and executing, the note in its report (then stopped: the execution itself is the test above)."""
    doc = json.loads(gait_file.read_text())
    unconverged = tmp_path / "UNCONVERGED.json"
    unconverged.write_text(json.dumps({**doc, "phases": [{**p, "converged": False} for p in doc["phases"]]}))
    plan, _ = load_plan(gait_file, load_robot("bip"))
    stack = Stack(
        tmp_path,
        robot="bip",
        domain_offset=3,
        joints=dict(zip(plan.joint_names, plan.positions[0].tolist())),
        bridge_params=[Parameter("policy", value="retime"), Parameter("execute_file", value=str(unconverged))],
    )
    try:
        settle(stack)
        n0, c0 = len(stack.diags), len(stack.commands)
        res = stack.call(stack.services["execute_file"])
        assert not res.success
        assert "phases[0].converged" in res.message and "allow_unconverged_gait" in res.message, res.message
        assert stack.wait_diag(n0, "converged").level == DiagnosticStatus.ERROR
        stack.spin(0.2)
        assert len(stack.commands) == c0 and stack.bridge.execution is None
        stack.set(allow_unconverged_gait=True)
        n1 = len(stack.diags)
        res = stack.call(stack.services["execute_file"])
        assert res.success, res.message
        executing = stack.wait_diag(n1, "executing")
        assert any("did not converge" in v for v in values_of(executing).values()), values_of(executing)
        assert stack.spin_until(lambda: len(stack.commands) > c0)
        assert stack.call(stack.services["stop"]).success
    finally:
        stack.close()


def test_forward_position_controller_is_streamed_along_the_interpolation(tmp_path):
    """controller_type forward_position: the bridge streams `<controller>/commands` at `rate` in the
    controller's joint order (here the URDF's, as the simulator's stand-in controller), each command a sample of the validated trajectory (the knee's
    cubic from 0.2 to 0.8 rad in 1 s), the last one the goal; the joints follow within TRACK and
    the bridge reports success. ~/stop then sends the last command (the set-point) once."""
    order = load_robot("bip").joint_names  # the stand-in's forward controller takes the URDF order
    stack = Stack(
        tmp_path,
        robot="bip",
        domain_offset=2,
        topic="/forward_position_controller/commands",
        sim_params=[Parameter("controller", value="forward_position_controller")],
        bridge_params=[Parameter("controller_type", value="forward_position")],
    )
    try:
        settle(stack)
        q = stack.joints()
        knee = "l_knee"
        n0, c0 = len(stack.diags), len(stack.commands)
        stack.send([knee], [(0.0, [q[knee]], [0.0]), (1.0, [0.8], [0.0])])
        assert stack.wait_diag(n0, "executing").level == DiagnosticStatus.OK
        assert stack.wait_diag(n0, "succeeded").level == DiagnosticStatus.OK
        k = order.index(knee)
        # the last commands may arrive after the diagnostic (another topic): wait for the goal's
        assert stack.spin_until(lambda: abs(stack.commands[-1].data[k] - 0.8) < 1e-12)
        stream = [list(m.data) for m in stack.commands[c0:]]
        assert (
            len(stream) >= 80
        )  # 1 s at 100 Hz (98 measured; a loaded machine skips ticks), then until the goal is met
        assert all(len(row) == len(order) for row in stream)
        path = np.array([row[k] for row in stream])
        # samples of the cubic: monotonic from the start to the goal, never outside them
        assert np.all(np.diff(path) >= -1e-12) and path[0] >= q[knee] - 1e-12
        assert path[-1] == pytest.approx(0.8, abs=1e-12)
        assert np.max(path) <= 0.8 + 1e-12
        others = [i for i, n in enumerate(order) if n != knee]
        for i in others:  # the joints the trajectory does not name hold their measured position
            assert max(abs(row[i] - q[order[i]]) for row in stream) < 1e-6  # settled to 1e-7 rad
        assert abs(stack.joints()[knee] - 0.8) < stack.bridge.p["goal_tolerance"]
        n1 = len(stack.commands)
        assert stack.call(stack.services["stop"]).success
        assert stack.spin_until(lambda: len(stack.commands) == n1 + 1)
        # the hold is the last command (the goal the controller holds), not the measured knee, which
        # sags below it: a hold of the measurement would lower the robot at every ~/stop
        assert list(stack.commands[-1].data) == stream[-1]
        stack.spin(0.2)
        assert len(stack.commands) == n1 + 1  # no stream after the stop
    finally:
        stack.close()
