"""Under the table (Escande 2008, §6.3.3; acceptance test 001 A19): HRP-2 standing before a table
with 0.80 m clearance crawls under it on hands and feet and stands up past it, guided by the
hand-given key postures (standing -> all fours -> standing) with the individual potentials on the
hands, knees and feet. Checked by the independent `check_plan` (one contact change per step, the
transition rule from the forward kinematics, joint limits, the robot's own geometry clear of the
table and the ground, the goal) and by the plan's structure: hands on the floor, the root under the
table, standing on both soles at the end. One plan per run (conftest ``scene_plan``); its times and
node counts are in docs/contact_planner.md, never asserted."""

import pytest

from humanoid_planner.contact import check_plan

NEAR_X, DEPTH = 1.00, 1.20  # [m] the table's edge facing the robot and its depth (config/scenes/under_table.yaml)


@pytest.mark.slow
@pytest.mark.spec("001", "A19")
def test_hrp2_crawls_under_the_table_on_hands_and_feet_and_stands_past_it(scene_plan):
    sp, plan = scene_plan("under_table")
    assert plan.success, plan.reason
    assert check_plan(sp.planner, plan) == []
    kinds = sp.planner.feas.locations
    on_hands = [
        n for n in plan.nodes if sum(kinds[c.location].kind == "hand" and c.surface == "floor" for c in n.stance) == 2
    ]
    assert on_hands, "no stance with both hands on the floor"
    under = [n for n in plan.nodes if NEAR_X < n.q[0] < NEAR_X + DEPTH]
    assert under, "no witness with its root under the table"
    last = plan.nodes[-1].stance
    assert set(last.locations) == {"l_sole", "r_sole"} and {c.surface for c in last} == {"floor"}
    assert plan.goal_q[0] > NEAR_X + DEPTH  # past the table


@pytest.mark.slow
def test_the_crawls_hand_and_sole_shift_is_clear_through_a_via_posture(scene_plan, monkeypatch):
    """Segment 10 of the crawl (the left hand leaves the floor while the right sole lands, the left
    sole and the right hand held) is kept clear by no projection of the straight interpolation, on
    any body path; through the first via posture (`motion.via`: the end posture at the start's base
    position, projected) both halves are, and the motion's samples are clear on the URDF geometry
    (`motion_problems`, every 5th) with the held contacts within 1 mm. The path planner is off
    (``plan_time`` 0) so that the via alone is tested."""
    from humanoid_planner.contact import motion_problems
    from humanoid_planner.motion import MotionSettings, contact_drift, generate, generate_motion

    sp, plan = scene_plan("under_table")
    feas, nodes, settings = sp.planner.feas, plan.nodes[10:12], MotionSettings(plan_time=0.0)
    motion = generate_motion(feas, nodes, None, settings)
    assert motion.unclear == []
    assert motion_problems(sp.planner, motion, 5) == []
    seg = motion.segments[0]
    data = feas.model.createData()
    assert max(contact_drift(feas, seg.fixed, q, data) for q in motion.q[::5]) <= 1e-3
    monkeypatch.setattr(generate, "via_postures", lambda *args: [])
    assert generate_motion(feas, nodes, None, settings).unclear == [0]  # the projections alone leave it unclear
