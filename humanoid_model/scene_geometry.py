"""Small geometry helpers for scenes: poses, rotations, convex planar polygons, rigid-body inertia.

Pure NumPy (no Pinocchio import), so loading a scene stays cheap. Conventions: SI units,
quaternions (x, y, z, w), roll-pitch-yaw as in URDF (R = Rz(yaw) · Ry(pitch) · Rx(roll)).
Functions raise ``ValueError`` with a short reason; `humanoid_model.scene` turns that into a
`SceneError` naming the file and the field.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

# Tolerances (chosen by us; lengths in metres):
PLANARITY_TOL = 1e-6  # max distance of a polygon vertex from the polygon's plane [m]
MIN_POLYGON_AREA = 1e-8  # smaller polygons are degenerate [m^2] (0.1 mm x 0.1 mm)
MIN_EDGE = 1e-9  # shorter edges count as repeated vertices [m]
COLLINEAR_SIN = 1e-9  # |sin| of the turn angle below which three vertices are collinear
D0_MAX_COS = 0.999  # |cos(d0, normal)| above this is "collinear" (within 2.56 deg)
QUAT_NORM_TOL = 1e-3  # a quaternion must have unit norm within this (then it is renormalised)


# ------------------------------------------------------------------------------ rotations
def rpy_to_matrix(rpy) -> np.ndarray:
    """Rotation matrix from roll, pitch, yaw [rad] (URDF convention: Rz(y) Ry(p) Rx(r)); also the
    URDF reader's (`humanoid_model.dynmodel.urdf.rpy_matrix`)."""
    r, p, y = (float(a) for a in rpy)
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def quat_to_matrix(q) -> np.ndarray:
    """Rotation matrix of a unit quaternion (x, y, z, w)."""
    x, y, z, w = (float(a) for a in q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def matrix_to_quat(R) -> np.ndarray:
    """Unit quaternion (x, y, z, w) with w >= 0 of a rotation matrix (Shepperd's method)."""
    R = np.asarray(R, dtype=float)
    t = np.trace(R)
    if t > 0:
        s = 2.0 * np.sqrt(t + 1.0)
        q = [(R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s, 0.25 * s]
    else:
        i = int(np.argmax(np.diag(R)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + R[i, i] - R[j, j] - R[k, k])
        q = [0.0, 0.0, 0.0, (R[k, j] - R[j, k]) / s]
        q[i] = 0.25 * s
        q[j] = (R[j, i] + R[i, j]) / s
        q[k] = (R[k, i] + R[i, k]) / s
    q = np.array(q)
    q /= np.linalg.norm(q)
    return -q if q[3] < 0 else q


@dataclass(frozen=True)
class Pose:
    """A rigid transform: position ``xyz`` [m] and orientation ``quat`` (x, y, z, w)."""

    xyz: np.ndarray = field(default_factory=lambda: np.zeros(3))
    quat: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 0.0, 1.0]))

    @staticmethod
    def from_rpy_deg(xyz, rpy_deg) -> Pose:
        return Pose(np.asarray(xyz, float), matrix_to_quat(rpy_to_matrix(np.radians(rpy_deg))))

    @staticmethod
    def from_matrix(xyz, R) -> Pose:
        return Pose(np.asarray(xyz, float), matrix_to_quat(R))

    @property
    def rotation(self) -> np.ndarray:
        """3x3 rotation matrix (body axes expressed in the parent frame)."""
        return quat_to_matrix(self.quat)

    @property
    def homogeneous(self) -> np.ndarray:
        """4x4 homogeneous matrix."""
        T = np.eye(4)
        T[:3, :3] = self.rotation
        T[:3, 3] = self.xyz
        return T

    @property
    def xyz_quat(self) -> np.ndarray:
        """(7,) array: xyz then quaternion xyzw (Pinocchio free-flyer layout)."""
        return np.concatenate([self.xyz, self.quat])

    def apply(self, points) -> np.ndarray:
        """Map points (..., 3) from this pose's frame to the parent frame."""
        return np.asarray(points, float) @ self.rotation.T + self.xyz

    def compose(self, other: Pose) -> Pose:
        """self * other (``other`` is expressed in this pose's frame)."""
        R = self.rotation
        return Pose.from_matrix(self.xyz + R @ other.xyz, R @ other.rotation)


