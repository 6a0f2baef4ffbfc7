"""The scenes' ``planning`` section (humanoid_model/planning_spec.py, docs/scenes.md "planning"):
read with open region sides, anchors for repeated key postures, placement or absolute base and
settings; bad entries name the field and the value; a location the robot lacks is refused by the
planner's builder (`humanoid_planner.contact.scene_problem`), which serves any robot with the
named locations (the stairs for BIP)."""

import numpy as np
import pytest

from humanoid_model import load_robot
from humanoid_model.scene import load_scene
from humanoid_planner.contact import scene_planning
from humanoid_planner.contact.potentials import GuidePotential
from humanoid_planner.exceptions import PlanningError

SCENE = """
surfaces:
  - {name: floor, vertices: [[-2, -2, 0], [2, -2, 0], [2, 2, 0], [-2, 2, 0]]}
robot: hrp2
planning:
  locations: [l_sole, r_sole]
  start: {l_sole: floor, r_sole: floor}
  forbidden: [[hand, floor]]
  goal:
    regions:
      - {of: root, y: [1.5, null]}
      - {of: l_sole, x: [0.3, 0.6], y: [-0.3, 0.3], z: [-0.01, 0.01]}
    vertical: [{location: r_hand, axis: [0, 0, 2]}]
    contacts: [l_sole, r_sole]
  guide:
    - &k {placement: {xyz: [0.5, 0, 0]}}
    - {<<: *k, joints: {HEAD_JOINT0: 0.2}}
    - {base: {xyz: [1, 0, 0.6], rpy_deg: [0, 0, 90]}}
  body_potentials: [l_sole]
  gains: {k: 0.2, w_rot: 0.5}
  bonus: {per_contact: 0.1, k0: 2, values: {sole: -0.05}}
  settings: {algorithm: bfp, theta_range: [-0.4, 0.4], max_candidates: 2, self_collision: true}
  robot_settings:
    bip: {max_candidates: 3, placed_candidates: true}
"""


def test_planning_section_is_read(scene_file):
    spec = load_scene(scene_file(SCENE)).planning
    assert spec.locations == ("l_sole", "r_sole") and spec.start == {"l_sole": "floor", "r_sole": "floor"}
    root, sole = spec.goal
    assert root.of == "root" and root.bounds == {"y": (1.5, np.inf)}
    assert sole.bounds["z"] == (-0.01, 0.01) and "x" in sole.bounds
    assert np.allclose(spec.goal_vertical[0].axis, [0, 0, 1])
    assert len(spec.guide) == 3 and spec.guide[1].joints == {"HEAD_JOINT0": 0.2}
    assert np.allclose(spec.guide[1].placement.xyz, [0.5, 0, 0]) and spec.guide[2].base is not None
    assert spec.settings == {
        "algorithm": "bfp",
        "theta_range": (-0.4, 0.4),
        "max_candidates": 2,
        "self_collision": True,
    }
    assert spec.bonus == {"per_contact": 0.1, "k0": 2.0, "values": {"sole": -0.05}}
    assert spec.robot_settings == {"bip": {"max_candidates": 3, "placed_candidates": True}}
    assert load_scene("flat").planning is None


@pytest.mark.parametrize(
    "bad, field",
    [
        ("  start: {l_sole: flor}", "planning.start.l_sole"),
        ("  goal: {regions: [{of: com, x: [1, 0]}]}", "planning.goal.regions[0].x"),
        ("  goal: {regions: [{of: com}]}", "planning.goal.regions[0]"),
        ("  settings: {max_candidats: 2}", "planning.settings.max_candidats"),
        ("  settings: {theta_range: [1, -1]}", "planning.settings.theta_range"),
        ("  robot_settings: {bip: {reach: -1}}", "planning.robot_settings.bip.reach"),
        ("  robot_settings: {bip: {placed_candidate: true}}", "planning.robot_settings.bip.placed_candidate"),
        ("  robot_settings: [bip]", "planning.robot_settings"),
        ("  guide: [{posture: sitting}]", "planning.guide[0].posture"),
        ("  forbidden: [[hand, table]]", "planning.forbidden[0]"),
        ("  gains: {w_rot: -1}", "planning.gains.w_rot"),
        ("  stability_discs: {l_sole: 0}", "planning.stability_discs.l_sole"),
        ("  stability_discs: [l_sole]", "planning.stability_discs"),
    ],
)
def test_bad_planning_entries_name_the_field(scene_file, scene_error, bad, field):
    text = "surfaces:\n  - {name: floor, vertices: [[-2, -2, 0], [2, -2, 0], [2, 2, 0], [-2, 2, 0]]}\nrobot: hrp2\n"
    msg = scene_error(scene_file(text + "planning:\n" + bad + "\n"))
    assert f"field '{field}'" in msg


