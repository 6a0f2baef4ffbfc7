"""The posture-generator calls of the planner (Escande 2008, §5.3.1.3, §5.3.2.2 and §6.1), each
logged by outcome.

- ``transition(geometric, stable, q0)``: Q^geom of the larger stance ∩ Q^stab of the smaller
  (5.20)-(5.22), Escande 2008, §5.3.1.3 (`generate`, §5.3.2.2): a strong contact (3.28)-(3.35)
  per geometric contact, the CoM in the support polygon (3.63) of the contacts that participate
  to stability (with ``margin``), the joint bounds, any extra task of the scene (§6.5).
- ``addition(stance, location, box, q0)``: the same with the new contact as a light contact in a
  search box (6.1)-(6.6), converted to a strong contact at the solution (`updateContact`,
  §6.1.2.3).
- ``pre_contact(stance, location, box, q0)``: Q_s + the pre-contact (3.40)-(3.43) of ``location``
  within ``pre_contact_distance`` of the box's plane + the box's half-planes (§6.1.3);
  inequalities but the two direction rows, so an unreachable pair fails in phase 1 (§3.2.1). The
  stance's contacts are relaxed to a 1 mm band (`posture.Relaxed`), or phase 1 would not see them.
- ``goal(stance, tasks, q0)``: Q_s + T_final (§5.3.2.1).

Every call also carries, for each constraint with equality rows, those rows relaxed to a band
|c_i| <= ``band`` as inequalities (`posture.WithBand`): the thesis's fast-fail rule (§3.2.1), so
that phase 1 sees the contacts and a request that cannot hold them fails there (``band`` 0
disables it). Measured on the stairs: docs/contact_planner.md.

**Polish.** With the potential as criterion SLSQP often stalls a hair away from feasibility (the
criterion pulls a foot forward, the contact and stability rows pull back: NO_PROGRESS at a
largest violation of 1e-5 to 1e-3 after 30 iterations on HRP-2's stairs, 2e-3 to 4e-3 for BIP;
without the polish most failed additions there end so). A call that ends so, within ``polish`` of
feasibility, is solved again from its last point without the criterion (a projection, logged as
``<purpose>_polish``): the node gets a witness posture next to the criterion's optimum instead of
being lost. ``polish`` 1e-2 (chosen: a centimetre, ten times BIP's stalls; 0 disables it).

With ``obstacles`` and ``self_collision`` every call keeps the robot's capsules
``collision_margin`` from the obstacles and its own collision geometries apart, the pairs entering
a call lazily, in rounds (`collision_pairs`, the base class that holds the pairs).

**Placed candidates** (`placed_clear`, the random candidates' filter of `children`): a contact
fixes its body's pose, so the capsule of the location's body is where the contact alone puts it,
whatever the rest of the posture; closer than ``collision_margin`` to an obstacle the call would
check (not one the contacts imply, the seated overshoot as in `_run`) means every PG call holding
that contact fails. ``PLACED_SLACK`` 1 mm (chosen): the PG ends with the contact's equalities and
the collision rows met to its tolerance (1e-6 m), so what the filter drops with 1 mm of slack
the PG could not accept; what it keeps within that millimetre the PG still refuses.

**Lazy rounds started over** (`_run`, `_rounds`, ``RESTART_SLACK``): a round after the first
starts from the solution that met the pairs, i.e. from inside them (a box 1-25 mm into another);
with coal's box distances the push-out direction there is the nearest face's, often against the
contacts, and phase 1 fails (INFEASIBLE_INEQUALITIES at 1-25 mm) although the request is
feasible with the rows. So when a later round fails, or the rounds run out, the request starts
over once from its own warm start ``q0`` (clear of the pairs) with every pair met so far and
every pair within ``RESTART_SLACK`` of its margin at those solutions (the neighbours the same
motion meets next), again for up to ``MAX_COLLISION_ROUNDS`` rounds, each from ``q0``. Measured
on the first 60 s of the under-table search, replaying each lost request: of 80 requests whose
first round succeeds and whose end fails, going on from the last solution with 6 rounds recovers
6, starting over from ``q0`` with the pairs met 14, with the pairs within 3 cm too 21. On the
chair's first 60 s the slack recovers 15 (1 cm), 21 (3 cm), 21 (5 cm), 22 (10 cm) lost requests;
starting over always, instead of only after a failure, loses 34 of the 389 requests that the
rounds from the solutions solve there, so it is the fallback. ``RESTART_SLACK`` 0.03 m (chosen:
the smallest slack that recovers as many as 5 cm, with fewer rows per call).

**Stability** (``stability``): "com" is (3.63) on the contacts whose surface is horizontal (normal
within ``HORIZONTAL`` of +z); a contact on a tilted or vertical surface (the table edge of the can
scene) carries no force in it, a conservative reading of the thesis's use of (3.63) whenever the
contacts are on horizontal planes (§3.4.4): such a contact is only geometric. A stance with no
horizontal contact is unstable under "com" (no PG call). "forces" uses the posture generator's
force-based test (3.68)-(3.70) (`posture.ForceStability`, friction cones of the surfaces' mu,
unlimited torques) for every stance: any surface carries what its cone allows.

**Deformable contacts** (``deformable``, ``deformable_angle``): the contacts of these locations
are `posture.DeformableContact` (Escande 2008, §3.4.1: the point fixed, the body within
``deformable_angle`` of the surface's frame instead of aligned with it), and their additions
search with the same allowance. Chosen for the thighs on a chair's seat (the chair scenes,
docs/contact_planner.md): with both thighs and both soles in strong contact the orientation rows
of the two legs are dependent (parallel floor and seat, each knee-ankle chain pinned at both
ends) and the posture generator stalls or fails on them; ``deformable_angle`` 0.1 rad (chosen:
the knee may then rise or sink by 3 cm over the 0.3 m thigh, room for the legs to meet both
contacts).

**Joint margin** (``joint_margin``): every call of the planner (and the motion's projections,
which use ``Feasibility.model``) bounds the joints ``joint_margin`` inside their limits
(`with_joint_margin`: a copy of the robot's model with the narrower limits; `robot.model` keeps
the real ones, which `check` tests against with the margin). Without it the witness postures sit
exactly on limits (HRP-2's CHEST_JOINT1 at its lower limit on the flat walk), and the robot
bridge refuses positions within its 0.01 rad ``position_margin`` of a limit.

Every call warm-starts from ``q0`` (the father's witness posture, Escande 2008, §5.3.2.2), with
the criterion given (the potential, §6.2.2), and OpenBLAS single-threaded
(`posture.solver.two_phase`); the pre-contact test has no criterion: it is a feasibility test,
and with the potential pulling the root the free body's slack makes SLSQP stall (NO_PROGRESS at
a 3e-5 violation on the first step).

Numbers chosen (the thesis gives no value for them): ``pre_contact_distance``
0.02 m, the thesis's 2 cm approach segment (§7.1.2); ``margin`` of the CoM polygon 0.02 m (the
thesis shrinks HRP-2's feet to 2 cm discs for its flexible ankles, §7.3.2; 2 cm inside the
polygon is our milder version), passed as `posture.ComInPolygon`'s ``margin`` (it shrinks the
polygon; test_contact_children's FK check tests that). ``collision_margin`` 0.01 m, the thesis's
safety distance r = 1 cm (§4.6, `posture.constraints.self_collision.DEFAULT_MARGIN`);
``joint_margin`` 0.02 rad (set by `search.PlannerSettings`; 0 here, the posture generator's own
bounds): twice the robot bridge's default ``position_margin`` 0.01 rad, so that the motion's
spline between the projected postures (which may overshoot its knots slightly) stays clear of
the bridge's band; ~1 deg, small next to HRP-2's narrowest joint range (0.96 rad) and BIP's
(0.35 rad). ``activation`` 0.25 m: a capsule further than that from an obstacle at the warm
start rarely ends within 1 cm of it in one call (measured on the stairs and can scenes:
docs/contact_planner.md), and when it does the check adds it; ``HORIZONTAL`` 0.05 rad (3 deg):
the scenes' surfaces are exactly horizontal or vertical, this only absorbs round-off.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace

import numpy as np
import pinocchio as pin

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import (
    ComInPolygon,
    ComRegion,
    DeformableContact,
    EnvironmentFrame,
    ForceStability,
    HalfPlanes,
    PointRegion,
    PostureProblem,
    PostureSolverSettings,
    PreContact,
    Relaxed,
    RobotContactFrame,
    SearchBoxContact,
    StrongContact,
    WithBand,
    solve,
    support_polygon,
)
from humanoid_planner.posture import kinematics as kin
from humanoid_planner.posture.base import PostureConstraint
from humanoid_planner.posture.constraints.self_collision import DEFAULT_MARGIN
from humanoid_planner.posture.geometry.obstacles import GROUND
from humanoid_planner.posture.solver.outcome import Outcome, PostureResult

from .boxes import clip_polygon, polygon_area
from .collision_pairs import CollisionPairs
from .stance import Contact

__all__ = ["Feasibility", "Stats", "STABILITY_MODELS", "accepted", "on_ground", "with_joint_margin"]

STABILITY_MODELS = ("com", "forces")
HORIZONTAL = 0.05  #: rad, a surface within this of horizontal carries weight under "com" (chosen, docstring)
ROOT_MOTION = 0.1  #: m, the root's own motion in `Feasibility.reach` (chosen, docs/contact_planner.md)
MAX_COLLISION_ROUNDS = 3  #: PG calls of one request when the collision check adds pairs (chosen)
SELF_ACTIVATION = 0.0  #: m, self-collision pairs closer at the warm start enter a PG call (chosen, docstring)
RESTART_SLACK = 0.03  #: m, pairs this far outside their margin join a request started over (`_run`, docstring)
PLACED_SLACK = 1e-3  #: m, `Feasibility.placed_clear` lets candidates this much inside the margin (chosen, docstring)


def with_joint_margin(model, margin: float):
    """``model`` itself when ``margin`` is 0, else a copy whose bounded 1-DOF joints have their
    position limits moved ``margin`` [rad or m] inside (a joint narrower than 2 ``margin`` keeps
    its middle): the bounds of every PG call and projection of the planner (module docstring)."""
    if margin <= 0:
        return model

    from humanoid_planner.posture.joint_bounds import bounded_joints

    out = pin.Model(model)
    iq, _, lo, hi = bounded_joints(model)
    mid = (lo + hi) / 2
    lower, upper = out.lowerPositionLimit.copy(), out.upperPositionLimit.copy()
    lower[iq], upper[iq] = np.minimum(lo + margin, mid), np.maximum(hi - margin, mid)
    out.lowerPositionLimit, out.upperPositionLimit = lower, upper
    return out


@dataclass
class Stats:
    """Posture-generator calls: count and total time [s] by (purpose, outcome)."""

    calls: dict = field(default_factory=lambda: defaultdict(int))
    times: dict = field(default_factory=lambda: defaultdict(float))

    def log(self, purpose: str, result: PostureResult):
        self.add(purpose, Outcome(result.outcome).name, 1, result.time)

    def add(self, purpose: str, outcome: str, calls: int, seconds: float):
        """Count ``calls`` calls of ``seconds`` in all under (purpose, outcome name)."""
        self.calls[(purpose, outcome)] += calls
        self.times[(purpose, outcome)] += seconds

    def merge(self, other: Stats):
        """Add ``other``'s counts (the calls a worker process made)."""
        for key, n in other.calls.items():
            self.add(*key, n, other.times[key])

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    @property
    def total_time(self) -> float:
        return sum(self.times.values())

    def table(self) -> list[tuple[str, str, int, float]]:
        """(purpose, outcome, calls, mean time [s]) rows."""
        return [(p, o, n, self.times[(p, o)] / n) for (p, o), n in sorted(self.calls.items())]


