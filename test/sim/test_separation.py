"""Separation bounds between mobile shapes (`humanoid_sim.collision.separation`): a pair that coal found
apart is skipped while its distance bound, less both shapes' motion since, exceeds its margin. The
contacts must be exactly those found without the bounds: every step of scenes where mobile pairs come
into contact from apart (a swinging hand meets an object, a gripper closes on a can) and where a
robot's self-collision pairs stay apart, bit for bit."""

import numpy as np
import pinocchio as pin
import pytest
from support.robot_data import TALOS as TALOS_URDF
from support.robot_data import erd_robot

from humanoid_model.coal_import import coal
from humanoid_sim.collision.separation import SAFETY, SeparationBounds
from humanoid_sim.world import World

TALOS = erd_robot(TALOS_URDF)  # mesh links: about 120 self pairs pass the broad phase


def _batch(w):
    b = w.last.batch
    return (b.geom_a, b.geom_b, b.b_static, b.points, b.normals, b.gaps)


@pytest.mark.parametrize(
    ("scene", "robot", "steps", "skips"),
    [
        ("knock_over", None, 700, True),  # the swinging hand meets the object at 0.56 s
        ("can_grasp", None, 700, False),  # the jaw closes on the can (in contact, never skipped)
        pytest.param(
            "flat",
            TALOS,
            200,
            True,
            marks=pytest.mark.skipif(TALOS is None, reason="the robots extra is not installed"),
        ),
    ],
)
def test_the_contacts_are_those_found_without_the_bounds(scene, robot, steps, skips):
    kept, plain = World.from_scene(scene, robot=robot), World.from_scene(scene, robot=robot)
    plain.detector.separation = None
    for _ in range(steps):
        kept.step()
        plain.step()
        for x, y in zip(_batch(kept), _batch(plain)):
            assert np.array_equal(x, y)
    assert np.array_equal(kept.q, plain.q) and np.array_equal(kept.v, plain.v)
    # where pairs pass the broad phase apart, the bounds skip them: some are known and beyond the margin
    assert (kept.detector.separation.bound > kept.detector.margin + SAFETY).any() == skips


def test_a_mobile_pair_approaching_from_apart_is_tested_again_before_it_is_within_the_margin():
    """Two 0.2 m cubes, 0.3 m apart along x, measured with coal; B then moves toward A in 1 mm steps
    and rotates: the pair must be tested again at the latest when its true distance reaches
    the margin, and skipped while the bound proves it beyond."""
    box = coal.Box(0.2, 0.2, 0.2)
    margin = 0.005
    radius = np.full(2, np.linalg.norm([0.1, 0.1, 0.1]))
    sep = SeparationBounds(radius)
    R = np.stack([np.eye(3), np.eye(3)])
    p = np.array([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0]])
    pairs = np.array([[0, 1]])
    req = coal.CollisionRequest()
    req.security_margin = margin
    tested = 0
    for k in range(400):
        p[1, 0] = 0.5 - 1e-3 * k
        R[1] = pin.exp3(np.array([0.0, 0.0, 2e-3 * k]))
        sep.advance(R, p)
        T = [coal.Transform3s(R[i], p[i]) for i in range(2)]
        true = coal.distance(box, T[0], box, T[1], coal.DistanceRequest(), coal.DistanceResult())
        if sep.to_test(pairs, margin)[0]:
            tested += 1
            res = coal.CollisionResult()
            if not coal.collide(box, T[0], box, T[1], req, res):
                sep.record(0, 1, res.distance_lower_bound + margin)
        else:
            assert true > margin + SAFETY  # skipped only when provably beyond the margin
        if true <= margin:
            assert sep.to_test(pairs, margin)[0]
    assert 0 < tested < 400  # some steps skipped, the close ones tested


def test_an_unset_bound_is_not_kept():
    sep = SeparationBounds(np.array([0.1, 0.1]))
    sep.advance(np.stack([np.eye(3)] * 2), np.array([[0.0, 0, 0], [0.5, 0, 0]]))
    sep.record(0, 1, 1e300)  # larger than any distance of shapes within their bounding spheres (0.7 m)
    assert sep.to_test(np.array([[0, 1]]), 0.005)[0]
    sep.record(0, 1, 0.2)
    assert not sep.to_test(np.array([[0, 1]]), 0.005)[0]
