"""The motion sources' contact schedules (`humanoid_control.wbc.sources`): a contact plan's phases
from its stances and transitions (PLAN.json), a walk's from its footsteps (WALK.json), a gait's
from its single and double supports (GAIT.json), the touching part of a sole on a surface, and the
refusals (a motion of another robot, a schedule that does not hold together, a contact off its
surface).

Every expected phase is written out by hand from the documented rules."""

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.exceptions import ControlError
from humanoid_control.wbc.controller import WholeBodyController
from humanoid_control.wbc.sources import motion_reference
from humanoid_control.wbc.sources.common import RAMP, check_robot, configurations, increasing
from humanoid_control.wbc.sources.gait import gait_phases
from humanoid_control.wbc.sources.plan import plan_phases, plan_reference
from humanoid_control.wbc.sources.walk import walk_phases
from humanoid_model.formats.plan import contact_entry, parse_contact_plan, plan_document, stance_entry, transition_entry
from humanoid_model.robot import load_robot
from humanoid_model.scene import scene_from_dict

INF = np.inf
SOLE = np.array([[-0.115, -0.065], [0.115, -0.065], [0.115, 0.065], [-0.115, 0.065]])  # a sole, contact frame
HULLS = {"l_sole": SOLE, "r_sole": SOLE}
LOCATIONS = {"l_sole": 0, "r_sole": 1, "r_hand": 2}
YAW90 = [0.0, 0.0, np.sin(np.pi / 4), np.cos(np.pi / 4)]  # xyzw: the contact's x along the world's y

# the floor (z = 0) and a step 0.1 m high over x in [0.3, 0.6], y in [-0.5, 0.5]
SCENE = {
    "name": "demo",
    "surfaces": [
        {"name": "floor", "vertices": [[-3, -3, 0], [3, -3, 0], [3, 3, 0], [-3, 3, 0]], "d0": [1, 0, 0]},
        {
            "name": "step",
            "vertices": [[0.3, -0.5, 0.1], [0.6, -0.5, 0.1], [0.6, 0.5, 0.1], [0.3, 0.5, 0.1]],
            "d0": [1, 0, 0],
        },
    ],
}


@pytest.fixture(scope="module")
def robot():
    return load_robot("hrp2")


@pytest.fixture(scope="module")
def scene():
    return scene_from_dict(SCENE, Path("demo.yaml"))


def _contact(location, surface, position, quaternion=(0.0, 0.0, 0.0, 1.0)):
    return contact_entry(
        location=location,
        surface=surface,
        x=0.0,
        y=0.0,
        theta=0.0,
        body="",
        position=position,
        quaternion=quaternion,
        hull=[],
    )


L_FLOOR = _contact("l_sole", "floor", [0.0245, 0.105, 0.0])
R_FLOOR = _contact("r_sole", "floor", [0.0245, -0.105, 0.0])
R_STEP = _contact("r_sole", "step", [0.35, -0.105, 0.1])  # overhangs the step's near edge by 5 cm
L_STEP = _contact("l_sole", "step", [0.45, 0.45, 0.1], YAW90)  # its toes 5 cm beyond the step's side


def _plan(stances, transitions, robot="hrp2", t_end=3.0, joint_names=(), q_row=None, success=True):
    """A parsed plan document: ``stances`` lists of contact entries, ``transitions`` (kind,
    location, surface, (t0, t1)); a trajectory of two samples over [0, t_end]."""
    row = [0.0, 0.0, 0.6487, 0.0, 0.0, 0.0, 1.0] if q_row is None else list(q_row)
    doc = plan_document(
        scene="demo",
        robot=robot,
        algorithm="test",
        seed=0,
        time_limit=1.0,
        goal=None,
        success=success,
        reason="" if success else "no path",
        stances=[
            stance_entry(contacts=c, witness_q=row, support_polygon=[], t=None, kind="", changed=None, potential=0.0)
            for c in stances
        ]
        if success
        else [],
        transitions=[
            transition_entry(start=i, kind=k, location=loc, surface=s, t=t)
            for i, (k, loc, s, t) in enumerate(transitions)
        ],
        goal_q=None,
        t=[0.0, t_end] if success else [],
        q=[row, row] if success else [],
        joint_names=list(joint_names),
        dt=None,
        unclear_segments=[],
        stats={},
    )
    return parse_contact_plan(doc, "PLAN.json", ControlError)


