"""Joint limits (`humanoid_sim.stages.joint_limits`; docs/simulator.md "Joint limits"): a joint
within LIMIT_MARGIN of a limit is a frictionless unilateral row of the contact solve with the
contact gap law; a joint driven into its limit stays there and the limit torque balances the
motor torque."""

import numpy as np
import pytest

from humanoid_sim.stages.contacts import BETA
from humanoid_sim.stages.joint_limits import LIMIT_MARGIN
from humanoid_sim.world import World

ZERO_G = """
gravity: [0, 0, 0]
ground: null
robot: {name: hrp2, posture: half-sitting, base: {xyz: [0, 0, 1.0]}}
"""


def _zero_g_world(tmp_path):
    """HRP-2 half-sitting floating 1 m up in zero gravity (no contact), PD to the posture."""
    p = tmp_path / "zero_g.yaml"
    p.write_text(ZERO_G)
    return World.from_scene(p)


def test_joint_limit_rows_of_joints_near_their_limits(tmp_path):
    """`JointLimitRows.rows`: a joint within LIMIT_MARGIN of a limit gets one row ±e_j (positive away
    from the limit), the contact gap law (gap/dt; β gap/dt beyond the limit) and a (name, side)
    key; none when every joint is clear; the previous forces warm-start the rows."""
    w = _zero_g_world(tmp_path)
    lim = w.limits
    assert lim.rows(w.q) is None  # half-sitting is clear of every limit
    names = w.robot.joint_names
    i, j = names.index("RARM_JOINT3"), names.index("LLEG_JOINT3")
    q = w.q.copy()
    q[w.act_q[i]] = w.q_upper[i] - 0.004  # 0.004 rad below the upper limit (inside the margin)
    q[w.act_q[j]] = w.q_lower[j] - 0.002  # 2e-3 rad beyond the lower limit
    rows = lim.rows(q)
    assert rows.keys == [("LLEG_JOINT3", "lower"), ("RARM_JOINT3", "upper")]
    np.testing.assert_array_equal(rows.sign, [1.0, -1.0])
    np.testing.assert_allclose(rows.gap, [BETA * -0.002 / w.dt, 0.004 / w.dt], rtol=1e-9)
    expected = np.zeros((2, w.nv_robot))
    expected[0, w.act_v[j]], expected[1, w.act_v[i]] = 1.0, -1.0
    np.testing.assert_array_equal(rows.rows, expected)
    assert LIMIT_MARGIN > 0.004
    assert lim.warm(rows) == [0.0, 0.0]
    lim.remember(rows, np.array([5.0, 2.0]))
    assert lim.warm(rows) == [5.0, 2.0]
    assert lim.torques == {"LLEG_JOINT3": 5.0, "RARM_JOINT3": -2.0}  # signed: toward larger q


def test_joint_limit_holds_a_driven_elbow_and_balances_its_torque(tmp_path):
    """Zero gravity; the PD holds every joint but the right elbow, which gets a constant 20 N·m
    toward its upper limit (chosen). The limit row stops it: the joint stays at the limit (the
    gap law removes any overshoot) and the limit torque balances the motor torque."""
    w = _zero_g_world(tmp_path)
    j = w.robot.joint_names.index("RARM_JOINT3")
    hi = w.q_upper[j]
    w.actuator.kp[j] = w.actuator.kv[j] = 0.0
    tau = np.zeros(w.n_act)
    tau[j] = 20.0
    w.actuator.set_position(w.q[w.act_q], tau_ff=tau)
    w.step(3000)  # 3 s: the free-floating body's slow sway has died out
    qj = w.q[w.act_q][j]
    assert abs(qj - hi) < 1e-6
    assert w.limit_torques["RARM_JOINT3"] == pytest.approx(-20.0, abs=1e-3)
    assert abs(w.v[w.act_v][j]) < 1e-6 and np.abs(w.v).max() < 1e-3
