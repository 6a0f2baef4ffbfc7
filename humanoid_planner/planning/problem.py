"""A planning problem: what `humanoid-stack plan`, the `contact_planner` node and
`benchmarks/planning.py` hand to the contact planner, built from a scene (planner surfaces, the
robot and its posture) and a goal.

`PlanningProblem` holds the robot, the surfaces, the start configuration and the locations in
contact there, the goal tasks, the potential and the planner settings; ``planner()`` builds the
`humanoid_planner.contact.ContactPlanner` and ``start_stance(planner)`` reads the start contacts
where the start posture has them. `problem_for(scene, robot, ...)` picks the builder of the
scene's name in ``PROBLEMS`` (scene-agnostic callers only use this); a scene without a builder is
a `PlanningError` naming the ones that exist.

Builders (each documents its goal and numbers):

- ``walk``: the robot walks on the scene's surfaces until its CoM is within 0.1 m of a goal point
  (x, y) and both soles are in a 0.3 m × 0.6 m region about it (x - 0.1 .. x + 0.2, y ± 0.3) and
  in the stance: the 0.4 m walk of `test/test_contact_plan.py`, generalised to any point (the
  goal regions are that test's, chosen there). Locations: soles and hands, hands forbidden on
  the floor. Potential: the mixed attractive potential toward (x, y). Threshold M: the potential
  of a root 1 m farther from the goal than the start (bounds the search behind the robot; the
  test's 0.5 for its 0.4 m goal is about this). Used for ``flat`` (default goal (0.4, 0): the
  test's problem).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import numpy as np

from humanoid_planner.contact import ComRegion, ContactPlanner, MixedPotential, PlannerSettings, PointRegion, Stance
from humanoid_planner.exceptions import PlanningError

__all__ = ["PROBLEMS", "PlanningProblem", "placed", "problem_for", "start_contacts", "walk_problem"]

START_TOLERANCE = 0.005  # [m] (chosen) a location's point this close to a surface's plane, inside it, is in contact
START_ALIGNMENT = 0.999  # (chosen) n_P^W . n_E above this (2.6 deg) for a start contact
WALK_REGION = ((-0.1, 0.2), (-0.3, 0.3))  # [m] the soles' goal region about the goal point (module docstring)
COM_RADIUS = 0.1  # [m] the CoM's goal half-width about the goal point (module docstring)


@dataclass
class PlanningProblem:
    """Everything the planner needs (module docstring). ``goal`` is a plain description for the
    plan file; ``tasks`` extra tasks at every witness (§5.8)."""

    scene: str
    robot: object
    surfaces: list
    start_q: np.ndarray
    start_locations: tuple
    goal_tasks: list
    goal_contacts: tuple
    potential: object
    settings: PlannerSettings
    goal: dict = field(default_factory=dict)
    tasks: tuple = ()
    seed: int = 0

    def planner(self) -> ContactPlanner:
        return ContactPlanner(
            self.robot,
            self.surfaces,
            self.goal_tasks,
            self.potential,
            self.settings,
            tasks=self.tasks,
            goal_contacts=self.goal_contacts,
        )

    def start_stance(self, planner: ContactPlanner) -> Stance:
        """The start stance: the start locations on the surfaces where the start posture has them."""
        out = []
        for name, surface in start_contacts(planner.feas, self.start_q, self.start_locations):
            out += planner.feas.contacts_at(self.start_q, [name], surface)
        if not out:
            raise PlanningError(
                f"planning problem '{self.scene}': the start posture touches no planner surface with "
                f"{list(self.start_locations)} (within {START_TOLERANCE} m)"
            )
        return Stance(out)


def start_contacts(feas, q, locations) -> list[tuple[str, str]]:
    """(location, surface) pairs of ``locations`` in contact at ``q``: the location's point within
    `START_TOLERANCE` of the surface's plane and inside its polygon, its normal along the surface's."""
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
            if near and _inside(p, s):
                out.append((name, sname))
                break
    return out


def _inside(p, surface) -> bool:
    V, n = surface.vertices, surface.normal
    return all(np.cross(V[(i + 1) % len(V)] - V[i], p - V[i]) @ n >= -1e-9 for i in range(len(V)))


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
        raise PlanningError(f"walk problem: robot '{robot.name}' needs contact locations l_sole and r_sole")
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
    }
    settings.update(overrides)
    seed = int(settings.get("seed", 0) or 0)
    surfaces = list(scene.surfaces)
    return PlanningProblem(
        scene.name,
        robot,
        surfaces,
        q0,
        soles,
        goal_tasks,
        soles,
        potential,
        _settings(settings),
        {"kind": "walk", "point": [gx, gy], "com_half_width": radius, "soles_region": WALK_REGION},
        seed=seed,
    )


def scene_start_q(scene, robot) -> np.ndarray:
    """The scene's robot configuration (as the simulator places it, `humanoid_sim.world`): its
    posture (default: the robot's), joint overrides, and the base pose of the scene."""
    spec = scene.robot
    posture = spec.posture if spec is not None and spec.posture else robot.default_posture
    if posture not in robot.postures:
        raise PlanningError(f"scene '{scene.name}': robot posture {posture!r} unknown to '{robot.name}'")
    q = robot.q(posture)
    if spec is not None:
        for j, val in spec.joints.items():
            q[robot.joint_index_q(j)] = val
        q[:7] = spec.base_pose(q[:7])
    return q


def placed(q, x: float, y: float, yaw: float) -> np.ndarray:
    """``q`` (nq,) with its base moved horizontally: the base's horizontal position (x, y) [m] and
    its heading turned to ``yaw`` [rad] about the world z axis (height, roll and pitch kept)."""
    import pinocchio as pin

    q = np.asarray(q, float).copy()
    R = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
    turn = pin.utils.rotate("z", yaw - np.arctan2(R[1, 0], R[0, 0]))
    quat = pin.Quaternion(turn @ R).normalized()
    q[:2] = (x, y)
    q[3:7] = (quat.x, quat.y, quat.z, quat.w)
    return q


PROBLEMS = {"flat": walk_problem}
"""Scene name -> builder ``(scene, robot, goal=None, start_q=None, goal_radius=None, **settings)
-> PlanningProblem``."""


def problem_for(scene, robot, goal=None, start_q=None, goal_radius=None, **overrides) -> PlanningProblem:
    """The planning problem of ``scene`` (a loaded `Scene`) for ``robot`` (module docstring):
    ``goal`` the goal point, ``start_q`` the start configuration (default the scene's),
    ``goal_radius`` the goal region's half-width [m], ``overrides`` `PlannerSettings` fields."""
    builder = PROBLEMS.get(scene.name)
    if builder is None:
        raise PlanningError(
            f"scene '{scene.name}': no planning problem defined for it; scenes with one: {', '.join(sorted(PROBLEMS))}"
        )
    return builder(scene, robot, goal, start_q=start_q, goal_radius=goal_radius, **overrides)