def test_builder_checks_the_robot_and_reads_the_start_stance(scene_file, robot):
    scene = load_scene(scene_file(SCENE))
    sp = scene_planning(scene, robot)
    assert {c.location for c in sp.start} == {"l_sole", "r_sole"} and len(sp.key_postures) == 4
    assert np.allclose(sp.key_postures[1][:3], robot.q()[:3] + [0.5, 0, 0])
    assert np.allclose(sp.key_postures[3][:3], [1, 0, 0.6])
    assert sp.planner.s.algorithm == "bfp" and sp.planner.s.self_collision
    guide = next(p for _, p in sp.planner.potential.terms if isinstance(p, GuidePotential))
    assert (guide.k, guide.coordinates.w_rot, guide.coordinates.w_joint) == (0.2, 0.5, 0.1)  # w_joint: the default
    with pytest.raises(PlanningError, match="robot 'bip' has no joint 'HEAD_JOINT0'"):
        scene_planning(scene, load_robot("bip"))  # HRP-2's joints in a key posture
    with pytest.raises(PlanningError, match="robot 'bip' has no contact location 'r_hand'"):
        scene_planning(load_scene("stairs"), load_robot("bip"), locations=("r_hand",))
    bip = scene_planning(load_scene("stairs"), load_robot("bip"))
    assert bip.robot.name == "bip" and {c.location for c in bip.start} == {"l_sole", "r_sole"}
    # the section's robot_settings apply to their robot only, over its settings; a call's over both
    hrp2 = scene_planning(load_scene("stairs"), robot)
    assert (bip.planner.s.reach, bip.planner.s.placed_candidates) == (0.0, True)
    assert (hrp2.planner.s.reach, hrp2.planner.s.placed_candidates) == (1.0, False)
    assert not scene_planning(
        load_scene("stairs"), load_robot("bip"), placed_candidates=False
    ).planner.s.placed_candidates


def test_every_setting_a_scene_may_set_is_a_planner_setting_of_its_type():
    """`humanoid_model.planning_spec.SETTINGS` (what a scene's ``planning.settings`` may hold)
    names `PlannerSettings` fields only, with the field's type (a misspelt or retyped name would
    be accepted by the scene loader and refused by the planner)."""
    import dataclasses

    from humanoid_model.planning_spec import SETTINGS
    from humanoid_planner.contact import PlannerSettings

    fields = {f.name: f for f in dataclasses.fields(PlannerSettings)}
    assert set(SETTINGS) <= set(fields), sorted(set(SETTINGS) - set(fields))
    defaults = PlannerSettings()
    for name, kind in SETTINGS.items():
        value = getattr(defaults, name)
        if kind is list:
            assert isinstance(value, tuple), name
        elif kind is float:
            assert isinstance(value, (int, float)) and not isinstance(value, bool), name
        else:
            assert isinstance(value, kind), name


def test_stability_discs_replace_the_soles_hulls_in_the_support_polygon(scene_file, robot):
    """`planning.stability_discs` (the chair plan's "feet as 2 cm discs", Escande 2008, §7.3.2): the
    planner's robot has those locations' hulls as discs of that diameter about their points, in
    their contact plane; the start stance's support polygon shrinks from the two soles' hull (~0.14
    m along the feet) to the hull of two 2 cm discs (their diameter along the feet); the loaded
    robot is not changed; a location the robot lacks is refused."""
    from humanoid_planner.posture.frames import EnvironmentFrame
    from humanoid_planner.posture.support_polygon import support_polygon

    text = SCENE.replace(
        "  body_potentials: [l_sole]", "  body_potentials: [l_sole]\n  stability_discs: {l_sole: 0.02, r_sole: 0.02}"
    )
    scene = load_scene(scene_file(text))
    assert scene.planning.stability_discs == {"l_sole": 0.02, "r_sole": 0.02}
    sp = scene_planning(scene, robot)
    for name in ("l_sole", "r_sole"):
        loc = sp.robot.contact_locations[name]
        rel = loc.hull - loc.point
        assert np.allclose(np.linalg.norm(rel, axis=1), 0.01) and np.allclose(rel @ loc.normal, 0.0)
        assert sp.planner.feas.robot.contact_locations[name] is loc
        assert len(robot.contact_locations[name].hull) != len(loc.hull)  # the loaded robot kept its soles

    def extent(r):
        floor = scene.surface("floor")
        items = [
            (r.contact_locations[c.location], EnvironmentFrame.on_surface(floor, c.x, c.y, c.theta), floor)
            for c in sp.start
        ]
        P = support_polygon(items)
        return np.ptp(P[:, 0])

    assert extent(robot) > 0.1 and extent(sp.robot) == pytest.approx(0.02, abs=1e-3)
    with pytest.raises(PlanningError, match="stability_discs: robot 'hrp2' has no contact location 'l_foot'"):
        scene_planning(load_scene(scene_file(text.replace("l_sole: 0.02", "l_foot: 0.02"))), robot)
