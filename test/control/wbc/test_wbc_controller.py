"""The whole-body controller (`humanoid_control.wbc.controller.WholeBodyController`) on HRP-2
standing at half-sitting on both soles.

Its command is checked with computations of its own: Pinocchio's recursive Newton-Euler algorithm
with the contact forces as external forces on the feet (each corner force at its world point),
forward kinematics with the returned acceleration (the held soles do not move, the CoM accelerates
as Newton says), and the soles' hulls of urdf/hrp2.yaml (the corners moved ``cop_margin`` inwards
by hand, the friction pyramids, the centres of pressure)."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.exceptions import ControlError
from humanoid_control.wbc.controller import WbcSettings, WholeBodyController
from humanoid_control.wbc.qp import QPResult
from humanoid_model.planar_polygon import convex_hull, signed_distance
from humanoid_model.robot import load_robot

FEET = ("l_sole", "r_sole")
EPS = 1e-5  # [N], [N·m], [m/s²]: the QP's minimiser is exact to round-off; rows of ~1e2 N, the
# dynamics recomputed by Pinocchio


@pytest.fixture(scope="module")
def robot():
    return load_robot("hrp2")


def _standing(robot, v=None, **settings):
    """A controller holding both soles, its CoM, base and posture references at the measured state."""
    ctrl = WholeBodyController(robot, WbcSettings(**settings))
    q = robot.q()
    v = np.zeros(robot.model.nv) if v is None else v
    ctrl.dyn.update(q, v)
    for foot in FEET:
        ctrl.add_contact(foot)
    ctrl.com.set_reference(ctrl.dyn.com.copy())
    ctrl.posture.set_reference(q)
    ctrl.base.set_reference(ctrl.dyn.placement(ctrl.base.fid).copy())
    return ctrl, q, v


def _sole_corners(robot, name, margin):
    """The sole's hull rectangle (body frame, from the robot's data) shrunk by ``margin`` by hand:
    (4, 3) points of the body frame, and the unshrunk rectangle (4, 2) counter-clockwise."""
    loc = robot.contact_locations[name]
    assert np.allclose(loc.normal, [0, 0, 1]) and np.allclose(loc.tangent, [1, 0, 0])  # contact axes = body axes
    hull = np.asarray(loc.hull)
    (x0, y0), (x1, y1) = hull[:, :2].min(axis=0), hull[:, :2].max(axis=0)
    z = hull[0, 2]
    rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    shrunk = np.array(
        [[x0 + margin, y0 + margin], [x1 - margin, y0 + margin], [x1 - margin, y1 - margin], [x0 + margin, y1 - margin]]
    )
    return np.column_stack([shrunk, np.full(4, z)]), rect


def _corner_points(robot, ctrl, q, name):
    """World points (k, 3) of contact ``name``'s corners, in the order of the command's forces,
    after checking that those corners are the hand-shrunk rectangle."""
    loc = robot.contact_locations[name]
    expected, _ = _sole_corners(robot, name, ctrl.settings.cop_margin)
    body = ctrl.contacts[name].corners + loc.point  # contact frame = body axes at the location's point
    assert sorted(map(tuple, np.round(body, 12))) == sorted(map(tuple, np.round(expected, 12)))
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    oMb = data.oMf[robot.model.getFrameId(loc.body)]
    return np.array([oMb.act(p) for p in body])


def _inverse_dynamics(robot, ctrl, q, v, cmd):
    """rnea(q, v, a, f_ext) (nv,) with every corner force of the command at its world point."""
    model = robot.model
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    fext = [pin.Force.Zero() for _ in range(model.njoints)]
    for name, forces in cmd.forces.items():
        joint = model.frames[model.getFrameId(robot.contact_locations[name].body)].parentJoint
        oMi = data.oMi[joint]
        for p, f in zip(_corner_points(robot, ctrl, q, name), forces, strict=True):
            f_local = oMi.rotation.T @ f
            fext[joint] += pin.Force(f_local, np.cross(oMi.actInv(p), f_local))
    return pin.rnea(model, data, q, v, cmd.a, fext)


def _accelerations(robot, q, v, a, frame):
    model = robot.model
    data = model.createData()
    pin.forwardKinematics(model, data, q, v, a)
    pin.updateFramePlacements(model, data)
    return pin.getFrameClassicalAcceleration(model, data, model.getFrameId(frame), pin.ReferenceFrame.LOCAL).vector


def test_torques_and_contact_forces_satisfy_the_inverse_dynamics(robot):
    ctrl, q, v = _standing(robot)
    cmd = ctrl.compute(q, v)
    assert cmd.solved and set(cmd.forces) == set(FEET)
    tau = _inverse_dynamics(robot, ctrl, q, v, cmd)
    assert np.allclose(tau[:6], 0.0, atol=EPS)  # the floating base: no actuator
    assert np.allclose(tau[6:], cmd.tau, rtol=0, atol=EPS)


def test_with_a_moving_robot_the_inverse_dynamics_still_hold_and_the_soles_slip_is_damped(robot):
    rng = np.random.default_rng(0)
    v = rng.uniform(-0.05, 0.05, robot.model.nv)  # the soles move: measured slip
    ctrl, q, v = _standing(robot, v)
    cmd = ctrl.compute(q, v)
    assert cmd.solved
    tau = _inverse_dynamics(robot, ctrl, q, v, cmd)
    assert np.allclose(tau[:6], 0.0, atol=EPS) and np.allclose(tau[6:], cmd.tau, rtol=0, atol=EPS)
    # each contact frame's acceleration (own axes) is −K_d times its velocity: a contact frame at
    # the location's point with the body's axes, built here from the robot data
    model = pin.Model(robot.model)
    for foot in FEET:
        loc = robot.contact_locations[foot]
        body = model.getFrameId(loc.body)
        frame = model.frames[body]
        model.addFrame(
            pin.Frame(
                "c_" + foot, frame.parentJoint, body, frame.placement * pin.SE3(np.eye(3), loc.point), pin.OP_FRAME
            )
        )
    data = model.createData()
    pin.forwardKinematics(model, data, q, v, cmd.a)
    pin.updateFramePlacements(model, data)
    for foot in FEET:
        fid = model.getFrameId("c_" + foot)
        acc = pin.getFrameClassicalAcceleration(model, data, fid, pin.ReferenceFrame.LOCAL).vector
        vel = pin.getFrameVelocity(model, data, fid, pin.ReferenceFrame.LOCAL).vector
        assert np.linalg.norm(vel) > 1e-3
        assert np.allclose(acc, -ctrl.settings.contact_kd * vel, rtol=0, atol=EPS)


def test_held_soles_do_not_accelerate(robot):
    ctrl, q, v = _standing(robot)
    ctrl.com.set_reference(ctrl.dyn.com + [0.02, -0.01, -0.01])  # the CoM asked to move
    cmd = ctrl.compute(q, v)
    assert cmd.solved and np.linalg.norm(cmd.a) > 1e-2
    for foot in FEET:
        assert np.allclose(_accelerations(robot, q, v, cmd.a, robot.contact_locations[foot].body), 0.0, atol=EPS)


@pytest.mark.parametrize("mu, margin", [(0.4, 0.002), (0.2, 0.02)])
def test_each_corner_force_is_in_its_pyramid_and_each_soles_cop_keeps_the_margin(robot, mu, margin):
    ctrl, q, v = _standing(robot, mu=mu, cop_margin=margin)
    ctrl.com.set_reference(ctrl.dyn.com + [0.05, 0.03, 0.0])  # a CoM task that pushes the CoP
    cmd = ctrl.compute(q, v)
    assert cmd.solved
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    m = mu / np.sqrt(2.0)
    loaded = 0
    for foot in FEET:
        R = data.oMf[robot.model.getFrameId(robot.contact_locations[foot].body)].rotation
        f = cmd.forces[foot] @ R  # rows in the sole's axes
        assert np.all(f[:, 2] >= -EPS)
        assert np.all(np.abs(f[:, :2]) <= m * f[:, 2:3] + EPS)
        if f[:, 2].sum() < 0.05 * robot.mass * 9.81:
            continue  # an unloaded sole has no centre of pressure
        loaded += 1
        _, rect = _sole_corners(robot, foot, margin)
        body = ctrl.contacts[foot].corners[:, :2] + robot.contact_locations[foot].point[:2]
        cop = (body * f[:, 2:3]).sum(axis=0) / f[:, 2].sum()
        assert signed_distance(rect, cop) >= margin - 1e-6  # 1 µm: corner forces within 1e-5 N
    assert loaded >= 1


def test_standing_still_the_soles_carry_the_weight_and_newton_holds(robot):
    ctrl, q, v = _standing(robot)
    cmd = ctrl.compute(q, v)
    model = robot.model
    data = model.createData()
    pin.centerOfMass(model, data, q, v, cmd.a)
    total = sum(f.sum(axis=0) for f in cmd.forces.values())
    g = model.gravity.linear
    assert np.allclose(total, robot.mass * (data.acom[0] - g), rtol=0, atol=EPS)  # Newton
    assert np.linalg.norm(data.acom[0]) < 1e-4  # the CoM held where it is (QP residuals of 1e-6 m/s²·M)
    assert total[2] == pytest.approx(robot.mass * 9.81, abs=1e-3)


def test_a_com_reference_far_outside_the_support_puts_the_cop_on_the_shrunk_polygons_edge(robot):
    ctrl, q, v = _standing(robot)
    for offset in ([0.5, 0.0, 0.0], [0.0, -0.6, 0.0], [-0.4, 0.4, 0.0]):
        ctrl.com.set_reference(ctrl.dyn.com + offset)
        cmd = ctrl.compute(q, v)
        assert cmd.solved, cmd.status
        points = np.vstack([_corner_points(robot, ctrl, q, foot) for foot in FEET])
        fz = np.concatenate([cmd.forces[foot][:, 2] for foot in FEET])
        cop = (points[:, :2] * fz[:, None]).sum(axis=0) / fz.sum()  # the soles are level at z = 0
        # on the edge of the hull of the shrunk soles, not beyond (1 µm: the QP's residuals)
        assert abs(signed_distance(convex_hull(points[:, :2]), cop)) < 1e-6, offset


def _hand_pushed(robot, acceleration):
    """Standing, the right hand's frame task asking for ``acceleration`` [m/s²] along (1, −1, 1)."""
    ctrl, q, v = _standing(robot)
    hand = ctrl.frame_task("r_hand")
    hand.set_reference(hand.placement.copy(), np.zeros(6), np.r_[acceleration * np.array([1.0, -1.0, 1.0]), 0, 0, 0])
    return ctrl, q, v