def accepted(res: PostureResult) -> bool:
    """A call whose posture the caller takes: SUCCESS, or a line-search failure at a point that
    meets the constraints (SLSQP's exit 8: no descent direction for the criterion from a feasible
    iterate; seen by the motion's projections where the warm start already is the projection,
    criterion 3e-13, on the glass scene's last segment). The motion's projections take these
    (`Feasibility.project`); the planner's calls take SUCCESS alone."""
    return res.success or res.outcome == Outcome.LINE_SEARCH_FAILURE and res.feasible


@dataclass(frozen=True)
class _Request:
    """What the collision rounds of one request (`Feasibility._run`) share."""

    constraints: list
    skip: set  #: (body, obstacle) pairs the contacts imply
    over: dict  #: pairs with a seated overshoot -> depth [m]
    criterion: object  #: True: the planner's; False: none; else the caller's
    stats: Stats
    label: str = ""  #: `posture.solver.call_log` label
    stalls: bool = False  #: whether a feasible line-search failure is taken (`accepted`) or only SUCCESS


def on_ground(surfaces: dict, obstacles) -> dict:
    """``surfaces`` (name -> `Surface`) with those lying on the ground obstacle's top face (no body,
    normal up, every vertex at its height to 1e-6 m) bound to it (``body`` ``GROUND``), so that a
    contact on the floor skips the ground as a contact on a table skips the table (`_skipped`),
    and every other body keeps ``collision_margin`` above it; unchanged without a ground obstacle
    (`posture.Obstacle.ground`)."""
    ground = next((o for o in obstacles if o.name == GROUND), None)
    if ground is None:
        return surfaces
    top = ground.translation[2] + ground.shape.halfSide[2]
    out = {}
    for name, surf in surfaces.items():
        flat = surf.body is None and surf.normal[2] > 1.0 - 1e-9 and np.all(np.abs(surf.vertices[:, 2] - top) <= 1e-6)
        out[name] = replace(surf, body=GROUND) if flat else surf
    return out