def _walk_up_plan(**kw):
    """Both feet on the floor; the right foot onto the step, then the left one."""
    stances = [[L_FLOOR, R_FLOOR], [L_FLOOR], [L_FLOOR, R_STEP], [R_STEP], [R_STEP, L_STEP]]
    transitions = [
        ("released", "r_sole", "floor", (0.0, 0.4)),
        ("added", "r_sole", "step", (0.4, 1.4)),
        ("released", "l_sole", "floor", (1.4, 1.8)),
        ("added", "l_sole", "step", (1.8, 2.6)),
    ]
    return _plan(stances, transitions, **kw)


def _as_tuples(phases):
    return sorted((p.location, p.start, p.end, round(p.ramp_in, 12), round(p.ramp_out, 12)) for p in phases)


# ---------------------------------------------------------------------- PLAN.json
def test_a_plans_phases_end_with_their_released_transition_and_start_after_their_added_one():
    phases = plan_phases(_walk_up_plan(), "PLAN.json", LOCATIONS)
    assert _as_tuples(phases) == sorted(
        [
            ("r_sole", -INF, 0.4, 0.0, 0.2),  # released over [0, 0.4]: unloaded over half of it
            ("r_sole", 1.4, INF, 0.2, 0.0),  # made at 1.4: loaded over half the next transition (0.4 s)
            ("l_sole", -INF, 1.8, 0.0, 0.2),
            ("l_sole", 2.6, INF, RAMP, 0.0),  # made by the last transition: loaded over RAMP
        ]
    )
    by_key = {(p.location, p.start): p for p in phases}
    step = by_key["r_sole", 1.4]
    assert step.surface == "step" and np.allclose(step.placement.translation, [0.35, -0.105, 0.1])
    assert by_key["l_sole", 2.6].placement.isApprox(
        pin.SE3(pin.rpy.rpyToMatrix(0, 0, np.pi / 2), np.array([0.45, 0.45, 0.1]))
    )
    assert by_key["l_sole", -INF].surface == "floor" and all(p.polygon is None for p in phases)  # no scene given


def test_a_long_release_unloads_over_ramp_seconds_only():
    plan = _plan([[L_FLOOR, R_FLOOR], [L_FLOOR]], [("released", "r_sole", "floor", (0.5, 2.5))])
    phases = plan_phases(plan, "PLAN.json", LOCATIONS)
    assert _as_tuples(phases) == sorted([("r_sole", -INF, 2.5, 0.0, RAMP), ("l_sole", -INF, INF, 0.0, 0.0)])
    assert RAMP <= 1.0  # half the transition would be 1 s


def test_with_the_scene_each_phase_gets_the_part_of_its_sole_on_its_surface(scene):
    phases = plan_phases(_walk_up_plan(), "PLAN.json", LOCATIONS, scene, HULLS)
    by_key = {(p.location, p.start): p for p in phases}
    floor = by_key["r_sole", -INF].polygon
    assert sorted(map(tuple, floor)) == sorted(map(tuple, SOLE))  # wholly on the floor
    # the right sole's heel off the step's edge x = 0.3: its frame at x = 0.35, so local x >= -0.05
    step = by_key["r_sole", 1.4].polygon
    expected = [(-0.05, -0.065), (0.115, -0.065), (0.115, 0.065), (-0.05, 0.065)]
    assert sorted(map(tuple, np.round(step, 12))) == sorted(expected)
    # the left sole turned 90 deg: its local x along the world's y, its toes beyond y = 0.5
    left = by_key["l_sole", 2.6].polygon
    expected = [(-0.115, -0.065), (0.05, -0.065), (0.05, 0.065), (-0.115, 0.065)]
    assert sorted(map(tuple, np.round(left, 12))) == sorted(expected)


