"""The thesis's scenes planned by the contact planner (Escande 2008, §5.4), each from its scene
file's ``planning`` section (`humanoid_planner.contact.scene_problem`) and checked by the
independent `check_plan` (consecutive stances differ by one contact, the transition rule of
§5.3.1.3 from the forward kinematics, joint limits, the robot's own collision geometry clear of
the obstacles, the goal):

- can on the table (§5.4.1): HRP-2 on the 10 cm platform reaches the can, out of its reach
  without support (the goal test from the start stance fails), with a hand resting on the table;
- stairs (§5.4.2): HRP-2 climbs the 5 steps until its CoM is above the top step, with the
  thesis's random candidates (seed 0), in 16-40 stances (the thesis's 22; chosen: a band for
  the randomness of the candidates).

One plan per scene per test run (conftest ``scene_plan``); times and node counts are in
docs/contact_planner.md and benchmarks/contact_scenes.py, never asserted. `check_plan` itself is shown
to catch a moved witness, a skipped contact change, a posture in collision, crossed shanks and a
missed goal.
"""

import dataclasses

import numpy as np
import pytest

from humanoid_planner.contact import check_plan


@pytest.mark.spec("001", "A17")
def test_can_on_the_table_is_reached_with_a_hand_on_the_table(scene_plan):
    sp, plan = scene_plan("table_can")
    assert plan.success, plan.reason
    assert check_plan(sp.planner, plan) == []
    feas = sp.planner.feas
    assert not feas.goal(sp.start.contacts, sp.planner.goal_tasks, plan.nodes[0].q).success  # out of reach alone
    last = plan.nodes[-1].stance
    assert any(c.surface == "table_top" and feas.locations[c.location].kind == "hand" for c in last)
    assert {c.location for c in plan.nodes[0].stance} == {"l_sole", "r_sole"}


@pytest.mark.spec("001", "A18")
def test_stairs_are_climbed_to_the_top_step(scene_plan):
    sp, plan = scene_plan("stairs")
    assert plan.success, plan.reason
    assert check_plan(sp.planner, plan) == []
    last = plan.nodes[-1].stance
    assert set(last.locations) == {"l_sole", "r_sole"}
    assert "step5_top" in {c.surface for c in last}
    used = {c.surface for n in plan.nodes for c in n.stance}
    assert {"floor", "step5_top"} <= used and len(used) >= 4  # it climbs, no giant leap
    assert 16 <= len(plan.nodes) <= 40  # 22 in the thesis (§5.4.2), 16-40 accepted (chosen)


@pytest.mark.spec("001", "A18")
def test_every_stairs_witness_is_held_by_contact_forces(scene_plan):
    """Each witness posture of the stairs plan is held statically by forces in its stance's friction
    cones (`humanoid_sim.runtime.contact_gravity`, the physical check's feedforward): the weight and the
    CoM's moment balanced by the forces themselves (world Newton-Euler, not the solver's rows). With
    DAQP's default primal tolerance witnesses 4 and 22 (CoM 2.6 cm inside their soles' hull) would
    be refused; `contact_gravity` sets its own."""
    import pinocchio as pin

    from humanoid_sim.runtime.contact_gravity import TOLERANCE, contact_gravity

    sp, plan = scene_plan("stairs")
    robot, scene = sp.robot, sp.scene
    model = robot.model.copy()
    model.gravity.linear = np.asarray(scene.gravity, float)
    mu = {s.name: s.friction for s in scene.surfaces}
    mg = pin.computeTotalMass(model) * 9.81
    data = model.createData()
    for node in plan.nodes:
        cg = contact_gravity(model, node.q, [(robot.contact_locations[c.location], mu[c.surface]) for c in node.stance])
        com = pin.centerOfMass(model, data, node.q)
        force = cg.forces.sum(axis=0) - [0.0, 0.0, mg]
        moment = np.cross(cg.points - com, cg.forces).sum(axis=0)
        assert np.abs(force).max() < TOLERANCE * mg and np.abs(moment).max() < TOLERANCE * mg


