"""Contact-consistent gravity compensation (`humanoid_sim.runtime.contact_gravity`): the forces found carry
HRP-2's weight and balance its CoM's moment (world-frame Newton-Euler, independent of the base
rows the solver enforces), lie in the friction cones, and the feedforward equals Pinocchio's RNEA
with those forces as external forces; three points are statically determinate (the forces are
m g times the CoM's barycentric coordinates); a stance that cannot hold the weight raises; and in
the simulator the feedforward holds half-sitting with zero PD error, where the World's free-floating
gravity compensation sags."""

import dataclasses

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model import load_robot
from humanoid_model.exceptions import ConfigError
from humanoid_model.scene import load_scene
from humanoid_sim.exceptions import SimulatorError
from humanoid_sim.runtime.contact_gravity import TOLERANCE, contact_gravity
from humanoid_sim.world import World

MU = 0.4  # the scenes' mu (the thesis's, Chardonnet 2009, §3.1.6.1)


@pytest.fixture(scope="module")
def hrp2():
    robot = load_robot("hrp2")
    return robot, robot.q("half-sitting")


def _newton_euler(robot, q, cg):
    """(total force + m g, sum of (p - com) x f) in the world frame [N], [N m]: both zero in balance."""
    model = robot.model
    com = pin.centerOfMass(model, model.createData(), q)
    weight = robot.mass * model.gravity.linear
    return cg.forces.sum(0) + weight, np.cross(cg.points - com, cg.forces).sum(0)


def _rnea_with_forces(robot, q, cg):
    """RNEA(q, 0, 0, f_ext) with the contact forces as external forces: g - J_c^T f, all rows."""
    model = robot.model
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    fext = pin.StdVec_Force()
    for _ in range(model.njoints):
        fext.append(pin.Force.Zero())
    for p, f, name in zip(cg.points, cg.forces, cg.names):
        j = model.frames[model.getFrameId(robot.contact_locations[name].body)].parentJoint
        R, pl = data.oMi[j].rotation, data.oMi[j].actInv(p)
        fext[j] += pin.Force(R.T @ f, np.cross(pl, R.T @ f))
    zero = np.zeros(model.nv)
    return pin.rnea(model, data, q, zero, zero, fext)


def _check_balance(robot, q, cg, mu):
    mg = robot.mass * np.linalg.norm(robot.model.gravity.linear)
    force, moment = _newton_euler(robot, q, cg)
    assert np.abs(force).max() < TOLERANCE * mg and np.abs(moment).max() < TOLERANCE * mg
    tau_s = _rnea_with_forces(robot, q, cg)
    assert np.abs(tau_s[:6]).max() < TOLERANCE * mg  # the base rows of g - J^T f
    assert np.abs(tau_s[6:] - cg.tau).max() < TOLERANCE * mg
    fn = np.einsum("ij,ij->i", cg.forces, cg.normals)
    ft = np.linalg.norm(cg.forces - fn[:, None] * cg.normals, axis=1)
    assert np.all(fn >= -TOLERANCE * mg) and np.all(ft <= mu * fn + TOLERANCE * mg)


def test_half_sitting_on_both_feet_balances_the_weight_and_matches_rnea(hrp2):
    robot, q = hrp2
    cl = robot.contact_locations
    cg = contact_gravity(robot.model, q, [(cl["l_sole"], MU), (cl["r_sole"], MU)])
    assert cg.forces.shape == (8, 3) and cg.tau.shape == (robot.model.nv - 6,)
    _check_balance(robot, q, cg, MU)
    # the free-floating gravity torques are not the answer: the legs carry the weight
    g = pin.computeGeneralizedGravity(robot.model, robot.model.createData(), q)
    assert np.abs(g[6:] - cg.tau).max() > 10.0


def test_one_foot_under_the_com_balances_the_weight(hrp2):
    robot, q = hrp2
    com = pin.centerOfMass(robot.model, robot.model.createData(), q)
    sole = robot.contact_locations["r_sole"]
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    oMf = data.oMf[robot.model.getFrameId(sole.body)]
    # the right sole widened inward (body frame) until its hull spans the CoM's y with 2 cm to spare
    hull = np.array(sole.hull, float)
    inner = oMf.actInv(np.array([com[0], com[1] + 0.02, oMf.translation[2]]))[1]
    hull[hull[:, 1] == hull[:, 1].max(), 1] = inner
    wide = dataclasses.replace(sole, hull=hull)
    cg = contact_gravity(robot.model, q, [(wide, MU)])
    _check_balance(robot, q, cg, MU)


def test_three_points_take_the_com_barycentric_shares_of_the_weight(hrp2):
    """Three points with vertical normals: the vertical forces are statically determinate (m g
    times the barycentric coordinates of the CoM's ground projection) and the least-norm
    tangential forces are zero, so the answer is the same without friction (mu 0)."""
    robot, q = hrp2
    cl = robot.contact_locations
    left = dataclasses.replace(cl["l_sole"], hull=np.array(cl["l_sole"].hull)[:2])  # the outer edge
    right = dataclasses.replace(cl["r_sole"], hull=np.array(cl["r_sole"].hull)[:1])  # the outer heel
    cg = contact_gravity(robot.model, q, [(left, 0.0), (right, 0.0)])
    com = pin.centerOfMass(robot.model, robot.model.createData(), q)
    P = np.vstack([cg.points[:, :2].T, np.ones(3)])
    lam = np.linalg.solve(P, np.array([com[0], com[1], 1.0]))
    assert np.all(lam > 0.05)  # the CoM is well inside the triangle: the case is well posed
    mg = robot.mass * np.linalg.norm(robot.model.gravity.linear)
    assert np.allclose(cg.forces[:, 2], mg * lam, rtol=0, atol=TOLERANCE * mg)
    assert np.abs(cg.forces[:, :2]).max() < TOLERANCE * mg
    _check_balance(robot, q, cg, 0.0)


def test_a_stance_that_cannot_hold_the_weight_is_refused(hrp2):
    robot, q = hrp2  # half-sitting's CoM is between the feet, ~9 cm from the right sole
    with pytest.raises(SimulatorError, match="cannot hold it statically"):
        contact_gravity(robot.model, q, [(robot.contact_locations["r_sole"], MU)])
    with pytest.raises(ConfigError, match="mu of 'r_sole'"):
        contact_gravity(robot.model, q, [(robot.contact_locations["r_sole"], -0.1)])
    with pytest.raises(ConfigError, match="at least one"):
        contact_gravity(robot.model, q, [])


def test_the_feedforward_holds_half_sitting_in_the_simulator_with_zero_pd_error(hrp2):
    """200 steps of 1 ms on the flat scene: with the contact feedforward (no gravity compensation)
    the joints stay at their targets to 1e-6 rad; the World's free-floating gravity compensation
    leaves the legs a PD error above 1e-4 rad (the stance legs sag)."""
    robot, q = hrp2
    scene = load_scene("flat")
    cl = robot.contact_locations
    tau = contact_gravity(robot.model, q, [(cl["l_sole"], MU), (cl["r_sole"], MU)]).tau
    errors = []
    for feedforward in (True, False):
        world = World(scene, robot, gravity_compensation=not feedforward)
        world.q[: robot.model.nq] = q
        world.actuator.set_position(q[7:], tau_ff=tau if feedforward else None)
        world.step(200)
        errors.append(np.abs(world.q[7 : robot.model.nq] - q[7:]).max())
    assert errors[0] < 1e-6 < 1e-4 < errors[1]