@pytest.mark.parametrize(
    "stances, transitions, match",
    [
        ([[L_FLOOR, R_FLOOR], [L_FLOOR]], [("released", "r_hand", "floor", (0.0, 0.4))], "no stance before it holds"),
        ([[L_FLOOR], [L_FLOOR, R_FLOOR]], [("added", "l_sole", "floor", (0.0, 0.4))], "already held"),
        ([[L_FLOOR], [L_FLOOR, R_FLOOR]], [("added", "r_sole", "floor", (0.0, 0.4))] * 2, "must join the 2 stances"),
        ([[L_FLOOR], [L_FLOOR]], [("added", "r_sole", "floor", (0.0, 0.4))], "stance 1 does not hold"),
        ([[L_FLOOR, R_FLOOR], [L_FLOOR]], [("moved", "r_sole", "floor", (0.0, 0.4))], "'added' or 'released'"),
        ([[L_FLOOR, R_FLOOR], [L_FLOOR]], [("released", "r_sole", "floor", (0.4, 0.2))], "two times within"),
        (
            [[L_FLOOR, _contact("nose", "floor", [0, 0, 0])], [L_FLOOR]],
            [("released", "nose", "floor", (0, 1))],
            "one of",
        ),
    ],
)
def test_a_schedule_that_does_not_hold_together_is_a_control_error(stances, transitions, match):
    with pytest.raises(ControlError, match=match):
        plan_phases(_plan(stances, transitions), "PLAN.json", LOCATIONS)


@pytest.mark.parametrize(
    "contact, match",
    [
        (_contact("r_sole", "table", [0.0245, -0.105, 0.0]), "which scene 'demo' does not have"),
        (_contact("r_sole", "step", [0.45, -0.105, 0.15]), "is not on surface 'step'"),  # 5 cm above it
        (_contact("r_sole", "step", [1.0, -0.105, 0.1]), "does not lie on surface 'step'"),  # beside it
    ],
)
def test_a_contact_off_its_surface_is_a_control_error(scene, contact, match):
    plan = _plan(
        [[L_FLOOR, R_FLOOR], [L_FLOOR], [L_FLOOR, contact]],
        [
            ("released", "r_sole", "floor", (0.0, 0.4)),
            ("added", "r_sole", contact["surface"], (0.4, 1.4)),
        ],
    )
    with pytest.raises(ControlError, match=match):
        plan_phases(plan, "PLAN.json", LOCATIONS, scene, HULLS)


def test_a_plan_for_another_robot_or_without_a_motion_is_refused(robot):
    ctrl = WholeBodyController(robot)
    with pytest.raises(ControlError, match="field 'robot' must be 'hrp2'.*'bip'"):
        plan_reference(_walk_up_plan(robot="bip"), "PLAN.json", robot, ctrl)
    with pytest.raises(ControlError, match="'success' is false"):
        plan_reference(_plan([], [], success=False), "PLAN.json", robot, ctrl)


def test_a_plans_reference_follows_its_feet_and_hands(robot):
    ctrl = WholeBodyController(robot)
    q0 = robot.q()
    plan = _walk_up_plan(joint_names=robot.joint_names, q_row=np.r_[q0[:3], q0[3:7], q0[7:]])
    ref = plan_reference(plan, "PLAN.json", robot, ctrl)
    assert set(ref.locations) == {"l_sole", "r_sole", "l_hand", "r_hand"}
    assert np.allclose(ref.sample(1.0).q, q0, rtol=0, atol=1e-10)  # rounded to 1e-10 in the file
    assert _as_tuples(ref.phases) == _as_tuples(plan_phases(plan, "PLAN.json", LOCATIONS))


