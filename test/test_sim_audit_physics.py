"""Acceptance audit of issue 3: checks of claims that the main simulator tests leave open.

* C5 breakaway (../shared/spec/000_chardonnet.md:1044): the only breakaway test (the former one in
  test_sim_free_bodies started its ramp at 113 N, inside the ±1 % band of 114.1 N, and was
  removed). Here the block must hold below the band and break away inside it.
* Wrist F/T sensors (issue 3: F/T at the ankles *and wrists*): only the ankles were checked.
  Newton on the sub-tree beyond the wrist joint: the force of the forearm on the hand equals
  m_hand (a_com,hand − g), exactly, whatever the arm is doing.
* F/T sensor noise (§2.17, optional noise): zero mean, the configured standard deviation.
"""
import numpy as np
import pinocchio as pin
import pytest

from humanoid_sim.world import World

BLOCK = """
gravity: [0, 0, -9.8]          # the spec's g for this test (../shared/spec/000_chardonnet.md:1044)
ground: {height: 0.0, friction: 0.983}
free_bodies:
  - {name: block, shape: box, size: [0.2, 0.15, 0.1], mass: 11.84, friction: 0.983,
     pose: {xyz: [0, 0, 0.05]}}
"""


def test_breakaway_not_before_the_band_and_inside_it(tmp_path):
    """11.84 kg, μ = 0.983 (spec :670-671): 0.983·11.84·g = 114.1 N ± 1 % (spec :1044).
    A pull 2 % below the expected value (outside the band; our choice) is held for 0.3 s
    without motion; the ramp at 1 N/s then starts there (2.3 N, ~2300 steps) and the breakaway
    force must lie within 1 %."""
    p = tmp_path / "block.yaml"
    p.write_text(BLOCK)
    w = World.from_scene(p)
    g = float(np.linalg.norm(w.scene.gravity))
    expected = 0.983 * 11.84 * g
    w.step(50)
    F0 = 0.98 * expected
    w.apply_wrench("block", force=(F0, 0, 0))
    x0 = w.state.bodies["block"].position[0]
    w.step(300)
    assert np.linalg.norm(w.state.bodies["block"].linear_velocity) < 1e-6
    assert abs(w.state.bodies["block"].position[0] - x0) < 1e-6
    F = None
    for k in range(1, 4000):
        F = F0 + 1.0 * k * w.dt
        w.apply_wrench("block", force=(F, 0, 0))
        w.step()
        if w.state.bodies["block"].linear_velocity[0] > 1e-6:
            break
    assert F == pytest.approx(expected, rel=0.01)


@pytest.fixture(scope="module")
def standing_short():
    w = World.from_scene("flat")
    w.step(300)
    return w


def _subtree_mass_and_acom(model, q, v, a, jid):
    """Mass and CoM acceleration (world) of the sub-tree of joint ``jid``, from the bodies'
    classical CoM accelerations (forward kinematics only: independent of the RNEA's backward
    pass that the sensor uses)."""
    d = model.createData()
    pin.forwardKinematics(model, d, q, v, a)
    mom_rate, mass = np.zeros(3), 0.0
    for k in model.subtrees[jid]:
        inertia, vk, ak = model.inertias[k], d.v[k], d.a[k]
        c = inertia.lever
        acc = ak.linear + np.cross(ak.angular, c) + np.cross(vk.angular, vk.linear + np.cross(vk.angular, c))
        mom_rate += inertia.mass * (d.oMi[k].rotation @ acc)
        mass += inertia.mass
    return mass, mom_rate / mass


@pytest.mark.parametrize("key", ["r_wrist", "l_wrist", "r_ankle", "l_ankle"])
def test_force_torque_sensor_is_newton_on_the_subtree(standing_short, key):
    """F (world frame) = m_sub (a_com,sub − g) for the wrists (no contact beyond them);
    for the ankles F + Σ sole contact forces = m_sub (a_com,sub − g). Tolerance 1e-8 relative
    of the force magnitudes (chosen: round-off)."""
    from humanoid_sim.sensors import Sensors

    w = standing_short
    s = Sensors(w)
    ft = s.force_torque()
    m = w.model
    spec = w.robot.sensors["force_torque"][key]
    fid = m.getFrameId(spec["frame"])
    jid = m.frames[m.getFrameId(spec["body"])].parentJoint
    q, v = w.q_start, w.v_start
    a = (w.v - v) / w.dt
    d = m.createData()
    pin.framesForwardKinematics(m, d, q)
    F = d.oMf[fid].rotation @ ft[key][0]
    msub, acom = _subtree_mass_and_acom(m, q, v, a, jid)
    gvec = np.asarray(m.gravity.linear)
    contact = np.zeros(3)
    if key.endswith("ankle"):
        b = w.last["batch"]
        _, Fc = w.contact_forces_world()
        body = spec["body"]
        on = np.array([w.mobile[i].body == body for i in b.geom_a])
        assert on.sum() == 4
        contact = Fc[on].sum(0)
    ref = msub * (acom - gvec)
    assert np.linalg.norm(F + contact - ref) <= 1e-9 * (np.linalg.norm(F) + np.linalg.norm(contact))
    if key.endswith("wrist"):
        assert F[2] == pytest.approx(msub * np.linalg.norm(gvec), rel=0.05)   # mostly the hand weight


def test_force_torque_noise_statistics():
    from humanoid_sim.sensors import ForceTorqueModel

    sd = np.array([0.5, 0.5, 2.0, 0.01, 0.01, 0.02])       # chosen
    fm = ForceTorqueModel(offset=[1, 0, 0, 0, 0, 0], noise=sd, seed=3)
    raw = np.array([0.0, 1.0, -10.0, 0.1, 0.0, 0.0])
    x = np.array([fm(raw) for _ in range(20000)])
    assert np.allclose(x.mean(0), raw + [1, 0, 0, 0, 0, 0], atol=4 * sd / np.sqrt(len(x)) + 1e-12)
    assert np.allclose(x.std(0), sd, rtol=0.03)
    with pytest.raises(Exception, match="noise"):
        ForceTorqueModel(noise=[-1, 0, 0, 0, 0, 0])


def test_demo_push_sways_and_recovers():
    """config/demo.yaml claims: 250 N for 0.1 s forward on BODY makes HRP-2 (flat, PD) sway
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
    assert w.last["batch"].m == 8