def test_a_task_asking_too_much_gets_torques_at_their_limits_not_beyond(robot):
    ctrl, q, v = _hand_pushed(robot, 500.0)
    cmd = ctrl.compute(q, v)
    assert cmd.solved
    tau = _inverse_dynamics(robot, ctrl, q, v, cmd)[6:]  # the torques of the QP's solution, unclipped
    assert np.all(np.abs(tau) <= robot.effort_max + EPS)
    assert np.max(np.abs(tau) / robot.effort_max) > 0.99  # the task drives a joint to its limit
    assert np.allclose(cmd.tau, tau, rtol=0, atol=EPS)


def test_a_task_asking_much_too_much_still_gets_a_solved_qp(robot):
    # the QP's constraints do not depend on the tasks, and the same state with the hand at rest is
    # solved: the problem is feasible (quadprog solves it, one joint at its torque limit, residuals
    # 1e-9; ProxQP at its default thresholds calls it primal infeasible)
    ctrl, q, v = _hand_pushed(robot, 0.0)
    assert ctrl.compute(q, v).solved
    ctrl, q, v = _hand_pushed(robot, 2000.0)
    cmd = ctrl.compute(q, v)
    assert cmd.solved, cmd.status


def test_a_contact_with_no_force_allowed_leaves_the_other_sole_all_the_weight(robot):
    ctrl, q, v = _standing(robot)
    ctrl.com.set_reference(ctrl.dyn.com + [0.0, 0.2, 0.0])  # towards the left sole
    ctrl.contacts["r_sole"].set_max_force(0.0)
    cmd = ctrl.compute(q, v)
    assert cmd.solved
    assert np.allclose(cmd.forces["r_sole"], 0.0, atol=EPS)
    # the left sole alone carries the weight and the CoM's acceleration (Newton): the lateral pull
    # beyond the friction pyramid is traded for some upward acceleration, which widens the pyramid
    model = robot.model
    data = model.createData()
    pin.centerOfMass(model, data, q, v, cmd.a)
    left = cmd.forces["l_sole"].sum(axis=0)
    assert np.allclose(left, robot.mass * (data.acom[0] - model.gravity.linear), rtol=0, atol=EPS)
    assert data.acom[0][1] > 0.5 and left[2] > robot.mass * 9.81  # pulled left, the left sole pressed harder


