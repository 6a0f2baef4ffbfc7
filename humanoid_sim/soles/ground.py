"""Flat-ground contact nodes of a sole (Chardonnet 2009, §4.5: a node is in contact when it is below
the ground, and the contact force acts at that node). `flat_ground_nodes` checks its input;
`nodes_under_plane` is its numba kernel, which the World step calls once per sole
(`world_coupling.FemSoles.add_contacts`).

    nodes, points, gaps = flat_ground_nodes(mesh, position, rotation, U=None, ground=0.0, margin=0.0)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import finite_number, finite_vector, message

from .mesh import SoleMesh

__all__ = ["flat_ground_nodes", "nodes_under_plane"]

SOURCE = "soles.flat_ground_nodes"


def flat_ground_nodes(mesh: SoleMesh, position, rotation, U=None, ground=0.0, margin=0.0):
    """(nodes, points (k, 3) [m], gaps (k,) [m]) of the surface nodes whose deformed world height
    is at most ground + margin [m]. The sole frame is at `position` (3,) [m] with orientation
    `rotation` (3 × 3, sole axes as columns) in the world; U (N, 3) [m] are node displacements in
    the sole frame (None: undeformed). A node's world point is position + rotation (X + U), its
    gap its height above the ground (negative: below). Nodes are sorted by id."""
    if not isinstance(mesh, SoleMesh):
        raise ConfigError(message(SOURCE, "mesh", "a soles.SoleMesh", mesh))
    p = finite_vector(position, 3, SOURCE, "position")
    R = np.asarray(rotation, dtype=float)
    if R.shape != (3, 3) or not np.all(np.isfinite(R)) or np.abs(R.T @ R - np.eye(3)).max() > 1e-9:
        raise ConfigError(message(SOURCE, "rotation", "a 3 × 3 rotation matrix", R))
    ground = finite_number(ground, SOURCE, "ground", unit="m")
    margin = finite_number(margin, SOURCE, "margin", minimum=0.0, unit="m")
    U_s = np.zeros(3 * len(mesh.surface_nodes))
    if U is not None:
        U = np.asarray(U, dtype=float).reshape(-1, 3)
        if U.shape != mesh.nodes.shape or not np.all(np.isfinite(U)):
            raise ConfigError(message(SOURCE, "U", f"finite ({mesh.n_nodes}, 3) displacements", U.shape))
        U_s = U[mesh.surface_nodes].reshape(-1)
    X = mesh.nodes[mesh.surface_nodes]
    hit, points, gaps = nodes_under_plane(X, U_s, np.ascontiguousarray(R), p, np.array([0.0, 0.0, 1.0]), ground, margin)
    return mesh.surface_nodes[hit], points, gaps


@njit(cache=True)
def nodes_under_plane(X, U, R, p, n, h, margin):
    """(hit (k,), points (k, 3) [m], gaps (k,) [m]) of the nodes X (S, 3) [m] displaced by U (3S,)
    [m] (both in the sole frame), placed at rotation R (3 × 3) and position p (3,) [m] in the
    world, whose signed distance n·x − h [m] to the plane (n (3,) unit, h [m]) is at most margin
    [m]; hit: their rows of X, ascending."""
    S = X.shape[0]
    hit = np.empty(S, np.int64)
    points = np.empty((S, 3))
    gaps = np.empty(S)
    k = 0
    for i in range(S):
        x0, x1, x2 = X[i, 0] + U[3 * i], X[i, 1] + U[3 * i + 1], X[i, 2] + U[3 * i + 2]
        w0 = p[0] + (R[0, 0] * x0 + R[0, 1] * x1 + R[0, 2] * x2)
        w1 = p[1] + (R[1, 0] * x0 + R[1, 1] * x1 + R[1, 2] * x2)
        w2 = p[2] + (R[2, 0] * x0 + R[2, 1] * x1 + R[2, 2] * x2)
        g = n[0] * w0 + n[1] * w1 + n[2] * w2 - h
        if g <= margin:
            hit[k] = i
            points[k, 0], points[k, 1], points[k, 2] = w0, w1, w2
            gaps[k] = g
            k += 1
    return hit[:k].copy(), points[:k].copy(), gaps[:k].copy()
