"""A contact-planning problem from a scene's ``planning`` section (docs/scenes.md "planning",
`humanoid_model.planning_spec`), for the scene's robot or any other with the named contact
locations (the stairs for HRP-2 and BIP).

`scene_planning(scene, robot=None, **settings)` returns a `ScenePlanning`: the planner
(`search.ContactPlanner` on the scene's surfaces, with the scene's static bodies as obstacles,
`posture.Obstacle.from_scene`), the start configuration and stance, and ``plan()``. What the
section says becomes:

- start configuration: the scene robot's posture, joint overrides and base pose (as the
  simulator places it); for another robot its default posture at the same placement;
- start stance: each ``start`` location on its surface where the start posture has it
  (`Feasibility.contacts_at`);
- goal: each region -> `posture.ComRegion` (``of: com``) or `posture.PointRegion` (``root``: the
  free flyer's origin, or a location's point); each ``vertical`` -> `posture.KeepVertical`
  ((6.24)) on the location's body; ``contacts``: the locations the goal stance holds;
- potential (Escande 2008, §5.3.5 and §6.3): with a ``guide``, the guide potential U_T (6.8) through
  the start configuration and the key postures (its progress measured as ``guide_progress`` says),
  plus an individual potential (6.9) per ``body_potentials`` location along the positions it has at
  those postures (weight ``gains.body_weight``, default 1, the thesis's lambda_i = 1, §6.3.3); each
  ``targets`` entry adds a body potential toward a world point; without guide and targets, the mixed
  potential toward the centre of the first goal region's (x, y); ``bonus`` adds the discrete U_S;
- ``tasks``: `posture.KeepVertical` at every witness (§6.5, the glass);
- ``settings``: `search.PlannerSettings` fields (keyword ``settings`` of the call override them).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from humanoid_model.exceptions import ModelError
from humanoid_model.scene_types import RobotSpec
from humanoid_model.start_posture import scene_robot_q, start_posture_name
from humanoid_model.urdf_description import world_collision_rules
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import ComRegion, KeepVertical, Obstacle, PointRegion

from .potentials import (
    BodyGroup,
    BodyPotential,
    GuideCoordinates,
    GuidePotential,
    MixedPotential,
    StanceBonus,
    WeightedSum,
)
from .search import ContactPlanner, Plan, PlannerSettings
from .stance import Stance

__all__ = ["ScenePlanning", "missing_contacts", "scene_planning", "start_configuration"]


@dataclass
class ScenePlanning:
    """A planning problem built from a scene (module docstring)."""

    scene: object
    robot: object
    planner: ContactPlanner
    start_q: np.ndarray
    start: Stance
    key_postures: np.ndarray  #: (k, nq) the guide's configurations, start first (k = 1: no guide)

    def plan(self, progress=None, path_check=None) -> Plan:
        return self.planner.plan(self.start, self.start_q, progress, path_check)


def _posture(robot, name: str, joints: dict, where: str) -> str:
    """The posture ``name`` (``default``: the robot's default) after checking that ``robot`` has it
    and the joints of ``joints`` (`PlanningError` naming the field)."""
    name = robot.default_posture if name == "default" else name
    if name not in robot.postures:
        raise PlanningError(
            f"{where}: robot '{robot.name}' has no posture {name!r} (postures: {', '.join(robot.postures)})"
        )
    for j in joints:
        try:
            robot.joint_index_q(j)
        except ModelError:
            raise PlanningError(f"{where}: field 'joints': robot '{robot.name}' has no joint {j!r}") from None
    return name


def start_configuration(scene, robot) -> np.ndarray:
    """The scene's robot configuration for ``robot`` (`humanoid_model.start_posture.scene_robot_q`):
    the scene's posture and joint overrides when ``robot`` is the scene's robot, else its default
    posture; the scene's base placement."""
    spec = scene.robot
    same = spec is not None and spec.urdf_path.resolve() == robot.urdf_path.resolve()
    name = _posture(
        robot,
        start_posture_name(robot, spec) if same else "default",
        spec.joints if same else {},
        f"scene '{scene.name}' robot",
    )
    return scene_robot_q(robot, spec, posture=name, joints=None if same else {})


def _key_posture(robot, k, where) -> np.ndarray:
    name = _posture(robot, k.posture, k.joints, where)
    guide = RobotSpec("guide", robot.urdf_path, posture=name, joints=k.joints, placement=k.placement, base=k.base)
    return scene_robot_q(robot, guide)


def missing_contacts(robot, where: str, names) -> str:
    """The one-line reason why ``robot`` cannot plan ``where``: it lacks the contact locations
    ``names`` (what it has, or why it has none, and how to declare them)."""
    have = ", ".join(robot.contact_locations)
    why = f"it has {have}" if have else "it has none (no sole or hand frames, no foot collision geometry on both sides)"
    return (
        f"{where}: robot '{robot.name}' needs contact locations {' and '.join(names)}; {why}: declare them in "
        f"'contacts:' of {robot.name}.yaml beside its URDF (docs/robots.md \"How to bring a new robot\")"
    )


def _location(robot, name: str, where: str):
    loc = robot.contact_locations.get(name)
    if loc is None and not robot.contact_locations:
        raise PlanningError(missing_contacts(robot, where, (name,)))
    if loc is None:
        raise PlanningError(
            f"{where}: robot '{robot.name}' has no contact location {name!r} "
            f"(locations: {', '.join(robot.contact_locations)})"
        )
    return loc


def _goal(robot, spec, where) -> list:
    m, out = robot.model, []
    for i, r in enumerate(spec.goal):
        b = [r.bounds.get(a) for a in "xyz"]
        if r.of == "com":
            out.append(ComRegion(m, *b, name=f"goal:{i}:com"))
        elif r.of == "root":
            out.append(PointRegion(m, "root_joint", (0, 0, 0), *b, name=f"goal:{i}:root"))
        else:
            loc = _location(robot, r.of, f"{where}.goal.regions[{i}].of")
            out.append(PointRegion(m, loc.body, loc.point, *b, name=f"goal:{i}:{r.of}"))
    for i, v in enumerate(spec.goal_vertical):
        loc = _location(robot, v.location, f"{where}.goal.vertical[{i}]")
        out.append(KeepVertical(m, loc.body, v.axis, name=f"goal:vertical:{v.location}"))
    return out


def _potential(robot, spec, keys, goal_tasks, where):
    m, g = robot.model, dict(spec.gains)
    gains = {k: g[k] for k in ("a", "d0", "k", "max_deviation") if k in g}
    terms = []
    bodies = []  # evaluated together (`BodyGroup`: one kinematics pass, one compiled kernel)
    if len(keys) > 1:
        coords = GuideCoordinates(m, w_rot=g["w_rot"]) if "w_rot" in g else None  # None: the default weights
        terms.append((1.0, GuidePotential(m, keys, progress=spec.guide_progress, coordinates=coords, **gains)))
        for name in spec.body_potentials:
            loc = _location(robot, name, f"{where}.body_potentials")
            bodies.append(
                (g.get("body_weight", 1.0), BodyPotential(m, loc.body, loc.point, key_postures=keys, **gains))
            )
    for i, (name, point) in enumerate(spec.targets):
        loc = _location(robot, name, f"{where}.targets[{i}]")
        bodies.append((1.0, BodyPotential(m, loc.body, loc.point, positions=[point], **gains)))
    if bodies:
        terms.append((1.0, BodyGroup(bodies)))
    if not terms:
        centre = next((t.centre for t in goal_tasks if "x" in t.bounds and "y" in t.bounds), None)
        if centre is None:
            raise PlanningError(f"{where}: give a guide, targets or a goal region bounded in x and y")
        terms.append((1.0, MixedPotential(m, centre, robot.q())))
    if spec.bonus:
        b = spec.bonus
        terms.append(
            (
                1.0,
                StanceBonus(
                    robot.contact_locations,
                    m.nv,
                    per_contact=b.get("per_contact", 0.0),
                    k0=int(b.get("k0", 0)),
                    bonus=b.get("values"),
                    hands_only=b.get("hands_only", 1.0),
                ),
            )
        )
    return terms[0][1] if len(terms) == 1 and terms[0][0] == 1.0 else WeightedSum(terms)


def scene_planning(scene, robot=None, guide=None, **settings) -> ScenePlanning:
    """The planning problem of ``scene`` (a loaded `Scene` with a ``planning`` section) for
    ``robot`` (default: the scene's, loaded rigid); ``guide`` (k, nq): key postures after the
    start configuration replacing the section's (an automatic guide, `prm_guide`); ``settings``:
    `PlannerSettings` fields that override the scene's (``algorithm``, ``workers``,
    ``time_limit``...)."""
    from humanoid_model import load_robot

    spec = scene.planning
    where = f"scene '{scene.name}' planning"
    if spec is None:
        raise PlanningError(f"scene '{scene.name}': no 'planning' section (docs/scenes.md)")
    if robot is None:
        if scene.robot is None:
            raise PlanningError(f"scene '{scene.name}': no robot given and none in the scene")
        robot = load_robot(scene.robot.urdf_path)
    known = {f.name for f in fields(PlannerSettings)}
    unknown = set(settings) - known
    if unknown:
        raise PlanningError(f"scene_planning: unknown planner settings {sorted(unknown)} (known: {sorted(known)})")
    if spec.stability_discs:  # the locations' hulls for stability made discs (`PlanningSpec.stability_discs`)
        locs = dict(robot.contact_locations)
        for name, diameter in spec.stability_discs.items():
            locs[name] = _location(robot, name, f"{where}.stability_discs").with_disc(diameter)
        robot = replace(robot, contact_locations=locs)
    values = {**spec.settings, **spec.robot_settings.get(robot.name, {}), **settings}
    values.setdefault("locations", spec.locations)
    values.setdefault("forbidden", spec.forbidden)
    for name in tuple(values["locations"]) + tuple(spec.start) + spec.goal_contacts:
        _location(robot, name, where)
    s = replace(PlannerSettings(), **values)
    q0 = start_configuration(scene, robot)
    if guide is None:
        keys = np.array([q0] + [_key_posture(robot, k, f"{where}.guide[{i}]") for i, k in enumerate(spec.guide)])
    else:
        keys = np.vstack([q0, np.atleast_2d(np.asarray(guide, float))])
    goal_tasks = _goal(robot, spec, where)
    tasks = []
    for i, v in enumerate(spec.tasks):
        loc = _location(robot, v.location, f"{where}.tasks[{i}]")
        tasks.append(KeepVertical(robot.model, loc.body, v.axis, name=f"task:vertical:{v.location}"))
    pot = _potential(robot, spec, keys, goal_tasks, where)
    planner = ContactPlanner(
        robot,
        scene.surfaces,
        goal_tasks,
        pot,
        s,
        tasks=tasks,
        goal_contacts=spec.goal_contacts,
        obstacles=Obstacle.from_scene(scene, ground=True),
        collision_rules=world_collision_rules(robot, scene),
    )
    contacts = []
    for name, surface in spec.start.items():
        contacts += planner.feas.contacts_at(q0, [name], surface)
    if not contacts:
        raise PlanningError(f"{where}: field 'start' names no contact")
    return ScenePlanning(scene, robot, planner, q0, Stance(contacts), keys)