def test_a_document_that_is_no_motion_is_a_control_error(robot):
    ctrl = WholeBodyController(robot)
    with pytest.raises(ControlError, match="not a motion the whole-body controller executes"):
        motion_reference({"format": "something/1"}, "x.json", robot, ctrl)


# ---------------------------------------------------------------------- WALK.json
def _steps(*steps):
    return [{"foot": f, "t_lift": a, "t_land": b} for f, a, b in steps]


def test_a_walks_feet_are_held_from_each_landing_to_the_next_lift_off():
    walking = {"footsteps": _steps(("r", 1.0, 1.8), ("l", 2.0, 2.8), ("r", 3.0, 3.8)), "parameters": {"t_ds": 0.2}}
    assert _as_tuples(walk_phases(walking, "WALK.json")) == sorted(
        [
            ("r_sole", -INF, 1.0, 0.0, 0.2),
            ("r_sole", 1.8, 3.0, 0.2, 0.2),
            ("r_sole", 3.8, INF, 0.2, 0.0),
            ("l_sole", -INF, 2.0, 0.0, 0.2),
            ("l_sole", 2.8, INF, 0.2, 0.0),
        ]
    )


def test_a_walks_ramps_last_its_double_support_at_most_ramp():
    walking = {"footsteps": _steps(("l", 1.0, 2.0)), "parameters": {"t_ds": 5.0}}
    assert _as_tuples(walk_phases(walking, "WALK.json")) == sorted(
        [("l_sole", -INF, 1.0, 0.0, RAMP), ("l_sole", 2.0, INF, RAMP, 0.0), ("r_sole", -INF, INF, 0.0, 0.0)]
    )


@pytest.mark.parametrize(
    "steps, match",
    [
        ([{"foot": "x", "t_lift": 1.0, "t_land": 2.0}], "'r' or 'l'"),
        ([{"foot": "r", "t_lift": 1.0}], "t_lift and t_land"),
        (_steps(("r", 1.0, 1.0)), "land after lifting off"),
        (_steps(("r", 1.0, 2.0), ("r", 1.5, 2.5)), "after its foot's last landing"),
        (_steps(("r", np.nan, 2.0)), "t_lift nan"),
    ],
)
def test_bad_footsteps_are_control_errors(steps, match):
    with pytest.raises(ControlError, match=match):
        walk_phases({"footsteps": steps}, "WALK.json")


# ---------------------------------------------------------------------- GAIT.json
def _gait(*spans):
    return [{"kind": k, "root_leg": leg, "t_start": t0, "duration": d} for k, leg, t0, d in spans]


def test_a_gaits_rear_foot_turns_on_its_toes_in_double_support_and_the_front_foot_lands_flat():
    phases = _gait(
        ("ss", "r", 0.0, 0.4),
        ("ds", "r", 0.4, 0.1),
        ("ss", "l", 0.5, 0.4),
        ("ds", "l", 0.9, 0.1),
        ("ss", "r", 1.0, 0.4),
    )
    ramp = 0.1  # the double supports' length (below RAMP)
    assert _as_tuples(gait_phases(phases, "GAIT.json")) == sorted(
        [
            ("r_sole", -INF, 0.4, 0.0, 0.0),  # stance foot from the start, handed over to its toes
            ("r_toe", 0.4, 0.5, 0.0, ramp),  # rear in the first double support: unloaded, lifted
            ("l_sole", 0.4, 0.9, ramp, 0.0),  # front: lands flat, loaded, then its toes take over
            ("l_toe", 0.9, 1.0, 0.0, ramp),
            ("r_sole", 0.9, INF, ramp, 0.0),  # lands in the second double support, to the end
        ]
    )


