"""The planner potentials (humanoid_planner/contact/potentials/, Escande 2008, §5.3.5 and §6.3): every
registered member satisfies the one interface; the gradients of the guide potential U_T (6.8),
the individual body potentials (6.9) and their weighted sum match central differences along
random tangent directions; the rounded guide's closest point matches a brute-force search; with
rounded corners (§6.3.2) U_T and its gradient are continuous across the corner bisector
where the unrounded polyline's progress jumps, and the progress increases monotonically along
T; the discrete bonus/malus on hand-made stances."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_planner.contact import POTENTIALS, Contact, Potential, Stance
from humanoid_planner.contact.potentials import (
    BodyGroup,
    BodyPotential,
    GuideCoordinates,
    GuidePotential,
    MixedPotential,
    RoundedPolyline,
    StanceBonus,
    WeightedSum,
)
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import PostureCriterion

FD_STEP = 1e-5  # as test_posture_jacobians / test_contact_goal: |FD - J d| <= 1e-6 |J d| + 1e-9


def _key_postures(robot):
    """Three key postures making a corner: half-sitting, 0.6 m forward and turned 0.5 rad with the
    knees bent, then 0.6 m to the left (a 90 deg corner of the root)."""
    q0 = robot.q()
    q1 = q0.copy()
    q1[0] += 0.6
    q1[3:7] = pin.Quaternion(pin.exp3(np.array([0, 0, 0.5]))).coeffs()
    q1[7:] = np.clip(q0[7:] + 0.3, robot.q_lower, robot.q_upper)
    q2 = q1.copy()
    q2[1] += 0.6
    return np.array([q0, q1, q2])


def _near(robot, K, rng, spread=0.15):
    """A configuration near the guide: a random key posture mix, perturbed."""
    w = rng.uniform()
    i = rng.integers(0, len(K) - 1)
    c = GuideCoordinates(robot.model)
    y = (1 - w) * c(K[i]) + w * c(K[i + 1])
    q = c.configuration(y, K[0])
    v = rng.normal(size=robot.model.nv) * spread
    q = pin.integrate(robot.model, q, v)
    q[7:] = np.clip(q[7:], robot.q_lower, robot.q_upper)
    return q


@pytest.fixture(scope="module")
def members(robot):
    m, K = robot.model, _key_postures(robot)
    guide = GuidePotential(m, K)
    hand = BodyPotential(m, "RARM_LINK5", robot.contact_locations["r_hand"].point, key_postures=K)
    target = BodyPotential(m, "LARM_LINK5", positions=[[0.8, 0.3, 0.9]], d0=0.2)  # one point: both branches
    bonus = StanceBonus(robot.contact_locations, m.nv, per_contact=0.1, k0=2, bonus={"sole": -0.05})
    sole = BodyPotential(m, "LLEG_LINK5", robot.contact_locations["l_sole"].point, key_postures=K, k=1.0, d0=0.1)
    knee = BodyPotential(m, "RLEG_LINK3", key_postures=K)
    return {
        "mixed": MixedPotential(m, (0.4, 0.1), robot.q(), d0=0.3),
        "guide": guide,
        "guide_root": GuidePotential(m, K, progress="root"),
        "body": hand,
        "target": target,
        "bonus_malus": bonus,
        "weighted_sum": WeightedSum([(1.0, guide), (1.0, hand), (0.5, target), (1.0, bonus)]),
        "body_group": BodyGroup([(1.0, hand), (0.5, target), (2.0, sole), (0.0, knee)]),
    }


def test_every_registered_potential_has_the_interface(robot, members):
    stance = Stance([Contact("l_sole", "floor", 0, 0.1, 0), Contact("r_sole", "floor", 0, -0.1, 0)])
    assert set(POTENTIALS) <= set(members)
    for name, cls in POTENTIALS.items():
        p = members[name]
        assert isinstance(p, cls) and isinstance(p, Potential) and p.name and p.equations
        assert isinstance(p, PostureCriterion)  # a potential is a kind of posture criterion
        u, g = p.evaluate(robot.q())
        assert np.isfinite(u) and g.shape == (robot.model.nv,)
        assert p.total(stance, robot.q()) == pytest.approx(u + p.stance_term(stance))
        assert p(robot.q()) == u


@pytest.mark.parametrize("name", ["mixed", "guide", "guide_root", "body", "target", "weighted_sum", "body_group"])
def test_potential_gradients_match_central_differences(robot, members, name):
    p, m = members[name], robot.model
    K = _key_postures(robot)
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(6):
        q = _near(robot, K, rng)
        for _ in range(3):
            v = rng.normal(size=m.nv)
            v /= np.linalg.norm(v)
            fd = (p(pin.integrate(m, q, FD_STEP * v)) - p(pin.integrate(m, q, -FD_STEP * v))) / (2 * FD_STEP)
            jd = p.evaluate(q)[1] @ v
            assert abs(fd - jd) <= 1e-6 * abs(jd) + 1e-9, (name, fd, jd)
            checked += jd != 0
    assert checked >= 15  # the gradients are not trivially zero


def test_the_body_group_is_the_weighted_sum_of_its_body_potentials(robot, members):
    """`BodyGroup` (one compiled kernel: the point's Jacobian from the world joint Jacobians, the
    projection, the mixed potential) against the same potentials one by one (`BodyPotential`:
    Pinocchio's frame Jacobian) in a `WeightedSum`, at configurations near and far from the guide:
    a wrong support column, weight, gain or one-point branch shows here."""
    group = members["body_group"]
    reference = WeightedSum(group.terms)
    rng = np.random.default_rng(11)
    K = _key_postures(robot)
    for spread in (0.05, 0.15, 0.6):
        for _ in range(10):
            q = _near(robot, K, rng, spread)
            u, g = group.evaluate(q)
            u_ref, g_ref = reference.evaluate(q)
            assert abs(u - u_ref) <= 1e-12 * (1 + abs(u_ref))
            np.testing.assert_allclose(g, g_ref, rtol=0, atol=1e-12 * (1 + np.abs(g_ref).max()))
            assert np.count_nonzero(g) > 6  # not only the root's columns


def test_a_body_group_refuses_other_terms(robot, members):
    with pytest.raises(PlanningError, match="BodyPotential"):
        BodyGroup([(1.0, members["guide"])])
    with pytest.raises(PlanningError, match="weight"):
        BodyGroup([(-1.0, members["body"])])
    with pytest.raises(PlanningError, match="terms"):
        BodyGroup([])


def test_root_progress_ignores_a_posture_change_at_a_fixed_root(robot, members):
    """The thesis's l' (progress "root", Escande 2008, §6.3.2): the joints moved half-way to the next key posture
    at a fixed root leave it unchanged, where the full-coordinate progress counts them; moving the
    root along the guide's root path is progress for both."""
    K = _key_postures(robot)
    full, root = members["guide"], members["guide_root"]
    bent = K[0].copy()
    bent[7:] += 0.5 * (K[1][7:] - K[0][7:])  # every joint half-way to the next key posture
    assert abs(root.progress(bent) - root.progress(K[0])) < 1e-12
    assert full.progress(bent) > full.progress(K[0]) + 0.01
    ahead = K[0].copy()
    ahead[:3] += 0.5 * (K[1][:3] - K[0][:3])
    assert root.progress(ahead) > root.progress(K[0]) + 0.01 and full.progress(ahead) > full.progress(K[0])


def test_rounded_curve_closest_point_matches_brute_force():
    rng = np.random.default_rng(2)
    P = rng.normal(size=(5, 8))  # a 4-segment polyline in R^8 with sharp corners
    curve = RoundedPolyline(P, max_deviation=0.2)
    s_grid = np.linspace(0, curve.length, 20001)
    pts = np.array([curve.point(s) for s in s_grid])
    # the curve is C¹: consecutive unit tangents turn little
    T = np.diff(pts, axis=0)
    T /= np.linalg.norm(T, axis=1)[:, None]
    assert np.min(np.einsum("ij,ij->i", T[1:], T[:-1])) > 0.99
    for _ in range(40):
        y = pts[rng.integers(len(pts))] + rng.normal(size=8) * 0.1
        pr = curve.closest_point(y)
        k = np.argmin(np.linalg.norm(pts - y, axis=1))
        assert np.linalg.norm(pts[k] - y) + 1e-9 >= pr.D
        assert abs(pr.D - np.linalg.norm(pts[k] - y)) < 1e-4 and abs(pr.s - s_grid[k]) < 0.02
        assert np.allclose(curve.point(pr.s), pr.m, atol=1e-9)


def test_a_curve_that_turns_back_exactly_keeps_its_turning_point():
    """A guide whose points go and come back along one line (a sole's positions when a key
    posture steps back, the dot product of the two directions rounding off -1): no arc can round
    a reversal, so the curve passes through the turning point and stays finite, at both lengths'
    sum; the corner after it (90 deg) is still rounded."""
    P = np.array([[0.3, 0.38, -0.22], [1.262, 0.751, -0.22], [0.3, 0.38, -0.22], [0.3, 0.38, 0.28]])
    curve = RoundedPolyline(P, max_deviation=0.1)
    L = float(np.linalg.norm(P[1] - P[0]))
    np.testing.assert_allclose(curve.point(L), P[1], atol=1e-12)
    np.testing.assert_allclose(curve.point(L + 0.2), P[1] + (P[0] - P[1]) * 0.2 / L, atol=1e-12)  # straight back
    pts = np.array([curve.point(s) for s in np.linspace(0, curve.length, 501)])
    assert np.all(np.isfinite(pts)) and 2 * L < curve.length < 2 * L + 0.5


@pytest.mark.spec("001", "A16")
def test_rounded_guide_is_c1_across_the_corner_bisector_and_progress_is_monotone(robot):
    """Points crossing the bisector of the root's 90 deg corner at 5 cm inside it (within the arc
    radius): with rounding, U_T and dU_T/dv change by O(step) across it; the unrounded polyline
    (deviation 1e-9) makes the progress l jump by about 2 x 5 cm there."""
    m, K = robot.model, _key_postures(robot)
    c = GuideCoordinates(m)
    rounded = GuidePotential(m, K, max_deviation=0.1)
    sharp = GuidePotential(m, K, max_deviation=1e-9)
    y1 = c(K[1])
    u_in = (y1 - c(K[0])) / np.linalg.norm(y1 - c(K[0]))
    u_out = (c(K[2]) - y1) / np.linalg.norm(c(K[2]) - y1)
    inside = (u_out - u_in) / np.linalg.norm(u_out - u_in)  # along the bisector, into the corner
    across = (u_in + u_out) / np.linalg.norm(u_in + u_out)  # crosses the bisector
    h = 1e-6
    jumps = {}
    for name, pot in (("rounded", rounded), ("sharp", sharp)):
        y = y1 + 0.05 * inside
        qa, qb = c.configuration(y - h * across, K[0]), c.configuration(y + h * across, K[0])
        (ua, ga), (ub, gb) = pot.evaluate(qa), pot.evaluate(qb)
        jumps[name] = (abs(ub - ua), np.linalg.norm(gb - ga), abs(pot.progress(qb) - pot.progress(qa)))
    assert jumps["rounded"][0] < 1e-5 and jumps["rounded"][1] < 1e-4 and jumps["rounded"][2] < 1e-5
    assert jumps["sharp"][2] > 0.05  # the progress jumps (m changes segment) without rounding
    # progress along T: the abscissa of points on the rounded curve increases with s
    s = np.linspace(0, rounded.curve.length, 200)
    ls = [rounded.progress(c.configuration(rounded.curve.point(si), K[0])) for si in s]
    assert np.all(np.diff(ls) > 0) and ls[-1] == pytest.approx(rounded.curve.length, abs=1e-9)


def test_bonus_malus_counts_contacts_bodies_and_hands_only(robot):
    L = robot.contact_locations
    b = StanceBonus(L, robot.model.nv, per_contact=0.1, k0=2, bonus={"sole": -0.05, "r_hand": 0.2}, hands_only=3.0)
    feet = Stance([Contact("l_sole", "floor", 0, 0.1, 0), Contact("r_sole", "floor", 0, -0.1, 0)])
    assert b.stance_term(feet) == pytest.approx(-0.1)  # k = k0, two soles
    three = feet.with_contact(Contact("r_hand", "table", 0, 0, 0))
    assert b.stance_term(three) == pytest.approx(0.1 - 0.1 + 0.2)
    hands = Stance([Contact("r_hand", "table", 0, 0, 0), Contact("l_hand", "table", 0.2, 0, 0)])
    assert b.stance_term(hands) == pytest.approx(0.2 + 3.0)  # the hands-only malus
    assert b.evaluate(robot.q())[0] == 0 and not np.any(b.evaluate(robot.q())[1])  # not a PG criterion
