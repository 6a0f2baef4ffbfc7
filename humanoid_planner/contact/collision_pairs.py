"""The collision pairs of the contact planner's posture-generator calls (Escande 2008, (3.47),
§3.4.2; `generate` of §5.3.2.2), held by `feasibility.Feasibility` through its base
`CollisionPairs`: which (capsule, obstacle) and self-collision pairs a call carries, their rows
(built once per pair set), their distances at a solution, and the pairs the contacts imply.

With ``self_collision`` every call also keeps the robot's own collision geometries apart
(`posture.GeometrySelfCollision`, lazily: "Self-collision" below). With ``obstacles`` (`posture.Obstacle`, e.g.
`Obstacle.from_scene`) every call keeps the robot's capsules ``collision_margin`` from them
(`posture.EnvironmentCollision`, (3.47)), without the pairs implied by the contacts (`generate`
removes the (robot body, environment object) pairs the contacts imply, §5.3.2.2): the
capsule of a contact's body, and of the bodies below it that carry no contact location of their
own (a hand's gripper), against the obstacle its surface lies on (`Surface.body`), and, for the capsules only, the
capsule adjacent above a thigh contact's body when that one carries no contact location of
its own (`adjacent`, `SEATED`: HRP-2's pelvis, whose 0.17 m capsule reaches 3.5 cm into a seat
the thighs rest on flat, while the pelvis's own box stays 13 cm above it; sitting presses the
buttocks on the seat): the real geometry of that body is still checked against the obstacle by
`check.check_plan`. The pairs
farther than ``activation`` at the warm start are left out of the call; the solution is then
checked against every pair and, when one is closer than the margin, solved again from it with
that pair added (at most `feasibility.MAX_COLLISION_ROUNDS` rounds; each round is a logged PG call): the
witness always keeps every pair apart, and a call costs ~20 pair rows instead of all of them
(17 capsules x 11 obstacles in the chair scene).

**Self-collision** (``self_collision``, on by default in `search.PlannerSettings`): (3.47) on the
geometry pairs of `posture.GeometrySelfCollision` (coal on the robot's own collision shapes; the
simulator's pairs, bodies at least three joints apart; HRP-2: 223 pairs; its docstring says why
not the capsules),
lazily as the obstacle pairs with activation 0 (`feasibility.SELF_ACTIVATION`, whatever ``activation``):
only the pairs met at a solution enter the call (with the obstacles' default 0.25 m most leg
pairs would enter every call on the flat floor, and the one-foot stance of
test_random_candidates_are_seeded_by_the_plan_seed gets no foot placement, 5 of its 6 calls
failing in phase 1; with 0 it gets 1, 3 without self-collision); the solution is checked against every
pair and solved again from it with those it brings within their margin, in the same rounds;
the rows of a pair set are built once and kept (`_self`). Every pair in every call makes the
stairs plan ~3 times slower (PG calls 2.3 times slower at the median); lazily the calls cost
about what they cost without self-collision
(docs/contact_planner.md "Environment collision and stability").

**Start clearance** (`keep_start_clearance`, called by the search before it starts): a pair the
start posture already has inside ``collision_margin`` (a robot placed a few millimetres nearer a
chair leg than the margin) keeps the clearance it has there as its margin for the whole search
and its motion: with the full margin the start stance's band rows and that pair's row cannot all
hold, and the search would end at its root though nothing touches. A deviation (the thesis
starts from a given feasible node, Escande 2008, §5.3.2); `check.check_plan` still tests the
real geometry against every obstacle. The clearance is rounded up to ``CLEARANCE_STEP``.

**Free thigh over a seat.** The overshoot lowering holds for the pairs of every `SEATED` body
against a seat a thigh of the request rests on, the free thigh's included (the crouch over the
chair leaves it free above the seat it will rest on). Nothing bounds that free thigh's roll about
its capsule's axis, and a rolled box dips its edge below its face (a glass witness: 8.4 mm into
the seat, which `check.check_plan` refuses). Those pairs therefore also keep the body's own
collision geometry (`posture.body_shapes`: HRP-2's thigh box) ``SEATED_GEOMETRY_MARGIN`` from the
seat: one more pair per free thigh, keyed ``(GEOMETRY + body, obstacle)`` among the capsule pairs
(activated, checked and restarted as they are: its distance is multiplied by ``collision_margin /
SEATED_GEOMETRY_MARGIN`` so that the capsules' thresholds apply to it; `seated_geometry_gaps`
gives it in metres). Our rule: the thesis bounds bodies by their STP-BVs only (Escande 2008,
§4.4). Measured with the path check (docs/planning.md "Motion", step 8): with it no witness of the
chair and glass searches is cut for a collision (five of the glass's eight cuts were); kept at the
full 1 cm margin instead, the chair search took 152 s instead of 79 s (another plan, one cut).

Numbers chosen: ``CLEARANCE_STEP`` 1e-4 m (pairs share row sets); ``SEATED`` the kinds whose
adjacent capsule (HRP-2's pelvis) rests on the contact's surface too; ``MAX_CACHED`` 512 row sets
kept per planner (a few MB).
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

from humanoid_model.coal_import import coal
from humanoid_model.urdf_description import world_collision_rules
from humanoid_planner.posture import EnvironmentCollision, robot_capsules
from humanoid_planner.posture import kinematics as kin
from humanoid_planner.posture.constraints.environment_collision import body_shapes, capsule_shapes
from humanoid_planner.posture.constraints.geometry_self_collision import GeometrySelfCollision
from humanoid_planner.posture.geometry.capsules import capsule_frame

__all__ = ["CollisionPairs", "GEOMETRY", "MAX_CACHED", "SEATED"]

SEATED = ("thigh",)  #: location kinds whose adjacent capsule rests on the contact's surface too (sitting)
MAX_CACHED = 512  #: collision row sets kept by `CollisionPairs._environment` (chosen: a few MB)
GEOMETRY = "geometry:"  #: key prefix of a pair measured on a body's own geometry (module docstring)
#: m, a free seated body's own geometry from a seat (module docstring; chosen: touching is what
#: `check.check_plan` refuses, and 1 mm is 1000 times the posture generator's tolerance)
SEATED_GEOMETRY_MARGIN = 0.001
#: m, added to the threshold a pair's lower bound is compared with before coal measures it (`_env_gaps`;
#: chosen: coal's GJK tolerance is 1e-10 m, `posture.geometry.pair_distances.GJK_TOLERANCE`)
BOUND_SLACK = 1e-9
CLEARANCE_STEP = 1e-4  #: m, grid of the start's clearance inside its margin (`keep_start_clearance`; chosen)


class CollisionPairs:
    """The collision pairs of `feasibility.Feasibility`'s calls (module docstring), a base class of
    it: its state lives on the `Feasibility` object, which sets ``model``, ``locations``,
    ``surfaces``, ``obstacles`` and ``_data`` before `_init_collision_pairs`."""

    def _init_collision_pairs(
        self, robot, self_collision: bool, collision_margin: float, activation: float, collision_rules
    ):
        """The pairs' state: capsules, pair rules, the self-collision rows, and per location the
        bodies its contacts touch, its adjacent capsule and its seated overshoot."""
        self.collision_margin, self.activation = float(collision_margin), float(activation)
        self.capsules = robot_capsules(self.model, robot.collision_model) if self.obstacles else []
        #: the robot sidecar's and the scene's pair rules (`humanoid_model.collision_rules`;
        #: None: the robot sidecar's alone)
        self.collision_rules = world_collision_rules(robot) if collision_rules is None else collision_rules
        #: (3.47) at every witness, lazily (module docstring): the geometry pairs of
        #: `GeometrySelfCollision`; None without ``self_collision``
        self.self_collision = (
            GeometrySelfCollision(
                self.model, robot.collision_model, robot.q(), self.collision_margin, rules=self.collision_rules
            )
            if self_collision
            else None
        )
        self._self_rows = {}  # frozenset of rows of `self_collision` -> constraints (`_self`)
        #: location -> the joint names whose capsules (and geometries) a contact of it may press
        #: against its surface's obstacle (`_contact_capsules`); empty without obstacles
        self.touching = {name: self._contact_capsules(name) for name in self.locations} if self.obstacles else {}
        #: location -> the joint of the nearest capsule above its body when that one carries no
        #: contact location (a thigh's: the pelvis): skipped for the capsules only (`_skipped`)
        self.adjacent = {name: self._adjacent_capsule(name) for name in self.locations} if self.obstacles else {}
        #: (capsule body, obstacle) -> how far [m] the capsule of a `SEATED` location's body reaches
        #: past the location's contact face, against the obstacles carrying a surface (`_overshoot`)
        self.overshoot = self._overshoot() if self.obstacles else {}
        #: the joints of `overshoot`'s pairs, measured on their own geometry when free over a seat
        #: (module docstring, "Free thigh over a seat")
        self._seated_bodies = sorted({b for b, _ in self.overshoot})
        self._geometry_pairs = frozenset((b, o.name) for b in self._seated_bodies for o in self.obstacles)
        #: the factor that puts their distances on the capsules' scale: ``collision_margin`` over
        #: their margin, ``SEATED_GEOMETRY_MARGIN`` at most ``collision_margin`` (module docstring)
        seated = min(SEATED_GEOMETRY_MARGIN, self.collision_margin)
        self._seated_scale = self.collision_margin / seated if seated > 0 else 1.0
        self._collision_model = robot.collision_model
        #: (capsule body, obstacle) -> how far [m] inside its margin the search's start posture has
        #: the pair (`keep_start_clearance`): its margin is lowered by that much for the search
        self.start_clearance = {}
        self._body_capsule = {c.joint: c for c in self.capsules}  # joint id -> its capsule (`placed_clear`)
        self._collision_rows = {}  # (excluded pairs, margin) -> EnvironmentCollision (`_environment`)
        self._every = {}  # geometry (bool) -> the rows of every pair (`_every_pair`)

    def _adjacent_capsule(self, location: str) -> set:
        """The joint (as a one-element set, or empty) of the capsule adjacent above ``location``'s
        body, for a location of a kind in `SEATED`: its nearest ancestor carrying a capsule, unless
        that ancestor carries a contact location (it is then a contact of its own)."""
        if self.locations[location].kind not in SEATED:
            return set()
        m = self.model
        owners = {m.frames[m.getFrameId(loc.body)].parentJoint for loc in self.locations.values()}
        with_capsule = {m.getJointId(c.body) for c in self.capsules}
        j = m.parents[m.frames[m.getFrameId(self.locations[location].body)].parentJoint]
        while j > 0 and j not in with_capsule and j not in owners:
            j = m.parents[j]
        return {m.names[j]} if j > 0 and j in with_capsule and j not in owners else set()

    def _overshoot(self) -> dict:
        """(capsule body, obstacle name) -> the depth [m] by which the capsule of a `SEATED`
        location's body reaches past the location's contact face (its radius less the axis's
        distance to the face's plane), for every obstacle carrying a planner surface. HRP-2's thigh
        is a 0.12 x 0.11 m box in a 0.081 m capsule: 2.1 cm past the face the robot sits on, so a
        thigh released from the seat would have to rise 3.1 cm instead of the 1 cm margin
        (docs/contact_planner.md "Scenes"). Those pairs keep the margin less this depth: the face
        level with the surface stays the margin away, and the box stays clear of it while its roll
        about the capsule's axis is under 0.2 rad (its edge then dips 9.7 mm); `check.check_plan`
        tests the real box. Applied only against an obstacle a thigh of the request rests on
        (`_lowered_margins`: a contact of the stance or the one being added or released): applied
        always, a crouch over the glass scene's seat with no thigh on it dips the right thigh's real
        box 3.8 mm into the seat (nothing bounds the roll there), and `check_plan` refuses the
        plan."""
        out, m = {}, self.model
        carriers = {s.body for s in self.surfaces.values() if s.body is not None}
        for loc in self.locations.values():
            if loc.kind not in SEATED:
                continue
            joint = m.names[m.frames[m.getFrameId(loc.body)].parentJoint]
            M = m.frames[m.getFrameId(loc.body)].placement  # body frame in its joint's frame
            n, p = M.rotation @ np.asarray(loc.normal, float), M.act(np.asarray(loc.point, float))
            for c in self.capsules:
                depth = c.radius - min(float(n @ (c.a - p)), float(n @ (c.b - p))) if c.body == joint else 0.0
                if depth > 0:
                    out.update({(c.body, o.name): depth for o in self.obstacles if o.name in carriers})
        return out

    def _contact_capsules(self, location: str) -> set:
        """Capsule bodies (joint names) a contact of ``location`` may touch its surface with: its
        body's joint and the joints below it down to the next joint carrying a contact location."""
        m = self.model
        owners = {m.frames[m.getFrameId(loc.body)].parentJoint for loc in self.locations.values()}
        root = m.frames[m.getFrameId(self.locations[location].body)].parentJoint
        out, stack = set(), [root]
        while stack:
            j = stack.pop()
            out.add(m.names[j])
            stack += [c for c in range(j + 1, m.njoints) if m.parents[c] == j and c not in owners]
        return out

    def _skipped(self, touching) -> set:
        """(capsule body, obstacle) pairs implied by the contacts ``touching`` [(location, surface)]."""
        out = set()
        for location, surface in touching:
            obstacle = self.surfaces[surface].body
            if obstacle is not None:
                out |= {(b, obstacle) for b in self.touching[location] | self.adjacent[location]}
        return out

    def __getstate__(self):  # worker processes (`parallel`) build their own collision rows
        return {**self.__dict__, "_collision_rows": {}, "_self_rows": {}, "_every": {}}

    def _environment(self, exclude: frozenset, margin: float, geometry: bool = False) -> EnvironmentCollision:
        """The capsule-obstacle rows without the pairs ``exclude`` (``geometry``: the rows of the
        seated bodies' own geometry, `_seated_bodies`, keys without their `GEOMETRY` prefix): a
        subset of `_every_pair`'s rows, made once per pair set (at most ``MAX_CACHED`` kept)."""
        key = (exclude, margin, geometry)
        rows = self._collision_rows.get(key)
        if rows is None:
            if len(self._collision_rows) >= MAX_CACHED:
                self._collision_rows.clear()
            name = "environment_collision" if margin == self.collision_margin else f"environment_collision:{margin!r}"
            name = f"seated_geometry_{name}" if geometry else name
            rows = self._every_pair(geometry).subset(exclude, margin, name)
            self._collision_rows[key] = rows
        return rows

    def _every_pair(self, geometry: bool) -> EnvironmentCollision:
        """The rows of every (shape, obstacle) pair, made once, whose subsets `_environment` takes
        (they share its shapes and its distance evaluation): the capsules', or with ``geometry``
        the seated bodies' own convex hulls."""
        rows = self._every.get(geometry)
        if rows is None:
            if geometry:
                shapes = body_shapes(self.model, self._collision_model, self._seated_bodies)
            else:
                shapes = capsule_shapes(self.capsules)
            rows = EnvironmentCollision(self.model, self.obstacles, margin=self.collision_margin, shapes=shapes)
            self._every[geometry] = rows
        return rows

    def _free_seated(self, skip: set, over: dict) -> set:
        """The (body, obstacle) pairs of `overshoot` lowered in ``over`` and not in ``skip``: a
        seated kind's body free over a seat (module docstring, "Free thigh over a seat")."""
        return {p for p in over if p in self.overshoot and p not in skip}

    def _env_gaps(self, q, skip: set, over: dict, within: float) -> dict:
        """(capsule body, obstacle) pair not in ``skip`` -> its distance at ``q`` plus its overshoot
        in ``over`` [m], for every pair whose gap may be below ``within`` [m] (the callers threshold
        the gaps at ``within`` or below: `_below`): the pairs whose lower bound
        (`EnvironmentCollision.lower_bounds`) plus overshoot is below ``within`` + `BOUND_SLACK` are
        measured by coal, the others left out (about one pair in twenty on the scenes); and each
        free seated body's own geometry, keyed ``(GEOMETRY + body, obstacle)``, its distance put on
        the capsules' scale (module docstring)."""
        full = self._environment(frozenset(skip), self.collision_margin)
        free = self._free_seated(skip, over)
        if not (full.dim or free):
            return {}
        kin.update(self.model, self._data, np.asarray(q, float))
        out = {}
        if full.dim:
            bound = full.lower_bounds(self._data)
            if over:
                bound = bound + np.array([over.get(p, 0.0) for p in full.pair_names])
            # a bound is at most 0 for shapes that meet, whatever their (negative) signed distance
            rows = np.flatnonzero(~(bound >= max(within, 0.0) + BOUND_SLACK))  # (NaN-safe: measured)
            d = full.distances(self._data, rows)[0]
            names = full.pair_names
            out = {names[k]: float(di) + over.get(names[k], 0.0) for k, di in zip(rows.tolist(), d)}
        for (body, obstacle), d in self._geometry_distances(free).items():
            p = (GEOMETRY + body, obstacle)
            out[p] = d * self._seated_scale + over.get(p, 0.0)
        return out

    def _geometry_distances(self, free: set) -> dict:
        """(body, obstacle) of ``free`` -> the distance [m] of the body's own collision geometry (the
        closest of its objects) from the obstacle, at the kinematics of ``self._data``."""
        if not free:
            return {}
        rows = self._environment(self._geometry_pairs - frozenset(free), self.collision_margin, True)
        out = {}
        for p, d in zip(rows.pair_names, rows.distances(self._data)[0]):
            out[p] = min(out.get(p, np.inf), float(d))
        return out

    def seated_geometry_gaps(self, q, touching) -> dict:
        """(body, obstacle) -> the distance [m] at ``q`` of each free seated body's own collision
        geometry from a seat a `SEATED` contact of ``touching`` [(location, surface)] rests on (module
        docstring, "Free thigh over a seat"): the pairs kept ``SEATED_GEOMETRY_MARGIN`` apart."""
        if not self.obstacles:
            return {}
        free = self._free_seated(self._skipped(touching), self._lowered_margins(touching))
        kin.update(self.model, self._data, np.asarray(q, float))
        return self._geometry_distances(free)

    @staticmethod
    def _below(gaps: dict, distance: float) -> set:
        """The keys of ``gaps`` (`_env_gaps`, `_self_gaps`) whose value is below ``distance``."""
        return {p for p, g in gaps.items() if g < distance}

    def _pairs_within(self, q, skip: set, distance: float, over: dict) -> set:
        """The (capsule body, obstacle) pairs not in ``skip`` closer than ``distance`` [m] (less their
        overshoot in ``over``) at ``q``."""
        return self._below(self._env_gaps(q, skip, over, distance), distance)

    def _self(self, rows: frozenset) -> list:
        """The self-collision constraint of ``rows`` (row indices of ``self_collision``), built once
        per set (at most ``MAX_CACHED`` kept)."""
        out = self._self_rows.get(rows)
        if out is None:
            if len(self._self_rows) >= MAX_CACHED:
                self._self_rows.clear()
            out = [self.self_collision.subset(sorted(rows))] if rows else []
            self._self_rows[rows] = out
        return out

    def _self_gaps(self, q, distance: float, slack: bool) -> dict:
        """Row of ``self_collision`` -> its distance at ``q`` [m], for the rows closer than
        ``distance`` (``slack``: distances and ``distance`` counted from each row's own margin)."""
        full = self.self_collision
        if full is None:
            return {}
        kin.update(self.model, self._data, np.asarray(q, float))
        base = full.margin if slack else np.zeros(full.dim)
        rows, d = full.closer_distances(self._data, distance + base)
        return {int(i): float(di - base[i]) for i, di in zip(rows, d)}

    def _self_within(self, q, distance: float, slack: bool) -> set:
        """Rows of ``self_collision`` whose pair is closer than ``distance`` [m] at ``q``
        (``slack``: closer than its own margin plus ``distance``)."""
        return set(self._self_gaps(q, distance, slack))

    def intrudes(self, q, touching, share: float) -> bool:
        """Whether at ``q`` a pair comes closer than ``share`` of its margin: a (capsule, obstacle)
        pair not implied by the contacts ``touching`` [(location, surface)] closer than ``share``
        x ``collision_margin`` (less its seated overshoot), or a pair of ``self_collision`` closer
        than ``share`` x its own margin (0 for the pairs closer at the default posture: any overlap).
        The motion refines where its path between projections does so (`motion.generate`)."""
        if self.obstacles:
            skip, over = self._skipped(touching), self._lowered_margins(touching)
            if self._pairs_within(q, skip, share * self.collision_margin, over):
                return True
        full = self.self_collision
        if full is None:
            return False
        kin.update(self.model, self._data, np.asarray(q, float))
        return len(full.closer_distances(self._data, share * full.margin)[0]) > 0

    def body_gap(self, location: str, R, p, touching) -> float:
        """The smallest distance [m], less ``collision_margin`` (and the seated overshoot), of the
        capsule of ``location``'s body placed with its frame at (``R`` (3, 3), ``p`` [m]) from the
        obstacles, the pairs the contacts ``touching`` imply left out (inf without obstacles or
        capsule): >= 0 clear by the margin (`placed_clear`; the motion's body paths)."""
        if not self.obstacles:
            return np.inf
        m = self.model
        fid = m.getFrameId(self.locations[location].body)
        cap = self._body_capsule.get(m.frames[fid].parentJoint)
        if cap is None:
            return np.inf
        skip, over = self._skipped(touching), self._lowered_margins(touching)
        oMj = pin.SE3(np.asarray(R, float), np.asarray(p, float)) * m.frames[fid].placement.inverse()
        Rc, centre = capsule_frame(cap)
        frame = coal.Transform3s(oMj.rotation @ Rc, oMj.act(centre))
        shape, request, res = coal.Capsule(cap.radius, cap.length), coal.DistanceRequest(), coal.DistanceResult()
        gap = np.inf
        for o in self.obstacles:
            pair = (cap.body, o.name)
            if pair in skip:
                continue
            res.clear()
            d = coal.distance(shape, frame, o.shape, o.transform, request, res)
            gap = min(gap, d - (self.collision_margin - over.get(pair, 0.0)))
        return float(gap)

    def keep_start_clearance(self, q, touching) -> None:
        """Let the pairs the start posture ``q`` has inside ``collision_margin`` keep the clearance
        they have there (module docstring, "Start clearance"), ``touching`` the start stance's
        (location, surface) pairs."""
        self.start_clearance = {}
        if not self.obstacles:
            return
        step = CLEARANCE_STEP
        gaps = self._env_gaps(q, self._skipped(touching), self._lowered_margins(touching), self.collision_margin)
        inside = {p: self.collision_margin - g for p, g in gaps.items() if g < self.collision_margin}
        self.start_clearance = {p: math.ceil(d / step) * step for p, d in inside.items()}

    def _lowered_margins(self, touching) -> dict:
        """Pair -> how much its margin is lowered [m]: the pairs of ``overshoot`` against an obstacle
        a `SEATED` contact of ``touching`` rests on (module docstring), plus ``start_clearance``."""
        seats = {self.surfaces[s].body for loc, s in touching if self.locations[loc].kind in SEATED}
        out = {p: d for p, d in self.overshoot.items() if p[1] in seats}
        for p, d in self.start_clearance.items():
            out[p] = out.get(p, 0.0) + d
        return out

    def _collision(self, active: set, skip: set, active_self: set, over: dict) -> list:
        out = self._self(frozenset(active_self)) if active_self else []
        if not active:
            return out
        every = {(c.body, o.name) for c in self.capsules for o in self.obstacles}
        for depth in sorted({over.get(p, 0.0) for p in active}):  # one row set per margin
            group = {p for p in active if over.get(p, 0.0) == depth}
            plain = {p for p in group if not p[0].startswith(GEOMETRY)}
            own = {(p[0][len(GEOMETRY) :], p[1]) for p in group - plain}
            if plain:
                out = out + [self._environment(frozenset(every - plain), self.collision_margin - depth)]
            if own:
                excluded = self._geometry_pairs - own
                margin = (self.collision_margin - depth) / self._seated_scale
                out = out + [self._environment(excluded, margin, True)]
        return out
