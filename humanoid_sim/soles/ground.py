"""Flat-ground contact nodes of a sole (Chardonnet 2009, §4.5: a node is in contact when it is below
the ground, and the contact force acts at that node). `flat_ground_nodes` checks its input;
`nodes_under_plane` is its numba kernel. `append_sole_contacts` is the World step's form
(`world_coupling.FemSoles.add_contacts`): every sole's nodes on the ground plane, and the stone
contacts found beforehand, appended to the step's contact arrays in one call, with the same
arithmetic as `nodes_under_plane`; `sole_frames` places the soles in the world for it.

    nodes, points, gaps = flat_ground_nodes(mesh, position, rotation, U=None, ground=0.0, margin=0.0)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import finite_number, finite_vector, message

from .mesh import SoleMesh

__all__ = ["flat_ground_nodes", "nodes_under_plane", "append_sole_contacts", "sole_frames"]

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
        w0, w1, w2, g = _node_on_plane(X, U, i, R, p, n, h)
        if g <= margin:
            hit[k] = i
            points[k, 0], points[k, 1], points[k, 2] = w0, w1, w2
            gaps[k] = g
            k += 1
    return hit[:k].copy(), points[:k].copy(), gaps[:k].copy()


@njit(cache=True, inline="always")
def _node_on_plane(X, U, i, R, p, n, h):
    """(world point (3 floats) [m], signed distance n·x − h [m]) of node i of X (S, 3) displaced by
    U (3S,), placed at R, p."""
    x0, x1, x2 = X[i, 0] + U[3 * i], X[i, 1] + U[3 * i + 1], X[i, 2] + U[3 * i + 2]
    w0 = p[0] + (R[0, 0] * x0 + R[0, 1] * x1 + R[0, 2] * x2)
    w1 = p[1] + (R[1, 0] * x0 + R[1, 1] * x1 + R[1, 2] * x2)
    w2 = p[2] + (R[2, 0] * x0 + R[2, 1] * x1 + R[2, 2] * x2)
    return w0, w1, w2, n[0] * w0 + n[1] * w1 + n[2] * w2 - h


@njit(cache=True)
def sole_frames(oMi_R, oMi_p, joints, jR, jp):
    """(R (ns, 3, 3), p (ns, 3) [m]): the soles' frames in the world from the joints' world
    placements oMi_R (nj, 3, 3), oMi_p (nj, 3) [m]; sole j is fixed to joint joints[j] at jR (3, 3),
    jp (3,) [m] in its frame: R = R_i jR, p = p_i + R_i jp."""
    ns = joints.shape[0]
    R = np.empty((ns, 3, 3))
    p = np.empty((ns, 3))
    for j in range(ns):
        Ri, pi = oMi_R[joints[j]], oMi_p[joints[j]]
        for a in range(3):
            for b in range(3):
                R[j, a, b] = Ri[a, 0] * jR[j, 0, b] + Ri[a, 1] * jR[j, 1, b] + Ri[a, 2] * jR[j, 2, b]
            p[j, a] = pi[a] + (Ri[a, 0] * jp[j, 0] + Ri[a, 1] * jp[j, 1] + Ri[a, 2] * jp[j, 2])
    return R, p


@njit(cache=True)
def append_sole_contacts(batch, X, U, start, R, p, n, h, ground, margins, geoms, mus, stones):
    """The contact arrays ``batch`` (geom_a, geom_b, b_static, points, normals, gaps, mu, e, slot:
    the `ContactBatch` fields, m rows) with every sole's contacts appended, sole by sole: first its
    nodes whose signed distance to the plane n·x = h is at most its margin (as
    `nodes_under_plane`; none when ``ground`` < 0, the plane's static geometry otherwise), then its
    stone contacts.

    X (ΣS, 3), U (3ΣS,) [m]: the soles' surface nodes and displacements, sole frame, sole j's rows
    start[j] .. start[j + 1]; R (ns, 3, 3), p (ns, 3) [m]: the sole frames in the world; margins,
    mus (ns,), geoms (ns,): per sole. stones: (f (E, 8) rows point, normal, gap, mu; i (E, 2) rows
    geom_b, slot; rows (ns + 1,): sole j's rows rows[j] .. rows[j + 1]). A node contact has normal
    n, slot its node row, no restitution.

    Returns (the 9 arrays with the appended rows; hit (ΣS,): the node rows of sole j at start[j] ..
    start[j] + counts[0, j]; counts (2, ns): each sole's node contacts and all its contacts)."""
    geom_a, geom_b, b_static, points, normals, gaps, mu, e, slot = batch
    sf, si, srows = stones
    m = points.shape[0]
    ns = start.shape[0] - 1
    cap = m + X.shape[0] + sf.shape[0]
    o_ga, o_gb, o_bs = np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.bool_)
    o_pt, o_nr, o_gp = np.empty((cap, 3)), np.empty((cap, 3)), np.empty(cap)
    o_mu, o_e, o_sl = np.empty(cap), np.empty(cap), np.empty(cap, np.int64)
    hit, counts = np.empty(X.shape[0], np.int64), np.empty((2, ns), np.int64)
    for r in range(m):
        o_ga[r], o_gb[r], o_bs[r] = geom_a[r], geom_b[r], b_static[r]
        for a in range(3):
            o_pt[r, a], o_nr[r, a] = points[r, a], normals[r, a]
        o_gp[r], o_mu[r], o_e[r], o_sl[r] = gaps[r], mu[r], e[r], slot[r]
    r = m
    for j in range(ns):
        r0, k = r, 0
        Xj, Uj = X[start[j] : start[j + 1]], U[3 * start[j] : 3 * start[j + 1]]
        if ground >= 0:
            for i in range(Xj.shape[0]):
                w0, w1, w2, g = _node_on_plane(Xj, Uj, i, R[j], p[j], n, h)
                if g <= margins[j]:
                    hit[start[j] + k] = i
                    k += 1
                    o_pt[r, 0], o_pt[r, 1], o_pt[r, 2] = w0, w1, w2
                    o_nr[r, 0], o_nr[r, 1], o_nr[r, 2] = n[0], n[1], n[2]
                    o_gp[r], o_gb[r], o_sl[r], o_mu[r] = g, ground, i, mus[j]
                    r += 1
        for q in range(srows[j], srows[j + 1]):
            for a in range(3):
                o_pt[r, a], o_nr[r, a] = sf[q, a], sf[q, 3 + a]
            o_gp[r], o_mu[r], o_gb[r], o_sl[r] = sf[q, 6], sf[q, 7], si[q, 0], si[q, 1]
            r += 1
        for t in range(r0, r):
            o_ga[t], o_bs[t], o_e[t] = geoms[j], True, 0.0  # no impact law at a sole (§4.3.5)
        counts[0, j], counts[1, j] = k, r - r0
    out = (o_ga[:r], o_gb[:r], o_bs[:r], o_pt[:r], o_nr[:r], o_gp[:r], o_mu[:r], o_e[:r], o_sl[:r])
    return out, hit, counts
