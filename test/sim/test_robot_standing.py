"""HRP-2 standing on 'flat' under PD in the full simulator (docs/simulator.md
"Validation"): over 10 s the soles do not slip (< 0.1 mm), the base settles (< 1 mm after 2 s),
penetration stays < 0.1 mm and every solve converges; a 250 N push (config/standing.yaml) sways it
and it recovers; a head-yaw JointTrajectory is tracked. The 10 s run is the session fixture
`hrp2_standing_10s` (conftest.py)."""

import numpy as np
import pinocchio as pin

from humanoid_sim.stages.actuators import JointTrajectory
from humanoid_sim.world import World


def test_standing_soles_do_not_slip(hrp2_standing_10s):
    assert hrp2_standing_10s["slip"] < 1e-4  # < 0.1 mm (chosen bound)
    assert hrp2_standing_10s["world"].last.batch.m == 8  # 4 sole corners per foot


def test_standing_base_settles(hrp2_standing_10s):
    base, q0, w = hrp2_standing_10s["base"], hrp2_standing_10s["q0"], hrp2_standing_10s["world"]
    after = base[int(2.0 / w.dt) :]  # t >= 2 s
    assert np.max(np.linalg.norm(after - after[0], axis=1)) < 1e-3  # < 1 mm until 10 s
    sag = q0[2] - base[:, 2].min()
    assert 0.0 < sag < 0.01  # initial sag (reported), < 1 cm


def test_standing_penetration_bounded(hrp2_standing_10s):
    assert hrp2_standing_10s["min_gap"] > -1e-4  # < 0.1 mm
    assert hrp2_standing_10s["world"].stats()["unconverged_solves"] == 0


def test_demo_push_sways_and_recovers():
    """config/standing.yaml claims: 250 N for 0.1 s forward on BODY makes HRP-2 (flat, PD) sway
    ~17 mm and come back. Pushed at t = 0.5 s, watched for 3.5 s: the sway is 5–50 mm, the
    robot ends within 2 mm of its pre-push base position, the soles do not slide (< 1 mm) and
    both stay in contact (bounds chosen: a fall moves the base by decimetres)."""
    w = World.from_scene("flat")
    m, d = w.model, w.model.createData()
    soles = [m.getFrameId(n) for n in ("RLEG_SOLE", "LLEG_SOLE")]

    def feet():
        pin.framesForwardKinematics(m, d, w.q)
        return np.array([d.oMf[f].translation.copy() for f in soles])

    w.step(500)
    x0, f0 = w.q[:3].copy(), feet()
    w.apply_wrench("BODY", force=(250.0, 0, 0))
    w.step(100)
    w.clear_wrenches()
    sway = 0.0
    for _ in range(34):
        w.step(100)
        sway = max(sway, abs(w.q[0] - x0[0]))
    assert 5e-3 < sway < 5e-2
    assert np.linalg.norm(w.q[:3] - x0) < 2e-3
    assert np.max(np.linalg.norm((feet() - f0)[:, :2], axis=1)) < 1e-3
    assert w.last.batch.m == 8


def test_head_yaw_tracks_a_joint_trajectory_in_the_world():
    """HRP-2 standing; the head yaw follows a JointTrajectory 0 -> 0.3 rad over 0.5 s (linear
    interpolation), then holds: tracked within 1e-3 rad at the end (PD, no gravity load)."""
    w = World.from_scene("flat")
    names = w.robot.joint_names
    q0 = w.q[w.act_q].copy()
    q1 = q0.copy()
    q1[names.index("HEAD_JOINT0")] = 0.3
    w.actuator.set_trajectory(JointTrajectory([0.0, 0.5], [q0, q1]), t_start=w.t)
    w.step(250)
    mid = w.q[w.act_q][names.index("HEAD_JOINT0")]
    assert 0.1 < mid < 0.2
    w.step(750)
    assert abs(w.q[w.act_q][names.index("HEAD_JOINT0")] - 0.3) < 1e-3
