"""Triangle meshes of Pinocchio / coal geometry objects, for drawing in the viewer.

`shape_mesh(geom)` returns ``(vertices (V, 3) [m], faces (F, 3) int)`` in the geometry object's
own frame for boxes, spheres, cylinders, capsules, cones, ellipsoids, convex hulls and triangle
meshes (coal BVH models, or the mesh file read with trimesh when coal holds no triangles).
"""

from __future__ import annotations

import numpy as np

from humanoid_model.exceptions import ModelError

# Tessellation chosen for the viewer: fine enough to look round at robot scale, small enough that
# a 40-link robot sends well under a megabyte to the browser.
SPHERE_SUBDIVISIONS = 2
CYLINDER_SECTIONS = 24


def shape_mesh(geom) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and faces of a ``pin.GeometryObject``'s shape, in the shape's frame."""
    import trimesh

    from humanoid_model.coal_import import coal

    shape = geom.geometry
    name = type(shape).__name__
    if isinstance(shape, coal.Box):
        mesh = trimesh.creation.box(extents=2 * np.asarray(shape.halfSide))
    elif isinstance(shape, coal.Sphere):
        mesh = trimesh.creation.icosphere(subdivisions=SPHERE_SUBDIVISIONS, radius=shape.radius)
    elif isinstance(shape, coal.Ellipsoid):
        mesh = trimesh.creation.icosphere(subdivisions=SPHERE_SUBDIVISIONS, radius=1.0)
        mesh.apply_scale(np.asarray(shape.radii))
    elif isinstance(shape, coal.Capsule):
        mesh = trimesh.creation.capsule(
            height=2 * shape.halfLength, radius=shape.radius, count=[CYLINDER_SECTIONS, CYLINDER_SECTIONS]
        )
        mesh.apply_translation(-mesh.bounds.mean(axis=0))  # centre it, as coal's capsule is
    elif isinstance(shape, coal.Cylinder):
        mesh = trimesh.creation.cylinder(radius=shape.radius, height=2 * shape.halfLength, sections=CYLINDER_SECTIONS)
    elif isinstance(shape, coal.Cone):
        mesh = trimesh.creation.cone(radius=shape.radius, height=2 * shape.halfLength, sections=CYLINDER_SECTIONS)
        mesh.apply_translation([0.0, 0.0, -shape.halfLength])  # coal: base at -h/2, apex at +h/2
    elif isinstance(shape, coal.BVHModelBase) and shape.num_tris > 0:
        verts = np.asarray(shape.vertices(), dtype=float).reshape(-1, 3)
        faces = np.array(
            [[t[0], t[1], t[2]] for t in (shape.tri_indices(i) for i in range(shape.num_tris))], dtype=np.int64
        )
        return verts, faces
    elif isinstance(shape, coal.ConvexBase):
        pts = np.asarray(shape.points(), dtype=float).reshape(-1, 3)
        hull = trimesh.convex.convex_hull(pts)
        return np.asarray(hull.vertices), np.asarray(hull.faces)
    elif getattr(geom, "meshPath", "") and geom.meshPath not in ("BOX", "SPHERE", "CYLINDER", "CAPSULE"):
        try:
            mesh = trimesh.load(geom.meshPath, force="mesh")
        except Exception as exc:
            raise ModelError(f"geometry '{geom.name}': cannot read mesh file {geom.meshPath} ({exc})") from None
        mesh.apply_scale(np.asarray(geom.meshScale))
    else:
        raise ModelError(f"geometry '{geom.name}': shape {name} cannot be drawn")
    return np.asarray(mesh.vertices, dtype=float), np.asarray(mesh.faces, dtype=np.int64)
