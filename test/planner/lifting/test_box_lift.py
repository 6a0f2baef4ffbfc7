"""The dynamic box lift's preliminary motion on HRP-2 (Chardonnet 2009, §5.2.1, (5.9)–(5.24);
`humanoid_planner.lifting.box_lift`): the robot's momenta at the impact measured by Pinocchio on the
three-dimensional robot, the hands and feet still, the ZMP and the load sharing before the impact."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model import load_robot
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.lifting.box_hold import hold_margins
from humanoid_planner.lifting.box_lift import FOOT_FRICTION, BoxLiftSettings, hold_reserve, plan_box_lift
from humanoid_planner.lifting.box_swing import carrying_chain, plan_box_swing
from humanoid_planner.lifting.cam import cam_profile
from humanoid_planner.lifting.sagittal import SagittalChain


@pytest.fixture(scope="module")
def chain():
    return SagittalChain(load_robot("hrp2"))


@pytest.fixture(scope="module")
def motion(chain):
    return plan_box_lift(chain)


@pytest.fixture(scope="module")
def carrying(chain, motion):
    return carrying_chain(chain, motion)


@pytest.fixture(scope="module")
def swing(chain, motion, carrying):
    return plan_box_swing(chain, motion, carrying=carrying)


def _velocity(chain, theta, theta_d, eps=1e-6):
    """HRP-2's configuration and generalised velocity (central differences of the feet-fixed
    configurations) for the sagittal angles and rates."""
    model = chain.robot.model
    q_minus, q_plus = chain.configuration(theta - eps * theta_d), chain.configuration(theta + eps * theta_d)
    return chain.configuration(theta), pin.difference(model, q_minus, q_plus) / (2 * eps)


def test_pinocchio_measures_the_designs_momenta_at_the_impact_and_still_hands_and_feet(chain, motion):
    """At every tenth sample and at the impact, on the three-dimensional HRP-2 (Pinocchio's centroidal
    momentum and frame velocities): the linear momentum is the robot's mass times the cam's speed
    along the lift direction (5.16); at the impact, the velocity and the angular momentum are the
    impact design's (5.10)–(5.14); the grasp points and the soles do not move (§5.2.1.4: the hands
    stay on the box, the feet on the floor)."""
    model, data = chain.robot.model, chain.robot.model.createData()
    d = motion.design
    m_total = pin.computeTotalMass(model)
    m_feet = chain.foot[0]
    u = d.direction
    _, V, _ = cam_profile(motion.t / motion.t_f, motion.settings.ramp)
    frames = [model.getFrameId(chain.robot.contact_locations[n].body) for n in (*chain.joints.hand, *chain.joints.sole)]
    points = [chain.robot.contact_locations[n].point for n in (*chain.joints.hand, *chain.joints.sole)]
    samples = [*range(0, len(motion.t), 10), len(motion.t) - 1]
    for i in samples:
        q, v = _velocity(chain, motion.theta[i], motion.theta_d[i])
        pin.forwardKinematics(model, data, q, v)
        hg = pin.computeCentroidalMomentum(model, data, q, v)
        speed = motion.alpha / motion.t_f * V[i]
        np.testing.assert_allclose(hg.linear, (m_total - m_feet) * speed * np.array([u[0], 0.0, u[1]]), atol=1e-6)
        pin.updateFramePlacements(model, data)
        for f, p in zip(frames, points):
            vf = pin.getFrameVelocity(model, data, f, pin.LOCAL)
            assert np.max(np.abs(vf.linear + np.cross(vf.angular, p))) < 1e-6
    assert speed == pytest.approx(d.robot_velocity, rel=1e-12)
    # the angular momentum about the whole robot's centre of mass G (the feet at rest): h_r + (D - G) x m_r v_r
    g = pin.centerOfMass(model, data, q)[[0, 2]]  # the chain's frame is the world's x, z (feet at the origin)
    com_r = (m_total * g - m_feet * chain.foot_com) / (m_total - m_feet)
    m_r = m_total - m_feet
    lever = com_r - g
    expected = d.robot_momentum + m_r * d.robot_velocity * (lever[0] * u[1] - lever[1] * u[0])
    assert -hg.angular[1] == pytest.approx(expected, abs=1e-6)


def _feet(chain, motion, force):
    """The feet's share (f_px, f_pz, centre of pressure x) of the wrench the motion needs, the box
    taking the hands' ``force`` (f_hx, f_hz, τ_h) at every sample."""
    out = []
    cx, cz = motion.grasp
    for i, (fx, fz, tau) in enumerate(force):
        nx, nz, mo = np.array(chain.f_reaction(motion.theta[i], motion.theta_d[i], motion.theta_dd[i])).ravel()
        px, pz = nx + fx, nz + fz
        out.append((px, pz, (mo - cz * fx + cx * fz + tau) / pz))
    return np.array(out)


