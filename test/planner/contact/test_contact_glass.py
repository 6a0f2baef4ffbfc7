"""The glass scene (Escande 2008, §7.4) at its hard step, the first thigh on the seat, and its key
postures (config/scenes/glass.yaml, docs/contact_planner.md "Scenes"):

- with both soles on the floor in front of the chair (where sitting has them) and the CoM over
  them, one thigh is set on the seat: the other thigh's capsule, whose radius reaches 2.1 cm below
  its contact point, is kept from the seat by the margin less that overshoot
  (`Feasibility.overshoot`); the real geometry (`check_plan`'s coal test on the URDF
  shapes) is clear of the seat; kept at the full margin the same request is infeasible
  (self-collision off here: it is another rule, and with it the chest cannot lean over the thighs
  far enough for the CoM to stay over the feet);
- the guide's crouch and sitting key postures project on their stances with the glass upright
  (T_glass, (6.24): abs(n.i), abs(n.j) <= 1e-4, n.k > 0), clear of the chair and the table.

The plan itself (minutes) is in benchmarks/contact_scenes.py and docs/contact_planner.md, not here.
"""

import pinocchio as pin
import pytest

from humanoid_model.coal_import import coal
from humanoid_model.scene import load_scene
from humanoid_planner.contact import Stance, scene_planning
from humanoid_planner.contact.check import check_plan
from humanoid_planner.contact.collision_pairs import SEATED_GEOMETRY_MARGIN
from humanoid_planner.contact.node import ADDED, Node
from humanoid_planner.contact.search import Plan

VERTICAL_TOL = 1e-4  #: chosen: the glass's vertical axis of acceptance test 001 A21


@pytest.fixture(scope="module")
def glass():
    return scene_planning(load_scene("glass"))


def _sitting_stances(sp):
    keys = sp.key_postures
    crouch, sitting = keys[-2], keys[-1]
    f = sp.planner.feas
    soles = f.contacts_at(sitting, ["l_sole", "r_sole"], "floor")
    thighs = f.contacts_at(sitting, ["l_thigh", "r_thigh"], "seat")
    return crouch, sitting, soles, thighs


@pytest.mark.spec("001", "A21")
def test_crouch_and_sitting_stances_hold_the_glass_upright_clear_of_the_chair_and_table(glass):
    """The guide's crouch (soles where sitting has them) and sitting key postures, projected by the
    planner's posture generator on their stances with T_glass: a witness each, which `check_plan`
    accepts (contacts, CoM, T_glass, the real geometry clear of the chair and the table), the
    glass upright to 1e-4."""
    crouch, sitting, soles, thighs = _sitting_stances(glass)
    f, m = glass.planner.feas, glass.robot.model
    data, fid = m.createData(), m.getFrameId(glass.robot.contact_locations["r_hand"].body)
    for q, stance in ((crouch, Stance(soles)), (sitting, Stance(soles + thighs))):
        res = f.transition(stance.contacts, stance.contacts, q)
        assert res.success, res.outcome
        assert _problems(glass, Plan(True, [Node(stance, res.q, 0.0)], res.q, 1, 0, 0.0, f.stats)) == []
        pin.framesForwardKinematics(m, data, res.q)
        n = data.oMf[fid].rotation[:, 2]
        assert abs(n[0]) <= VERTICAL_TOL and abs(n[1]) <= VERTICAL_TOL and n[2] > 0


def _problems(sp, plan):
    """`check_plan`'s findings but the goal's (these postures are not the goal)."""
    return [p for p in check_plan(sp.planner, plan) if not p.startswith("goal posture: goal task")]


