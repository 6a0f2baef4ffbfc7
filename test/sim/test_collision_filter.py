"""Collision filtering: the scene's and the robot sidecar's ``collision`` section
(masks with MuJoCo's contype/conaffinity rule, ``include`` / ``exclude`` pair lists) changes the
pairs the simulator tests; without it the pair set is the default one; bad names and types are
one-line errors."""

import shutil

import numpy as np
import pytest

from humanoid_model.exceptions import ModelError
from humanoid_model.robot import load_robot
from humanoid_model.scene import load_scene
from humanoid_model.urdf_description import resolve_robot_path
from humanoid_sim.world import World

DROP = """
ground: {{height: 0}}
bodies:
  - {{name: slab, shape: box, size: [1, 1, 0.1], pose: {{xyz: [0, 0, 0.3]}}}}
free_bodies:
  - {{name: ball, shape: sphere, radius: 0.05, mass: 1, pose: {{xyz: [0, 0, 0.6]}}}}
  - {{name: other, shape: sphere, radius: 0.05, mass: 1, pose: {{xyz: [0.3, 0.3, 0.6]}}}}
{collision}
"""


def _drop(scene_file, collision="", steps=800):
    """Both balls after ``steps`` steps dropped from 0.6 m over a slab whose top is at 0.35 m."""
    w = World.from_scene(scene_file(DROP.format(collision=collision)))
    w.step(steps)
    return {n: w.state.bodies[n].position[2] for n in ("ball", "other")}, w


def test_without_rules_both_balls_rest_on_the_slab(scene_file):
    z, _ = _drop(scene_file)
    assert z["ball"] == pytest.approx(0.40, abs=1e-3) and z["other"] == pytest.approx(0.40, abs=1e-3)


def test_an_excluded_pair_passes_through(scene_file):
    """ball–slab excluded: the ball falls through the slab onto the ground; the other ball stays."""
    z, _ = _drop(scene_file, "collision: {exclude: [[ball, slab]]}")
    assert z["ball"] == pytest.approx(0.05, abs=1e-3)
    assert z["other"] == pytest.approx(0.40, abs=1e-3)


def test_masks_follow_the_contype_conaffinity_rule(scene_file):
    """slab (4, 4), ball (2, 1), other (4, 1), ground (1, 1) by default. ball–slab:
    (2 & 4) | (4 & 1) = 0, the ball passes the slab; other–slab: (4 & 4) = 4, it rests on it;
    ball–ground: (1 & 1) = 1, the ball lands on the ground."""
    masks = "slab: {contype: 4, conaffinity: 4}, ball: {contype: 2, conaffinity: 1}"
    z, _ = _drop(scene_file, f"collision: {{masks: {{{masks}, other: {{contype: 4, conaffinity: 1}}}}}}")
    assert z["ball"] == pytest.approx(0.05, abs=1e-3)
    assert z["other"] == pytest.approx(0.40, abs=1e-3)
    # other without a mask, (1, 1): (1 & 4) | (4 & 1) = 0 with the slab, it falls through too
    z, _ = _drop(scene_file, f"collision: {{masks: {{{masks}}}}}")
    assert z["ball"] == pytest.approx(0.05, abs=1e-3) and z["other"] == pytest.approx(0.05, abs=1e-3)


def test_an_excluded_free_body_pair_passes_through(scene_file):
    text = """
ground: {height: 0}
free_bodies:
  - {name: low, shape: box, size: [0.2, 0.2, 0.1], mass: 1, pose: {xyz: [0, 0, 0.05]}}
  - {name: high, shape: box, size: [0.1, 0.1, 0.1], mass: 1, pose: {xyz: [0, 0, 0.3]}}
collision: {exclude: [[low, high]]}
"""
    w = World.from_scene(scene_file(text))
    assert w.detector.mobile_pairs.shape[0] == 0
    w.step(600)
    assert w.state.bodies["high"].position[2] == pytest.approx(0.05, abs=1e-3)  # on the ground, inside "low"


# ----------------------------------------------------------------------- robot self-collision
def _pair_bodies(w, pairs):
    return {frozenset((w.mobile[a].body, w.mobile[b].body)) for a, b in np.asarray(pairs).tolist()}