def test_check_plan_reports_broken_plans(scene_plan):
    """The checker is not a formality: a witness moved by 1 mm, a stance replaced by one two
    contacts away, the goal posture pushed into the table and a goal posture off the goal are
    each reported."""
    sp, plan = scene_plan("table_can")
    nodes = list(plan.nodes)
    moved = dataclasses.replace(nodes[1], q=nodes[1].q.copy())
    moved.q[0] += 1e-3
    problems = check_plan(sp.planner, dataclasses.replace(plan, nodes=[nodes[0], moved] + nodes[2:]))
    assert any("node 1: contact" in p for p in problems)
    skipped = dataclasses.replace(plan, nodes=[nodes[0], nodes[-1]])
    assert any("differ by more than one" in p for p in check_plan(sp.planner, skipped))
    sunk = plan.goal_q.copy()
    sunk[2] -= 0.3  # the whole robot 30 cm down: legs into the platform, arms into the table
    assert any("penetrates" in p for p in check_plan(sp.planner, dataclasses.replace(plan, goal_q=sunk)))
    start = dataclasses.replace(plan, goal_q=nodes[0].q, nodes=[nodes[0]])
    assert any("goal task" in p for p in check_plan(sp.planner, start))
    assert np.array_equal(plan.nodes[1].q, nodes[1].q)  # the shared plan was not modified


def test_the_ground_is_an_obstacle_the_floor_contacts_rest_on(scene_plan):
    """The scene's ground is an obstacle (`posture.Obstacle.ground`) and the floor surface lies on
    it (``body`` "ground"), as a tread lies on its step: a contact on the floor skips the ground,
    every other body stays clear of it. The stairs' start witness sunk 0.2 m (the soles, which rest
    on the floor, and the shanks and knees, which do not, below z = 0) is reported for the shanks in
    the ground; without the ground obstacle the under-table crawl kneels with its feet 12.5 cm into
    the floor."""
    sp, plan = scene_plan("stairs")
    feas = sp.planner.feas
    assert feas.surfaces["floor"].body == "ground" and feas.surfaces["step1_top"].body == "step1"
    assert [o.name for o in feas.obstacles].count("ground") == 1
    nodes = list(plan.nodes)
    sunk = dataclasses.replace(nodes[0], q=nodes[0].q.copy())
    sunk.q[2] -= 0.2
    problems = check_plan(sp.planner, dataclasses.replace(plan, nodes=[sunk] + nodes[1:]))
    assert any(p.startswith("node 0: geometry RLEG_LINK3") and "obstacle ground" in p for p in problems), problems
    assert not any("LINK5" in p and "obstacle ground" in p for p in problems)  # the soles rest on it


def test_the_under_table_guide_crawls_on_postures_clear_of_the_ground_and_the_table():
    """The under-table guide's all-fours key postures (Escande 2008, §6.3.3; at root x 0.45, 1.6 and
    2.7 m) are postures the planner could hold: the soles and hands on the floor (within 0.5 mm and
    1e-3 rad: the scene rounds the joints to 1e-3 rad), the CoM inside their polygon by the
    planner's 2 cm (to 1 mm), every other body clear of the ground, the table and itself. A key
    posture on the knees with both feet 9.2 cm into the floor is one the planner's witnesses cannot
    follow (docs/contact_planner.md, "Scenes")."""
    from humanoid_model.scene import load_scene
    from humanoid_planner.contact import scene_planning
    from humanoid_planner.contact.check import _Collisions, com_depth, witness_errors

    sp = scene_planning(load_scene("under_table"))
    feas = sp.planner.feas
    collisions = _Collisions(sp.planner)
    keys = sp.key_postures[1:-1]
    assert len(keys) == 3 and np.allclose(keys[:, 0], [0.45, 1.6, 2.7])
    for q in keys:
        contacts = feas.contacts_at(q, ["l_sole", "r_sole", "l_hand", "r_hand"], "floor")
        errors = np.array([witness_errors(sp.robot, feas.surfaces, q, c) for c in contacts])
        assert errors[:, 0].max() < 5e-4 and errors[:, 1].max() < 1e-3, errors
        assert com_depth(sp.robot, feas.surfaces, q, contacts) > sp.planner.s.margin - 1e-3
        assert collisions.problems(q, contacts, "key") == []


