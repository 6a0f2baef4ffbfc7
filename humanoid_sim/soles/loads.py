"""Consistent nodal loads on sole surface triangles (the FEM patch test
of acceptance test 000 D2, which linear tetrahedra pass exactly when the nodal loads are consistent).

For a linear triangle, the work-equivalent nodal forces of a uniform traction t [Pa] are
t·A/3 at each of its three nodes (the shape functions each integrate to A/3).
"""

from __future__ import annotations

import numpy as np

__all__ = ["triangle_areas", "pressure_loads"]


def triangle_areas(nodes, triangles) -> np.ndarray:
    """(T,) areas [m²] of triangles (T, 3) of `nodes` (N, 3)."""
    P = np.asarray(nodes, float)[np.asarray(triangles)]
    return 0.5 * np.linalg.norm(np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0]), axis=1)


def pressure_loads(nodes, triangles, traction) -> np.ndarray:
    """(N, 3) consistent node forces [N] of a uniform traction vector `traction` (3,) [Pa] on the
    triangles (T, 3): each triangle gives traction·A/3 to each of its nodes."""
    nodes = np.asarray(nodes, float)
    tri = np.asarray(triangles)
    F = np.zeros_like(nodes)
    share = triangle_areas(nodes, tri)[:, None] / 3.0 * np.asarray(traction, float)[None, :]
    for k in range(3):
        np.add.at(F, tri[:, k], share)
    return F