HAND = frozenset(("RARM_LINK5", "RARM_LINK6"))  # wrist and gripper: adjacent links, touching at half-sitting


def test_an_included_self_collision_pair_is_detected(scene_file):
    """RARM_LINK5–RARM_LINK6 are adjacent links (filtered by the self-collision rule, and by the
    initial clearance: they touch at half-sitting); included, the pair is tested and its contact
    detected at the start."""
    default = World.from_scene("flat")
    assert HAND not in _pair_bodies(default, default.detector.mobile_pairs)
    w = World.from_scene(scene_file("robot: hrp2\ncollision: {include: [[RARM_LINK5, RARM_LINK6]]}\n"))
    assert HAND in _pair_bodies(w, w.detector.mobile_pairs)
    b = w.detector.detect(*w.detector.joint_placements(w.data))
    found = {
        frozenset((w.mobile[a].body, w.mobile[c].body)) for a, c, s in zip(b.geom_a, b.geom_b, b.b_static) if not s
    }
    assert HAND in found
    # the rest of the default set is unchanged
    assert _pair_bodies(w, w.detector.mobile_pairs) - {HAND} == _pair_bodies(default, default.detector.mobile_pairs)


def test_include_works_with_self_collision_off_and_exclude_removes_a_default_pair(scene_file):
    path = scene_file(
        "robot: hrp2\ncollision: {include: [[LARM_LINK5, LLEG_LINK3]], exclude: [[RARM_LINK5, RLEG_LINK3]]}\n"
    )
    w = World(load_scene(path), load_robot("hrp2"), self_collision=False)
    assert _pair_bodies(w, w.detector.mobile_pairs) == {frozenset(("LARM_LINK5", "LLEG_LINK3"))}
    w = World.from_scene(path)
    got = _pair_bodies(w, w.detector.mobile_pairs)
    assert frozenset(("LARM_LINK5", "LLEG_LINK3")) in got and frozenset(("RARM_LINK5", "RLEG_LINK3")) not in got


def _hrp2_copy(tmp_path, extra: str):
    urdf = resolve_robot_path("hrp2")
    shutil.copy(urdf, tmp_path / "hrp2c.urdf")
    (tmp_path / "hrp2c.yaml").write_text(urdf.with_suffix(".yaml").read_text() + "\n" + extra)
    return tmp_path / "hrp2c.urdf"


def test_robot_sidecar_rules_apply_and_the_scene_adds_to_them(tmp_path, scene_file):
    urdf = _hrp2_copy(tmp_path, "collision:\n  exclude: [[LLEG_LINK5, RLEG_LINK5]]\n")
    default = World.from_scene("flat")
    assert frozenset(("LLEG_LINK5", "RLEG_LINK5")) in _pair_bodies(default, default.detector.mobile_pairs)
    w = World.from_scene("flat", robot=str(urdf))
    got = _pair_bodies(w, w.detector.mobile_pairs)
    assert got == _pair_bodies(default, default.detector.mobile_pairs) - {frozenset(("LLEG_LINK5", "RLEG_LINK5"))}
    # a sidecar mask that no environment body matches: the feet no longer touch the ground
    urdf = _hrp2_copy(tmp_path, "collision:\n  masks: {LLEG_LINK5: {contype: 2, conaffinity: 2}}\n")
    w = World.from_scene("flat", robot=str(urdf))
    b = w.detector.detect(*w.detector.joint_placements(w.data))
    bodies = {w.mobile[a].body for a, s in zip(b.geom_a, b.b_static) if s}
    assert "RLEG_LINK5" in bodies and "LLEG_LINK5" not in bodies


def _planner_pairs(w):
    """The robot body pairs of the planner's self-collision (`GeometrySelfCollision`, built as the
    contact planner builds it) for the robot and scene of world ``w``, and the simulator's."""
    from humanoid_model.urdf_description import world_collision_rules
    from humanoid_planner.posture.constraints.geometry_self_collision import GeometrySelfCollision

    r, m = w.robot, w.robot.model
    rows = GeometrySelfCollision(m, r.collision_model, r.q(), rules=world_collision_rules(r, w.scene))
    objs = r.collision_model.geometryObjects
    planner = {frozenset(m.frames[objs[a].parentFrame].name for a in p) for p in rows.pairs.tolist()}
    robot = {a for a, g in enumerate(w.mobile) if g.tree == w.mobile[0].tree}
    sim = _pair_bodies(w, [p for p in w.detector.mobile_pairs.tolist() if set(p) <= robot])
    return planner, sim


