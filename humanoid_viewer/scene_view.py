"""Drawing a `humanoid_model.scene.Scene` in viser: ground, static bodies, free bodies, surfaces.

`draw_scene(scene_api, scene)` adds the nodes under ``/scene`` and returns a `SceneHandles`
(free bodies' root frames by name, which the replay moves, and the surface nodes, which the GUI
shows or hides). ``scene=None`` draws the ground grid alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from humanoid_model.exceptions import SceneError
from humanoid_viewer.markers import quat_xyzw_to_wxyz

# Display choices of ours (no physics meaning):
GRID_SIZE = 8.0  # [m] ground grid width and depth
GRID_CELL = 0.1  # [m] minor grid cell (sole-sized features stay readable)
GRID_SECTION = 1.0  # [m] major grid lines
PLANE_SIZE = 4.0  # [m] side of the square drawn for a static `plane` body
STATIC_COLOR = (176, 140, 100)  # static bodies (tables, stairs): wood-like
FREE_COLOR = (70, 130, 200)  # free bodies: blue
SURFACE_COLOR = (60, 190, 90)  # planner surfaces: green
SURFACE_OPACITY = 0.3
SURFACE_LIFT = 2e-3  # [m] surfaces are drawn this far along their normal, above their body


@dataclass
class SceneHandles:
    """The viser nodes of a drawn scene: free bodies' root frames by name, surface and static nodes."""

    free_bodies: dict[str, object] = field(default_factory=dict)
    surfaces: list[object] = field(default_factory=list)
    statics: list[object] = field(default_factory=list)


def _pose_kwargs(pose):
    return {"position": tuple(np.asarray(pose.xyz, float)), "wxyz": tuple(quat_xyzw_to_wxyz(pose.quat))}


def draw_shape(scene_api, name, shape, color, pose=None, opacity=None):
    """One `humanoid_model.scene.Shape` as a viser node (at ``pose`` in its parent frame)."""
    kw = _pose_kwargs(pose) if pose is not None else {}
    kind = shape.kind
    if kind == "box":
        return scene_api.add_box(
            name, color=color, dimensions=tuple(np.asarray(shape.size, float)), opacity=opacity, **kw
        )
    if kind == "sphere":
        return scene_api.add_icosphere(
            name, radius=float(shape.radius), color=color, opacity=opacity, subdivisions=3, **kw
        )
    if kind == "cylinder":
        return scene_api.add_cylinder(
            name, radius=float(shape.radius), height=float(shape.length), color=color, opacity=opacity, **kw
        )
    if kind == "plane":  # the frame's xy plane, outward normal +z: a square around the origin
        h = PLANE_SIZE / 2
        verts = np.array([[-h, -h, 0], [h, -h, 0], [h, h, 0], [-h, h, 0]], dtype=np.float32)
        return scene_api.add_mesh_simple(
            name,
            verts,
            np.array([[0, 1, 2], [0, 2, 3]], dtype=np.uint32),
            color=color,
            opacity=0.6 if opacity is None else opacity,
            side="double",
            **kw,
        )
    if kind == "mesh":
        import trimesh

        try:
            mesh = trimesh.load(str(shape.file), force="mesh")
        except Exception as exc:
            raise SceneError(f"{name}: cannot read mesh file {shape.file} ({exc})") from None
        if shape.scale is not None:
            mesh.apply_scale(np.asarray(shape.scale, float))
        return scene_api.add_mesh_simple(
            name,
            np.asarray(mesh.vertices, np.float32),
            np.asarray(mesh.faces, np.uint32),
            color=color,
            opacity=opacity,
            **kw,
        )
    raise SceneError(f"{name}: shape kind '{kind}' cannot be drawn")


def safe_name(name: str) -> str:
    """``name`` usable as one part of a viser node path (other characters become ``_``)."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in str(name)) or "_"


def draw_surface(scene_api, name, surface):
    """A planner surface: translucent polygon (triangle fan) lifted along its normal, and outline."""
    V = np.asarray(surface.vertices, float) + SURFACE_LIFT * np.asarray(surface.normal, float)
    faces = np.array([[0, i, i + 1] for i in range(1, len(V) - 1)], dtype=np.uint32)
    mesh = scene_api.add_mesh_simple(
        f"{name}/fill",
        V.astype(np.float32),
        faces,
        color=SURFACE_COLOR,
        opacity=SURFACE_OPACITY,
        side="double",
        cast_shadow=False,
        receive_shadow=False,
    )
    segs = np.stack([V, np.roll(V, -1, axis=0)], axis=1)
    outline = scene_api.add_line_segments(f"{name}/outline", segs, SURFACE_COLOR, thickness=0.004)
    return [mesh, outline]


def draw_scene(scene_api, scene) -> SceneHandles:
    """Draw ``scene`` (the ground grid alone when None); returns the handles."""
    handles = SceneHandles()
    ground_z = 0.0 if scene is None or scene.ground is None else float(scene.ground.height)
    if scene is None or scene.ground is not None:
        handles.statics.append(
            scene_api.add_grid(
                "/scene/ground",
                width=GRID_SIZE,
                height=GRID_SIZE,
                plane="xy",
                cell_size=GRID_CELL,
                section_size=GRID_SECTION,
                position=(0.0, 0.0, ground_z),
            )
        )
    if scene is None:
        return handles
    for body in scene.bodies:
        handles.statics.append(
            draw_shape(scene_api, f"/scene/bodies/{safe_name(body.name)}", body.shape, STATIC_COLOR, body.pose)
        )
    for fb in scene.free_bodies:
        root = scene_api.add_frame(f"/scene/free/{safe_name(fb.name)}", show_axes=False, **_pose_kwargs(fb.pose))
        for k, part in enumerate(fb.parts):
            draw_shape(
                scene_api,
                f"/scene/free/{safe_name(fb.name)}/{k}_{safe_name(part.name)}",
                part.shape,
                FREE_COLOR,
                part.pose,
            )
        handles.free_bodies[fb.name] = root
    for s in scene.surfaces:
        handles.surfaces.extend(draw_surface(scene_api, f"/scene/surfaces/{safe_name(s.name)}", s))
    return handles