def test_before_the_impact_the_zmp_stays_over_the_feet_and_box_and_a_hand_force_holds_the_box(chain, motion):
    """Before the impact (§4.16, F1; §5.2.1.5): the ZMP of the robot and the box on the floor stays
    between the heels and the box's far face; at every sample a hand force keeps the four box
    conditions (5.19)–(5.22) with margin ≥ 0 while the feet take the rest inside their friction cone
    (μ 0.4) with their centre of pressure inside the soles (5.23)–(5.24): checked on the force
    `hold_reserve` returns, with the feet's share recomputed from the robot's needed wrench. With the
    thesis's mostly linear cam (ramp 1/4) the same motion needs more than the box and the feet give."""
    heel, toe = chain.foot_x
    assert np.all(motion.support_zmp > motion.support[0]) and np.all(motion.support_zmp < motion.support[1])
    assert motion.support == (heel, motion.box_x + motion.settings.box.depth)
    reserve, force = hold_reserve(chain, motion)
    assert np.all(reserve >= 0)
    box = motion.settings.box
    margins = hold_margins(box, force[:, :2], force[:, 2], motion.grasp[0] - motion.box_x, motion.grasp[1])
    assert np.all(margins >= -1e-9)
    feet = _feet(chain, motion, force)
    assert np.all(feet[:, 1] > 0)
    assert np.all(np.abs(feet[:, 0]) <= FOOT_FRICTION * feet[:, 1] + 1e-9)
    assert np.all((feet[:, 2] >= heel - 1e-9) & (feet[:, 2] <= toe + 1e-9))
    linear = plan_box_lift(chain, BoxLiftSettings(ramp=0.25))
    assert hold_reserve(chain, linear)[0].min() < 0 and linear.support_zmp.max() > linear.support[1]


def test_the_motion_stays_within_hrp2s_joint_velocity_and_effort_limits(chain, motion):
    """Every sample within the URDF's joint limits, velocity limits and efforts (the torques per side,
    from the sagittal inverse dynamics that test_overhead_lift checks against Pinocchio's RNEA); the
    inverse kinematics to 1e-9; the path's duration is the cam's half, t_f / 2, in 5 ms samples."""
    assert motion.ik_residual < 1e-9
    assert np.all((motion.theta >= chain.lower - 1e-12) & (motion.theta <= chain.upper + 1e-12))
    assert np.all(np.abs(motion.theta_d) <= chain.velocity)
    tau = np.array([chain.tau(*x) for x in zip(motion.theta, motion.theta_d, motion.theta_dd)])
    assert np.all(np.abs(tau) / np.array(chain.sides) <= chain.effort)
    assert motion.t[-1] == pytest.approx(motion.t_f / 2, abs=1e-12)
    assert np.diff(motion.t).max() <= motion.settings.sample + 1e-12


@pytest.mark.parametrize(
    "settings, message",
    [
        (dict(box_gap=0.6), "cannot take the impact posture"),
        (dict(lean=np.radians(30.0)), "cannot follow the preliminary motion"),
        (dict(elbow=1.0), "outside the joint's limits"),
        (dict(path=0.0), "path must be"),
        (dict(lean=0.0), "lean must be"),
    ],
)
def test_an_impossible_lift_says_why(chain, settings, message):
    with pytest.raises(PlanningError, match=message):
        plan_box_lift(chain, BoxLiftSettings(**settings))


def test_after_the_impact_the_zmp_starts_at_the_foot_centre_and_stays_inside_the_feet(chain, motion, swing, carrying):
    """After the impact (§4.16, F1: "inside the foot after"; §5.2.1.3, the centre of percussion at the
    foot centre): the ZMP of the robot carrying the box starts within 5 mm of the foot centre and stays
    between heel and toe through the 1 s swing, joints within their limits and efforts. The same swing
    in 0.3 s puts it outside the feet."""
    heel, toe = chain.foot_x
    assert abs(swing.zmp[0] - motion.design.pivot[0]) < 0.005
    assert np.all((swing.zmp > heel) & (swing.zmp < toe))
    tau = np.array([carrying.tau(*x) for x in zip(swing.theta, swing.theta_d, swing.theta_dd)])
    assert np.all(np.abs(tau) / np.array(chain.sides) <= chain.effort)
    assert np.all(np.abs(swing.theta_d) <= chain.velocity)
    assert swing.ik_residual < 1e-9
    fast = plan_box_swing(chain, motion, 0.3, carrying=carrying)
    assert fast.zmp.min() < heel or fast.zmp.max() > toe


