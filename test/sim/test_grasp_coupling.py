"""The grasp coupling (`humanoid_sim.stages.grasp`, `World.grasp`): a spring-damper between two bodies
with equal and opposite wrenches, the model of the hands holding the dynamic lift's box (docs/lifting.md).

A 2 kg bob hangs from a point of a 50 kg slab resting on the floor (their shapes do not collide):
it settles m g / k below the point, the grasp's force on it is its weight, and the floor carries
both bodies' weights (the slab gets the opposite force: Newton's third law)."""

from pathlib import Path

import numpy as np
import pytest

from humanoid_model.scene import scene_from_dict
from humanoid_sim.exceptions import CommandError
from humanoid_sim.world import World

G = 9.81
M_SLAB, M_BOB, K = 50.0, 2.0, 2000.0  # [kg], [kg], [N/m] (chosen: a 9.8 mm deflection, ω_n 32 rad/s)
POINT = np.array([0.5, 0.0, 0.45])  # the grasp point on the slab, its frame [m]; the bob's centre 5 cm above it


def _world():
    doc = {
        "name": "hang",
        "gravity": [0, 0, -G],
        "ground": {"height": 0.0, "friction": 0.4},
        "free_bodies": [
            {"name": "slab", "shape": "box", "size": [0.6, 0.6, 0.1], "mass": M_SLAB, "pose": {"xyz": [0, 0, 0.05]}},
            {"name": "bob", "shape": "box", "size": [0.1, 0.1, 0.1], "mass": M_BOB, "pose": {"xyz": [0.5, 0, 0.5]}},
        ],
        "collision": {"exclude": [["bob", "slab"]]},
    }
    return World(scene_from_dict(doc, Path("hang.yaml")))


def test_a_hung_body_settles_at_the_static_deflection_with_equal_and_opposite_forces():
    w = _world()
    grasp = w.grasp("slab", "bob", point=POINT, body_point=[0, 0, 0], stiffness=K)
    w.step(600)  # ζ = 1/√2 at ω_n = 32 rad/s: settled to 1e-6 well within 0.6 s
    bob = w.body_state("bob").position
    # the bob's centre (its grasp point) hangs m g / k below the slab's point (0.5, 0, 0.5)
    assert bob[2] == pytest.approx(0.5 - M_BOB * G / K, abs=1e-6)
    assert abs(bob[0] - 0.5) < 1e-6 and abs(bob[1]) < 1e-6
    np.testing.assert_allclose(grasp.wrench, [0, 0, M_BOB * G, 0, 0, 0], atol=1e-4)
    # the slab carries the opposite force: the floor holds both weights
    floor = sum(c["force"][2] for c in w.contact_list() if c["body_a"] == "slab")
    assert floor == pytest.approx((M_SLAB + M_BOB) * G, rel=1e-6)


def test_the_coupling_keeps_the_pair_s_momentum_in_free_flight():
    w = _world()
    grasp = w.grasp("slab", "bob", point=POINT, stiffness=K)
    import pinocchio as pin

    v = np.random.default_rng(0).normal(size=w.model.nv)
    pin.computeJointJacobians(w.model, w.data, w.q)
    tau = w.grasps(w.data, v)
    # Σ over both bodies of the generalised force's linear and angular parts about the origin: zero
    total = np.zeros(6)
    for name in ("slab", "bob"):
        j = w.body_joint[name]
        i = w.model.joints[j].idx_v
        M = pin.SE3(w.data.oMi[j])
        f = pin.Force(tau[i : i + 6])  # the free flyer's generalised force: a wrench in its local frame
        total += M.act(f).vector
    assert np.abs(grasp.wrench[:3]).max() > 1.0  # the random velocities stretch the damper
    np.testing.assert_allclose(total, 0.0, atol=1e-9)


def test_bad_grasps_give_one_clear_error_each():
    w = _world()
    with pytest.raises(CommandError, match="link"):
        w.grasp("no_such_link", "bob")
    with pytest.raises(CommandError, match="body"):
        w.grasp("slab", "no_such_body")
    with pytest.raises(CommandError, match="body"):
        w.grasp("slab", "slab")
    with pytest.raises(CommandError, match="stiffness"):
        w.grasp("slab", "bob", stiffness=-1.0)
    with pytest.raises(CommandError, match="stiffness.*at most"):
        w.grasp("slab", "bob", stiffness=1e9)  # √(k/m) dt ≫ 0.5: it would diverge
    with pytest.raises(CommandError, match="link"):
        w.release("bob")
    assert w.grasps is None or not w.grasps.couplings  # nothing was made
