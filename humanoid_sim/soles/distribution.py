"""The barycentric force-distribution matrix P (Chardonnet 2009, §4.5,
eqs. (4.24)–(4.32)), with the virtual-work-consistent mapping of forces (corrections below).

A contact point p_i inside a sole surface triangle (n1, n2, n3) is written with barycentric
weights d = (d1, d2, d3), Σ d_j = 1, p_i = Σ d_j n_j (4.24). Its 3 × 3k row block is
P_i = [d1 I3, d2 I3, d3 I3] over the triangle's nodes (4.27); P stacks the P_i over the k
contact points and the distinct nodes they touch (4.29: two contacts may share nodes). Then

    u_p = P U_nodes           contact-point displacement of node displacements (4.31)
    F_nodes = Pᵀ f_p          node forces of contact forces (virtual work: f_p·(P U) = (Pᵀ f_p)·U)
    K_{c,p}⁻¹ = P K_c⁻¹ Pᵀ    contact-point compliance (4.31)

Corrections applied (ours, to the equations of Chardonnet 2009, §4.5): the printed f_p = Σ d_j f_nj (4.23/4.26) is
the transposed map; and (4.25) inverts the matrix of raw node coordinates, which is singular
when the triangle's plane holds the frame origin, so the weights are the standard barycentric
coordinates of the point projected on the triangle's plane (least squares in the plane).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import message

__all__ = ["barycentric", "Distribution", "distribution_matrix"]


def barycentric(points, corners) -> np.ndarray:
    """(k, 3) barycentric weights of points (k, 3) in triangles with corners (k, 3, 3) [m]:
    d2, d3 solve the 2 × 2 normal equations of p − n1 = d2 (n2 − n1) + d3 (n3 − n1) in the plane,
    d1 = 1 − d2 − d3 (exact partition of unity). A degenerate triangle is refused."""
    p = np.asarray(points, float).reshape(-1, 3)
    c = np.asarray(corners, float).reshape(-1, 3, 3)
    e1, e2, r = c[:, 1] - c[:, 0], c[:, 2] - c[:, 0], p - c[:, 0]
    a11, a12, a22 = (e1 * e1).sum(1), (e1 * e2).sum(1), (e2 * e2).sum(1)
    b1, b2 = (r * e1).sum(1), (r * e2).sum(1)
    det = a11 * a22 - a12 * a12
    if np.any(det <= 1e-24 * np.maximum(a11 * a22, 1e-300)):
        i = int(np.argmin(det))
        raise ConfigError(message("soles.barycentric", "corners", "a non-degenerate triangle", c[i].tolist()))
    d2 = (a22 * b1 - a12 * b2) / det
    d3 = (a11 * b2 - a12 * b1) / det
    return np.stack([1.0 - d2 - d3, d2, d3], axis=1)


@dataclass(frozen=True)
class Distribution:
    """P (3k × 3m, scipy CSR) of k contact points over the m distinct `nodes` (sorted global node
    ids) they touch; weights (k, 3) and triangles (k, 3) per contact point."""

    P: sp.csr_matrix
    nodes: np.ndarray
    weights: np.ndarray
    triangles: np.ndarray

    def displacements(self, U_nodes) -> np.ndarray:
        """(k, 3) contact-point displacements u_p = P U of node displacements (m, 3) (4.31)."""
        return (self.P @ np.asarray(U_nodes, float).reshape(-1)).reshape(-1, 3)

    def node_forces(self, f) -> np.ndarray:
        """(m, 3) node forces Pᵀ f of contact forces f (k, 3) [N] (virtual-work mapping)."""
        return (self.P.T @ np.asarray(f, float).reshape(-1)).reshape(-1, 3)

    def compliance(self, C_nodes) -> np.ndarray:
        """P K_c⁻¹ Pᵀ (3k × 3k) of a node compliance K_c⁻¹ (3m × 3m) over `nodes` (4.31)."""
        return self.P @ (self.P @ np.asarray(C_nodes, float)).T


def distribution_matrix(nodes, triangles, points) -> Distribution:
    """`Distribution` of contact points (k, 3) [m], point i inside triangle triangles[i] (node ids
    into `nodes` (N, 3), e.g. `SoleMesh.surface` rows)."""
    X = np.asarray(nodes, float)
    tri = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    pts = np.asarray(points, float).reshape(-1, 3)
    if len(tri) != len(pts):
        raise ConfigError(
            message("soles.distribution_matrix", "triangles", f"{len(pts)} rows (one per point)", tri.shape)
        )
    d = barycentric(pts, X[tri])
    used, local = np.unique(tri, return_inverse=True)
    local = local.reshape(-1, 3)
    k = len(pts)
    rows = (3 * np.arange(k)[:, None, None] + np.arange(3)[None, None, :]).repeat(3, axis=1)  # (k, 3 nodes, 3 axes)
    cols = 3 * local[:, :, None] + np.arange(3)[None, None, :]
    vals = np.repeat(d[:, :, None], 3, axis=2)
    P = sp.coo_matrix((vals.ravel(), (rows.ravel(), cols.ravel())), shape=(3 * k, 3 * len(used))).tocsr()
    return Distribution(P=P, nodes=used, weights=d, triangles=tri)
