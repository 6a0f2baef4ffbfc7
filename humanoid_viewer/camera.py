"""Where the viewer's camera starts: it frames the robot's geometry at its configuration, else the
scene's bodies, from the front-left and above (the robot faces +x).
"""

from __future__ import annotations

import numpy as np

from humanoid_model.collision_geometry import extent_points

__all__ = [
    "CAMERA_FOV",
    "CAMERA_DIRECTION",
    "CAMERA_MARGIN",
    "SCENE_MARGIN",
    "geometry_bounds",
    "scene_bounds",
    "camera_pose",
]

# Choices of ours (display only):
CAMERA_FOV = 75.0 * np.pi / 180.0  # viser's default vertical field of view [rad]
CAMERA_DIRECTION = np.array([1.0, 0.55, 0.35])  # camera seen from front-left-above (robot faces +x)
CAMERA_MARGIN = 1.25  # fraction of the robot's height shown in the view
SCENE_MARGIN = 0.3  # [m] added around body origins to frame a robot-less scene


def geometry_bounds(geometry, data) -> np.ndarray | None:
    """(2, 3) world bounding box [m] of the objects of ``geometry`` placed by the joint placements
    ``data.oMi`` (forward kinematics done), or None when none has points."""
    pts = []
    for geom in geometry.geometryObjects:
        try:
            local = extent_points(geom)  # in the parent joint frame
        except Exception:
            continue
        oMi = data.oMi[geom.parentJoint]
        pts.append((oMi.rotation @ local.T).T + oMi.translation)
    if not pts:
        return None
    pts = np.vstack(pts)
    return np.stack([pts.min(axis=0), pts.max(axis=0)])


def scene_bounds(scene) -> np.ndarray | None:
    """(2, 3) box [m] around the scene's static (not plane) and free bodies' origins, or None."""
    if scene is None:
        return None
    pts = [np.asarray(b.pose.xyz, float) for b in scene.bodies if b.shape.kind != "plane"]
    pts += [np.asarray(fb.pose.xyz, float) for fb in scene.free_bodies]
    if not pts:
        return None
    pts = np.array(pts)
    return np.stack([pts.min(axis=0) - SCENE_MARGIN, pts.max(axis=0) + SCENE_MARGIN])


def camera_pose(bounds) -> tuple[np.ndarray, np.ndarray]:
    """(look-at point, camera position) [m] that show the box ``bounds`` (2, 3) (None: a 2 m view
    of the origin); the up direction is +z."""
    if bounds is None:
        centre, size = np.zeros(3), 2.0
    else:
        centre = bounds.mean(axis=0)
        size = float(max(bounds[1] - bounds[0]))
    d = CAMERA_MARGIN * 0.5 * size / np.tan(0.5 * CAMERA_FOV) + 0.5 * size
    direction = CAMERA_DIRECTION / np.linalg.norm(CAMERA_DIRECTION)
    return centre, centre + d * direction
