"""Placed random candidates (`search.PlannerSettings.placed_candidates`, `Feasibility.placed_clear`,
`children.random_candidates`' ``keep``): a candidate contact fixes its body's whole pose, so a
candidate whose body's capsule there is within the collision margin of an obstacle (other than the
one its surface lies on) can never be a witness, and is drawn again instead of being given to the
posture generator. BIP's stairs (the thesis's stairs, Escande 2008, §5.4.2, planned for BIP too)
plan with it.

The threshold is computed from the capsule itself: BIP's foot capsule runs along the sole's
tangent from the ankle frame's x = a_x to b_x with radius r, so on a tread whose next riser is
at x = +0.15 m (tread coordinates, the 0.30 m deep step of Escande 2008, §5.4.2) its tip is
clear of the riser by the 1 cm margin iff x + cos(theta) (b_x - p_x) + r <= 0.15 - 0.01, p the
sole's contact point.
"""

import numpy as np
import pytest

from humanoid_planner.contact import check_plan, motion_problems
from humanoid_planner.contact.children import random_candidates
from humanoid_planner.contact.stance import Contact
from humanoid_planner.motion import contact_drift, generate_motion


@pytest.fixture(scope="module")
def bip_stairs():
    from humanoid_model import load_robot
    from humanoid_model.scene import load_scene
    from humanoid_planner.contact import scene_planning

    sp = scene_planning(load_scene("stairs"), load_robot("bip"))  # the scene's robot_settings for BIP
    assert sp.planner.s.placed_candidates and sp.planner.s.reach == 0
    return sp


def _riser_limit(feas, theta):
    """The largest x [m] on step1_top at which the left foot's capsule keeps the margin from step 2."""
    m = feas.model
    loc = feas.locations["l_sole"]
    cap = next(c for c in feas.capsules if c.body == m.names[m.frames[m.getFrameId(loc.body)].parentJoint])
    assert np.allclose(m.frames[m.getFrameId(loc.body)].placement.homogeneous, np.eye(4))  # body frame = joint frame
    assert abs(cap.a[1]) < 1e-12 and abs(cap.b[1]) < 1e-12 and abs(loc.point[1]) < 1e-12 and cap.b[0] > cap.a[0]
    return 0.15 - feas.collision_margin - np.cos(theta) * (cap.b[0] - loc.point[0]) - cap.radius


@pytest.mark.parametrize("theta", [0.0, 0.35])
def test_placed_clear_keeps_the_toe_capsule_off_the_next_riser(bip_stairs, theta):
    """On step 1 with the right foot on the floor: clear 1 mm short of the analytic limit, not
    clear 2 mm past it (the check allows 1 mm, `PLACED_SLACK`); the foot's own step (its capsule
    dips 6.6 cm into it below the sole) and the floor's far side never count."""
    feas = bip_stairs.planner.feas
    right = (bip_stairs.start.contacts[1],)
    x = _riser_limit(feas, theta)
    assert -0.12 < x < -0.05  # the capsule's 7.6 cm beyond the toe: BIP's foot on the tread's back half
    assert feas.placed_clear(right, Contact("l_sole", "step1_top", x - 1e-3, 0.1, theta))
    assert not feas.placed_clear(right, Contact("l_sole", "step1_top", x + 2e-3, 0.1, theta))
    assert feas.placed_clear(right, Contact("l_sole", "step5_top", 0.1, 0.1, theta))  # no riser after step 5
    assert not feas.placed_clear(right, Contact("l_sole", "floor", 0.99, 0.3, theta))  # the toe in step 1's riser
    assert feas.placed_clear(right, Contact("l_sole", "floor", 0.5, 0.3, theta))


