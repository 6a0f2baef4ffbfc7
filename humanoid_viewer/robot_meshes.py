"""The robot drawn in the viewer: one viser mesh per geometry object of its visual model (its
collision model when it has no visual geometry), in the URDF's colours or in one colour (the
pilot's translucent "phantom" robot), placed at a configuration with ``pin.updateGeometryPlacements``.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_model.exceptions import ModelError
from humanoid_viewer.geometry import shape_mesh
from humanoid_viewer.markers import rotation_to_wxyz

__all__ = [
    "DEFAULT_ROBOT_COLOR",
    "PHANTOM_COLOR",
    "PHANTOM_OPACITY",
    "drawn_geometry",
    "add_robot_meshes",
    "place_meshes",
]

# Choices of ours (display only, no physics):
DEFAULT_ROBOT_COLOR = (0.75, 0.75, 0.78, 1.0)  # links without a URDF material colour
PHANTOM_COLOR = (80, 160, 255)  # (chosen) the commanded robot: light blue, as MoveIt's goal state
PHANTOM_OPACITY = 0.35  # (chosen) translucent, so the measured robot stays visible inside it


def drawn_geometry(robot) -> pin.GeometryModel:
    """The geometry model drawn for ``robot``: its visual model, or its collision model when the
    visual one is empty."""
    vm = robot.visual_model
    return vm if vm.ngeoms > 0 else robot.collision_model


def add_robot_meshes(scene, geometry: pin.GeometryModel, root: str, color=None, opacity=None) -> list:
    """One mesh per drawable object of ``geometry`` under the viser ``scene`` node ``root``;
    ``color`` (RGB 0-255) and ``opacity`` override the URDF's (the phantom). Returns
    [(geometry index, handle)]."""
    handles = []
    for i, geom in enumerate(geometry.geometryObjects):
        try:
            verts, faces = shape_mesh(geom)
        except ModelError:
            continue  # planes/half-spaces or unreadable meshes: nothing to draw
        rgb, alpha = color, opacity
        if color is None:
            c = np.asarray(geom.meshColor, dtype=float)
            if not getattr(geom, "overrideMaterial", False) and np.allclose(c, [0.9, 0.9, 0.9, 1.0]):
                c = np.asarray(DEFAULT_ROBOT_COLOR)
            rgb = tuple(int(round(255 * x)) for x in np.clip(c[:3], 0, 1))
            alpha = None if c[3] >= 1 else float(c[3])
        safe = geom.name.replace("/", "_")
        h = scene.add_mesh_simple(
            f"{root}/{i:03d}_{safe}",
            verts.astype(np.float32),
            faces.astype(np.uint32),
            color=rgb,
            opacity=alpha,
            flat_shading=False,
        )
        handles.append((i, h))
    return handles


def place_meshes(server, model, data, geometry, geometry_data, handles, q) -> None:
    """Send the placements of ``handles``' geometries at configuration ``q`` (``data`` and
    ``geometry_data`` are updated), in one atomic update of ``server``."""
    pin.forwardKinematics(model, data, q)
    pin.updateGeometryPlacements(model, data, geometry, geometry_data)
    with server.atomic():
        for i, h in handles:
            M = geometry_data.oMg[i]
            h.position = tuple(M.translation)
            h.wxyz = tuple(rotation_to_wxyz(M.rotation))
