"""Flat-ground contact nodes of a sole (spec ../shared/spec/000_chardonnet.md:551, L2314: "a node
is in contact when its height is below the ground height, and the contact force is applied at
that node"). A pure function: the `World` step does not call it yet (docs/soles.md).

    nodes, points, gaps = flat_ground_nodes(mesh, position, rotation, U=None, ground=0.0, margin=0.0)
"""

from __future__ import annotations

import numpy as np

from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import finite_number, finite_vector, message

from .mesh import SoleMesh

__all__ = ["flat_ground_nodes"]

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
    X = mesh.nodes[mesh.surface_nodes]
    if U is not None:
        U = np.asarray(U, dtype=float).reshape(-1, 3)
        if U.shape != mesh.nodes.shape or not np.all(np.isfinite(U)):
            raise ConfigError(message(SOURCE, "U", f"finite ({mesh.n_nodes}, 3) displacements", U.shape))
        X = X + U[mesh.surface_nodes]
    points = p + X @ R.T
    gaps = points[:, 2] - ground
    hit = gaps <= margin
    return mesh.surface_nodes[hit], points[hit], gaps[hit]
