"""HRP-2 executes a 2-step walking plan (issue 12) in the simulator: the plan's joint trajectory
through the world's joint trajectory controller (PD at three times the standing gains' natural frequency,
rigid feet, flat ground), open loop (no stabilizer). It does not fall and its feet land near their footprints. Bounds: docs/walking.md."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.walking import solve_walk, stiffen
from humanoid_model import load_robot
from humanoid_planner.walking import WalkParameters, foot_geometry, plan_pattern
from humanoid_sim.actuators import JointTrajectory
from humanoid_sim.world import World

FOOT_LANDING_TOLERANCE = 0.002  # [m] chosen, measured 0.1-0.34 mm (2 steps, 30 Hz gains)
BASE_HEIGHT_FLOOR = 0.60  # [m] planned base height >= 0.644 m; a fall drops the base by decimetres


@pytest.fixture(scope="module")
def walked():
    return walk_in_world(WalkParameters(n_steps=2, step_length=0.2, t_end=0.5))


def walk_in_world(params, robot=None):
    """Plan ``params``, execute it on 'flat' (with ``robot``, default the scene's rigid HRP-2) and
    record the base height, soles and waist tilt. Joints the plan lacks (the flexible ankle's
    springs) are held at 0."""
    pattern = plan_pattern(params, foot_geometry(load_robot("hrp2")))
    ik = solve_walk(pattern.com, pattern.feet)
    w = World.from_scene("flat", robot=robot)
    stiffen(w.actuator, keep=w.robot.springs or ())
    names = w.robot.joint_names
    P = np.zeros((len(pattern.t), len(names)))
    P[:, [names.index(n) for n in ik.joint_names]] = ik.joint_positions()
    w.actuator.set_trajectory(JointTrajectory(pattern.t, P), t_start=w.t)
    m, d = w.model, w.model.createData()
    soles = [m.getFrameId(n) for n in ("RLEG_SOLE", "LLEG_SOLE")]
    body = m.getFrameId("BODY")
    base, feet, tilt = [], [], []
    for _ in range(int(round(pattern.t[-1] / w.dt))):
        w.step(1)
        pin.framesForwardKinematics(m, d, w.q)
        base.append(w.q[2])
        feet.append([np.r_[d.oMf[f].translation, pin.log3(d.oMf[f].rotation)] for f in soles])
        z = d.oMf[body].rotation[:, 2]
        tilt.append(np.arctan2(np.linalg.norm(z[:2]), z[2]))
    return {
        "pattern": pattern,
        "q0": P[0],
        "world": w,
        "base": np.array(base),
        "feet": np.array(feet),
        "tilt": np.array(tilt),
    }


def test_the_plan_starts_at_the_robots_initial_posture(walked):
    w = World.from_scene("flat")
    assert np.abs(walked["q0"] - w.q[w.act_q]).max() < 1e-5  # no jump at t = 0


def test_hrp2_walks_two_steps_without_falling(walked):
    assert walked["base"].min() > BASE_HEIGHT_FLOOR
    assert walked["tilt"].max() < 0.01  # [rad] waist from vertical (chosen; measured 0.004)


def test_feet_end_near_their_footprints(walked):
    """Sole centres at the end vs the last footprints, in x-y, and the soles' yaw at every step
    (measured 0.0012 rad; at the default 10 Hz gains the feet turned by 8-12 degrees)."""
    feet, steps = walked["feet"], walked["pattern"].steps
    final = {s.foot: s.target for s in steps}
    for i, k in enumerate(("r", "l")):
        assert np.linalg.norm(feet[-1, i, :2] - final[k]) < FOOT_LANDING_TOLERANCE
    assert np.abs(feet[:, :, 5]).max() < 0.005  # [rad] chosen