# ------------------------------------------------------------------------------ polygons
def polygon_normal_area(V: np.ndarray) -> tuple[np.ndarray, float]:
    """Newell's vector of a closed polygon: (unit normal following the vertex order, area)."""
    N = np.cross(V, np.roll(V, -1, axis=0)).sum(axis=0)
    area = 0.5 * float(np.linalg.norm(N))
    return (N / (2 * area) if area > 0 else N), area


def convex_polygon(vertices, normal: Sequence[float] | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """Validate a planar convex polygon and return (vertices (k, 3) counter-clockwise about the
    normal, unit outward normal, area).

    ``normal``, when given, must be perpendicular to the polygon; the vertex order is reversed
    if it runs clockwise about it. Without it, the normal follows the vertex order (right-hand
    rule). Raises ValueError for fewer than 3 vertices, repeated or collinear consecutive
    vertices, zero area, non-planar or non-convex (including self-intersecting) polygons.
    """
    V = np.asarray(vertices, dtype=float)
    if V.ndim != 2 or V.shape[1] != 3 or V.shape[0] < 3:
        raise ValueError("a polygon needs at least 3 vertices of 3 coordinates")
    if not np.all(np.isfinite(V)):
        raise ValueError("vertices must be finite numbers")
    edges = np.roll(V, -1, axis=0) - V
    lengths = np.linalg.norm(edges, axis=1)
    if np.any(lengths < MIN_EDGE):
        i = int(np.argmin(lengths))
        raise ValueError(f"degenerate polygon: vertices {i} and {(i + 1) % len(V)} coincide")
    n_poly, area = polygon_normal_area(V - V.mean(axis=0))
    if area < MIN_POLYGON_AREA:
        raise ValueError(f"degenerate polygon: zero area ({area:.3g} m^2), the vertices are collinear")
    off = np.abs((V - V.mean(axis=0)) @ n_poly)
    if off.max() > PLANARITY_TOL:
        raise ValueError(f"polygon is not planar: vertex {int(off.argmax())} is {off.max():.3g} m off its plane")
    if normal is not None:
        n = np.asarray(normal, dtype=float)
        if n.shape != (3,) or not np.all(np.isfinite(n)) or np.linalg.norm(n) == 0:
            raise ValueError("normal must be a non-zero 3-vector")
        n = n / np.linalg.norm(n)
        c = float(n @ n_poly)
        if abs(c) < 1 - 1e-6:
            raise ValueError(
                f"normal {np.round(n, 6).tolist()} is not perpendicular to the polygon "
                f"(polygon normal {np.round(n_poly, 6).tolist()})"
            )
        if c < 0:
            V = V[::-1].copy()
            edges = np.roll(V, -1, axis=0) - V
            lengths = np.linalg.norm(edges, axis=1)
        n_poly = n
    # turn at every vertex: sin of the angle between the incoming and outgoing edge, about n
    e_in = np.roll(edges, 1, axis=0) / np.roll(lengths, 1)[:, None]
    e_out = edges / lengths[:, None]
    sin_turn = np.cross(e_in, e_out) @ n_poly
    cos_turn = np.einsum("ij,ij->i", e_in, e_out)
    if np.any(np.abs(sin_turn) < COLLINEAR_SIN) and np.any(cos_turn[np.abs(sin_turn) < COLLINEAR_SIN] > 0):
        i = int(np.argmin(np.abs(sin_turn)))
        raise ValueError(f"degenerate polygon: vertex {i} is collinear with its neighbours")
    if np.any(sin_turn <= 0):
        i = int(np.argmin(sin_turn))
        raise ValueError(f"polygon is not convex at vertex {i}")
    total_turn = float(np.arctan2(sin_turn, cos_turn).sum())
    if abs(total_turn - 2 * np.pi) > 1e-6:
        raise ValueError(f"polygon is not convex: it winds {total_turn / (2 * np.pi):.2f} times (self-intersecting)")
    return V, n_poly, area


def polygon_centroid(V: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Area centroid of a planar polygon (k, 3) with unit normal n."""
    o = V[0]
    c, a_tot = np.zeros(3), 0.0
    for i in range(1, len(V) - 1):
        a = 0.5 * float(np.cross(V[i] - o, V[i + 1] - o) @ n)
        c += a * (o + V[i] + V[i + 1]) / 3.0
        a_tot += a
    return c / a_tot


def reference_direction(n: np.ndarray, d0=None) -> np.ndarray:
    """The reference direction d0 of a surface (Escande 2008, §5.3.1.1: never collinear with the
    normal), as a unit vector. Default (chosen): world x, or world z when x is within
    D0_MAX_COS of the normal (vertical surfaces facing along x)."""
    if d0 is None:
        d0 = np.array([1.0, 0.0, 0.0]) if abs(n[0]) <= D0_MAX_COS else np.array([0.0, 0.0, 1.0])
    d0 = np.asarray(d0, dtype=float)
    if d0.shape != (3,) or not np.all(np.isfinite(d0)) or np.linalg.norm(d0) == 0:
        raise ValueError("d0 must be a non-zero 3-vector")
    d0 = d0 / np.linalg.norm(d0)
    if abs(float(d0 @ n)) > D0_MAX_COS:
        raise ValueError(
            f"d0 is collinear with the normal {np.round(n, 6).tolist()} "
            f"(|cos| = {abs(float(d0 @ n)):.4f} > {D0_MAX_COS})"
        )
    return d0


BOX_FACES = {"+x": (0, 1), "-x": (0, -1), "+y": (1, 1), "-y": (1, -1), "+z": (2, 1), "-z": (2, -1)}


def box_face(size, face: str) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (4, 3), counter-clockwise about the outward normal, and the outward normal of
    one face (``+x``, ``-x``, ``+y``, ``-y``, ``+z``, ``-z``) of a box of full extents ``size``,
    in the box frame."""
    axis, sign = BOX_FACES[face]
    h = 0.5 * np.asarray(size, float)
    b, c = (axis + 1) % 3, (axis + 2) % 3  # (b, c, axis) is right-handed
    V = []
    for sb, sc in ((1, 1), (-1, 1), (-1, -1), (1, -1)):  # counter-clockwise about +axis
        v = np.zeros(3)
        v[axis], v[b], v[c] = sign * h[axis], sb * h[b], sc * h[c]
        V.append(v)
    V = np.array(V)
    n = np.zeros(3)
    n[axis] = sign
    return (V if sign > 0 else V[::-1].copy()), n


# ------------------------------------------------------------------------------ inertia
def box_inertia(mass: float, size) -> np.ndarray:
    """Inertia [kg m^2] of a solid box of full extents ``size`` about its centre."""
    a, b, c = (float(s) for s in size)
    return mass / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


def sphere_inertia(mass: float, radius: float) -> np.ndarray:
    """Inertia [kg m^2] of a solid sphere about its centre."""
    return 0.4 * mass * radius**2 * np.eye(3)


def cylinder_inertia(mass: float, radius: float, length: float) -> np.ndarray:
    """Inertia [kg m^2] of a solid cylinder (axis z) about its centre."""
    ixx = mass * (3 * radius**2 + length**2) / 12.0
    return np.diag([ixx, ixx, 0.5 * mass * radius**2])


def combine_inertias(parts) -> tuple[float, np.ndarray, np.ndarray]:
    """Mass, COM and inertia about the COM of rigidly attached parts.

    ``parts``: iterable of (mass, Pose of the part's centre in the body frame, inertia about
    the part's centre in the part frame). Returns (mass [kg], com (3,) [m], inertia (3, 3)
    [kg m^2]) in the body frame (rotation + parallel-axis theorem).
    """
    parts = list(parts)
    m = sum(p[0] for p in parts)
    com = sum(p[0] * p[1].xyz for p in parts) / m
    inertia = np.zeros((3, 3))
    for mi, pose, Ii in parts:
        R = pose.rotation
        d = pose.xyz - com
        inertia += R @ Ii @ R.T + mi * (float(d @ d) * np.eye(3) - np.outer(d, d))
    return float(m), com, 0.5 * (inertia + inertia.T)
