"""A gripper closing on a can (Chardonnet 2009, §2.1.2, Fig. 2.5; acceptance test 000 B8): with
OpenHRP2's penalty contacts the closing gripper penetrated the can with growing forces and the
simulation diverged. With constraint-based contacts at 1 ms (`config/scenes/can_grasp.yaml`) HRP-2's
right gripper is driven 1.1 rad past the can, lifts it off its stand (the wrist's set-point rises 4 cm; the
default 10 Hz PD arm sags to 2.2 cm) and holds it for 10 s:

* no divergence: every step finite, the squeeze steady (the forces at the end equal those 5 s
  earlier), the can at rest in the hand;
* penetration ≤ the activation margin (5 mm, `humanoid_sim.collision.detector.DEFAULT_MARGIN`)
  + 1 mm at every step, the thesis's bound;
* the can slips ≤ 1 mm in the hand over the 10 s hold;
* the jaw is in equilibrium: its PD torque balances the contact forces' moment about the hinge
  (and gravity), so the squeeze is the one the servo commands, not a penalty force.
"""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.walking_ik import stiffen
from humanoid_model.scene import load_scene
from humanoid_sim.collision.detector import DEFAULT_MARGIN
from humanoid_sim.world import World

HAND, JAW, GRIPPER = "RARM_LINK5", "RARM_LINK6", "RARM_JOINT6"
HOLD = 10.0  # [s] the thesis's 10 s without divergence (000 B8)


SCENE = load_scene("can_grasp")


def _times():
    """(the jaw at its target, the lift done) [s], the scene's ``time.closed`` and ``time.lifted``."""
    return SCENE.params["time.closed"], SCENE.params["time.lifted"]


class _Probe:
    """The can in the hand's frame, the can's contacts and the jaw's torque balance, step by step."""

    def __init__(self, world):
        self.w = world
        self.m = world.model
        self.d = self.m.createData()
        self.hand = self.m.getFrameId(HAND)
        self.jaw = self.m.getJointId(GRIPPER)
        self.iv = self.m.joints[self.jaw].idx_v
        self.i_act = world.robot.dof_names.index(GRIPPER)
        self.can_geoms = np.array([g.body == "can" for g in world.mobile])
        self.stand = [k for k, g in enumerate(world.static) if g.name == "stand"]

    def can_in_hand(self):
        pin.framesForwardKinematics(self.m, self.d, self.w.q)
        return self.d.oMf[self.hand].actInv(self.w.body_state("can").position)

    def step_contacts(self):
        """(the deepest penetration of the can's contacts [m], whether the can touches its stand) of the
        last step, from the step's contact arrays (`ContactBatch`)."""
        b = self.w.last.batch
        on_b = np.where(b.b_static, False, self.can_geoms[np.where(b.b_static, 0, b.geom_b)])
        can = self.can_geoms[b.geom_a] | on_b
        stand = can & b.b_static & np.isin(b.geom_b, self.stand)
        return max(0.0, float(-b.gaps[can].min())) if can.any() else 0.0, bool(stand.any())

    def can_contacts(self):
        return [c for c in self.w.contact_list() if "can" in (c["body_a"], c["body_b"])]

    def jaw_balance(self):
        """(PD torque, moment of the can's forces on the jaw about the hinge, gravity torque) [N·m]."""
        w, m, d = self.w, self.m, self.d
        pin.forwardKinematics(m, d, w.q)
        hinge = d.oMi[self.jaw]
        axis = hinge.rotation @ pin.computeJointJacobian(m, d, w.q, self.jaw)[3:, self.iv]  # the hinge in the world
        moment = 0.0
        for c in self.can_contacts():
            if JAW in (c["body_a"], c["body_b"]):
                f = np.asarray(c["force"]) * (1.0 if c["body_a"] == JAW else -1.0)  # force on the jaw
                moment += axis @ np.cross(np.asarray(c["point"]) - hinge.translation, f)
        gravity = pin.computeGeneralizedGravity(m, d, w.q)[self.iv]
        return float(w.tau_applied[self.i_act]), moment, float(gravity)


