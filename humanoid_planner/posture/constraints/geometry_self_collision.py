"""Self-collision on the robot's own collision geometries: eps - d_i(q) <= 0 (3.47) with the
gradient (3.56) (Escande 2008, §3.4.2), d_i coal's signed distance between two geometry objects of
the collision model (GJK/EPA; boxes, cylinders, meshes: any URDF), both moving. The contact
planner's self-collision (`contact.feasibility`) and `contact.check_plan` use it.

Why not the capsules (`self_collision`): a capsule bounds a box loosely (HRP-2's waist box,
0.22 x 0.26 x 0.27 m, in a capsule of radius 0.17 m: 2.9 times its volume; the chest's 6 times),
so the capsule filter must drop pairs that do meet, and the pairs it keeps forbid postures the
robot has. Measured on the planner's scenes with the capsules: HRP-2's two shank capsules are
0.8 mm apart at half-sitting, under the 1 cm margin, so the filter drops them and the stairs plan
crosses its shanks by 4.4-10.5 cm; the waist and a thigh are "adjacent" (the hip's LINK0 and
LINK1 carry no geometry) though three joints lie between them, and a single waist box meets the
thigh at a 1.75 rad hip flexion inside the joint's range; and with the capsule pairs the can on
the table takes 14 stances and 17 s of CPU instead of 3 stances in 1 s (the arms' capsules
against the waist's, which a hand on the table needs to pass).

Pairs (`geometry_pairs`): the simulator's rule, one rule for both
(`humanoid_model.collision_rules.self_pair_by_default`): every pair of objects of two joints at
least three joints apart (the waist and a thigh are: the hip's LINK0 and LINK1 carry no geometry;
the waist's two boxes clear the thighs' by 1.5 cm at the hip's -125 deg limit, where a single box
would meet them from -100 deg on), bodies across one simple or composite joint left to the joint
limits as the thesis does (Escande 2008, §3.1 and §3.4.3), the robot
sidecar's and the scene's ``collision`` rules on top (``rules``: an ``exclude`` drops a pair, an
``include`` adds one); at ``margin`` when at least that far apart at the reference posture (the
robot's default), at margin 0 when closer but apart (touching allowed, overlapping not), left out
when they overlap there (bodies that overlap by design) unless included. HRP-2 at half-sitting: 223
pairs (239 with the two-joint pairs, which blocked the under-table crawl: the waist and chest boxes
meet at a forward chest pitch), all at the 1 cm margin.

Shapes: a box as it is; any other geometry by the convex hull of its `geometry.capsules.enclosing_points`
(a cylinder's circumscribed 16-gon prism, a mesh's vertices), which contains it: GJK ends exactly
on polytopes, where on HRP-2's shank cylinder its witness points are ~1e-8 m noisy, enough to
miss the Jacobian test (test_posture_jacobians) by 1e-6.

Rows [m]: margin - d_i. Jacobian: d' = n . (dp_1/dv - dp_2/dv), p_1 and p_2 coal's witness points
taken as fixed in their bodies, n = -coal's normal (from geometry 2 to geometry 1), as
`self_collision` does for capsules. C^1 only where the witness points are unique (boxes are not
strictly convex, Escande 2008, §4.3.2: the gradient jumps when two faces turn parallel).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_model.collision_rules import CollisionRules, self_pair_by_default

from .. import kinematics as kin
from ..base import INEQUALITY, PostureConstraint
from ..geometry.capsules import capsule_world, robot_capsules
from ..geometry.pair_distances import PairDistances, convex_shape
from ..geometry.segment_distance import capsule_distances
from .self_collision import DEFAULT_MARGIN

__all__ = ["GeometrySelfCollision", "geometry_pairs"]


class GeometrySelfCollision(PostureConstraint):
    """The geometry objects ``pairs`` (m, 2) (indices into ``collision_model.geometryObjects``,
    of different joints) at least ``margin`` [m] apart; ``pairs`` None: `geometry_pairs` at
    ``q_ref`` (the robot's default posture) with the collision ``rules`` (the robot sidecar's and
    the scene's, `humanoid_model.collision_rules`)."""

    equations = "(3.47) with the gradient (3.56), Escande 2008, §3.4.2"

    def __init__(
        self,
        model,
        collision_model,
        q_ref=None,
        margin: float = DEFAULT_MARGIN,
        pairs=None,
        name: str = "geometry_self_collision",
        rules: CollisionRules | None = None,
    ):
        self.model, self.collision_model, self.name = model, collision_model, name
        if pairs is None:
            q_ref = pin.neutral(model) if q_ref is None else q_ref
            pairs, margin = geometry_pairs(model, collision_model, q_ref, float(np.max(margin)), rules)
        self.pairs = np.asarray(pairs, int).reshape(-1, 2)
        self.dim = len(self.pairs)
        self.margin = np.broadcast_to(np.asarray(margin, float), (self.dim,)).copy()
        self.kinds = (INEQUALITY,) * self.dim
        objs = collision_model.geometryObjects
        self._joints = np.array([g.parentJoint for g in objs], int)
        self._capsules = None  # (capsules, (m, 2) their indices per pair), built by `closer`
        self._coal()

    def _coal(self):
        """coal's shapes (a box itself, any other geometry the convex hull of its
        `geometry.capsules.enclosing_points`: `geometry.pair_distances.convex_shape`) and their
        `PairDistances` (row k: pair k)."""
        self._shapes = [convex_shape(g.geometry) for g in self.collision_model.geometryObjects]
        objs = self.collision_model.geometryObjects
        self._distances = PairDistances(
            [(g.name, g.parentJoint, g.placement, shape) for g, shape in zip(objs, self._shapes)], self.pairs
        )

    def __getstate__(self):  # coal's objects do not pickle (the planner's worker processes, `parallel`)
        return {k: v for k, v in self.__dict__.items() if k not in ("_shapes", "_distances")}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._coal()

    def subset(self, rows) -> GeometrySelfCollision:
        """The same constraint on the pairs ``rows`` (indices into ``pairs``)."""
        idx = list(rows)
        return GeometrySelfCollision(
            self.model, self.collision_model, margin=self.margin[idx], pairs=self.pairs[idx], name=self.name
        )

    def body_names(self, row: int) -> tuple[str, str]:
        objs = self.collision_model.geometryObjects
        return objs[int(self.pairs[row, 0])].name, objs[int(self.pairs[row, 1])].name

    def closer(self, data, limits) -> np.ndarray:
        """The rows whose distance at the configuration of ``data`` is below ``limits`` (m,) [m]:
        coal only on the pairs whose joints' capsules (`geometry.capsules.robot_capsules`, which contain
        the joints' geometry: a lower bound of the distance) are closer than their limit."""
        return self.closer_distances(data, limits)[0]

    def closer_distances(self, data, limits) -> tuple[np.ndarray, np.ndarray]:
        """`closer`'s rows and their distances [m]."""
        if not self.dim:
            return np.zeros(0, int), np.zeros(0)
        if self._capsules is None:
            caps = robot_capsules(self.model, self.collision_model)
            index = {c.joint: k for k, c in enumerate(caps)}
            self._capsules = (caps, np.array([[index[j] for j in self._joints[p]] for p in self.pairs]))
        caps, (ia, ib) = self._capsules[0], self._capsules[1].T
        A, B, R, _ = capsule_world(caps, data)
        bound = capsule_distances(A[ia], B[ia], R[ia], A[ib], B[ib], R[ib])[0]
        limits = np.broadcast_to(limits, (self.dim,))
        rows = np.flatnonzero(bound < limits)
        d = self.distances(data, rows)[0]
        keep = d < limits[rows]
        return rows[keep], d[keep]

    def distances(self, data, rows=None) -> tuple:
        """``(d, p1, p2, n)``: signed distances (m,) [m], witness points (m, 3) on each geometry and
        unit vectors (m, 3) from geometry 2 to geometry 1, at the configuration of ``data``, of
        every pair or of the pairs ``rows``."""
        return self._distances(self.model, data, rows)

    def evaluate(self, q, data):
        nv = self.model.nv
        if not self.dim:
            return np.zeros(0), np.zeros((0, nv))
        d, p1, p2, n = self.distances(data)
        S = kin.support_columns(self.model)
        rows = kin.world_normal_rows(data.J, S[self._joints[self.pairs[:, 0]]], p1, n)
        rows -= kin.world_normal_rows(data.J, S[self._joints[self.pairs[:, 1]]], p2, n)
        return self.margin - d, -rows


def geometry_pairs(
    model, collision_model, q_ref, margin: float = DEFAULT_MARGIN, rules: CollisionRules | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(pairs (m, 2), margins (m,))``: the geometry-object pairs to check (module docstring) and
    their margins [m]: every pair of objects of two joints the simulator's default rule tests
    (`self_pair_by_default`) or ``rules`` include, and ``rules`` do not exclude (bodies named by
    their links); at ``margin`` if at least that far apart at ``q_ref``, at 0 if closer, left out
    if they overlap there (unless included)."""
    objs = collision_model.geometryObjects
    rules = rules or CollisionRules()
    link = [model.frames[g.parentFrame].name if g.parentFrame < len(model.frames) else g.name for g in objs]
    pairs, forced = [], []
    for a in range(len(objs)):
        for b in range(a + 1, len(objs)):
            ja, jb = int(objs[a].parentJoint), int(objs[b].parentJoint)
            if ja == jb:
                continue
            verdict = rules.verdict(link[a], link[b])
            if verdict or verdict is None and self_pair_by_default(model.parents, ja, jb):
                pairs.append((a, b))
                forced.append(bool(verdict))
    if not pairs:
        return np.zeros((0, 2), int), np.zeros(0)
    data = model.createData()
    pin.forwardKinematics(model, data, np.asarray(q_ref, float))
    full = GeometrySelfCollision(model, collision_model, margin=margin, pairs=pairs)
    d = full.distances(data)[0]
    keep = (d >= 0) | np.array(forced)
    return full.pairs[keep], np.where(d[keep] >= margin, float(margin), 0.0)
