"""Problems that no search can solve are refused before it, in one line
(`humanoid_planner.planning.input_checks`): a start posture in collision, a goal contact with no
surface to go to, a goal under an obstacle; the same scenes with the obstacle moved away or the
goal back on the floor are accepted, so each check answers to the geometry, not to the scene's
shape. `humanoid-stack plan` says it in one line and exits 2, leaving no plan file; a search whose
list runs empty says what it explored and what the threshold M dropped."""

import numpy as np
import pytest

from humanoid_model.robot import load_robot
from humanoid_model.scene import load_scene
from humanoid_planner.contact import ContactPlanner, MixedPotential, PlannerSettings, Stance
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.planning import problem_for
from humanoid_planner.planning.input_checks import clip_to_box
from humanoid_planner.posture import ComRegion
from humanoid_stack.cli import main

FLOOR = """
name: {name}
description: HRP-2 on a 6 m floor with one box.
gravity: [0, 0, -9.81]
ground: {{height: 0.0, friction: 0.4, restitution: 0.0}}
bodies:
  - name: block
    shape: box
    size: {size}
    pose: {{xyz: {centre}}}
surfaces:
  - name: floor
    vertices: [[-3, -3, 0], [3, -3, 0], [3, 3, 0], [-3, 3, 0]]
    d0: [1, 0, 0]
robot:
  name: hrp2
  posture: half-sitting
planning:
  locations: [l_sole, r_sole]
  start: {{l_sole: floor, r_sole: floor}}
  goal:
    regions:
      - {{of: com, x: [{gx0}, {gx1}], y: [-0.1, 0.1]}}
      - {{of: l_sole, x: [{sx0}, {sx1}], y: [-0.25, 0.25]}}
      - {{of: r_sole, x: [{sx0}, {sx1}], y: [-0.25, 0.25]}}
    contacts: [l_sole, r_sole]
"""


@pytest.fixture(scope="module")
def hrp2():
    return load_robot("hrp2")


def scene(tmp_path, name, size, centre, goal_x=1.0):
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        FLOOR.format(
            name=name,
            size=list(size),
            centre=list(centre),
            gx0=goal_x - 0.1,
            gx1=goal_x + 0.1,
            sx0=goal_x - 0.15,
            sx1=goal_x + 0.15,
        )
    )
    return path


def test_a_start_posture_in_collision_is_refused_and_the_same_box_beside_the_robot_is_not(tmp_path, hrp2):
    """A 0.3 m box through HRP-2's chest (centre 1.1 m up on the robot's axis): refused, naming a
    chest geometry, the box and a depth; the box 1 m to the side: the problem builds."""
    through = load_scene(scene(tmp_path, "through", (0.3, 0.3, 0.2), (0.0, 0.0, 1.1)))
    with pytest.raises(
        PlanningError,
        match=r"the start posture is in collision: geometry CHEST\w* penetrates obstacle block by 0\.\d+ m",
    ):
        problem_for(through, hrp2)
    beside = load_scene(scene(tmp_path, "beside", (0.3, 0.3, 0.2), (0.0, 1.0, 1.1)))
    assert problem_for(beside, hrp2).start_q is not None


def test_a_goal_under_an_obstacle_is_refused_and_beside_it_is_not(tmp_path, hrp2):
    """The soles' goal area (x 0.85-1.15, y ±0.25) under a 1.5 m box 0.6 m wide: refused ("inside an
    obstacle", the box named); the box 1 m to the side of it: accepted."""
    under = load_scene(scene(tmp_path, "under", (0.6, 0.6, 1.5), (1.0, 0.0, 0.75)))
    with pytest.raises(
        PlanningError, match=r"obstacles cover every surface there \(floor under block\): the goal is inside"
    ):
        problem_for(under, hrp2)
    beside = load_scene(scene(tmp_path, "beside_goal", (0.6, 0.6, 1.5), (1.0, 1.0, 0.75)))
    problem_for(beside, hrp2)


def test_a_goal_off_every_surface_is_unreachable_and_one_overlapping_the_floor_is_not(tmp_path, hrp2):
    """The walk's soles region about (10, 0) on a floor that ends at x = 3 m: refused; about (2.9, 0)
    (the region x 2.8-3.1 overlaps the floor's edge): accepted."""
    flat = load_scene("flat")
    with pytest.raises(PlanningError, match=r"the goal asks l_sole in .*x 9\.9\.\.10\.2.* no surface l_sole may touch"):
        problem_for(flat, hrp2, (10.0, 0.0))
    problem_for(flat, hrp2, (2.9, 0.0))


def test_the_cli_says_it_in_one_line_exits_2_and_writes_no_plan(tmp_path, capsys):
    out = tmp_path / "PLAN.json"
    assert main(["plan", "flat", "--goal", "10,0", "--quiet", "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err and "the goal is unreachable" in err, err
    assert not out.exists()


def test_clip_to_box_keeps_the_overlap_of_a_polygon_and_a_box():
    """A 2 m square about the origin clipped to x in [0.5, 3], y open: the 0.5 m × 2 m strip (area
    by the shoelace formula); a box beside the square: nothing."""
    square = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float)
    part = clip_to_box(square, ((0.5, 3.0), (-np.inf, np.inf)))
    x, y = part[:, 0], part[:, 1]
    area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    assert area == pytest.approx(1.0) and part[:, 0].min() == pytest.approx(0.5)
    assert len(clip_to_box(square, ((2.0, 3.0), (-1.0, 1.0)))) < 3


def test_an_exhausted_search_says_what_it_explored_and_what_m_dropped(hrp2):
    """M below every child's potential on the 0.4 m walk: one stance expanded, its children
    generated and all dropped by M, and the reason counts them."""
    soles = ("l_sole", "r_sole")
    floor = load_scene("flat").surfaces
    pot = MixedPotential(hrp2.model, (0.4, 0.0), hrp2.q())
    planner = ContactPlanner(
        hrp2,
        floor,
        [ComRegion(hrp2.model, (0.3, 0.5), (-0.1, 0.1))],
        pot,
        PlannerSettings(locations=soles, threshold=0.02, max_expanded=40),
        goal_contacts=soles,
    )
    start = Stance(planner.feas.contacts_at(hrp2.q(), soles, "floor"))
    plan = planner.plan(start, hrp2.q())
    assert not plan.success and plan.expanded == 1
    assert f"1 stances expanded, {plan.generated} nodes generated; {plan.generated} children" in plan.reason, (
        plan.reason
    )
    assert "threshold M = 0.02 were dropped" in plan.reason, plan.reason