def test_check_plan_reports_crossed_shanks(scene_plan):
    """A stairs witness with the left hip rolled 0.3 rad toward the right leg (the left knee moves
    ~9 cm inward, R_x(-0.3) on a 0.3 m thigh; the witness itself passes: the stairs test) is reported
    for its shank boxes overlapping ("geometries": the self-collision check's report, not the
    environment one's)."""
    sp, plan = scene_plan("stairs")
    m = sp.planner.robot.model
    nodes = list(plan.nodes)
    crossed = dataclasses.replace(nodes[1], q=nodes[1].q.copy())
    crossed.q[m.joints[m.getJointId("LLEG_JOINT1")].idx_q] -= 0.3
    problems = check_plan(sp.planner, dataclasses.replace(plan, nodes=[nodes[0], crossed] + nodes[2:]))
    assert any(p.startswith("node 1: geometries LLEG_LINK3_0 and RLEG_LINK3_0") for p in problems), problems
    assert not any(p.startswith("node 2:") for p in problems)  # the next witnesses are untouched


def test_a_thigh_released_from_the_seat_clears_it_with_its_box_not_its_capsule():
    """HRP-2's thigh is a 0.12 x 0.11 m box in a capsule of radius hypot(0.06, 0.055) = 0.0814 m,
    2.14 cm past the box's back face, the thigh's contact face: the planner keeps that capsule the
    margin less 2.14 cm from the seat and the table (`Feasibility._overshoot`). Sitting at the chair
    with the right thigh released and both soles on the floor, the left hand then reaches the table
    (the first move of the thesis's chair plan, Escande 2008, §7.3.2); with the capsule at the
    margin the released thigh must rise 3.1 cm and the pre-contact test fails in phase 1. At the
    witness the released thigh's real box (coal on the URDF box) is clear of the seat, by less than
    the capsule's rule would keep it (8.7 mm: the face 1 cm up, a box edge lower by the thigh's
    roll), not by 5 mm or less (check_plan requires > 0)."""
    import coal
    import pinocchio as pin

    from humanoid_model.scene import load_scene
    from humanoid_planner.contact import scene_planning
    from humanoid_planner.contact.boxes import Box

    sp = scene_planning(load_scene("chair_table"), self_collision=False)  # the obstacle rows alone
    feas, robot = sp.planner.feas, sp.robot
    over = np.hypot(0.06, 0.055) - 0.06
    assert {k: round(v, 6) for k, v in feas.overshoot.items()} == {
        (body, obstacle): round(over, 6)
        for body in ("LLEG_JOINT2", "RLEG_JOINT2")
        for obstacle in ("chair_seat", "table_top", "ground")  # the floor lies on the ground obstacle
    }
    stance = tuple(c for c in sp.start.contacts if c.location != "r_thigh")
    released = feas.transition(sp.start.contacts, stance, sp.start_q)
    assert released.success
    box = Box.around(feas.surfaces["table"], released.q[:3], feas.reach("l_hand"), (-np.pi, np.pi))
    pre = feas.pre_contact(stance, "l_hand", box, released.q)
    assert pre.success, pre.outcome
    res, contact = feas.addition(stance, "l_hand", box, pre.q)
    assert contact is not None, res.outcome
    m, cm = robot.model, robot.collision_model
    d, gd = m.createData(), pin.GeometryData(cm)
    pin.framesForwardKinematics(m, d, res.q)
    pin.updateGeometryPlacements(m, d, cm, gd)
    seat = next(o for o in feas.obstacles if o.name == "chair_seat")
    k = next(i for i, g in enumerate(cm.geometryObjects) if m.names[g.parentJoint] == "RLEG_JOINT2")
    M = gd.oMg[k]
    T = coal.Transform3s(M.rotation, M.translation)
    gap = coal.distance(
        cm.geometryObjects[k].geometry, T, seat.shape, seat.transform, coal.DistanceRequest(), coal.DistanceResult()
    )
    assert 0.005 < gap < sp.planner.s.collision_margin + over, gap  # clear, and closer than the capsule allowed
    feas.overshoot = {}  # the capsule at the margin: the same request fails in phase 1
    assert not feas.pre_contact(stance, "l_hand", box, released.q).success


