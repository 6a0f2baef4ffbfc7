"""A planning problem: what `humanoid-stack plan`, the `contact_planner` node and
`benchmarks/planning.py` hand to the contact planner, built from a scene (planner surfaces, the
robot and its posture) and a goal.

`PlanningProblem` holds the built `humanoid_planner.contact.ContactPlanner` (goal tasks,
potential, settings), the start configuration and the start stance, and a plain description of
the goal for the plan file; build a new one per search (the planner's statistics accumulate).
`problem_for(scene, robot, ...)` picks the builder (scene-agnostic callers only use this; an
override given as None, such as the ``plan`` command's ``--algorithm`` and ``--time-limit``
left out, keeps the problem's own): the scene's name in ``PROBLEMS``, else the scene's own
``planning:`` section (docs/scenes.md, `humanoid_planner.contact.scene_problem`); a scene with
neither is a `PlanningError` naming the ones that exist. The problem built is then checked
(`input_checks.check_problem`): a start posture in collision, a goal region inside an obstacle
or a goal contact with no surface to go to is a `PlanningError` in one line, before any search.

Builders (each documents its goal and numbers):

- ``walk`` (`walk_problem`): the robot walks on the scene's surfaces until its CoM is within
  0.1 m of a goal point (x, y) and both soles are in a 0.3 m × 0.6 m region about it
  (x - 0.1 .. x + 0.2, y ± 0.3) and in the stance: the 0.4 m walk of `test/planner/contact/test_contact_plan.py`,
  generalised to any point (the goal regions are that test's, chosen there). Locations: soles
  and hands, hands forbidden on the floor. Potential: the mixed attractive potential toward
  (x, y). Threshold M: the potential of a root 1 m farther from the goal than the start (bounds
  the search behind the robot; the test's 0.5 for its 0.4 m goal is about this). Reach: per
  location (`Feasibility.reach`, the chain's length + 0.1 m), so a robot taller than HRP-2
  (Talos's pelvis 1.02 m up) finds footholds; HRP-2 plans the same walk as with the 1 m default. Used for
  ``flat`` (default goal (0.4, 0): the test's problem). The start stance: the soles where the
  start posture has them on a surface (`start_contacts`). Obstacles: the scene's static bodies
  (`posture.Obstacle.from_scene`; none on ``flat``), as for every scene problem.
- ``scene`` (`scene_problem`): the scene's ``planning:`` section as the contact planner reads it
  (start, goal, potentials, settings, and the scene's static bodies as obstacles, so witnesses
  keep clear of the environment); its goal and start are the section's, so a goal point, a
  goal radius or another start is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

import numpy as np

from humanoid_model.start_posture import scene_robot_q, spec_for_robot, start_posture_name
from humanoid_model.urdf_description import world_collision_rules
from humanoid_planner.contact import ContactPlanner, MixedPotential, PlannerSettings, Stance
from humanoid_planner.contact.scene_problem import missing_contacts
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import ComRegion, Obstacle, PointRegion

from .input_checks import check_problem

__all__ = [
    "PROBLEMS",
    "PlanningProblem",
    "measured",
    "placed",
    "problem_for",
    "scene_problem",
    "start_contacts",
    "walk_problem",
]

START_TOLERANCE = 0.005  # [m] (chosen) a location's point this close to a surface's plane, inside it, is in contact
START_ALIGNMENT = 0.999  # (chosen) n_P^W . n_E above this (2.6 deg) for a start contact
WALK_REGION = ((-0.1, 0.2), (-0.3, 0.3))  # [m] the soles' goal region about the goal point (module docstring)
COM_RADIUS = 0.1  # [m] the CoM's goal half-width about the goal point (module docstring)


@dataclass
class PlanningProblem:
    """A search to run (module docstring): ``planner`` (built), ``start_q`` (nq,) and ``start``
    (`Stance`); ``scene`` and ``goal`` (a plain description) for the plan file; ``seed``."""

    scene: str
    robot: object
    planner: ContactPlanner
    start_q: np.ndarray
    start: Stance
    goal: dict = field(default_factory=dict)
    seed: int = 0

    @property
    def settings(self) -> PlannerSettings:
        return self.planner.s


def start_contacts(feas, q, locations) -> list[tuple[str, str]]:
    """(location, surface) pairs of ``locations`` in contact at ``q``: the location's point within
    `START_TOLERANCE` of the surface's plane and inside its polygon (`Surface.contains`: the planar
    polygon test, a point on an edge inside), its normal along the surface's."""
    import pinocchio as pin

    model, data = feas.model, feas.model.createData()
    pin.framesForwardKinematics(model, data, np.asarray(q, float))
    out = []
    for name in locations:
        rf = feas.robot_frame(name)
        M = data.oMf[model.getFrameId(rf.body)]
        p, n = M.act(rf.point), M.rotation @ rf.n
        for sname, s in feas.surfaces.items():
            near = abs((p - s.centroid) @ s.normal) <= START_TOLERANCE and n @ s.normal >= START_ALIGNMENT
            if near and s.contains(p):
                out.append((name, sname))
                break
    return out