def test_a_removed_contact_has_no_force_and_its_frame_task_moves_it(robot):
    ctrl, q, v = _standing(robot)
    ctrl.remove_contact("r_sole")
    task = ctrl.frame_task("r_sole")
    M = task.placement.copy()
    M.translation += [0.0, 0.0, 0.05]  # lift the right foot
    task.set_reference(M)
    ctrl.com.set_reference(ctrl.dyn.com + [0.0, 0.1, 0.0])
    cmd = ctrl.compute(q, v)
    assert cmd.solved and set(cmd.forces) == {"l_sole"}
    tau = _inverse_dynamics(robot, ctrl, q, v, cmd)
    assert np.allclose(tau[:6], 0.0, atol=EPS)
    right = _accelerations(robot, q, v, cmd.a, "RLEG_LINK5")
    assert right[2] > 1.0  # lifted: the frame task's 400 1/s² x 0.05 m pulls it up
    assert np.allclose(_accelerations(robot, q, v, cmd.a, "LLEG_LINK5"), 0.0, atol=EPS)
    ctrl.add_contact("r_sole")  # held again: its frame task is gone
    assert "r_sole" not in ctrl.frame_tasks and "r_sole" in ctrl.contacts


def test_a_frame_task_starts_at_the_contact_frames_measured_placement(robot):
    ctrl, q, v = _standing(robot)
    model = robot.model
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    for name in ("r_hand", "l_hand_side", "r_knee"):
        loc = robot.contact_locations[name]
        z = np.asarray(loc.normal, float)
        x = np.asarray(loc.tangent, float)
        expected = data.oMf[model.getFrameId(loc.body)] * pin.SE3(np.column_stack([x, np.cross(z, x), z]), loc.point)
        assert ctrl.frame_task(name).placement.isApprox(expected, 1e-12), name


