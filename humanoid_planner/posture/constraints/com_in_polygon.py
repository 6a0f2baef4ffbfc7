"""Static stability A: the horizontal projection G^p of the CoM lies in the support polygon,
eq. (3.63), Escande 2008, §3.4.4: (G^p - C_i^p) . n_i <= 0 for every edge, with
n_i = C_i C_{i+1} x z and the vertices C_i counter-clockwise (n_i points outwards).

We normalise n_i, so row i is the signed distance [m] of G^p outside edge i (same zero set and
sign as (3.63), whose rows are in m^2 and scale with edge length), plus an optional ``margin``
[m] >= 0 that shrinks the polygon: the CoM must stay at least ``margin`` inside every edge (0: the
thesis's constraint). Valid for contacts on horizontal planes (§3.4.4).
"""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

from ..base import INEQUALITY, PostureConstraint

__all__ = ["ComInPolygon"]


class ComInPolygon(PostureConstraint):
    """One inequality per edge of the counter-clockwise ``polygon`` (m, 2) [m] (`support_polygon`)."""

    needs_com = True
    equations = "(3.63), Escande 2008, §3.4.4"

    def __init__(self, model, polygon, margin: float = 0.0, name: str = "com_in_polygon"):
        C = np.asarray(polygon, float)
        if C.ndim != 2 or C.shape[1] != 2 or len(C) < 3:
            raise PlanningError(f"{name}: field 'polygon' must be (m >= 3, 2) vertices; shape {C.shape}")
        E = np.roll(C, -1, axis=0) - C
        area2 = float(np.sum(C[:, 0] * np.roll(C[:, 1], -1) - np.roll(C[:, 0], -1) * C[:, 1]))
        if not area2 > 0:
            raise PlanningError(f"{name}: field 'polygon' must be counter-clockwise with positive area; 2A = {area2}")
        if not margin >= 0:
            raise PlanningError(f"{name}: field 'margin' must be >= 0 [m]; value {margin}")
        N = np.column_stack([E[:, 1], -E[:, 0]])
        self.normals = N / np.linalg.norm(N, axis=1)[:, None]
        self.vertices = C
        self.offsets = np.einsum("ij,ij->i", self.normals, C) - margin  # row: n.(G - C) + margin <= 0
        self.model = model
        self.name = name
        self.margin = float(margin)
        self.dim = len(C)
        self.kinds = (INEQUALITY,) * self.dim

    def evaluate(self, q, data):
        g = data.com[0][:2]
        return self.normals @ g - self.offsets, self.normals @ data.Jcom[:2]