def test_a_gaits_front_foot_lands_on_its_heel_and_turns_down_about_it_until_flat():
    """With the time the front foot is flat (`front_foot_flat_times`), it lands on its heel (a line
    contact it turns about), loaded over the double support's ramp, then holds flat on its sole; a
    foot flat at its landing holds its sole at once, one flat only at the end its heel throughout."""
    phases = _gait(("ss", "r", 0.0, 0.4), ("ds", "r", 0.4, 0.1), ("ss", "l", 0.5, 0.4))
    ramp = 0.1

    def left(flat):
        return [p for p in _as_tuples(gait_phases(phases, "GAIT.json", {1: flat})) if p[0].startswith("l_")]

    assert left(0.45) == [("l_heel", 0.4, 0.45, ramp, 0.0), ("l_sole", 0.45, INF, 0.0, 0.0)]
    assert left(0.4) == [("l_sole", 0.4, INF, ramp, 0.0)]
    assert left(0.5) == [("l_heel", 0.4, 0.5, ramp, 0.0), ("l_sole", 0.5, INF, 0.0, 0.0)]


@pytest.mark.parametrize(
    "phases, match",
    [
        ([{"kind": "xx", "root_leg": "r", "t_start": 0, "duration": 1}], "kind 'ss' or 'ds'"),
        ([{"kind": "ss", "root_leg": "m", "t_start": 0, "duration": 1}], "root_leg 'l' or 'r'"),
        ([{"kind": "ss", "root_leg": "r", "t_start": 0}], "t_start and duration"),
        ([{"kind": "ss", "root_leg": "r", "t_start": 0, "duration": 0.0}], "positive duration"),
        (["ss"], "must be a mapping"),
    ],
)
def test_bad_gait_phases_are_control_errors(phases, match):
    with pytest.raises(ControlError, match=match):
        gait_phases(phases, "GAIT.json")


# ---------------------------------------------------------------------- shared
def test_increasing_drops_the_samples_that_repeat_the_time_before():
    t, rows, more = increasing([0.0, 0.1, 0.1, 0.2, 0.2, 0.3], np.arange(6) * 10, [[i] for i in range(6)])
    assert t.tolist() == [0.0, 0.1, 0.2, 0.3]
    assert rows.tolist() == [0, 10, 30, 50] and more.tolist() == [[0], [1], [3], [5]]


def test_configurations_put_each_named_joint_in_its_place_and_normalise_the_base_quaternion(robot):
    model = robot.model
    names = ["RLEG_JOINT3", "LARM_JOINT0"]
    q = configurations(
        "m.json", model, names, [[0.5, -0.25], [0.1, 0.2]], [[1, 2, 3, 0, 0, 0, 2], [0, 0, 0, 0, 0, 3, 4]]
    )
    assert q.shape == (2, model.nq)
    for k, (a, b) in enumerate([[0.5, -0.25], [0.1, 0.2]]):
        assert q[k, model.joints[model.getJointId("RLEG_JOINT3")].idx_q] == a
        assert q[k, model.joints[model.getJointId("LARM_JOINT0")].idx_q] == b
    assert np.allclose(q[0, :7], [1, 2, 3, 0, 0, 0, 1]) and np.allclose(q[1, 3:7], [0, 0, 0.6, 0.8])
    assert np.count_nonzero(q[:, 7:]) == 4  # the joints the motion does not name: neutral (zero)
    with pytest.raises(ControlError, match="unknown"):
        configurations("m.json", model, ["NOSE_JOINT"], [[0.0]], [[0, 0, 0, 0, 0, 0, 1]])
    with pytest.raises(ControlError, match="quaternion is zero"):
        configurations("m.json", model, [], np.zeros((1, 0)), [[0, 0, 0, 0, 0, 0, 0]])


def test_a_motion_of_another_robot_is_refused_and_one_without_a_robot_is_accepted(robot):
    check_robot("m.json", "hrp2", robot)
    check_robot("m.json", None, robot)
    with pytest.raises(ControlError, match="field 'robot' must be 'hrp2'"):
        check_robot("m.json", "bip", robot)