def test_the_swing_ends_at_rest_with_robot_and_box_over_the_foot_centre_by_pinocchio(chain, motion, swing):
    """At the swing's end, on the three-dimensional HRP-2 (Pinocchio's centre of mass, the box at the
    hands' grasp points): the centre of mass of robot and box stands above the foot centre at the
    pendulum's length (§5.2.1.2), and the box is off the floor."""
    model, data = chain.robot.model, chain.robot.model.createData()
    q = chain.configuration(swing.theta[-1])
    pin.framesForwardKinematics(model, data, q)
    hands = [chain.robot.contact_locations[n] for n in chain.joints.hand]
    grasp = np.mean([data.oMf[model.getFrameId(h.body)].act(h.point) for h in hands], axis=0)[[0, 2]]
    m_robot, m_box = pin.computeTotalMass(model), motion.settings.box.mass
    com = (m_robot * pin.centerOfMass(model, data, q)[[0, 2]] + m_box * grasp) / (m_robot + m_box)
    d = motion.design
    np.testing.assert_allclose(com, d.pivot + [0.0, d.arm], atol=1e-6)
    assert grasp[1] > motion.grasp[1] + 0.03
    assert np.max(np.abs(swing.theta_d[-1])) < 1e-12 and swing.lean[-1] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("duration, message", [(0.0, "duration must be"), (5.0, "does not rise monotonically")])
def test_an_impossible_swing_says_why(chain, motion, carrying, duration, message):
    with pytest.raises(PlanningError, match=message):
        plan_box_swing(chain, motion, duration, carrying=carrying)


def test_the_limits_check_names_the_first_sample_and_its_joint(chain):
    """`outside_limits` (the box lift's and the swing's joint-limit check): the first sample with a joint
    past its limit, and that joint; none within 1e-9 rad of the limits."""
    from humanoid_planner.lifting.lift_tasks import outside_limits

    theta = np.tile(np.clip(np.zeros(chain.n), chain.lower, chain.upper), (5, 1))
    assert outside_limits(chain, theta) is None
    theta[1, :] = chain.upper + 5e-10
    assert outside_limits(chain, theta) is None
    theta[3, 4] = chain.lower[4] - 0.01  # the shoulder
    theta[4, 1] = chain.upper[1] + 0.01
    assert outside_limits(chain, theta) == (3, 4)


def test_a_point_grasp_that_loads_the_feet_keeps_the_box_and_feet_conditions_with_less_reserve(chain, motion):
    """`hold_reserve(hand_moment=False, feet_margin=True)`, the sharing the played lift feeds
    forward (docs/lifting.md, "The box lift played"): no moment at the hands; the box's four
    conditions and the feet's (friction, CoP inside the soles, recomputed from the robot's needed
    wrench) all keep the returned margin; each restriction can only lower the optimum."""
    heel, toe = chain.foot_x
    full, _ = hold_reserve(chain, motion)
    point, _ = hold_reserve(chain, motion, hand_moment=False)
    both, force = hold_reserve(chain, motion, hand_moment=False, feet_margin=True)
    assert np.all(point <= full + 1e-6) and np.all(both <= point + 1e-6)
    assert np.all(both >= 0)
    assert np.abs(force[:, 2]).max() < 1e-9
    box = motion.settings.box
    margins = hold_margins(box, force[:, :2], force[:, 2], motion.grasp[0] - motion.box_x, motion.grasp[1])
    scale = np.array([1.0, box.depth, box.depth, 1.0])  # the tipping margins [N m] over the depth [N]
    assert np.all(margins / scale >= both[:, None] - 1e-6)
    feet = _feet(chain, motion, force)
    length = toe - heel
    assert np.all(FOOT_FRICTION * feet[:, 1] - np.abs(feet[:, 0]) >= both - 1e-6)
    assert np.all((feet[:, 2] - heel) * feet[:, 1] / length >= both - 1e-6)
    assert np.all((toe - feet[:, 2]) * feet[:, 1] / length >= both - 1e-6)
