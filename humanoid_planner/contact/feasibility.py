"""The posture-generator calls of the planner (001_escande.md §5.2-5.4), each logged by outcome.

- ``transition(geometric, stable, q0)``: Q^geom of the larger stance ∩ Q^stab of the smaller
  (5.20)-(5.22), 001_escande.md:244 (`generate`, :283): a strong contact (3.28)-(3.35) per
  geometric contact, the CoM in the support polygon (3.63) of the contacts that participate to
  stability (with ``margin``), the joint bounds, any extra task of the scene (§5.8).
- ``addition(stance, location, box, q0)``: the same with the new contact as a light contact in a
  search box (6.1)-(6.6), converted to a strong contact at the solution (`updateContact`, :296).
- ``pre_contact(stance, location, box, q0)``: Q_s + the pre-contact (3.40)-(3.43) of ``location``
  within ``pre_contact_distance`` of the box's plane + the box's half-planes (:305); inequalities
  but the two direction rows, so an unreachable pair fails in phase 1 (:85). The stance's
  contacts are relaxed to a 1 mm band (`relaxed`), or phase 1 would not see them.
- ``goal(stance, tasks, q0)``: Q_s + T_final (:253).

With ``self_collision`` every call also keeps the robot's capsules 1 cm apart
(`posture.SelfCollision`, (3.47), :124). Environment collision is not added yet.

Every call warm-starts from ``q0`` (the father's witness posture, issue 9), with the criterion
given (the potential, §5.5), and OpenBLAS single-threaded (`posture.solver`); the pre-contact
test has no criterion: it is a feasibility test, and with the potential pulling the root the
free body's slack made SLSQP stall (NO_PROGRESS at a 3e-5 violation on the first step).

Numbers chosen (not in the thesis, 001_escande.md:412): ``pre_contact_distance`` 0.02 m, the
thesis's 2 cm approach segment (001_escande.md:409); ``margin`` of the CoM polygon 0.02 m (the
thesis shrank HRP-2's feet to 2 cm discs for its flexible ankles, :421; 2 cm inside the polygon
is our milder version), passed as `posture.ComInPolygon`'s ``margin`` (it shrinks the polygon;
test_contact_children's FK check found it growing it before the fix).
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from humanoid_planner.posture import (
    ComInPolygon,
    EnvironmentFrame,
    PostureProblem,
    PreContact,
    RobotContactFrame,
    SearchBoxContact,
    SelfCollision,
    SolverSettings,
    StrongContact,
    solve,
    support_polygon,
)
from humanoid_planner.posture import kinematics as kin
from humanoid_planner.posture.base import INEQUALITY, PostureConstraint
from humanoid_planner.posture.kinematics import point_jacobian
from humanoid_planner.posture.outcome import Outcome, PostureResult

from .relaxed import Relaxed
from .stance import Contact

__all__ = ["Feasibility", "HalfPlanes", "Stats"]


class HalfPlanes(PostureConstraint):
    """The surface half-planes of a search box for a contact point: (P^W - E) . a_i - b_i <= 0 [m]
    ((6.5), 001_escande.md:295; the "surface bounding inequalities" of the pre-contact test, :305)."""

    equations = "(6.5), 001_escande.md:295"

    def __init__(self, model, robot_frame: RobotContactFrame, search_box, name: str = "half_planes"):
        self.model, self.robot_frame, self.name = model, robot_frame, name
        self.fid = kin.frame_id(model, robot_frame.body)
        surf = search_box.surface
        t, s, _ = surf.rotation.T
        self.origin = surf.centroid
        self.a_world = search_box.A[:, :1] * t + search_box.A[:, 1:] * s
        self.b = search_box.b
        self.dim = len(self.b)
        self.kinds = (INEQUALITY,) * self.dim

    def evaluate(self, q, data):
        p, Jp = point_jacobian(self.model, data, self.fid, self.robot_frame.point)
        return self.a_world @ (p - self.origin) - self.b, self.a_world @ Jp


@dataclass
class Stats:
    """Posture-generator calls: count and total time [s] by (purpose, outcome)."""

    calls: dict = field(default_factory=lambda: defaultdict(int))
    times: dict = field(default_factory=lambda: defaultdict(float))

    def log(self, purpose: str, result: PostureResult):
        key = (purpose, Outcome(result.outcome).name)
        self.calls[key] += 1
        self.times[key] += result.time

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    @property
    def total_time(self) -> float:
        return sum(self.times.values())

    def table(self) -> list[tuple[str, str, int, float]]:
        """(purpose, outcome, calls, mean time [s]) rows."""
        return [(p, o, n, self.times[(p, o)] / n) for (p, o), n in sorted(self.calls.items())]


class Feasibility:
    """PG calls for ``robot`` (a `humanoid_model` robot) on ``surfaces`` (name -> `Surface`)."""

    def __init__(
        self,
        robot,
        surfaces: dict,
        criterion=None,
        tasks=(),
        margin: float = 0.02,
        pre_contact_distance: float = 0.02,
        settings: SolverSettings | None = None,
        self_collision: bool = False,
    ):
        self.robot = robot
        self.model = robot.model
        self.locations = robot.contact_locations
        self.surfaces = surfaces
        self.criterion = criterion
        self.tasks = list(tasks)
        self.margin = float(margin)
        self.pre_contact_distance = float(pre_contact_distance)
        self.settings = settings or SolverSettings()
        self.stats = Stats()
        if self_collision:  # (3.47) on the capsule pairs of `posture.SelfCollision`, at every witness
            self.tasks.append(SelfCollision(self.model, robot.collision_model, q_ref=robot.q()))
        self._data = self.model.createData()
        self._lo, self._hi = robot.model.lowerPositionLimit, robot.model.upperPositionLimit

    # --- constraints
    def env_frame(self, c: Contact) -> EnvironmentFrame:
        return EnvironmentFrame.on_surface(self.surfaces[c.surface], c.x, c.y, c.theta)

    def robot_frame(self, location: str) -> RobotContactFrame:
        return RobotContactFrame.from_location(self.locations[location])

    def strong(self, c: Contact) -> StrongContact:
        return StrongContact(self.model, self.robot_frame(c.location), self.env_frame(c), name=c.location)

    def stability(self, contacts) -> ComInPolygon:
        """(3.63) for ``contacts`` (horizontal surfaces), with the margin."""
        placed = [(self.locations[c.location], self.env_frame(c), self.surfaces[c.surface]) for c in contacts]
        con = ComInPolygon(self.model, support_polygon(placed), margin=self.margin, name="stability")
        con.margin = self.margin
        return con

    # --- calls
    def _run(self, purpose: str, constraints, q0, criterion=True) -> PostureResult:
        q0 = np.array(q0, float)
        bounded = np.isfinite(self._lo) & np.isfinite(self._hi)
        q0[bounded] = np.clip(q0[bounded], self._lo[bounded], self._hi[bounded])
        problem = PostureProblem(self.model, constraints, q0, self.criterion if criterion else None)
        t0 = time.perf_counter()
        res = solve(problem, self.settings)
        res.time = time.perf_counter() - t0
        self.stats.log(purpose, res)
        return res

    def transition(self, geometric, stable, q0) -> PostureResult:
        cons = [self.strong(c) for c in geometric] + [self.stability(stable)] + self.tasks
        return self._run("transition", cons, q0)

    def addition(self, stance, location: str, box, q0) -> tuple[PostureResult, Contact | None]:
        """The new contact of ``location`` in ``box`` (a `boxes.Box`) with ``stance`` stable; the
        contact found (None on failure)."""
        slide = SearchBoxContact(self.model, self.robot_frame(location), box.search_box(), name=location)
        cons = [self.strong(c) for c in stance] + [slide, self.stability(stance)] + self.tasks
        res = self._run("addition", cons, q0)
        if not res.success:
            return res, None
        kin.update(self.model, self._data, res.q)
        x, y, th = slide.parameters(res.q, self._data)
        return res, Contact(location, box.surface.name, x, y, th)

    def pre_contact(self, stance, location: str, box, q0) -> PostureResult:
        rf = self.robot_frame(location)
        env = EnvironmentFrame.on_surface(box.surface)
        sb = box.search_box()
        cons = [Relaxed(self.strong(c)) for c in stance] + [self.stability(stance)] + self.tasks
        cons += [PreContact(self.model, rf, env, self.pre_contact_distance), HalfPlanes(self.model, rf, sb)]
        return self._run("pre_contact", cons, q0, criterion=False)

    def goal(self, stance, goal_tasks, q0) -> PostureResult:
        cons = [self.strong(c) for c in stance] + [self.stability(stance)] + self.tasks + list(goal_tasks)
        return self._run("goal", cons, q0)

    def contacts_at(self, q, locations, surface: str) -> list[Contact]:
        """The contacts of ``locations`` on ``surface`` where the robot at ``q`` has them (the
        contact point's surface coordinates and its tangent's angle)."""
        kin.update(self.model, self._data, np.asarray(q, float))
        surf = self.surfaces[surface]
        t, s, _ = surf.rotation.T
        out = []
        for name in locations:
            rf = self.robot_frame(name)
            M = self._data.oMf[self.model.getFrameId(rf.body)]
            rel, d = M.act(rf.point) - surf.centroid, M.rotation @ rf.d
            out.append(Contact(name, surface, rel @ t, rel @ s, np.arctan2(d @ s, d @ t)))
        return out
