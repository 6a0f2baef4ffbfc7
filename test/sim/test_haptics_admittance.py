"""The admittance-compliant robot of the haptic interaction (`humanoid_sim.stages.admittance`; Chardonnet
2009, §3.4.1, eq. (3.65)): the law against its closed-form solution, and HRP-2's
right hand guided 5 cm by the attached pointer, with and without the admittance (the thesis's
HRP-2 arm guided by the user, §3.4.1)."""

import math

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model.scene import scene_from_dict
from humanoid_sim.exceptions import CommandError
from humanoid_sim.stages.admittance import Admittance
from humanoid_sim.world import World

ADMITTANCE = (0.5, 20.0)  # M_d [kg·m²], B_d [N·m·s/rad] (chosen: the thesis gives none)
HAND = "RARM_LINK6"
PULL = np.array([0.05, 0.0, 0.0])  # [m] the pointer's move from the hand (chosen)


def test_admittance_follows_the_closed_form_of_eq_3_65():
    """Constant J_eᵀ f_e = F from rest: q̇_d = F/B (1 − e^{−t B/M}), q_d = F/B (t − M/B (1 − e^{−t B/M}));
    semi-implicit Euler at 1 ms within 1 % of the travel; a joint limit clips q_d and zeroes q̇_d."""
    F, M, B, dt = np.array([2.0, -1.0]), 0.5, 20.0, 1e-3
    adm = Admittance(M, B, [0.0, 0.0], lower=[-np.inf, -0.01], upper=[np.inf, np.inf])
    n = 300
    for _ in range(n):
        q, v = adm.step(F, dt)
    t = n * dt
    tau = M / B
    np.testing.assert_allclose(v[0], F[0] / B * (1 - math.exp(-t / tau)), rtol=1e-3)
    assert q[0] == pytest.approx(F[0] / B * (t - tau * (1 - math.exp(-t / tau))), rel=0.01)
    assert q[1] == -0.01 and v[1] == 0.0
    with pytest.raises(CommandError, match="damping"):
        Admittance(M, 0.0, [0.0])


@pytest.fixture(scope="module")
def guided():
    """HRP-2 on the flat scene, settled 0.3 s; the pointer attached to the right hand, moved 5 cm
    forward for 1 s, then released for 0.5 s; with and without the admittance."""
    out = {}
    for name, admittance in (("pd", None), ("compliant", ADMITTANCE)):
        w = World.from_scene("flat")
        w.step(300)
        fid = w.model.getFrameId(HAND)

        def hand(w=w, fid=fid):
            pin.forwardKinematics(w.model, w.data, w.q)
            return pin.updateFramePlacement(w.model, w.data, fid).translation.copy()

        h0, z0 = hand(), w.q[2]
        dev = w.connect_haptics()
        dev.set_pointer(h0)
        dev.attach(HAND, admittance=admittance)
        dev.set_pointer(h0 + PULL)
        w.step(1000)
        held, force = hand() - h0, dev.feedback[:3].copy()
        dev.release()
        w.step(500)
        out[name] = dict(held=held, force=force, after=hand() - h0, dz=w.q[2] - z0)
    return out


def test_compliant_robot_follows_the_hand_and_stays_where_it_was_pulled(guided):
    """With the admittance the hand reaches ≥ 90 % of the 5 cm pull (measured 97 %, the spring
    nearly relaxed: 0.6 N) and stays there after release (no spring in eq. 3.65); under its PD
    alone it yields ≤ 70 % (measured 57 %, against 10.7 N) and springs back to ≤ 20 % (measured
    11 %). The robot keeps standing (base height within 1 cm)."""
    pd, comp = guided["pd"], guided["compliant"]
    assert comp["held"][0] >= 0.9 * PULL[0]
    assert comp["after"][0] >= 0.9 * PULL[0]
    assert np.linalg.norm(comp["force"]) < 0.5 * np.linalg.norm(pd["force"])
    assert pd["held"][0] <= 0.7 * PULL[0]
    assert pd["after"][0] <= 0.2 * PULL[0]
    assert pd["force"][0] < 0  # the hand feels the arm pull back (eq. 3.63 sign)
    assert abs(pd["dz"]) < 0.01 and abs(comp["dz"]) < 0.01


def test_admittance_on_a_free_body_is_refused():
    doc = {
        "name": "b",
        "gravity": [0, 0, 0],
        "ground": None,
        "free_bodies": [{"name": "box", "shape": "box", "size": [0.1] * 3, "mass": 1.0}],
    }
    w = World(scene_from_dict(doc, "test"))
    dev = w.connect_haptics()
    dev.set_pointer([0, 0, 0])
    with pytest.raises(CommandError, match="robot link only"):
        dev.attach("box", admittance=ADMITTANCE)
    assert not dev.active
