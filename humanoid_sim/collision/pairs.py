"""Pair selection of the collision stage: the mobile–mobile pairs the narrow phase tests
(`candidate_pairs`, built once with the world).

The default set: every mobile shape against every static shape (not listed: the detector tests
them all, but those a filter blocks); free bodies against each other and against the robot;
robot self-collision between shapes of joints that are neither the same nor parent/child (at
least ``MIN_SELF_JOINTS`` joints apart, so adjacent links are excluded), minus the pairs that
are already within the activation margin in the initial configuration (so that overlapping link
boxes of the model do not produce permanent internal contacts). For HRP-2 this leaves the
arm–torso, leg–leg and arm–leg pairs among others (docs/simulator.md lists them). The scene's
and the robot's ``collision`` rules (`humanoid_sim.collision.pair_filter.PairFilter`) exclude or
include pairs of bodies.

``MIN_SELF_JOINTS = 3`` (`humanoid_model.collision_rules.self_pair_by_default`, shared with the
planner's self-collision): robot self pairs need at least 3 joints between the links: with
fewer the relative velocity of a point spans < 3 dimensions and a point contact's 3×3 Delassus
block is singular.
"""

from __future__ import annotations

import numpy as np

from humanoid_model.collision_rules import MIN_SELF_JOINTS, self_pair_by_default
from humanoid_sim.collision.detector import DEFAULT_MARGIN, CollisionDetector
from humanoid_sim.collision.geometry import MobileGeom

__all__ = ["candidate_pairs", "MIN_SELF_JOINTS"]


def candidate_pairs(
    mobile: list[MobileGeom],
    parents,
    data=None,
    margin: float = DEFAULT_MARGIN,
    self_collision: bool = True,
    pair_filter=None,
) -> np.ndarray:
    """(k, 2) mobile–mobile pairs (a < b, indices into ``mobile``) the narrow phase tests.

    Shapes of different trees always pair. Shapes of one tree (robot self-collision, only with
    ``self_collision``) pair when their joints are at least ``MIN_SELF_JOINTS`` joints apart
    (``parents``: the model's parent joint per joint; so never a link and its parent, nor
    adjacent links) and, when ``data`` (Pinocchio data after forward kinematics at the initial
    configuration) is given, are not already within ``margin`` [m] of each other there
    (overlapping link boxes would otherwise make permanent internal contacts). Mobile–static
    pairs are not listed: every mobile shape is tested against every static shape (but the
    pairs a filter blocks, `CollisionDetector` ``static_blocked``).

    ``pair_filter`` (`humanoid_sim.collision.pair_filter.PairFilter`, the scene's and the robot's
    ``collision`` rules): a pair of bodies it excludes, or whose masks never touch, is left out;
    a pair it includes is kept whatever this rule and the initial clearance say (but never two
    shapes on one joint: they cannot move relative to each other)."""

    pairs = []
    forced = set()  # included by the filter: kept by the clearance test below
    rule = pair_filter.verdict if pair_filter is not None and pair_filter.active else None
    for a in range(len(mobile)):
        for b in range(a + 1, len(mobile)):
            A, B = mobile[a], mobile[b]
            v = None if rule is None else rule(A.body, B.body)
            if v is False:
                continue
            if v is True and A.joint != B.joint:
                pairs.append((a, b))
                forced.add((a, b))
            elif A.tree != B.tree or self_collision and self_pair_by_default(parents, A.joint, B.joint):
                pairs.append((a, b))
    pairs = np.array(pairs, np.int64).reshape(-1, 2)
    if data is not None and pairs.shape[0]:
        probe = CollisionDetector(mobile, [], pairs, margin)
        batch = probe.detect(*probe.joint_placements(data))
        overlapping = {
            (a, b)
            for a, b, st in zip(batch.geom_a.tolist(), batch.geom_b.tolist(), batch.b_static.tolist())
            if not st and mobile[a].tree == mobile[b].tree
        } - forced
        if overlapping:
            pairs = np.array([pr for pr in pairs.tolist() if tuple(pr) not in overlapping], np.int64).reshape(-1, 2)
    return pairs
