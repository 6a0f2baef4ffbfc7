"""`posture.PairDistances` (coal through Pinocchio in C++, shared by the self-collision and
obstacle constraints): the distances, witness points and normals equal coal's own
`coal.distance` on the same placed shapes, and a pair's result does not depend on the calls
before it (with Pinocchio's default warm start it would differ by up to the GJK tolerance)."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model.coal_import import coal
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import kinematics as kin
from humanoid_planner.posture.geometry.pair_distances import GJK_TOLERANCE, PairDistances


def _random_q(robot, rng):
    q = robot.q()
    q[7:] = rng.uniform(robot.q_lower, robot.q_upper)
    return q


def _shapes(robot):
    """HRP-2's box collision objects, and a box obstacle on the universe joint."""
    objs = [g for g in robot.collision_model.geometryObjects if isinstance(g.geometry, coal.Box)]
    shapes = [(g.name, g.parentJoint, g.placement, g.geometry) for g in objs]
    shapes.append(
        ("table", 0, pin.SE3(pin.rpy.rpyToMatrix(0.1, 0.0, 0.3), np.array([0.4, 0.1, 0.5])), coal.Box(1, 1, 0.05))
    )
    return shapes


def test_pair_distances_equal_coal_on_the_placed_shapes(robot):
    shapes = _shapes(robot)
    n = len(shapes)
    rng = np.random.default_rng(3)
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if shapes[a][1] != shapes[b][1]]
    pairs = [pairs[i] for i in rng.choice(len(pairs) - 1, 25, replace=False)] + [(0, n - 1), (5, n - 1)]
    pairs = list(dict.fromkeys(pairs))
    pd = PairDistances(shapes, pairs)
    m, d = robot.model, robot.model.createData()
    request = coal.DistanceRequest()
    request.gjk_tolerance = GJK_TOLERANCE
    for _ in range(5):
        q = _random_q(robot, rng)
        kin.update(m, d, q)
        dist, p1, p2, nrm = pd(m, d)
        for k, (a, b) in enumerate(pairs):
            T = []
            for _, joint, placement, _ in (shapes[a], shapes[b]):
                M = d.oMi[joint] * placement
                T.append(coal.Transform3s(M.rotation, M.translation))
            res = coal.DistanceResult()
            ref = coal.distance(shapes[a][3], T[0], shapes[b][3], T[1], request, res)
            assert abs(dist[k] - ref) <= 1e-9
            if ref > 1e-6:  # witnesses and normal are unique between separated boxes in general position
                np.testing.assert_allclose(p1[k], res.getNearestPoint1(), atol=1e-8)
                np.testing.assert_allclose(p2[k], res.getNearestPoint2(), atol=1e-8)
                np.testing.assert_allclose(nrm[k], -np.asarray(res.normal), atol=1e-8)
                assert abs(np.linalg.norm(p1[k] - p2[k]) - ref) <= 1e-9


def test_a_pair_distance_does_not_depend_on_the_calls_before(robot):
    shapes = _shapes(robot)
    n = len(shapes)
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if shapes[a][1] != shapes[b][1]][:40]
    pd = PairDistances(shapes, pairs)
    m = robot.model
    rng = np.random.default_rng(4)
    qs = [_random_q(robot, rng) for _ in range(4)]
    d = m.createData()
    kin.update(m, d, qs[0])
    first = pd(m, d)
    for q in qs[1:]:
        kin.update(m, d, q)
        pd(m, d)
    kin.update(m, d, qs[0])
    again = pd(m, d)
    for x, y in zip(first, again):
        assert np.array_equal(x, y)


def test_repeated_pairs_are_refused(robot):
    with pytest.raises(PlanningError, match="distinct"):
        PairDistances(_shapes(robot), [(0, 1), (0, 1)])
