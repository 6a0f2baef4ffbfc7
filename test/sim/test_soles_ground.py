"""Flat-ground contact nodes of a sole (`humanoid_sim.soles.ground`; Chardonnet
2009, §4.5: a node is in contact when it is below the ground)."""

import numpy as np
import pytest

from humanoid_model.exceptions import ConfigError
from humanoid_sim.soles import box_sole
from humanoid_sim.soles.ground import append_sole_contacts, flat_ground_nodes, nodes_under_plane, sole_frames

MESH = box_sole(resolution=0.02)


def test_a_level_sole_touches_with_its_whole_ground_face_only():
    nodes, points, gaps = flat_ground_nodes(MESH, [0.3, -0.1, 0.02], np.eye(3), margin=1e-12)
    assert np.array_equal(nodes, MESH.bottom_nodes)
    assert np.abs(gaps).max() < 1e-12 and points[:, :2] == pytest.approx(MESH.nodes[nodes, :2] + [0.3, -0.1])


def test_a_pitched_sole_touches_with_its_toe_edge_and_displacements_lift_nodes():
    th = 0.05  # [rad] toe down: rotation about y, z' = −x sin θ + z cos θ is lowest at x = +0.11, z = −0.02
    R = np.array([[np.cos(th), 0, np.sin(th)], [0, 1, 0], [-np.sin(th), 0, np.cos(th)]])
    height = 0.11 * np.sin(th) + 0.02 * np.cos(th)
    nodes, _, gaps = flat_ground_nodes(MESH, [0, 0, height], R, margin=1e-12)
    toe = MESH.bottom_nodes[np.isclose(MESH.nodes[MESH.bottom_nodes, 0], 0.11)]
    assert np.array_equal(nodes, toe) and len(toe) == 8
    U = np.zeros_like(MESH.nodes)
    U[toe[0]] = [0, 0, 1e-3]  # compressed 1 mm into the sole: off the ground
    nodes, _, _ = flat_ground_nodes(MESH, [0, 0, height], R, U=U, margin=1e-12)
    assert np.array_equal(nodes, toe[1:])
    nodes, _, gaps = flat_ground_nodes(MESH, [0, 0, height - 1e-3], R)  # 1 mm lower: a band of nodes
    assert set(toe) <= set(nodes.tolist()) and gaps.min() == pytest.approx(-1e-3, abs=1e-12)


def test_bad_pose_is_refused():
    with pytest.raises(ConfigError, match="field 'rotation'"):
        flat_ground_nodes(MESH, [0, 0, 0], 2 * np.eye(3))
    with pytest.raises(ConfigError, match="field 'position'"):
        flat_ground_nodes(MESH, [0, 0], np.eye(3))


def test_the_step_kernel_appends_the_nodes_of_nodes_under_plane_bit_for_bit_then_the_stones():
    """`append_sole_contacts` (the World step's form): the given rows copied, then per sole its
    nodes on the plane (the same points and gaps as `nodes_under_plane`, to the bit) and its stone
    rows."""
    rng = np.random.default_rng(0)
    X = MESH.nodes[MESH.surface_nodes]
    S = len(X)
    th = 0.05
    Ry = np.array([[np.cos(th), 0, np.sin(th)], [0, 1, 0], [-np.sin(th), 0, np.cos(th)]])
    R, p = np.stack([Ry, np.eye(3)]), np.array([[0.0, 0.1, 0.0075], [0.0, -0.1, 0.0199]])
    U = 1e-4 * rng.standard_normal(2 * 3 * S)
    n, h, margins = np.array([0.0, 0.0, 1.0]), 0.0, np.array([1e-3, 2e-3])
    m = 3  # rows already in the batch
    batch = (np.arange(m), np.arange(m), np.zeros(m, bool), rng.random((m, 3)), rng.random((m, 3)))
    batch += (rng.random(m), rng.random(m), rng.random(m), np.arange(m))
    stones = (rng.random((2, 8)), np.array([[4, 7], [5, 9]]), np.array([0, 0, 2]))  # two stone rows, sole 1
    start = np.array([0, S, 2 * S])
    args = (np.vstack([X, X]), U, start, R, p, n, h, 0, margins, np.array([7, 8]), np.array([0.5, 0.6]))
    out, hit, counts = append_sole_contacts(batch, *args, stones)
    assert all(len(a) == m + counts[1].sum() for a in out)
    ga, gb, bs, pts, nrm, gaps, mu, e, slot = out
    for a, b in zip(out, batch, strict=True):
        assert np.array_equal(a[:m], b)
    r = m
    for j in range(2):
        nodes, points, g = nodes_under_plane(X, U[3 * S * j : 3 * S * (j + 1)], R[j], p[j], n, h, margins[j])
        k = len(nodes)
        assert k and counts[0, j] == k and counts[1, j] == k + 2 * j
        assert np.array_equal(hit[start[j] : start[j] + k], nodes) and np.array_equal(slot[r : r + k], nodes)
        assert np.array_equal(pts[r : r + k], points) and np.array_equal(gaps[r : r + k], g)
        assert np.all(nrm[r : r + k] == n) and np.all(gb[r : r + k] == 0) and np.all(mu[r : r + k] == 0.5 + 0.1 * j)
        r += k
    f = stones[0]
    assert np.array_equal(pts[r : r + 2], f[:, :3]) and np.array_equal(nrm[r : r + 2], f[:, 3:6])
    assert np.array_equal(gaps[r : r + 2], f[:, 6]) and np.array_equal(mu[r : r + 2], f[:, 7])
    assert np.array_equal(gb[r : r + 2], [4, 5]) and np.array_equal(slot[r : r + 2], [7, 9])
    assert np.array_equal(ga[m : r + 2], [7] * counts[1, 0] + [8] * counts[1, 1])
    assert bs[m : r + 2].all() and not e[m : r + 2].any()


def test_sole_frames_compose_each_joint_placement_with_the_sole_placement_in_it():
    """`sole_frames`: sole j's world frame is its joint's world placement times the sole's
    placement in that joint (Pinocchio's SE3 product), for joints picked out of a longer list."""
    import pinocchio as pin

    rng = np.random.default_rng(3)
    oMi = [pin.SE3(pin.exp3(rng.standard_normal(3)), rng.standard_normal(3)) for _ in range(6)]
    jM = [pin.SE3(pin.exp3(rng.standard_normal(3)), rng.standard_normal(3)) for _ in range(2)]
    joints = np.array([4, 1])
    R, p = sole_frames(
        np.array([M.rotation for M in oMi]),
        np.array([M.translation for M in oMi]),
        joints,
        np.array([M.rotation for M in jM]),
        np.array([M.translation for M in jM]),
    )
    for j, i in enumerate(joints):
        M = oMi[i] * jM[j]
        np.testing.assert_allclose(R[j], M.rotation, rtol=0, atol=1e-15)
        np.testing.assert_allclose(p[j], M.translation, rtol=0, atol=4e-15)
