"""Flat-ground contact nodes of a sole (`humanoid_sim.soles.ground`; Chardonnet
2009, §4.5: a node is in contact when it is below the ground)."""

import numpy as np
import pytest

from humanoid_model.exceptions import ConfigError
from humanoid_sim.soles import box_sole
from humanoid_sim.soles.ground import flat_ground_nodes

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
