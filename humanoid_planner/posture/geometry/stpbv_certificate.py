"""A certificate that a point is an STP-BV's support point along a direction, from the volume's
vertices alone (independent of the feature tests of `stpbv_distance._support`): the check behind
the association's Voronoi condition (Escande 2008, §4.5.5; docs/posture_generator.md).

With rho = R - r the volume is {x : |x - c| <= R for every c in K}, K the intersection of the
balls B(P_i, rho) (`stpbv_build`), so its support point along a unit u is x = c + R u with c the
point of K minimising u . c. ``x`` is certified when c = x - R u lies in K and u is a non-negative
combination of the vectors P_i - c of the active vertices (|c - P_i| = rho): the KKT conditions of
that minimisation, solved by non-negative least squares. No ROS imports.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import nnls

__all__ = ["is_support_point"]

INSIDE = 1e-9  # [m] (chosen) c may lie this far outside a ball of K (rounding of the witness)
ACTIVE = 1e-7  # [m] (chosen) a vertex within this of rho is active
RESIDUAL = 1e-6  # (chosen) NNLS residual below which u is in the cone of the active vertices


def is_support_point(vol, u, x) -> bool:
    """Whether ``x`` (the volume's frame) is the support point of ``vol`` (an `StpBV`) along the unit
    direction ``u`` (module docstring)."""
    u, x = np.asarray(u, float), np.asarray(x, float)
    c = x - vol.R * u
    dist = np.linalg.norm(vol.vertices - c, axis=1)
    if dist.max() > vol.rho + INSIDE:
        return False
    active = vol.vertices[dist >= vol.rho - ACTIVE] - c
    return len(active) > 0 and nnls(active.T / vol.rho, u)[1] <= RESIDUAL