@pytest.fixture(scope="module")
def grasp():
    """The scene run for the hold plus the closing and the lift (12.5 s, 1 ms)."""
    closed, lifted = _times()
    w = World.from_scene(SCENE)
    probe = _Probe(w)
    n_closed, n_lifted, n = round(closed / w.dt), round(lifted / w.dt), round((lifted + HOLD) / w.dt)
    rel, penetration, stand_after_lift = [], 0.0, 0
    forces_mid = snapshot = unconverged_lift = None
    for k in range(n):
        if k == n_closed:
            snapshot = w.get_state()
        if k == n_lifted:
            unconverged_lift = w.step_stats.summary().unconverged_solves
        w.step()
        assert np.isfinite(w.q).all() and np.isfinite(w.v).all()
        rel.append(probe.can_in_hand())
        deepest, on_stand = probe.step_contacts()
        penetration = max(penetration, deepest)
        stand_after_lift += k >= n_lifted and on_stand
        if k == n - 1 - round(5.0 / w.dt):
            forces_mid = sorted(np.linalg.norm(c["force"]) for c in probe.can_contacts())
    return {
        "rel": np.array(rel),
        "closed": snapshot,
        "unconverged": (unconverged_lift, w.step_stats.summary().unconverged_solves - unconverged_lift),
        "n_lifted": n_lifted,
        "penetration": penetration,
        "stand_after_lift": stand_after_lift,
        "forces_mid": forces_mid,
        "forces_end": sorted(np.linalg.norm(c["force"]) for c in probe.can_contacts()),
        "can": w.body_state("can"),
        "balance": probe.jaw_balance(),
        "lift_height": w.body_state("can").position[2] - SCENE.free_body("can").pose.xyz[2],
    }


@pytest.mark.spec("000", "B8")
def test_the_gripper_lifts_the_can_and_holds_it_10_s_without_divergence(grasp):
    assert grasp["stand_after_lift"] == 0  # carried by the gripper alone from the end of the lift
    assert grasp["lift_height"] > 0.01  # off its stand (measured 22 mm: the 10 Hz PD arm sags below the planned 4 cm)
    assert np.linalg.norm(grasp["can"].linear_velocity) < 1e-4  # at rest in the hand (measured 1.2e-8 m/s)
    assert np.linalg.norm(grasp["can"].angular_velocity) < 1e-3
    mid, end = np.array(grasp["forces_mid"]), np.array(grasp["forces_end"])
    assert mid.shape == end.shape and end.max() > 5.0  # squeezed (measured 14.0 N at the jaw, 12.4 + 1.6 N palm)
    np.testing.assert_allclose(end, mid, atol=1e-3)  # steady over the last 5 s (measured 5e-6 N apart)
    # Every solve of the hold meets the solver's default thresholds; while the jaw closes and the arm lifts, 87
    # of the 2500 steps end on the 500-sweep budget with their best iterate (docs/simulator.md, "Grasping").
    assert grasp["unconverged"][1] == 0


@pytest.mark.spec("000", "B8")
def test_penetration_stays_within_the_margin_plus_1_mm_at_every_step(grasp):
    assert grasp["penetration"] <= DEFAULT_MARGIN + 1e-3  # the thesis's bound (measured 6.9 µm)
    assert grasp["penetration"] < 1e-4  # and far inside it: the contacts are position-stabilised


@pytest.mark.spec("000", "B8")
def test_the_can_slips_less_than_1_mm_in_the_hand_over_the_hold(grasp):
    rel, k = grasp["rel"], grasp["n_lifted"]
    slip = np.linalg.norm(rel[k:] - rel[k], axis=1).max()
    assert slip < 1e-3  # measured 1.5e-8 m


@pytest.mark.spec("000", "B8")
def test_the_jaw_torque_balances_the_contact_moment_about_the_hinge(grasp):
    tau, moment, gravity = grasp["balance"]
    assert abs(tau) > 0.1  # the servo squeezes (measured -0.742 N·m: the jaw held 1.1 rad short of its target)
    # At rest: τ + (moment of the contact forces on the jaw) − g(q) = 0 on the jaw's joint, to 0.1 % of the
    # torque (chosen: the terms left out are the jaw's velocity and acceleration, zero at rest; measured 3e-5).
    assert abs(tau + moment - gravity) < 1e-3 * abs(tau)


@pytest.mark.spec("000", "B8")
def test_a_stiffer_arm_keeps_the_can_within_1_mm_from_the_closing_on(grasp):
    """With the default 10 Hz PD the hand tilts about 6° under the lift and the can settles 1.6 mm
    deeper in the jaw-palm wedge as its weight moves from the stand to the grasp (docs/simulator.md,
    "Grasping"). With the open-loop playback's 30 Hz gains (`walking_ik.stiffen`, the gripper's own
    gains unchanged, from the grasp closed with the default gains) the hand stays level and the can moves
    less than 1 mm from the grasp's closing on."""
    closed, lifted = _times()
    w = World.from_scene(SCENE)
    w.set_state(grasp["closed"])
    stiffen(w.actuator, keep=(GRIPPER,))
    probe = _Probe(w)
    start = probe.can_in_hand()
    worst = 0.0
    for _ in range(round((lifted + 0.5 - closed) / w.dt)):
        w.step()
        worst = max(worst, np.linalg.norm(probe.can_in_hand() - start))
    assert not probe.step_contacts()[1]  # off its stand
    assert worst < 1e-3  # measured 0.085 mm (1.75 mm with the default gains, `grasp` fixture)