class Feasibility(CollisionPairs):
    """PG calls for ``robot`` (a `humanoid_model` robot) on ``surfaces`` (name -> `Surface`)."""

    def __init__(
        self,
        robot,
        surfaces: dict,
        criterion=None,
        tasks=(),
        margin: float = 0.02,
        pre_contact_distance: float = 0.02,
        settings: PostureSolverSettings | None = None,
        self_collision: bool = False,
        obstacles=(),
        collision_margin: float = DEFAULT_MARGIN,
        activation: float = 0.25,
        collision_rules=None,
        stability: str = "com",
        band: float = 1e-3,
        polish: float = 1e-2,
        joint_margin: float = 0.0,
        deformable=(),
        deformable_angle: float = 0.1,
    ):
        if stability not in STABILITY_MODELS:
            raise PlanningError(f"feasibility: field 'stability' must be one of {STABILITY_MODELS}; {stability!r}")
        self.robot = robot
        #: locations whose contacts are `posture.DeformableContact` (named, or by kind or body)
        self.deformable = {n for n, loc in robot.contact_locations.items() if {n, loc.kind, loc.body} & set(deformable)}
        self.deformable_angle = float(deformable_angle)
        self.joint_margin = float(joint_margin)
        self.model = with_joint_margin(robot.model, self.joint_margin)
        self.locations = robot.contact_locations
        self.obstacles = list(obstacles)
        self.surfaces = on_ground(surfaces, self.obstacles)
        self.criterion = criterion
        self.tasks = list(tasks)
        self.margin = float(margin)
        self.pre_contact_distance = float(pre_contact_distance)
        self.settings = settings or PostureSolverSettings()
        self.stats = Stats()
        self.stability_model = stability
        self.band = float(band)
        self.polish = float(polish)
        self._data = self.model.createData()
        self._init_collision_pairs(robot, self_collision, collision_margin, activation, collision_rules)
        self._reach = {}
        self._lo, self._hi = self.model.lowerPositionLimit, self.model.upperPositionLimit

    def reach(self, location: str) -> float:
        """The radius [m] of the sphere about the root in which ``location`` can touch a surface
        (``reach`` 0 of `search.PlannerSettings`): the length of its kinematic chain (the sum of
        the joint offsets from the root joint to its body plus the offset of its point, an upper
        bound of the root-to-point distance for any joint angles, any robot) plus ``ROOT_MOTION``
        (the root itself moves within a PG call)."""
        if location not in self._reach:
            m, loc = self.model, self.locations[location]
            frame = m.frames[m.getFrameId(loc.body)]
            total = float(np.linalg.norm(frame.placement.act(np.asarray(loc.point, float))))
            j = frame.parentJoint
            while m.parents[j] > 0:  # up to, not including, the free flyer
                total += float(np.linalg.norm(m.jointPlacements[j].translation))
                j = m.parents[j]
            self._reach[location] = total + ROOT_MOTION
        return self._reach[location]

    # --- constraints
    def env_frame(self, c: Contact) -> EnvironmentFrame:
        return EnvironmentFrame.on_surface(self.surfaces[c.surface], c.x, c.y, c.theta)

    def robot_frame(self, location: str) -> RobotContactFrame:
        return RobotContactFrame.from_location(self.locations[location])

    def strong(self, c: Contact) -> StrongContact | DeformableContact:
        """The fixed contact of ``c``: strong (3.28)-(3.35), or deformable for the locations of
        ``deformable`` (module docstring)."""
        if c.location in self.deformable:
            rf, env = self.robot_frame(c.location), self.env_frame(c)
            return DeformableContact(self.model, rf, env, self.deformable_angle, name=c.location)
        return StrongContact(self.model, self.robot_frame(c.location), self.env_frame(c), name=c.location)

    def max_angle(self, location: str) -> float:
        """The tilt and turn [rad] a contact of ``location`` allows (0: a strong contact)."""
        return self.deformable_angle if location in self.deformable else 0.0

    def stability(self, contacts) -> PostureConstraint | None:
        """The stability rows of ``contacts`` (module docstring, "Stability"); None when no contact
        can carry weight (the stance is unstable)."""
        if self.stability_model == "forces":
            return self._force_stability(contacts)
        cos = np.cos(HORIZONTAL)
        placed = [
            (self.locations[c.location], self.env_frame(c), self.surfaces[c.surface])
            for c in contacts
            if self.surfaces[c.surface].normal[2] >= cos
        ]
        if not placed:
            return None
        return ComInPolygon(self.model, support_polygon(placed), margin=self.margin, name="stability")

    def _force_stability(self, contacts):
        """The force-based test (3.68)-(3.70) of the posture generator (`posture.ForceStability`,
        unlimited torques): point forces at the hull corners of every contact, in the friction
        cone of its surface (``Surface.friction``)."""
        pairs = [(self.locations[c.location], self.surfaces[c.surface].friction) for c in contacts]
        return ForceStability(self.model, pairs, name="stability")

    def placed_clear(self, stance, contact) -> bool:
        """Whether ``contact``'s body can be clear of the obstacles where ``contact`` puts it: the
        capsule of the location's body (its joint's), placed by the contact alone (the strong
        contact fixes the body's whole pose), at least ``collision_margin`` (less the seated
        overshoot, as `_run`) less `PLACED_SLACK` from every obstacle but the pairs the contacts of
        ``stance`` and ``contact`` imply (`_skipped`). False: any PG call holding ``contact``
        fails its collision rows, so the random candidates skip it without a call (`children`,
        module docstring "Placed candidates")."""
        if not self.obstacles:
            return True
        touching = [c.pair for c in stance] + [contact.pair]
        ef, rf = self.env_frame(contact), self.robot_frame(contact.location)
        R = ef.rotation @ rf.rotation.T  # the body's frame: its location frame on the environment's
        return self.body_gap(contact.location, R, ef.point - R @ rf.point, touching) >= -PLACED_SLACK

    # --- calls
    def clipped(self, q0) -> np.ndarray:
        """A copy of ``q0`` with its bounded coordinates clipped to the planner's joint bounds
        (``model``'s, the joint margin in)."""
        q0 = np.array(q0, float)
        bounded = np.isfinite(self._lo) & np.isfinite(self._hi)
        q0[bounded] = np.clip(q0[bounded], self._lo[bounded], self._hi[bounded])
        return q0

    def _run(
        self, purpose: str, constraints, q0, criterion=True, touching=(), band=True, stats=None, label="", stalls=False
    ) -> PostureResult:
        """One request: the PG on ``constraints`` (+ the environment collision rows, module
        docstring) from ``q0``, each PG call logged under ``purpose``. The collision rounds go on from
        each solution; when one of them fails after a solution that only brought pairs within their
        margin, the request starts over from ``q0`` with those pairs and every pair within
        ``RESTART_SLACK`` of its margin there (module docstring, "Lazy rounds"). ``criterion``: True
        the planner's (`criterion`), False none, else the caller's (`project`); ``band``: the band
        rows; ``stats`` (default `stats`) and ``label`` (`posture.solver.call_log`) record the calls;
        ``stalls``: a feasible line-search failure is taken (`accepted`), not only SUCCESS."""
        q0 = self.clipped(q0)
        skip = self._skipped(touching) if self.obstacles else set()
        over = self._lowered_margins(touching) if self.obstacles else {}
        active = self._pairs_within(q0, skip, self.activation, over) if self.obstacles else set()
        active_self = self._self_within(q0, SELF_ACTIVATION, slack=False)
        if band and self.band > 0:  # extended constraints (the force stability) keep their rows as they are
            constraints = [c if c.n_extra or not c.equality_mask.any() else WithBand(c, self.band) for c in constraints]
        rows = _Request(constraints, skip, over, criterion, self.stats if stats is None else stats, label, stalls)
        res, near = self._rounds(purpose, rows, q0, active, active_self, restart=None)
        if near is None:
            return res
        return self._rounds(purpose, rows, q0, active | near[0], active_self | near[1], restart=q0)[0]

    def _rounds(self, purpose: str, rows: _Request, q0, active: set, active_self: set, restart):
        """Up to ``MAX_COLLISION_ROUNDS`` PG calls, each with the pairs the solutions before it
        brought within their margin (`_run`), from the last solution (``restart`` None) or from
        ``restart``, adding the pairs within ``RESTART_SLACK`` too. ``(result, near)``: ``near`` the
        (obstacle, self) pairs within ``RESTART_SLACK`` at the solutions so far when, without
        ``restart``, a round after the first failed or the last still brought pairs within their
        margin; else None."""
        near_env, near_self = set(), set()
        slack = RESTART_SLACK if restart is not None else 0.0
        for k in range(MAX_COLLISION_ROUNDS):
            cons = list(rows.constraints) + self._collision(active, rows.skip, active_self, rows.over)
            res = self._solve(purpose, cons, q0, rows.criterion, rows)
            if (
                not res.success
                and rows.criterion is True
                and self.criterion is not None
                and res.max_violation <= self.polish
            ):
                res = self._solve(purpose + "_polish", cons, res.q, False, rows)
            taken = accepted(res) if rows.stalls else res.success
            if not (taken and (self.obstacles or self.self_collision is not None)):
                return res, ((near_env, near_self) if k and restart is None else None)
            tol = self.settings.tolerance
            # one evaluation of the pairs serves both thresholds (-tol < RESTART_SLACK): the gaps below the larger
            within = self.collision_margin + max(-tol, RESTART_SLACK)
            gaps_env = self._env_gaps(res.q, rows.skip, rows.over, within) if self.obstacles else {}
            gaps_self = self._self_gaps(res.q, RESTART_SLACK, slack=True)
            close = self._below(gaps_env, self.collision_margin - tol) - active
            close_self = self._below(gaps_self, -tol) - active_self
            if not (close or close_self):
                return res, None
            near_env |= self._below(gaps_env, self.collision_margin + RESTART_SLACK)
            near_self |= set(gaps_self)
            active |= close | (near_env if slack else set())
            active_self |= close_self | (near_self if slack else set())
            q0 = res.q if restart is None else restart
        res.outcome = Outcome.EQUALITIES_NOT_SATISFIED
        return res, ((near_env, near_self) if restart is None else None)

    def _solve(self, purpose: str, cons, q0, criterion, rows: _Request) -> PostureResult:
        crit = self.criterion if criterion is True else (criterion or None)
        problem = PostureProblem(self.model, cons, q0, crit)
        t0 = time.perf_counter()
        res = solve(problem, self.settings, label=rows.label)
        res.time = time.perf_counter() - t0
        rows.stats.log(purpose, res)
        return res

    def project(
        self, constraints, q0, criterion, touching, stats=None, purpose="interpolation", collision=True
    ) -> PostureResult:
        """One request of the motion's projections (`humanoid_planner.motion.stance_projection`): the PG on
        ``constraints`` with the caller's ``criterion`` from ``q0``, kept clear of the obstacles
        (``collision_margin``, except the pairs the contacts ``touching`` imply) and of itself like
        every planner call (the lazy collision rounds of `_run`), without the band rows; logged in
        ``stats`` (default `stats`) and to `posture.solver.call_log` under ``purpose``. Without
        ``collision``: one PG call on ``constraints`` alone (the thesis's projection)."""
        if not collision:
            rows = _Request(constraints, set(), {}, criterion, self.stats if stats is None else stats, purpose, True)
            return self._solve(purpose, constraints, self.clipped(q0), criterion, rows)
        return self._run(
            purpose, constraints, q0, criterion, touching, band=False, stats=stats, label=purpose, stalls=True
        )

    @staticmethod
    def _unstable(q0) -> PostureResult:
        return PostureResult(Outcome.INFEASIBLE_INEQUALITIES, np.array(q0, float), np.inf, False, message="unstable")

    def transition(self, geometric, stable, q0, purpose: str = "transition", criterion=True) -> PostureResult:
        """Q^geom of ``geometric`` ∩ Q^stab of ``stable`` from ``q0`` (module docstring); ``criterion``
        as `_run`'s (True the planner's, False none)."""
        stab = self.stability(stable)
        if stab is None:
            return self._unstable(q0)
        cons = [self.strong(c) for c in geometric] + [stab] + self.tasks
        return self._run(purpose, cons, q0, criterion=criterion, touching=[c.pair for c in geometric])

    def addition(self, stance, location: str, box, q0) -> tuple[PostureResult, Contact | None]:
        """The new contact of ``location`` in ``box`` (a `boxes.Box`) with ``stance`` stable; the
        contact found (None on failure)."""
        stab = self.stability(stance)
        if stab is None:
            return self._unstable(q0), None
        slide = SearchBoxContact(
            self.model, self.robot_frame(location), box.search_box(), name=location, max_angle=self.max_angle(location)
        )
        cons = [self.strong(c) for c in stance] + [slide, stab] + self.tasks
        touching = [c.pair for c in stance] + [(location, box.surface.name)]
        res = self._run("addition", cons, q0, touching=touching)
        if not res.success:
            return res, None
        kin.update(self.model, self._data, res.q)
        x, y, th = slide.parameters(res.q, self._data)
        return res, Contact(location, box.surface.name, x, y, th)

    def pre_contact(self, stance, location: str, box, q0) -> PostureResult:
        stab = self.stability(stance)
        if stab is None:
            return self._unstable(q0)
        rf = self.robot_frame(location)
        env = EnvironmentFrame.on_surface(box.surface)
        sb = box.search_box()
        cons = [Relaxed(self.strong(c)) for c in stance] + [stab] + self.tasks
        cons += [PreContact(self.model, rf, env, self.pre_contact_distance), HalfPlanes(self.model, rf, sb)]
        touching = [c.pair for c in stance] + [(location, box.surface.name)]
        return self._run("pre_contact", cons, q0, criterion=False, touching=touching)

    def goal(self, stance, goal_tasks, q0) -> PostureResult:
        stab = self.stability(stance)
        if stab is None:
            return self._unstable(q0)
        cons = [self.strong(c) for c in stance] + [stab] + self.tasks + list(goal_tasks)
        return self._run("goal", cons, q0, touching=[c.pair for c in stance])

    def goal_possible(self, stance, goal_tasks) -> bool:
        """A necessary condition of the goal test, without a PG call: a `posture.ComRegion` bounded in
        x and y must meet the stance's support polygon shrunk by the margin (the CoM is in both,
        "com" stability), and a `posture.PointRegion` on a contact location's body, point and frame of
        the stance must hold where the contact puts it. False: the goal cannot be met from this stance."""
        placed = {c.location: self.env_frame(c) for c in stance}
        for t in goal_tasks:
            if isinstance(t, ComRegion) and self.stability_model == "com" and {"x", "y"} <= set(t.bounds):
                stab = self.stability(stance)
                if stab is None:
                    return False
                P = stab.vertices
                for a, b in ((stab.normals[i], stab.offsets[i]) for i in range(len(P))):
                    P = clip_polygon(P, a, b)  # the polygon shrunk by the margin
                (x0, x1), (y0, y1) = t.bounds["x"], t.bounds["y"]
                for a, b in (((1, 0), x1), ((-1, 0), -x0), ((0, 1), y1), ((0, -1), -y0)):
                    P = clip_polygon(P, a, b)
                if len(P) < 3 or polygon_area(P) <= 0:
                    return False
            if isinstance(t, PointRegion):
                for name, env in placed.items():
                    loc = self.locations[name]
                    if t.fid == self.model.getFrameId(loc.body):
                        rf = self.robot_frame(name)
                        x = env.point + env.rotation @ rf.rotation.T @ (t.point - rf.point)
                        S, o = t._S, t._o
                        if np.any(S @ x - o > self.settings.tolerance):
                            return False
        return True

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
            out.append(Contact(name, surface, rel @ t, rel @ s, math.atan2(d @ s, d @ t)))  # libm: same bits everywhere
        return out