@pytest.mark.parametrize("robot", ["hrp2", "bip"])
def test_the_planner_checks_the_self_collision_pairs_the_simulator_tests(robot):
    """One rule (`humanoid_model.collision_rules.self_pair_by_default`): a witness posture of the
    planner is kept clear on exactly the robot pairs the simulator would push apart (HRP-2 124
    body pairs, BIP 24), so none of the pairs across one joint (waist-chest, shank-foot) that the
    simulator leaves to the joint limits blocks a plan, and none it tests is skipped."""
    w = World.from_scene("flat", robot=robot)
    planner, sim = _planner_pairs(w)
    assert planner == sim and len(sim) == {"hrp2": 124, "bip": 24}[robot]
    if robot == "hrp2":  # the waist and a thigh: three joints apart; the waist and the chest: two
        assert frozenset(("BODY", "RLEG_LINK2")) in sim and frozenset(("BODY", "CHEST_LINK1")) not in sim


def test_sidecar_and_scene_rules_change_the_planner_pairs_as_the_simulator_pairs(tmp_path, scene_file):
    """A sidecar ``exclude`` (the two feet) and a scene ``include`` (waist-chest, two joints apart)
    move the planner's pairs and the simulator's alike."""
    urdf = _hrp2_copy(tmp_path, "collision:\n  exclude: [[LLEG_LINK5, RLEG_LINK5]]\n")
    path = scene_file("robot: hrp2\ncollision: {include: [[BODY, CHEST_LINK1]]}\n")
    default, _ = _planner_pairs(World.from_scene("flat"))
    planner, sim = _planner_pairs(World.from_scene(path, robot=str(urdf)))
    feet, waist = frozenset(("LLEG_LINK5", "RLEG_LINK5")), frozenset(("BODY", "CHEST_LINK1"))
    assert planner == sim == default - {feet} | {waist}


# ----------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "rules, expected",
    [
        (
            "{exclude: [[bal, slab]]}",
            "field 'collision.exclude[0]': no body or link of that name (did you mean 'ball'?)",
        ),
        ("{include: [[ball]]}", "field 'collision.include[0]': expected a pair of names [A, B]"),
        ("{include: [[ball, ball]]}", "a pair of two different names"),
        ("{exlude: [[ball, slab]]}", "unknown field 'exlude' (did you mean 'exclude'?)"),
        ("{masks: {ball: {contype: 1.5}}}", "field 'collision.masks.ball.contype' must be an integer >= 0"),
        ("{masks: {ball: {contype: -1}}}", "field 'collision.masks.ball.contype' must be an integer >= 0"),
        ("{masks: {ball: {contype: 4294967296}}}", "must be an integer in [0, 2147483647]"),
        ("{masks: {ball: {group: 1}}}", "expected a mapping with keys contype, conaffinity"),
        ("{masks: {sslab: {contype: 1}}}", "no body or link of that name (did you mean 'slab'?)"),
        ("{include: [[ball, slab]], exclude: [[slab, ball]]}", "the pair is also in 'exclude'"),
        ("[ball, slab]", "field 'collision': expected a mapping"),
    ],
)
def test_bad_rules_are_one_line_errors(scene_file, scene_error, rules, expected):
    msg = scene_error(scene_file(DROP.format(collision=f"collision: {rules}")))
    assert expected in msg and "\n" not in msg


def test_bad_sidecar_link_name_is_a_one_line_error(tmp_path):
    urdf = _hrp2_copy(tmp_path, "collision:\n  include: [[LARM_LINK5, RLEG_LINK33]]\n")
    with pytest.raises(ModelError) as exc:
        load_robot(urdf)
    msg = str(exc.value)
    assert "hrp2c.yaml: field 'collision.include[0]'" in msg and "did you mean 'RLEG_LINK3'?" in msg
    assert "\n" not in msg
