"""Construction of an STP-BV (sphere-torus-patch bounding volume) from a point cloud, Escande
2008, App. B.3, Algorithms 12-13: gift wrapping on the vertices with big spheres
of radius R - r. docs/posture_generator.md "STP-BV".

The volume of points P_i with small radius r and big radius R is the intersection of all balls of
radius R that contain the balls B(P_i, r) (its big spheres are tangent to three small spheres,
its tori to two, Escande 2008, §4.4.1-4.4.3). Writing rho = R - r, a ball B(c, R) contains B(P_i, r)
iff |c - P_i| <= rho, so the admissible centres are K = intersection of the B(P_i, rho), and the
volume is {x : |x - c| <= R for every c in K}. The faces found here are the vertices of K: a
triple (i, j, k) whose sphere of radius rho (centre C on the inner side of the triangle,
(4.8)-(4.9), `stpbv.face_sphere_centre`) contains every point; the edges are K's circle arcs (the
centre rotating about the edge P_i P_j from one face's C to the other's: the torus), the vertices
K's sphere patches (the small spheres).

Gift wrapping (Algorithm 12): start from one valid face; for each open edge, rotate the centre
about the edge, away from the face's third vertex, until the sphere meets another point (the
smallest such angle, `_first_hit`); that point makes the neighbouring face; edges are processed
smallest angle first (the thesis's ``edgeStack`` order, robust for nearly co-spherical points) and
closed when both their faces exist. The first face comes from the minimal enclosing ball B(c0,
r0): the ball B(c0 - (rho - r0) u, rho) tangent to it at a point P_a of its sphere (u from c0 to
P_a) contains every point, so rotating it about P_a, then about the edge found, gives a face.
No face exists iff rho is below the enclosing radius: the construction then fails ("big-sphere
radius too small", Algorithm 12's FAIL).

Degenerate inputs: points on a common sphere of radius rho in groups of four or more (a box's
face corners are co-circular, a cylinder's end polygon too) make ties in the rotation angle;
they are broken by running the wrapping on the points moved by a tiny deterministic jitter
(``JITTER`` times the cloud's size; a chosen 1e-9) and then rebuilding every face sphere from the
original points: a tied point lies on its face's sphere, within round-off. Only the convex hull's
vertices can be on the volume (a point inside the hull is inside every ball containing the hull),
so the wrapping runs on them; a hull vertex may still be swallowed (thesis Fig. B.4) and then
has no face. A single point gives a ball of radius r (a sphere obstacle, or a degenerate body).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.spatial import ConvexHull, QhullError

from humanoid_planner.exceptions import PlanningError

from .stpbv import face_sphere_centre

__all__ = ["StpBV", "build_stpbv", "enclosing_ball"]

JITTER = 1e-9  # relative jitter breaking co-spherical ties (module docstring)
_MAX_FACES_PER_VERTEX = 8  # a closed triangulation has 2V - 4 faces: more means a wrapping error


@dataclass(frozen=True)
class StpBV:
    """An STP-BV in its own frame: ``vertices`` (n, 3) [m] (the small-sphere centres), ``faces``
    (m, 3) vertex indices counter-clockwise about the outward normal, ``centres`` (m, 3) [m] their
    big-sphere centres, ``edges`` (k, 2) with ``edge_faces`` (k, 2) (the face holding the directed
    edge (i, j), then the one holding (j, i)), radii ``r`` and ``R`` [m]. With one vertex and no
    face it is the ball B(vertices[0], r)."""

    vertices: np.ndarray
    faces: np.ndarray
    centres: np.ndarray
    edges: np.ndarray
    edge_faces: np.ndarray
    r: float
    R: float

    @property
    def rho(self) -> float:
        """R - r [m]: the distance of every face centre from its three vertices."""
        return self.R - self.r

    @property
    def longest_edge(self) -> float:
        """The longest edge [m] (the ``a`` of the margin bound, Thm 4.4.4)."""
        if not len(self.edges):
            return 0.0
        return float(np.max(np.linalg.norm(self.vertices[self.edges[:, 0]] - self.vertices[self.edges[:, 1]], axis=1)))


def enclosing_ball(points) -> tuple[np.ndarray, float]:
    """The minimal enclosing ball ``(centre (3,), radius)`` [m] of ``points`` (k, 3): min t s.t.
    |P_i - c|^2 <= t (a small convex problem, SciPy SLSQP, to ~1e-12 m^2)."""
    P = np.asarray(points, float).reshape(-1, 3)
    c0 = 0.5 * (P.min(axis=0) + P.max(axis=0))
    t0 = float(np.max(np.sum((P - c0) ** 2, axis=1)))
    res = minimize(
        lambda z: z[3],
        np.append(c0, t0),
        jac=lambda z: np.array([0.0, 0.0, 0.0, 1.0]),
        constraints=[
            {
                "type": "ineq",
                "fun": lambda z: z[3] - np.sum((P - z[:3]) ** 2, axis=1),
                "jac": lambda z: np.column_stack([2.0 * (P - z[:3]), np.ones(len(P))]),
            }
        ],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 200},
    )
    c = res.x[:3]
    return c, float(np.sqrt(np.max(np.sum((P - c) ** 2, axis=1))))


def _first_hit(M, a, b, radius, rho, P, skip):
    """``(phi, m)``: the smallest angle phi in (0, 2 pi) at which the sphere of radius ``rho``
    centred at c(phi) = M + radius (cos phi a + sin phi b) meets a point P_m (m not in ``skip``)
    coming from inside (|c - P_m| grows through rho), or ``(inf, -1)``."""
    w = M - P
    kappa = np.einsum("ij,ij->i", w, w) + radius * radius - rho * rho
    alpha, beta = 2.0 * radius * (w @ a), 2.0 * radius * (w @ b)
    gamma = np.hypot(alpha, beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = -kappa / gamma
    ok = (gamma > 0) & (np.abs(ratio) <= 1.0)
    ok[list(skip)] = False
    if not ok.any():
        return np.inf, -1
    psi = np.array([math.atan2(b, a) for b, a in zip(beta[ok], alpha[ok])])  # libm, as below
    delta = np.array([math.acos(v) for v in np.clip(ratio[ok], -1.0, 1.0)])  # libm: the same bits on every processor
    # roots phi = psi +- delta; the crossing from inside has f' = -gamma sin(phi - psi) > 0: phi = psi - delta
    phi = np.mod(psi - delta, 2.0 * np.pi)
    phi = np.where(phi < 1e-12, phi + 2.0 * np.pi, phi)
    k = int(np.argmin(phi))
    return float(phi[k]), int(np.flatnonzero(ok)[k])


def _unit(v):
    return v / np.linalg.norm(v)


def _initial_face(P, rho):
    c0, r0 = enclosing_ball(P)
    if rho < r0 * (1.0 + 1e-9):
        raise PlanningError(
            f"STP-BV: field 'R' must be >= r + the enclosing radius {r0:.6g} m (big-sphere radius too small); "
            f"R - r = {rho}"
        )
    ia = int(np.argmax(np.linalg.norm(P - c0, axis=1)))
    u = _unit(P[ia] - c0)
    C = P[ia] - rho * u  # the ball of radius rho internally tangent to the enclosing ball at P_a
    # rotate about P_a (centre on the sphere of radius rho about P_a) until a second point
    t = np.cross(u, [1.0, 0.0, 0.0] if abs(u[0]) < 0.9 else [0.0, 1.0, 0.0])
    t = _unit(t)
    phi, ib = _first_hit(P[ia], -u, t, rho, rho, P, {ia})
    if ib < 0:
        raise PlanningError("STP-BV: the cloud spans no face (collinear points)")
    C = P[ia] + rho * (np.cos(phi) * -u + np.sin(phi) * t)
    # then about the edge P_a P_b until a third
    M = 0.5 * (P[ia] + P[ib])
    e = _unit(P[ib] - P[ia])
    radius = np.sqrt(max(rho * rho - 0.25 * np.sum((P[ib] - P[ia]) ** 2), 0.0))
    a = _unit(C - M - ((C - M) @ e) * e)
    b = np.cross(e, a)
    phi, ic = _first_hit(M, a, b, radius, rho, P, {ia, ib})
    if ic < 0:
        raise PlanningError("STP-BV: the cloud spans no face (collinear points)")
    return _oriented(P, ia, ib, ic, M + radius * (np.cos(phi) * a + np.sin(phi) * b))


def _oriented(P, i, j, k, C):
    """The face (i, j, k) or (i, k, j): counter-clockwise about the outward normal (away from C)."""
    if np.cross(P[j] - P[i], P[k] - P[i]) @ (P[i] - C) < 0:
        j, k = k, j
    return (i, j, k), C


def _wrap(P, rho):
    """Faces (list of (i, j, k)) and their centres by gift wrapping (module docstring)."""
    (i, j, k), C = _initial_face(P, rho)
    faces, centres = [(i, j, k)], [C]
    open_edges = {}  # directed edge (a, b) of a face -> face index, waiting for its (b, a) neighbour
    heap = []

    def push(f, a_, b_):
        if (b_, a_) in open_edges:  # the neighbour face already holds (b, a): the edge is closed
            del open_edges[(b_, a_)]
            return
        open_edges[(a_, b_)] = f
        third = [v for v in faces[f] if v not in (a_, b_)][0]
        M = 0.5 * (P[a_] + P[b_])
        e = _unit(P[b_] - P[a_])
        radius = np.sqrt(max(rho * rho - 0.25 * np.sum((P[b_] - P[a_]) ** 2), 0.0))
        a = _unit(centres[f] - M - ((centres[f] - M) @ e) * e)
        b = np.cross(e, a)
        if b @ (centres[f] - P[third]) > 0:
            b = -b
        phi, m = _first_hit(M, a, b, radius, rho, P, {a_, b_, third})
        heapq.heappush(heap, (phi, a_, b_, m, tuple(M + radius * (np.cos(phi) * a + np.sin(phi) * b))))

    for a_, b_ in ((i, j), (j, k), (k, i)):
        push(0, a_, b_)
    limit = _MAX_FACES_PER_VERTEX * len(P)
    while heap:
        _, a_, b_, m, C = heapq.heappop(heap)
        if (a_, b_) not in open_edges:
            continue
        if m < 0:
            raise PlanningError("STP-BV: gift wrapping found no neighbour face (degenerate cloud)")
        del open_edges[(a_, b_)]
        faces.append((b_, a_, m))
        centres.append(np.array(C))
        f = len(faces) - 1
        for x, y in ((a_, m), (m, b_)):
            push(f, x, y)
        if len(faces) > limit:
            raise PlanningError("STP-BV: gift wrapping does not close (degenerate cloud)")
    return faces, centres


def build_stpbv(points, r: float, R: float) -> StpBV:
    """The STP-BV of ``points`` (k, 3) [m] with small radius ``r`` >= 0 and big radius ``R`` [m]
    (module docstring). Raises `PlanningError` when R - r is below the enclosing radius."""
    P = np.unique(np.asarray(points, float).reshape(-1, 3), axis=0)
    if not (np.all(np.isfinite(P)) and len(P) and R > r >= 0.0):
        raise PlanningError(f"STP-BV: fields 'points' (finite, k >= 1) and 'R > r >= 0' required; {len(P)}, {r}, {R}")
    empty = np.zeros((0, 3), int)
    if len(P) == 1:
        return StpBV(P, empty, np.zeros((0, 3)), np.zeros((0, 2), int), np.zeros((0, 2), int), float(r), float(R))
    try:
        hull = ConvexHull(P)
    except QhullError as exc:
        raise PlanningError(f"STP-BV: field 'points' must span a volume ({exc.__class__.__name__})") from None
    V = P[hull.vertices]
    rho = R - r
    scale = float(np.max(np.ptp(V, axis=0)))
    jittered = V + JITTER * scale * np.random.default_rng(0).uniform(-1.0, 1.0, V.shape)
    faces, _ = _wrap(jittered, rho)
    used = sorted({v for f in faces for v in f})
    index = {v: n for n, v in enumerate(used)}
    V = V[used]
    F = np.array([[index[v] for v in f] for f in faces], int)
    C = np.array([face_sphere_centre(V[a], V[b], V[c], R, r) for a, b, c in F])
    edges, edge_faces = [], []
    owner = {}
    for n, (a, b, c) in enumerate(F):
        for x, y in ((a, b), (b, c), (c, a)):
            owner[(x, y)] = n
    for (x, y), n in owner.items():
        if (y, x) not in owner:
            raise PlanningError(f"STP-BV: the wrapping left the edge ({x}, {y}) open")
        if x < y:
            edges.append((x, y))
            edge_faces.append((n, owner[(y, x)]))
    if len(V) - len(edges) + len(F) != 2:
        raise PlanningError(f"STP-BV: the wrapping is not a closed surface (V {len(V)}, E {len(edges)}, F {len(F)})")
    return StpBV(V, F, C, np.array(edges, int), np.array(edge_faces, int), float(r), float(R))
