"""The optional self-collision check: every point of a trajectory against the robot's collision
model (the URDF's collision geometry, Pinocchio + Coal, ``pin.computeCollisions``).

Which link pairs are tested (the rule of MoveIt's setup assistant, which writes the same lists to
an SRDF):

* links of different bodies, not joined by a joint (adjacent links touch by construction);
* not in contact at the robot's default posture ("default" pairs: the robot stands there, so a
  contact there is a modelling overlap, not a collision);
* the sidecar's ``collision`` rules (docs/robots.md) on top: MuJoCo-style masks and ``exclude``
  remove pairs, ``include`` adds a pair whatever the two rules above say.

Positions of joints the trajectory does not name come from the default posture; the floating base
does not matter (self-collision is invariant to it).
"""

from __future__ import annotations

import pinocchio as pin

import humanoid_model.coal_import  # noqa: F401  (coal's box constant set before pin.computeCollisions: its docstring)
from humanoid_control.bridge.report import refusal
from humanoid_model.collision_rules import DEFAULT_MASK, masks_collide
from humanoid_model.robot import set_joint_angle
from humanoid_model.urdf_description import world_collision_rules

__all__ = ["SelfCollisionModel", "self_collisions"]


class SelfCollisionModel:
    """The pairs of ``robot`` to test (module docstring) and a ``check(q)`` over them."""

    def __init__(self, robot):
        self.robot = robot
        model, geom = robot.model, robot.collision_model.copy()
        frames = model.frames
        link = [frames[g.parentFrame].name for g in geom.geometryObjects]
        joint_of = [g.parentJoint for g in geom.geometryObjects]
        rules = world_collision_rules(robot)
        masks = rules.masks if rules else {}
        include = rules.include if rules else frozenset()
        exclude = rules.exclude if rules else frozenset()
        parents = model.parents

        def adjacent(a, b):
            return a == b or parents[a] == b or parents[b] == a

        candidates = []
        for i in range(len(link)):
            for j in range(i + 1, len(link)):
                pair = frozenset((link[i], link[j]))
                if link[i] == link[j] or pair in exclude:
                    continue
                forced = pair in include
                allowed = masks_collide(masks.get(link[i], DEFAULT_MASK), masks.get(link[j], DEFAULT_MASK))
                if forced or (allowed and not adjacent(joint_of[i], joint_of[j])):
                    candidates.append((i, j, forced))
        for i, j, _ in candidates:
            geom.addCollisionPair(pin.CollisionPair(i, j))
        self.data, self.gdata = model.createData(), pin.GeometryData(geom)
        self.geom, self.link = geom, link
        hits = self._colliding(robot.q())
        keep = [(i, j) for (i, j, forced) in candidates if forced or (i, j) not in hits]
        geom.removeAllCollisionPairs()
        for i, j in keep:
            geom.addCollisionPair(pin.CollisionPair(i, j))
        self.gdata = pin.GeometryData(geom)
        self.default_overlaps = len(candidates) - len(keep)

    def _colliding(self, q) -> set[tuple[int, int]]:
        pin.computeCollisions(self.robot.model, self.data, self.geom, self.gdata, q, False)
        out = set()
        for k, res in enumerate(self.gdata.collisionResults):
            if res.isCollision():
                cp = self.geom.collisionPairs[k]
                out.add((cp.first, cp.second))
        return out

    def check(self, q) -> list[tuple[str, str]]:
        """The (link, link) pairs in collision at configuration ``q`` (nq,)."""
        return [(self.link[i], self.link[j]) for i, j in sorted(self._colliding(q))]


_MODELS: dict[int, SelfCollisionModel] = {}


def self_collisions(traj, robot, check: str = "self_collision"):
    """Refusals of ``check`` for the points of ``traj`` at which two links of ``robot`` collide
    (one per colliding pair, at its first point)."""
    if robot is None:
        return [refusal(check, None, None, None, "self-collision check asked without a robot model")]
    model = _MODELS.get(id(robot))
    if model is None or model.robot is not robot:
        model = _MODELS[id(robot)] = SelfCollisionModel(robot)
    joints = [robot.model.joints[robot.model.getJointId(n)] for n in traj.joint_names]
    q = robot.q()
    seen, out = set(), []
    for k in range(traj.n_points):
        for jm, value in zip(joints, traj.positions[k]):
            set_joint_angle(q, jm, float(value))
        for a, b in model.check(q):
            if (a, b) not in seen:
                seen.add((a, b))
                out.append(refusal(check, None, k, None, f"links '{a}' and '{b}' collide (t {traj.times[k]:.6g} s)"))
    return out


def pair_count(robot) -> int:
    """Number of link pairs tested for ``robot`` (docs/bridge.md)."""
    return len(SelfCollisionModel(robot).geom.collisionPairs)
