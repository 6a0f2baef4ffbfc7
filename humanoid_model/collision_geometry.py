"""Points spanning a robot's collision geometry: `extent_points` (box corners, cylinder and
capsule rings, sphere poles, mesh vertices) and `geometry_z_range` (the geometry's lowest and
highest points at a configuration). Used by the robot loader (the ``zero`` posture, default
soles, `Robot.height`) and the viewer (the robot's bounds).

The points give the geometry's extent, not an enclosure: their bounds along the geometry's own
axes are the geometry's (a cylinder's ring is inscribed, its points on the circle), so a lowest
point or a bounding box computed from them is the geometry's own. The posture generator needs
the other rule, points whose convex hull contains the geometry (a circumscribed ring):
`humanoid_planner.posture.geometry.capsules.enclosing_points`.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_model.exceptions import ModelError

__all__ = ["extent_points", "geometry_z_range"]


def extent_points(geom: pin.GeometryObject) -> np.ndarray:
    """(k, 3) points [m] of a geometry object in its parent joint frame (its placement applied)
    spanning its extent (module docstring): a box's corners, a cylinder's two end circles (16
    points on each), a capsule's circles at its tips' heights, a sphere's 6 poles, a mesh's
    vertices."""
    shape = geom.geometry
    M = geom.placement
    if hasattr(shape, "halfSide"):
        h = np.asarray(shape.halfSide)
        pts = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * h
    elif hasattr(shape, "radius") and hasattr(shape, "halfLength"):  # cylinder / capsule along z
        r, hl = shape.radius, shape.halfLength
        extra = r if type(shape).__name__ == "Capsule" else 0.0
        ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        ring = np.stack([r * np.cos(ang), r * np.sin(ang)], axis=1)
        pts = np.vstack([np.c_[ring, np.full(16, z)] for z in (-hl - extra, hl + extra)])
    elif hasattr(shape, "radius"):  # sphere
        r = shape.radius
        pts = np.vstack([np.eye(3) * r, -np.eye(3) * r])
    else:
        pts = _mesh_vertices(geom)
    return (M.rotation @ pts.T).T + M.translation


def _mesh_vertices(geom: pin.GeometryObject) -> np.ndarray:
    shape = geom.geometry
    for getter in ("vertices",):
        if hasattr(shape, getter):
            try:
                v = np.asarray(getattr(shape, getter)())
                if v.size:
                    return v.reshape(-1, 3)
            except Exception:
                pass
    try:
        import trimesh

        mesh = trimesh.load(geom.meshPath, force="mesh")
        return np.asarray(mesh.vertices) * np.asarray(geom.meshScale)
    except Exception as exc:
        raise ModelError(f"cannot read the vertices of geometry '{geom.name}' ({geom.meshPath}): {exc}") from exc


def geometry_z_range(model, collision, q) -> tuple[float, float]:
    """The lowest and highest z [m] of the collision geometry ``collision`` of ``model`` at ``q``."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    lo, hi = np.inf, -np.inf
    for g in collision.geometryObjects:
        pts = extent_points(g)
        oM = data.oMi[g.parentJoint]
        z = (oM.rotation @ pts.T).T[:, 2] + oM.translation[2]
        lo, hi = min(lo, z.min()), max(hi, z.max())
    return lo, hi