def _settings(overrides: dict) -> PlannerSettings:
    known = {f.name for f in fields(PlannerSettings)}
    return replace(PlannerSettings(), **{k: v for k, v in overrides.items() if k in known})


def walk_problem(scene, robot, goal=None, start_q=None, goal_radius=None, **overrides) -> PlanningProblem:
    """The ``walk`` problem (module docstring) on ``scene`` for ``robot``; ``goal`` (x, y) [m]
    (default (0.4, 0)); ``start_q`` the start configuration (default the scene's); ``goal_radius``
    the CoM's goal half-width [m] (default `COM_RADIUS`); ``overrides``: `PlannerSettings` fields
    (algorithm, time_limit, seed...)."""
    gx, gy = (0.4, 0.0) if goal is None else (float(goal[0]), float(goal[1]))
    radius = COM_RADIUS if goal_radius is None else float(goal_radius)
    if not (np.isfinite(gx) and np.isfinite(gy) and np.isfinite(radius) and radius > 0):
        raise PlanningError(f"walk problem: goal (x, y) finite and goal_radius > 0 [m] required; {gx}, {gy}, {radius}")
    soles = tuple(n for n in ("l_sole", "r_sole") if n in robot.contact_locations)
    if len(soles) != 2:
        raise PlanningError(missing_contacts(robot, "walk problem", ("l_sole", "r_sole")))
    hands = tuple(n for n in ("l_hand", "r_hand") if n in robot.contact_locations)
    L, m = robot.contact_locations, robot.model
    (x0, x1), (y0, y1) = WALK_REGION
    goal_tasks = [ComRegion(m, (gx - radius, gx + radius), (gy - radius, gy + radius))]
    goal_tasks += [PointRegion(m, L[n].body, L[n].point, (gx + x0, gx + x1), (gy + y0, gy + y1)) for n in soles]
    q0 = scene_start_q(scene, robot) if start_q is None else np.asarray(start_q, float).copy()
    potential = MixedPotential(m, (gx, gy), robot.q())
    behind = q0.copy()
    away = q0[:2] - np.array([gx, gy])
    dist = float(np.linalg.norm(away))
    behind[:2] += (away / dist if dist > 0 else np.array([-1.0, 0.0])) * 1.0
    settings = {
        "algorithm": "vbfp",
        "locations": soles + hands,
        "forbidden": (("hand", "floor"),),
        "max_expanded": 10_000,
        "threshold": potential(behind),
        "reach": 0.0,  # per location: the chain's length (`Feasibility.reach`), any robot's height
    }
    settings.update({k: v for k, v in overrides.items() if v is not None})  # None: the problem's own
    seed = int(settings.get("seed", 0) or 0)
    planner = ContactPlanner(
        robot,
        list(scene.surfaces),
        goal_tasks,
        potential,
        _settings(settings),
        goal_contacts=soles,
        obstacles=Obstacle.from_scene(scene, ground=True),
        collision_rules=world_collision_rules(robot, scene),
    )
    pairs = start_contacts(planner.feas, q0, soles)
    if not pairs:
        raise PlanningError(
            f"walk problem '{scene.name}': the start posture has no sole on a planner surface "
            f"(within {START_TOLERANCE} m)"
        )
    start = Stance([c for name, surface in pairs for c in planner.feas.contacts_at(q0, [name], surface)])
    goal_doc = {"kind": "walk", "point": [gx, gy], "com_half_width": radius, "soles_region": WALK_REGION}
    return PlanningProblem(scene.name, robot, planner, q0, start, goal_doc, seed)


def scene_problem(scene, robot, goal=None, start_q=None, goal_radius=None, **overrides) -> PlanningProblem:
    """The problem of the scene's ``planning:`` section (module docstring) for ``robot``;
    ``overrides``: `PlannerSettings` fields (others, such as ``seed`` when the planner has no
    such setting, are kept for the plan file only)."""
    from humanoid_planner.contact.scene_problem import scene_planning

    given = [n for n, v in (("goal", goal), ("start", start_q), ("goal radius", goal_radius)) if v is not None]
    if given:
        raise PlanningError(
            f"scene '{scene.name}': its start and goal are its planning section's (docs/scenes.md); "
            f"a {', '.join(given)} applies to walk problems only"
        )
    known = {f.name for f in fields(PlannerSettings)}
    sp = scene_planning(scene, robot, **{k: v for k, v in overrides.items() if k in known and v is not None})
    seed = int(overrides.get("seed", 0) or 0)
    return PlanningProblem(scene.name, sp.robot, sp.planner, sp.start_q, sp.start, {"kind": "scene"}, seed)


