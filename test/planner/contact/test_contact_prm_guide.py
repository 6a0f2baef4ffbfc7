"""The automatic guide (humanoid_planner/contact/prm_guide.py; Escande 2008, §6.4):
Wood's von Mises-Fisher sampler has the distribution's mean resultant length A_4(kappa) =
I_2(kappa)/I_1(kappa) (6.14)-(6.15); the cone stability LP (6.11)-(6.12) agrees with the CoM
polygon (3.63) on coplanar horizontal feet (the equivalence of §3.4.4, away from the boundary); on the flat
scene the PRM returns a guide from the start to a goal 1 m ahead whose every configuration is in
C_guide (collision-free, soles within eps_contact of the floor, stable by the LP); on the chair
scene (§7.3) the sitting start is in C_guide and links to standing in front of the seat (the whole chair
guide and the planning it guides: benchmarks/prm_guide.py, docs/contact_planner.md)."""

import numpy as np
import pinocchio as pin
import pytest
from scipy.special import iv

from humanoid_planner.contact.prm_guide import PrmGuide, stable, vmf


def test_vmf_sampler_has_the_mean_resultant_length_of_the_distribution():
    rng = np.random.default_rng(0)
    for kappa in (2.0, 20.0):
        X = vmf(rng, [0.3, 0.1, 0.2, 0.9], kappa, 20000)
        mean = np.array([0.3, 0.1, 0.2, 0.9]) / np.linalg.norm([0.3, 0.1, 0.2, 0.9])
        assert np.allclose(np.linalg.norm(X, axis=1), 1.0)
        r = X.mean(axis=0)
        assert abs(np.linalg.norm(r) - iv(2, kappa) / iv(1, kappa)) < 0.005  # 3.5 standard errors
        assert r @ mean / np.linalg.norm(r) > 0.999  # about the mean direction


@pytest.mark.spec("001", "A10")
def test_cone_stability_lp_agrees_with_the_com_polygon_on_flat_feet(robot):
    """HRP-2 standing, its base shifted so the CoM sweeps across the feet's polygon in x: the LP
    verdict equals 'CoM inside the convex hull of the sole corners' (mu = 0.4) 1 mm or more from the edges."""
    m, d = robot.model, robot.model.createData()
    L = robot.contact_locations
    checked = 0
    for dx in np.linspace(-0.2, 0.2, 41):
        q = robot.q()
        pin.framesForwardKinematics(m, d, q)
        pts = np.array([d.oMf[m.getFrameId(L[n].body)].act(h) for n in ("l_sole", "r_sole") for h in L[n].hull])
        gx = pin.centerOfMass(m, d, q)[0] + dx
        q[0] += dx  # the CoM moves by dx; the contact points stay where they were
        inside = pts[:, 0].min() + 1e-3 < gx < pts[:, 0].max() - 1e-3
        outside = gx < pts[:, 0].min() - 1e-3 or gx > pts[:, 0].max() + 1e-3
        if inside or outside:
            n = np.tile([0, 0, 1.0], (len(pts), 1))
            assert stable(m, d, q, pts, n, np.full(len(pts), 0.4)) == inside
            checked += 1
    assert checked > 30


def test_prm_guide_on_flat_ground_stays_in_c_guide(robot, floor):
    q0 = robot.q()
    goal = q0.copy()
    goal[0] += 1.0
    prm = PrmGuide(robot, [floor], [], ["l_sole", "r_sole"], [q0])
    roadmap = prm.plan(q0, goal, ([0.0, -0.15, 0.6], [1.0, 0.15, 0.66]), seed=1, max_samples=60)
    guide = roadmap.guide
    assert len(guide) >= 3 and np.array_equal(guide[0], q0) and np.array_equal(guide[-1], goal)
    for q in guide:
        contacts = prm.contacts(q)
        assert {c[0] for c in contacts} == {"l_sole", "r_sole"} and prm.in_guide(q)
    assert all(np.linalg.norm(prm.coords(a) - prm.coords(b)) <= prm.radius for a, b in zip(guide, guide[1:]))


def test_an_end_without_edges_gets_samples_about_it(robot, floor):
    """The goal 2 m ahead and the sampling box 1.4-2 m ahead, beyond the 0.6 m linking radius
    from the start: box samples alone never reach the start (``near`` 0: no node within 1.2 m of
    it after 20 samples); with the isolated-end bias every other sample is drawn within
    ``near`` (0.15 m) of the start's root (the projection may move it a few cm), until one
    links to it."""
    q0 = robot.q()
    goal = q0.copy()
    goal[0] += 2.0
    box = ([1.4, -0.15, 0.6], [2.0, 0.15, 0.66])
    for near in (0.0, 0.15):
        prm = PrmGuide(robot, [floor], [], ["l_sole", "r_sole"], [q0], near=near)
        roadmap = prm.plan(q0, goal, box, seed=0, max_samples=20)
        dist = np.array([np.linalg.norm(q[:2] - q0[:2]) for q in roadmap.nodes[2:]])
        if near == 0.0:
            assert len(dist) > 5 and dist.min() > 1.2 and not roadmap.edges[0]
        else:
            # the first sample about the start that projects links to it, which ends the bias
            assert np.sum(dist < 0.3) >= 1 and roadmap.edges[0]


@pytest.mark.spec("001", "A23")
def test_chair_sitting_start_is_in_c_guide_and_links_to_standing(robot):
    """The chair at the table (Escande 2008, §6.4 and §7.3): the sitting start (the planner's witness of the scene's
    start stance) is in C_guide with the feet and thighs in contact, stable by the cone LP; the same
    posture 5 cm up (every body out of contact) is not; standing in front of the seat (in C_guide)
    is linked to it by a straight segment that stays collision-free and stable, so the PRM returns
    the two-node guide at once. The whole chair guide and the planning it guides:
    benchmarks/prm_guide.py (docs/contact_planner.md)."""
    from humanoid_model.scene import load_scene
    from humanoid_planner.contact import scene_planning
    from humanoid_planner.planning.problem import placed

    scene = load_scene("chair_table")
    sp = scene_planning(scene)
    feas = sp.planner.feas
    start = feas.transition(sp.start.contacts, sp.start.contacts, sp.start_q).q
    prm = PrmGuide(robot, list(scene.surfaces), feas.obstacles, ["l_sole", "r_sole", "l_thigh", "r_thigh"], [start])
    assert {c[0] for c in prm.contacts(start)} == {"l_sole", "r_sole", "l_thigh", "r_thigh"} and prm.in_guide(start)
    up = start.copy()
    up[2] += 0.05
    assert prm.contacts(up) == [] and not prm.in_guide(up)
    stand = placed(robot.q(), 0.25, 0.05, 0.0)
    assert prm.in_guide(stand)
    roadmap = prm.plan(start, stand, ([0.0, 0.0, 0.4], [0.3, 0.1, 0.65]), seed=0, max_samples=1)
    assert roadmap.path == [0, 1] and len(roadmap.guide) == 2