def test_first_thigh_on_the_seat_with_both_feet_on_the_floor():
    """The seated-peer rule alone (self-collision off: the chest then may lean on the thighs, which
    the planner's self-collision forbids; with it the plan sets its first thigh from one foot)."""
    sp = scene_planning(load_scene("glass"), self_collision=False)
    crouch, sitting, soles, thighs = _sitting_stances(sp)
    f = sp.planner.feas
    over = f.overshoot[("RLEG_JOINT2", "chair_seat")]
    assert 0.015 < over < 0.03  # the thigh's 8.1 cm capsule, 6 cm over its contact point
    geometric, stable = Stance(soles + thighs[:1]), Stance(soles)
    res = f.transition(geometric.contacts, stable.contacts, sitting)
    assert res.success, res.outcome
    first = f.transition(stable.contacts, stable.contacts, crouch)
    assert first.success, first.outcome
    nodes = [Node(stable, first.q, 0.0), Node(geometric, res.q, 0.0, kind=ADDED, changed=thighs[0])]
    found = _problems(sp, Plan(True, nodes, res.q, 2, 1, 0.0, f.stats))
    assert [p for p in found if "obstacle" in p] == []  # the real thighs clear the seat
    overshoot = f.overshoot
    try:  # the same request with the other thigh's capsule at the full margin
        f.overshoot = {}
        assert not f.transition(geometric.contacts, stable.contacts, sitting).success
    finally:
        f.overshoot = overshoot


def _box_distance(sp, q) -> float:
    """coal's distance [m] of the right thigh's own collision geometry (the URDF box) from the
    seat at ``q``, apart from the planner's rows."""
    robot, f = sp.robot, sp.planner.feas
    m, cm = robot.model, robot.collision_model
    data, gdata = m.createData(), pin.GeometryData(cm)
    pin.framesForwardKinematics(m, data, q)
    pin.updateGeometryPlacements(m, data, cm, gdata)
    seat = next(o for o in f.obstacles if o.name == "chair_seat")
    joint, out = m.getJointId("RLEG_JOINT2"), []
    for k, g in enumerate(cm.geometryObjects):
        if g.parentJoint == joint:
            T = coal.Transform3s(gdata.oMg[k].rotation, gdata.oMg[k].translation)
            out.append(
                coal.distance(g.geometry, T, seat.shape, seat.transform, coal.DistanceRequest(), coal.DistanceResult())
            )
    return min(out)


def test_a_free_thigh_keeps_its_own_box_off_the_seat():
    """A free thigh over the seat the other thigh rests on: its capsule's margin is lowered by the
    overshoot (above), which holds the box's face level with the seat the margin away but not a
    rolled box's edge. The first-thigh request's solution with the free right thigh rolled 0.5 rad
    about its hip's roll axis and the robot lowered 1 cm: its capsule still clears its lowered
    margin while its box is 8.7 mm inside the seat (coal on the URDF box). The planner measures
    that box (`seated_geometry_gaps`: coal's distance) and the request projected from there keeps
    it `SEATED_GEOMETRY_MARGIN` off the seat."""
    sp = scene_planning(load_scene("glass"), self_collision=False)
    crouch, sitting, soles, thighs = _sitting_stances(sp)
    f, m = sp.planner.feas, sp.robot.model
    geometric, stable = Stance(soles + thighs[:1]), Stance(soles)
    assert thighs[0].location == "l_thigh"  # the right thigh is the free one
    touching = [c.pair for c in geometric.contacts]
    res = f.transition(geometric.contacts, stable.contacts, sitting)
    assert res.success, res.outcome
    q = res.q.copy()
    q[m.joints[m.getJointId("RLEG_JOINT1")].idx_q] -= 0.5
    q[2] -= 0.01
    data = m.createData()
    pin.framesForwardKinematics(m, data, q)
    M = data.oMf[m.getFrameId(sp.robot.contact_locations["r_thigh"].body)]
    assert f.body_gap("r_thigh", M.rotation, M.translation, touching) >= 0  # the capsule rule holds
    dipped = _box_distance(sp, q)
    assert dipped < -0.005  # the box is inside the seat
    assert f.seated_geometry_gaps(q, touching) == {("RLEG_JOINT2", "chair_seat"): pytest.approx(dipped, abs=1e-9)}
    again = f.transition(geometric.contacts, stable.contacts, q)
    assert again.success, again.outcome
    assert _box_distance(sp, again.q) >= SEATED_GEOMETRY_MARGIN - f.settings.tolerance
