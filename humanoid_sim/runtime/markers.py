"""ROS-free geometry of the simulator's /contacts markers, as plain arrays.

`contact_markers(points, frames, forces_local, mu)` gives, for the contacts of one step, in the
world frame [m]:

* ``points`` (m, 3): the contact points (drawn as one SPHERE_LIST);
* ``arrows`` (m, 2, 3): start = contact point, end = point + ``force_scale`` · f, with f the world
  force on body A (the robot or a free body) [N] (one ARROW per contact);
* ``cones`` (m·k·3, 3): a TRIANGLE_LIST of the friction cones: apex at the contact point, axis the
  contact normal n (pointing into body A), height ``force_scale`` · f_n and base radius
  μ · height, so a force inside its Coulomb cone (‖f_t‖ ≤ μ f_n) is an arrow inside its cone and
  a sliding contact's arrow lies on the cone's surface. k = ``CONE_SEGMENTS`` side triangles.

``force_scale`` [m/N] is a node parameter (default `FORCE_SCALE`, the convention shared with the
viewer in `humanoid_model.display`). Contacts carrying less than ``min_force`` [N] get no arrow
and no cone (a zero-size arrow cannot be drawn). `step_contact_markers(world.last)` gives them
for a world's last step.

With FEM soles (docs/soles.md) ``soles`` (3T, 3) is a TRIANGLE_LIST of every sole's deformed
surface (`sole_triangles`), world frame [m], drawn by the viewer as the soles' mesh.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from humanoid_model.display import FORCE_SCALE  # [m/N] the shared default (re-exported)

__all__ = [
    "ContactMarkers",
    "contact_markers",
    "step_contact_markers",
    "sole_triangles",
    "FORCE_SCALE",
    "CONE_SEGMENTS",
]

CONE_SEGMENTS = 12  # side triangles per cone (chosen: smooth enough, 36 points per cone)
MIN_FORCE = 1e-3  # [N] below this a contact is drawn as a point only (chosen)


@dataclass
class ContactMarkers:
    """The world-frame geometry of one step's /contacts markers [m] (see the module docstring)."""

    points: np.ndarray  # (m, 3)
    arrows: np.ndarray  # (k, 2, 3), k <= m
    cones: np.ndarray  # (3 · CONE_SEGMENTS · k, 3)
    soles: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))  # (3 T, 3) deformed sole surfaces


def contact_markers(
    points, frames, forces_local, mu, force_scale: float = FORCE_SCALE, min_force: float = MIN_FORCE
) -> ContactMarkers:
    """points (m, 3) [m]; frames (m, 3, 3) rows (n, t1, t2) in the world; forces_local (m, 3)
    (f_n, f_t1, f_t2) [N]; mu (m,) friction coefficients. See the module docstring."""
    P = np.asarray(points, float).reshape(-1, 3)
    F = np.asarray(frames, float).reshape(-1, 3, 3)
    fl = np.asarray(forces_local, float).reshape(-1, 3)
    mu = np.broadcast_to(np.asarray(mu, float), (P.shape[0],))
    fw = np.einsum("mi,mij->mj", fl, F)  # world force on body A
    on = np.linalg.norm(fl, axis=1) > min_force
    arrows = np.stack([P[on], P[on] + force_scale * fw[on]], axis=1) if on.any() else np.zeros((0, 2, 3))
    cone = on & (fl[:, 0] > min_force)
    tris = []
    ang = np.linspace(0.0, 2 * np.pi, CONE_SEGMENTS + 1)
    for c in np.flatnonzero(cone):
        n, t1, t2 = F[c]
        h = force_scale * fl[c, 0]
        r = mu[c] * h
        rim = P[c] + h * n + r * (np.cos(ang)[:, None] * t1 + np.sin(ang)[:, None] * t2)
        for i in range(CONE_SEGMENTS):
            tris.extend([P[c], rim[i], rim[i + 1]])
    cones = np.array(tris) if tris else np.zeros((0, 3))
    return ContactMarkers(P.copy(), arrows, cones)


def step_contact_markers(result, force_scale: float = FORCE_SCALE) -> ContactMarkers:
    """The markers of the contacts of one step: ``result`` is a `humanoid_sim.state.StepResult`
    (``World.last``; None before the first step gives empty markers); force_scale [m/N]."""
    if result is None or result.batch.m == 0:
        return contact_markers(np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros((0, 3)), np.zeros(0))
    return contact_markers(result.batch.points, result.frames, result.forces, result.batch.mu, force_scale=force_scale)


def sole_triangles(soles, model, q) -> np.ndarray:
    """(3 T, 3) world points [m] of the surface triangles of every FEM sole (a TRIANGLE_LIST:
    three vertices per triangle, outward), deformed by the last step's displacements: ``soles`` is
    a world's `humanoid_sim.soles.world_coupling.FemSoles`, at configuration q of its ``model``."""
    points = soles.surface_points(model, q)
    tris = soles.surface_triangles()
    parts = [points[name][np.asarray(tris[name]["triangles"]).reshape(-1)] for name in points]
    return np.vstack(parts) if parts else np.zeros((0, 3))