def test_the_corners_of_a_given_polygon_are_moved_the_margin_inwards_and_one_point_is_a_point_contact(robot):
    ctrl, q, v = _standing(robot, cop_margin=0.01)
    c = ctrl.add_contact("l_sole", polygon=[[0.0, 0.0], [0.1, 0.0], [0.1, 0.05], [0.0, 0.05]])
    assert sorted(map(tuple, np.round(c.corners, 12))) == [
        (0.01, 0.01, 0),
        (0.01, 0.04, 0),
        (0.09, 0.01, 0),
        (0.09, 0.04, 0),
    ]
    p = ctrl.add_contact("r_hand", polygon=[[0.01, -0.02]])
    assert p.k == 1 and np.array_equal(p.corners, [[0.01, -0.02, 0.0]])


def test_an_unknown_location_is_a_control_error(robot):
    ctrl = WholeBodyController(robot)
    for call in (ctrl.add_contact, ctrl.frame_task, ctrl.surface, ctrl.link):
        with pytest.raises(ControlError, match="'nose'"):
            call("nose")


def test_an_unsolved_qp_gives_the_last_solved_torques_and_no_forces(robot, monkeypatch):
    ctrl, q, v = _standing(robot)
    n = ctrl.nv + sum(c.n_force for c in ctrl.contacts.values())
    unsolved = QPResult(np.full(n, 7.0), False, "iteration_limit", 200)
    real = ctrl.qp.solve
    monkeypatch.setattr(ctrl.qp, "solve", lambda *args: unsolved)
    first = ctrl.compute(q, v)  # nothing solved yet: zero torques
    assert not first.solved and first.status == "iteration_limit"
    assert np.array_equal(first.tau, np.zeros(robot.model.nv - 6)) and first.forces == {}
    monkeypatch.setattr(ctrl.qp, "solve", real)
    good = ctrl.compute(q, v)
    assert good.solved
    monkeypatch.setattr(ctrl.qp, "solve", lambda *args: unsolved)
    bad = ctrl.compute(q, v)
    assert not bad.solved and np.array_equal(bad.tau, good.tau) and np.array_equal(bad.a, np.zeros(ctrl.nv))
    assert not ctrl.qp._active  # the hot starts forgotten
