"""Best-first contact planning (Escande 2008, §5.3.2.1, Algorithm 2; §6.2.2, Algorithm 7).

    insert(root, L)
    while L not empty:
        n <- pop_lowest(L)                       # lowest potential first (as in BFP, §5.2.1)
        if goal reachable from n: return backtrack(n)   # PG on Q_s + T_final, before expanding
        for n' in sons(n) [VBFP: best sons ∪ next brothers of n]:
            if U(n') < M: insert(n', L)
    return failure

`ContactPlanner(robot, surfaces, goal_tasks, potential, settings)`; ``plan(stance, q)`` returns a
`Plan` (success, the nodes root to goal, the goal posture, counts, the PG statistics). The root's
witness is the PG projection of ``q`` on the initial stance (`_root`): with the planner's
criterion, else without one (from a start already on its stance the criterion's descent may leave
the feasible set and stall there: the glass scene's start moved by 4 mm ended 0.78 away); when
both fail and the start has obstacle pairs inside the collision margin, both again with the
clearance the start has kept for the whole search and its motion
(`CollisionPairs.keep_start_clearance`: a seated start moved by 3 mm brings a shin inside a chair
leg's margin, and no posture then holds the contacts' bands and that pair's row). The search also stops (failure) at
``max_expanded`` expanded nodes or ``time_limit`` seconds. ``plan(..., progress=f)`` calls
``f(Progress)`` after each expansion (the `plan` command's progress line).

**Path check** (ours; `plan(..., path_check=...)`, `motion.path_check`): the thesis's witnesses
prove each transition at two postures, not the motion between them (§5.3.1.3), and a plan found
can hold a transition no clear motion joins (the glass scene's right sole stepping around a chair
leg). With a path check, a plan found is checked segment by segment before it is returned; the
first segment without a clear motion cuts its transition: the child node and every node found
from it are dropped from the list when popped (for Contacts-VBFP the cut node's next brothers
are generated, as its expansion would have), and the search goes on. When `CUT_FATHER` (2) sons of
one node are cut, the node is cut too: the trap is then its own posture, not a placement of its
sons (the glass scene's right sole released behind the chair's front leg, the left sole in front
of it: five placements of the right sole in front of the chair failed in turn, each after the
path planner's 30,000 state checks). A goal segment without one only fails the goal test of its
node, which is then expanded. ``Plan.cut`` counts the cut nodes. A search with a path check that
ends without a plan (time limit, node limit, list empty) returns the first plan it found, as
without the check, with a ``reason`` that says so: its motion then has the segments without a
clear motion (`motion.generate`'s last resort, `Motion.unclear`) that the robot bridge refuses
(the under-table crawl: no plan the check accepts within its 600 s; the glass scene found one
after 3 cuts, in 229 s). ``time_limit`` bounds the whole search, its checks
included.

**Crowding** (``crowding``, off by default; our addition, not the thesis's): a node popped from the
list gets ``crowding`` times the number of already expanded nodes with the same contact
locations whose root lies within ``crowding_radius`` of its own added to its potential; when
that puts it above the next node of the list it goes back in with the new key (a lazy update)
instead of being expanded. Best-first search on a potential plateau expands hundreds of nodes
a centimetre apart (the under-table crawl at the table's edge: ~1,000 placements of the hands
within 0.02 of potential, docs/contact_planner.md "Limitations"); crowding makes the search leave
a region after a few expansions there. The goal test and the potentials of the plan are
unchanged. The under-table, chair and stairs scenes set it (0.05 per node, 0.05 m;
docs/contact_planner.md "Numbers chosen" has the runs with and without it).

**Restarts** (``restarts``, ``restart_expanded``, ``restart_jitter``; off by default; our addition,
not the thesis's): a search that has expanded ``restart_expanded`` nodes without a plan (or whose
list ran empty, or whose root was infeasible) starts again, at most ``restarts`` times, from a new
root: the start posture with every joint moved by at most ``restart_jitter`` (uniform, drawn from a
generator seeded by (``seed``, the restart's index)), projected on the start stance as the first
root was. The last search gets the expansions the others left of ``max_expanded``; the time limit
bounds them all and is never restarted, so a restart is decided by node counts alone and the plan
is the same on every machine that makes the same searches. Why: a hard scene's best-first search
fills a basin of the potential whose shape follows the root's last digits (under the table, a
start turned by 1e-5 rad finds no plan in 300 s where 1e-7 to 3e-6 rad plan in seconds,
docs/contact_planner.md "Robustness"), so its time to a plan is heavy-tailed: most searches that
plan do so within about 100 expansions (the moved starts; the nominal start 312) and the others
fill their basin for the whole time limit. Restarting such searches is the classic cure for
heavy-tailed backtracking search (Gomes, Selman and Kautz 1998, "Boosting combinatorial search
through randomization"). The jitter, 1e-3 rad (0.06 deg), is small next to the planner's 0.02 rad
joint margin and a hundred times the perturbations that change the under-table search.
``Plan.restarts`` counts the restarted searches; the counts of nodes are the sums over the searches.

Numbers chosen (PlannerSettings): ``reach`` = 1.0 m, the thesis's sphere radius about the pelvis for
stairs candidates (Escande 2008, §5.4.2), or 0 for a radius per location from the robot
(`Feasibility.reach`: any robot); ``threshold`` M default inf (no bound: the caller sets it from its
problem, e.g. the potential of a root 0.5 m behind the start); δl, δθ and the stance metric in
`boxes` and `stance`; ``max_candidates`` 6 PG successes per pair in BFP (the 6 boxes of one split;
our cap; 0: none, the thesis's Algorithm 5, the BFP that the VBFP gain of §6.2.2 is measured
against). ``solver``: the posture generator's defaults but a stall window of 30 iterations instead
of 10: with the potential as criterion, SLSQP lets the violation rise while it moves the root (a
foot addition stops at 11 iterations with the default window, and succeeds in 41 without it), and
SLSQP's ``ftol`` 1e-8 instead of 1e-10: the late iterations only polish the potential (the 0.8 m
walk: the same 9 stances to 1 mm, ~35 -> ~28 iterations per success, docs/posture_generator.md
"Speed"). ``joint_margin`` 0.02 rad: the joints stay that far inside their limits at every witness
and projection (`feasibility`). ``placed_candidates`` off: the thesis's random candidates as drawn
(on: `children`'s "Placed candidates"; BIP's stairs need it, HRP-2's then plan in 11-17 stances
instead of the thesis's 22, §5.4.2). ``workers`` 1 (serial) by default: a library call makes no
processes unless asked; 0 uses every core (`parallel`), the plan is the same. Collision and
stability settings (``obstacles`` of the planner, ``self_collision``, ``collision_margin``,
``activation``, ``stability``) are `feasibility`'s; ``self_collision`` is on by default: without it
the stairs plan's witnesses cross their shanks and swing the arms through the waist
(docs/contact_planner.md "Environment collision and stability").
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field, fields

import numpy as np
import pinocchio as pin

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import PostureResult, PostureSolverSettings

from .children import ChildGenerator
from .feasibility import Feasibility, Stats
from .node import Node
from .parallel import JobRunner
from .registry import StanceRegistry
from .settings_check import check_setting
from .stance import Stance, StanceMetric

__all__ = ["CUT_FATHER", "ContactPlanner", "Plan", "PlannerSettings", "Progress"]

#: (chosen) sons of one node cut by the path check after which the node itself is cut (module
#: docstring, "Path check")
CUT_FATHER = 2


class _Crowding:
    """The crowding penalty (module docstring): per set of contact locations, the root positions
    of the expanded nodes; a node's penalty is ``weight`` times the number of them within
    ``radius`` of its root."""

    def __init__(self, weight: float, radius: float):
        self.weight, self.radius = float(weight), float(radius)
        self._roots: dict[frozenset, list] = {}

    def penalty(self, n) -> float:
        roots = self._roots.get(frozenset(n.stance.locations))
        if not roots:
            return 0.0
        d = np.linalg.norm(np.asarray(roots) - n.q[:3], axis=1)
        return self.weight * int(np.count_nonzero(d <= self.radius))

    def add(self, n) -> None:
        self._roots.setdefault(frozenset(n.stance.locations), []).append(np.array(n.q[:3]))


@dataclass
class PlannerSettings:
    """Search settings (module docstring for the chosen values)."""

    algorithm: str = "vbfp"
    threshold: float = np.inf  #: M: children with U >= M are dropped
    dl: float = 0.1  #: m, `boxes`
    dtheta: float = 0.5  #: rad, `boxes`
    theta_range: tuple = (-np.pi, np.pi)
    reach: float = 1.0  #: m
    max_candidates: int = 6
    metric: StanceMetric = field(default_factory=StanceMetric)
    locations: tuple = ()  #: contact locations the planner may use (empty: all the robot's)
    forbidden: tuple = ()  #: (location, kind or body; surface) pairs never tried
    margin: float = 0.02  #: m, `feasibility`
    pre_contact_distance: float = 0.02  #: m, `feasibility`
    max_expanded: int = 200
    time_limit: float = 120.0  #: s
    solver: PostureSolverSettings = field(default_factory=lambda: PostureSolverSettings(stall_iterations=30, ftol=1e-8))
    joint_margin: float = 0.02  #: rad, joints kept this far inside their limits (`feasibility`)
    candidates: str = "box"  #: "box" (search boxes, §6.1) or "random" (§5.3.4 strategy 2, BFP only; `children`)
    density: float = 4.0  #: 1/m, random candidates per sqrt(m²) of pruned surface (`children`)
    seed: int = 0  #: seed of the random candidates
    placed_candidates: bool = False  #: redraw random candidates whose body, so placed, hits an obstacle (`children`)
    deformable: tuple = ()  #: locations (names, kinds or bodies) whose contacts are deformable (`feasibility`)
    deformable_angle: float = 0.1  #: rad, the tilt and turn a deformable contact allows (`feasibility`)
    self_collision: bool = True  #: keep the robot's collision geometries apart in every PG call, lazily (`feasibility`)
    collision_margin: float = 0.01  #: m, distance kept from the obstacles (`feasibility`)
    activation: float = 0.25  #: m, obstacle pairs closer at the warm start enter a PG call (`feasibility`)
    stability: str = "com"  #: "com" (3.63) or "forces" (3.68)-(3.70) (`feasibility`)
    band: float = 1e-3  #: equality band seen by phase 1 (`feasibility`; 0: none)
    workers: int = 1  #: processes evaluating children (0: one per core; `parallel`)
    settle_releases: bool = False  #: a release child's potential at a posture of its own stance (`children`)
    crowding: float = 0.0  #: potential added per expanded node of the same locations nearby (module docstring; 0: off)
    crowding_radius: float = 0.05  #: m, root distance within which an expanded node crowds another
    restarts: int = 0  #: searches started again from a jittered root when one expands ``restart_expanded`` nodes
    restart_expanded: int = 0  #: expanded nodes of one search before a restart (0: no restart)
    restart_jitter: float = 1e-3  #: rad, the joint jitter of a restarted search's start posture

    def __post_init__(self):
        for f in fields(self):  # every field's type and range (`settings_check`: the bounds)
            setattr(self, f.name, check_setting(f.name, getattr(self, f.name)))
        if self.candidates == "random" and self.algorithm == "vbfp":
            raise PlanningError("planner settings: random candidates go with 'bfp' (VBFP's brothers need search boxes)")


@dataclass(frozen=True)
class Progress:
    """The search so far: nodes ``generated`` and ``expanded``, the lowest potential expanded
    (``best``) and the wall time ``elapsed`` [s]."""

    generated: int
    expanded: int
    best: float
    elapsed: float


@dataclass
class Plan:
    """``success``; ``nodes`` root -> last (stances and witness postures); ``goal_q`` the posture
    reaching the goal from the last stance; counts, wall ``time`` [s] and PG ``stats``."""

    success: bool
    nodes: list[Node]
    goal_q: np.ndarray | None
    generated: int
    expanded: int
    time: float
    stats: Stats
    reason: str = ""
    cut: int = 0  #: transitions cut by the path check (`ContactPlanner.plan`)
    restarts: int = 0  #: searches restarted before this one (`PlannerSettings.restarts`)

    @property
    def stances(self) -> list[Stance]:
        return [n.stance for n in self.nodes]


class ContactPlanner:
    """Plans for ``robot`` on ``surfaces`` (list of `Surface`) toward ``goal_tasks`` (posture
    constraints), with ``potential`` (a `potentials.Potential`: its configuration part is the PG
    criterion, its total the nodes' potential) and extra ``tasks`` kept at every witness (§6.5).
    ``goal_contacts``: locations the goal stance must hold (e.g. both soles, so that "the feet in
    a region" is not met by a foot in the air); a node without them skips the goal test.
    ``obstacles``: `posture.Obstacle` list kept clear at every witness (`feasibility`);
    ``collision_rules``: the self-collision pair rules (`humanoid_model.collision_rules`; None:
    the robot sidecar's; the scene's are added by `scene_planning`)."""

    def __init__(
        self,
        robot,
        surfaces,
        goal_tasks,
        potential,
        settings: PlannerSettings | None = None,
        tasks=(),
        goal_contacts=(),
        obstacles=(),
        collision_rules=None,
    ):
        self.robot = robot
        self.goal_contacts = tuple(goal_contacts)
        self.surfaces = {s.name: s for s in surfaces}
        self.goal_tasks = list(goal_tasks)
        self.potential = potential
        self.s = settings or PlannerSettings()
        unknown = [n for n in self.s.locations if n not in robot.contact_locations]
        if unknown:
            raise PlanningError(
                f"planner settings: field 'locations' must name contact locations of robot '{robot.name}' "
                f"({', '.join(robot.contact_locations)}); value {unknown[0]!r}"
            )
        self.feas = Feasibility(
            robot,
            self.surfaces,
            potential,
            tasks,
            margin=self.s.margin,
            pre_contact_distance=self.s.pre_contact_distance,
            settings=self.s.solver,
            self_collision=self.s.self_collision,
            obstacles=obstacles,
            collision_margin=self.s.collision_margin,
            activation=self.s.activation,
            collision_rules=collision_rules,
            stability=self.s.stability,
            band=self.s.band,
            joint_margin=self.s.joint_margin,
            deformable=self.s.deformable,
            deformable_angle=self.s.deformable_angle,
        )

    def plan(self, stance: Stance, q, progress=None, path_check=None) -> Plan:
        """Plan from ``stance`` with the start posture ``q`` (module docstring); children are
        evaluated on ``settings.workers`` processes. ``path_check(nodes, goal_q)``: the index of the
        first segment of a plan found without a clear motion, or None (`motion.path_check`): a plan
        it rejects is not returned, its transition is cut and the search goes on (module docstring,
        "Path check"). With ``restarts``, a search that expands ``restart_expanded`` nodes without a
        plan starts again from a jittered root (module docstring, "Restarts")."""
        start = time.perf_counter()
        self.feas.stats = Stats()
        tries = 1 + (self.s.restarts if self.s.restart_expanded else 0)
        tally = _Tally()
        for k in range(tries):
            budget = self.s.max_expanded - tally.expanded
            last = k == tries - 1 or budget <= self.s.restart_expanded  # no expansion left for another
            if not last:
                budget = self.s.restart_expanded
            # the root before the workers copy the planner: it may set the start's clearance
            res = self._root(stance, q if k == 0 else self._jittered(q, k))
            with JobRunner(self.feas, self.s.workers) as runner:
                plan = self._plan(stance, res, start, progress, runner, path_check, budget, tally, last)
            if plan.success or last or not tally.restartable:
                return plan
        raise AssertionError("unreachable: the last try returns")  # pragma: no cover

    def _jittered(self, q, k: int):
        """The start posture ``q`` with each joint moved by at most ``restart_jitter`` (uniform, drawn
        from the generator seeded by (``seed``, k)): the root of the k-th restart."""
        m = self.feas.model
        rng = np.random.default_rng((self.s.seed, k))
        dv = np.zeros(m.nv)
        dv[6:] = rng.uniform(-self.s.restart_jitter, self.s.restart_jitter, m.nv - 6)
        q = pin.integrate(m, np.asarray(q, float), dv)
        return np.clip(q, m.lowerPositionLimit, m.upperPositionLimit)

    def _push(self, heap: list, children) -> int:
        """``children`` into ``heap`` by potential, those at or above the threshold M left out;
        how many were left out."""
        dropped = 0
        for c in children:
            if c.potential < self.s.threshold:
                heapq.heappush(heap, (c.potential, c.index, c))
            else:
                dropped += 1
        return dropped

    def _root(self, stance: Stance, q) -> PostureResult:
        """The root's witness (module docstring): ``q`` projected on ``stance`` with the planner's
        criterion, else without it; else, when the start has obstacle pairs inside the collision
        margin, both again with the clearance it has kept for the whole search."""
        self.feas.start_clearance = {}
        res = self._project_start(stance, q)
        if res.success:
            return res
        self.feas.keep_start_clearance(q, [c.pair for c in stance.contacts])
        if self.feas.start_clearance:
            res = self._project_start(stance, q)
            if not res.success:
                self.feas.start_clearance = {}
        return res

    def _project_start(self, stance: Stance, q) -> PostureResult:
        """``q`` on ``stance`` with the planner's criterion, else without one."""
        res = self.feas.transition(stance.contacts, stance.contacts, q)
        if res.success:
            return res
        return self.feas.transition(stance.contacts, stance.contacts, q, purpose="start", criterion=False)

    def _plan(
        self, stance: Stance, res: PostureResult, start: float, progress, runner, path_check, budget, tally, last
    ) -> Plan:
        """One search from the root witness ``res``, at most ``budget`` expansions; ``tally`` (a
        `_Tally`) carries the counts and the first plan the path check rejected over the restarts,
        and says whether this search may be restarted; the ``last`` search returns that plan when
        it finds none (module docstring, "Path check")."""
        registry = StanceRegistry(self.s.metric)
        gen = ChildGenerator(self.feas, registry, self.potential, self.s, runner)
        lazy = self.s.algorithm == "vbfp"
        root = Node(stance, res.q.copy(), self.potential.total(stance, res.q))
        expanded = dropped = 0
        best = np.inf
        cut: set[Node] = set()  # the nodes whose transition has no clear motion (path_check)
        failed: dict[Node, int] = {}  # node -> its sons cut

        def done(success, nodes, goal_q, reason="", restartable=False):
            tally.add(gen.generated, expanded, len(cut))
            tally.restartable = restartable and not success
            if tally.cut and not success:
                reason += f" ({tally.cut} transitions cut by the path check)"
                if tally.rejected is not None and last:  # the first plan found, as without the check
                    success, (nodes, goal_q) = True, tally.rejected
                    reason = f"no plan with a clear motion: {reason}; the first plan found is returned"
            if tally.tries > 1 and not success:
                reason += f" (in {tally.tries} searches, {tally.tries - 1} restarted)"
            elapsed = time.perf_counter() - start
            return Plan(
                success,
                nodes,
                goal_q,
                tally.generated,
                tally.expanded,
                elapsed,
                self.feas.stats,
                reason,
                tally.cut,
                tally.tries - 1,
            )

        if not res.success:
            return done(False, [], None, f"initial stance infeasible: {res.outcome.name}", restartable=True)
        registry.add(stance)
        heap = [(root.potential, 0, root)]
        crowd = _Crowding(self.s.crowding, self.s.crowding_radius)
        while heap:
            if expanded >= budget:
                if last:
                    return done(False, [], None, f"{tally.expanded + expanded} nodes expanded (max_expanded)")
                return done(False, [], None, f"{expanded} nodes expanded (restart_expanded)", restartable=True)
            if time.perf_counter() - start > self.s.time_limit:
                return done(False, [], None, f"time limit {self.s.time_limit} s")
            key, index, n = heapq.heappop(heap)
            if cut and _behind(n, cut):
                continue
            if crowd.weight:
                now = n.potential + crowd.penalty(n)
                if now > key and heap and now > heap[0][0]:  # crowded since it was pushed: back, later
                    heapq.heappush(heap, (now, index, n))
                    continue
                crowd.add(n)
            if set(self.goal_contacts) <= set(n.stance.locations) and self.feas.goal_possible(
                n.stance, self.goal_tasks
            ):
                g = self.feas.goal(n.stance.contacts, self.goal_tasks, n.q)
                if g.success:
                    path = n.path()
                    bad = None if path_check is None else path_check(path, g.q)
                    if bad is None:
                        return done(True, path, g.q.copy())
                    tally.rejected = tally.rejected or (path, g.q.copy())
                    if bad < len(path) - 1:  # a transition without a clear motion: cut, with all behind it
                        cut.add(path[bad + 1])
                        father = path[bad]
                        failed[father] = failed.get(father, 0) + 1
                        if failed[father] >= CUT_FATHER and father.parent is not None:
                            cut.add(father)  # its sons keep failing there: the trap is the father's posture
                        if path[bad + 1] is n and lazy:  # n's own next brothers, as its expansion would
                            dropped += self._push(heap, gen.brothers(n))
                        continue
                    # the goal segment: n's goal posture has no clear motion, n is expanded
            expanded += 1
            best = min(best, n.potential)
            dropped += self._push(heap, gen.expand(n, lazy))
            if progress is not None:
                elapsed = time.perf_counter() - start
                progress(Progress(tally.generated + gen.generated, tally.expanded + expanded, best, elapsed))
        reason = _exhausted(expanded, gen.generated, dropped, self.s.threshold)
        return done(False, [], None, reason, restartable=True)


class _Tally:
    """What the searches of one `ContactPlanner.plan` have done so far (its restarts): nodes
    ``generated`` and ``expanded``, transitions ``cut``, searches ``tries``, the first plan the path
    check ``rejected`` ((nodes, goal posture) or None), and whether the last search may be restarted
    (``restartable``: it stopped at its expansion budget, with an empty list or an infeasible root;
    not at the time limit)."""

    def __init__(self):
        self.generated = self.expanded = self.cut = self.tries = 0
        self.rejected = None
        self.restartable = False

    def add(self, generated: int, expanded: int, cut: int) -> None:
        self.generated += generated
        self.expanded += expanded
        self.cut += cut
        self.tries += 1


def _behind(n: Node, cut: set) -> bool:
    """Whether ``n`` or one of its ancestors is in ``cut``."""
    while n is not None:
        if n in cut:
            return True
        n = n.parent
    return False


def _exhausted(expanded: int, generated: int, dropped: int, threshold: float) -> str:
    """The reason of a search whose list ran empty (Escande 2008, §5.3.2: no stance sequence under
    the threshold M): what it explored, and whether M cut children off."""
    cut = f"; {dropped} children at or above the threshold M = {threshold:.4g} were dropped" if dropped else ""
    return (
        f"list empty: no stance sequence under the threshold M ({expanded} stances expanded, {generated} "
        f"nodes generated{cut}; every other candidate failed its posture-generator call)"
    )