def test_a_candidate_placed_clear_drops_fails_the_posture_generator(bip_stairs):
    """The filter drops only what the PG must refuse: from BIP standing on its right foot, the left
    foot 5 mm inside the riser limit on step 1 is a witness, 5 mm past it the PG fails."""
    feas, start = bip_stairs.planner.feas, bip_stairs.start
    right = (start.contacts[1],)
    root = feas.transition(start.contacts, start.contacts, bip_stairs.start_q)
    one = feas.transition(start.contacts, right, root.q)
    assert root.success and one.success
    x = _riser_limit(feas, 0.0)
    for dx, ok in ((-5e-3, True), (5e-3, False)):
        c = Contact("l_sole", "step1_top", x + dx, 0.12, 0.0)
        assert feas.placed_clear(right, c) == ok
        assert feas.transition(right + (c,), right, one.q, purpose="candidate").success == ok


def test_random_candidates_redraw_what_keep_refuses(floor):
    """``keep`` refusing x > 0 gives the same count, all with x <= 0; accepting everything gives
    the very triplets of no ``keep`` (the same draws: the thesis's candidates when the setting is
    off); refusing everything stops after its bounded draws with none."""
    point = floor.centroid + [0.3, -0.2, 0.36]
    draw = lambda keep: random_candidates(floor, point, 0.6, (-0.4, 0.4), 10.0, np.random.default_rng(3), keep)  # noqa: E731
    free = draw(None)
    assert draw(lambda x, y, th: True) == free
    half = draw(lambda x, y, th: x <= 0.0)
    assert len(half) == len(free) and all(x <= 0.0 for x, _, _ in half)
    assert draw(lambda x, y, th: False) == []


def test_bip_climbs_the_stairs_with_self_collision(bip_stairs):
    """The stairs for BIP (feet only), self-collision on, the scene's random candidates placed: a
    plan to step 5 that `check_plan` passes (its own geometry clear of itself and the steps at every
    witness), and its motion checked at every sample. ~6 s of CPU (docs/contact_planner.md
    "Scenes"); bounded by expansions, not time."""
    bip_stairs.planner.s.time_limit = np.inf
    bip_stairs.planner.s.max_expanded = 200
    plan = bip_stairs.plan()
    assert plan.success, plan.reason
    assert check_plan(bip_stairs.planner, plan) == []
    assert bip_stairs.planner.s.self_collision
    last = plan.nodes[-1].stance
    assert set(last.locations) == {"l_sole", "r_sole"} and "step5_top" in {c.surface for c in last}
    # its motion (every plan the tests produce is checked; the motion's defaults, k = 20): every witness
    # posture is a sample, every held sole's point within 1 mm of its contact at every sample
    # (forward kinematics), BIP's joints under the 10 deg/s cap (Escande 2008, §7.1.2), and every
    # 10th sample clear of the steps and of itself but in the segments the motion reports unclear
    # (`Motion.unclear`: on this machine the left sole's two-tread step from step 1 to step 3
    # past the right sole on step 2, which no lifted or bent path lets BIP's leg follow: the feet
    # overlap by up to 6 cm there; docs/contact_planner.md "Limitations")
    m = generate_motion(bip_stairs.planner.feas, plan.nodes, plan.goal_q)
    for n, t in zip(plan.nodes, m.witness_times):
        np.testing.assert_allclose(m.q[int(np.argmin(np.abs(m.t - t)))], n.q, atol=1e-12)
    data = bip_stairs.planner.feas.model.createData()
    wt = m.witness_times
    drift = max(
        contact_drift(bip_stairs.planner.feas, seg.fixed, q, data)
        for k, seg in enumerate(m.segments)
        for q in m.q[(m.t >= wt[k] - 1e-9) & (m.t <= wt[k + 1] + 1e-9)]
    )
    assert drift < 1e-3, drift
    speed = np.abs(np.diff(m.q[:, 7:], axis=0)) / np.diff(m.t)[:, None]
    assert speed.max() <= np.deg2rad(10.0) * (1 + 1e-9)
    found = motion_problems(bip_stairs.planner, m, stride=10)
    assert {int(f.split()[1]) for f in found} <= set(m.unclear), found[:3]