def _expansions(workers: int, count: int, monkeypatch) -> list:
    """The first ``count`` expansions of the under-table search with ``workers`` processes: per
    expansion the father's stance and witness, and its children's stances, witnesses and
    potentials."""
    from humanoid_model.scene import load_scene
    from humanoid_planner.contact import scene_planning
    from humanoid_planner.contact.children import ChildGenerator

    log, expand = [], ChildGenerator.expand

    def logged(self, node, lazy):
        kids = list(expand(self, node, lazy))
        log.append((node.stance, node.q.copy(), [(k.stance, k.q.copy(), k.potential) for k in kids]))
        return kids

    monkeypatch.setattr(ChildGenerator, "expand", logged)
    scene_planning(load_scene("under_table"), workers=workers, max_expanded=count).plan()
    monkeypatch.undo()
    return log


def test_the_under_table_search_is_the_same_on_two_worker_processes(monkeypatch):
    """The children of the first 4 under-table expansions, serial and on 2 spawned workers: the
    same stances, witnesses and potentials, bit for bit. With coal's box support constant set
    differently in the workers (coal imported otherwise than through `humanoid_model.coal_import`)
    their children come back 8.8e-9 rad off and the two searches part at the second expansion; the
    flat scene of test_contact_plan.py does not show it."""
    serial, parallel = _expansions(1, 4, monkeypatch), _expansions(2, 4, monkeypatch)
    assert len(serial) == len(parallel) == 4
    for (s1, q1, k1), (s2, q2, k2) in zip(serial, parallel):
        assert s1 == s2 and np.array_equal(q1, q2) and len(k1) == len(k2)
        for a, b in zip(k1, k2):
            assert a[0] == b[0] and np.array_equal(a[1], b[1]) and a[2] == b[2]


def test_the_stairs_random_candidates_give_the_same_plan_on_two_worker_processes(scene_plan):
    """The stairs search draws random candidates (the scene's ``candidates: random``), each pair's
    generator seeded by (seed, father, pair) (`contact.children`): on 2 spawned workers it gives the
    shared serial plan (conftest ``scene_plan``) bit for bit (stances, witnesses, potentials, goal
    posture, nodes generated and expanded, PG calls by purpose and outcome), so a plan depends on
    the seed, not on the workers or the order their jobs finish in."""
    from humanoid_model.scene import load_scene
    from humanoid_planner.contact import scene_planning

    sp, serial = scene_plan("stairs")
    assert sp.planner.s.candidates == "random" and sp.planner.s.workers == 1
    par = scene_planning(load_scene("stairs"), workers=2).plan()
    assert par.success and len(par.nodes) == len(serial.nodes)
    for a, b in zip(serial.nodes, par.nodes):
        assert a.stance == b.stance and np.array_equal(a.q, b.q) and a.potential == b.potential
    assert np.array_equal(serial.goal_q, par.goal_q)
    assert (par.generated, par.expanded) == (serial.generated, serial.expanded)
    assert dict(par.stats.calls) == dict(serial.stats.calls)
