"""The support polygon of a stance (Escande 2008, §3.4.4): each contact's robot
surface hull placed at its environment frame, clipped by the environment surface polygon,
projected on the horizontal plane, and the convex hull of all those points, counter-clockwise
(`humanoid_model.planar_polygon.convex_hull`, the points rounded to `HULL_DECIMALS` decimals).
"""

from __future__ import annotations

import math

import numpy as np

from humanoid_model.planar_polygon import clip, convex_hull
from humanoid_planner.exceptions import PlanningError

from .frames import EnvironmentFrame, RobotContactFrame

__all__ = ["placed_hull", "support_polygon"]

HULL_DECIMALS = 12  # the points are rounded to 1e-12 m before the hull: coincident corners count once (chosen)


def placed_hull(location, env_frame: EnvironmentFrame) -> np.ndarray:
    """World points (k, 3) of a `ContactLocation`'s hull when its frame matches ``env_frame``:
    x_W = E + R_E R_P^T (h - P), R_P = (d_P, b_P, n_P), R_E = (d_E, b_E, n_E)."""
    rf = RobotContactFrame.from_location(location)
    R = env_frame.rotation @ rf.rotation.T
    return env_frame.point + (np.asarray(location.hull, float) - rf.point) @ R.T


def _clip(points: np.ndarray, surface) -> np.ndarray:
    """The part of a convex polygon (ordered, in the surface plane) inside the surface
    (`humanoid_model.planar_polygon.clip` in the surface's frame)."""
    V = np.asarray(surface.vertices, float)
    R = surface.rotation[:, :2]
    inside = clip((points - V[0]) @ R, (V - V[0]) @ R)
    return V[0] + inside @ R.T


def _ordered(points: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """Points of a planar convex set ordered counter-clockwise about ``normal``."""
    c = points.mean(axis=0)
    t = points[0] - c if np.linalg.norm(points[0] - c) > 0 else np.cross(normal, [1.0, 0.0, 0.0])
    s = np.cross(normal, t)
    angles = [math.atan2(a, b) for a, b in zip((points - c) @ s, (points - c) @ t)]  # libm (`contact.potentials.curve`)
    return points[np.argsort(angles, kind="stable")]


def support_polygon(contacts) -> np.ndarray:
    """Horizontal support polygon (m, 2) [m], counter-clockwise, of ``contacts``: an iterable of
    ``(location, env_frame, surface_or_None)``; a surface clips its contact's hull."""
    pts = []
    for location, env_frame, surface in contacts:
        h = placed_hull(location, env_frame)
        if surface is not None:
            h = _clip(_ordered(h, env_frame.n), surface)
        pts.append(h)
    pts = np.concatenate(pts) if pts else np.zeros((0, 3))
    hull = convex_hull(pts, decimals=HULL_DECIMALS)
    if len(hull) < 3:
        raise PlanningError(f"support polygon: field 'contacts' must span an area; hull of {len(pts)} points is flat")
    return hull