def scene_start_q(scene, robot) -> np.ndarray:
    """The scene's robot configuration (`humanoid_model.start_posture.scene_robot_q`, as the
    simulator places a robot on rigid soles): its posture (default: the robot's), joint overrides,
    and the base pose of the scene; for a robot other than the scene's, the entry of
    `spec_for_robot` (the scene's posture if the robot has one of that name, else its default; the
    overrides of the joints it has), as the simulator does. `PlanningError` for a posture
    ``robot`` does not have."""
    spec = scene.robot
    if spec is not None and (robot.urdf_path is None or spec.urdf_path.resolve() != robot.urdf_path.resolve()):
        spec = spec_for_robot(spec, robot)  # another robot: the scene's posture if it has it, else its default
    posture = start_posture_name(robot, spec)
    if posture not in robot.postures:
        raise PlanningError(f"scene '{scene.name}': robot posture {posture!r} unknown to '{robot.name}'")
    return scene_robot_q(robot, spec)


def placed(q, x: float, y: float, yaw: float) -> np.ndarray:
    """``q`` (nq,) with its base moved horizontally: the base's horizontal position (x, y) [m] and
    its heading turned to ``yaw`` [rad] about the world z axis (height, roll and pitch kept)."""
    import pinocchio as pin

    q = np.asarray(q, float).copy()
    R = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
    turn = pin.utils.rotate("z", yaw - math.atan2(R[1, 0], R[0, 0]))  # libm: the same bits on every processor
    quat = pin.Quaternion(turn @ R).normalized()
    q[:2] = (x, y)
    q[3:7] = (quat.x, quat.y, quat.z, quat.w)
    return q


def measured(q, robot, position, quaternion, joints) -> np.ndarray:
    """``q`` (nq,) with a measured state: the base at ``position`` (3,) [m] and ``quaternion``
    (x, y, z, w) (normalised; e.g. an /odom pose), and the joints of ``joints`` (name -> position
    [rad] or [m], e.g. a /joint_states message; names the robot does not have are ignored, joints
    not given keep their value), clipped to the joint limits (measurement noise may pass them by a
    hair; the posture generator refuses a start outside them)."""
    q = np.asarray(q, float).copy()
    quat = np.asarray(quaternion, float).reshape(4)
    norm = float(np.linalg.norm(quat))
    if not (np.all(np.isfinite(position)) and np.isfinite(norm) and norm > 0.5):
        raise PlanningError(f"measured start: base pose must be finite, quaternion unit; {position}, {quaternion}")
    q[:3], q[3:7] = np.asarray(position, float).reshape(3), quat / norm
    known = set(robot.joint_names)
    angles = {n: float(v) for n, v in joints.items() if n in known}
    if not all(np.isfinite(list(angles.values()))):
        raise PlanningError(f"measured start: joint positions must be finite; {angles}")
    q = robot.with_angles(q, angles)
    q[7:] = np.clip(q[7:], robot.q_lower, robot.q_upper)
    return q


PROBLEMS = {"flat": walk_problem}
"""Scene name -> builder ``(scene, robot, goal=None, start_q=None, goal_radius=None, **settings)
-> PlanningProblem``; a scene not named here uses its own planning section (`scene_problem`)."""


def problem_for(scene, robot, goal=None, start_q=None, goal_radius=None, **overrides) -> PlanningProblem:
    """The planning problem of ``scene`` (a loaded `Scene`) for ``robot`` (module docstring):
    ``goal`` the goal point, ``start_q`` the start configuration (default the scene's),
    ``goal_radius`` the goal region's half-width [m], ``overrides`` `PlannerSettings` fields."""
    builder = PROBLEMS.get(scene.name)
    if builder is None and getattr(scene, "planning", None) is not None:
        builder = scene_problem
    if builder is None:
        raise PlanningError(
            f"scene '{scene.name}': no planning problem defined for it (no 'planning' section, "
            f"docs/scenes.md); scenes with one: {', '.join(sorted(PROBLEMS))} and those with a planning section"
        )
    problem = builder(scene, robot, goal, start_q=start_q, goal_radius=goal_radius, **overrides)
    check_problem(problem)
    return problem
