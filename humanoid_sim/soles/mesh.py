"""Tetrahedral meshes of a box sole (Chardonnet 2009, §4.3.1:
nodes, surface triangles and tetrahedra; the 22 × 13 × 2 cm block of §4.4).

    mesh = box_sole()  # 22 × 13 × 2 cm, E = 3 MPa, ν = 0.4, 1 cm elements
    mesh = box_sole(layers=(Layer(0.01, Material(3e6, 0.25)), Layer(0.01, Material(1e6, 0.25))))
    mesh.nodes (N, 3) [m], mesh.tets (M, 4), mesh.E / mesh.nu (M,), mesh.top, mesh.surface_nodes, ...

Sole frame (chosen): x forward (length), y left (width), z up; the origin is the centre of the
top face, the foot interface (z = 0, the Dirichlet nodes); the ground side is the face z = −h.

Two generators fill the same `SoleMesh` (`SoleMesh.from_arrays` classifies the nodes and
triangles by geometry, so the stiffness depends only on nodes, tetrahedra and materials):
- `box_sole`: structured. Each box cell of the grid is cut into the 6 Kuhn (Freudenthal)
  tetrahedra along its main diagonal, which is conforming between neighbouring cells.
- `gmsh_box_sole` / `from_gmsh`: through the gmsh Python API (PyPI `gmsh`, optional; imported only
  inside these functions). Not in `.venv` at the time of writing: `test_soles_fem.py` skips its test.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import finite_number, finite_vector, message

from .material import RUBBER, Layer

__all__ = ["SoleMesh", "box_sole", "gmsh_box_sole", "from_gmsh", "LENGTH", "WIDTH", "THICKNESS", "RESOLUTION"]

LENGTH, WIDTH, THICKNESS = 0.22, 0.13, 0.02  # [m] the thesis's sole block (Chardonnet 2009, §4.4)
RESOLUTION = 0.01  # [m] default element edge (chosen: 23 × 14 × 3 nodes, K_s of 1176 dofs, ~0.1 s to build)

_FACES = ((1, 2, 3), (0, 3, 2), (0, 1, 3), (0, 2, 1))  # face k is opposite vertex k, outward for positive tets


@dataclass(frozen=True)
class SoleMesh:
    """A tetrahedral sole mesh in the sole frame (module docstring).

    nodes (N, 3) [m]; tets (M, 4) node indices, positive orientation; E (M,) [Pa], nu (M,) [-]
    per element; layer (M,) index of each element's layer (top = 0); top (sorted node indices on
    the foot interface z = 0: the Dirichlet nodes); boundary (B, 3) outward boundary triangles;
    surface (S, 3) the boundary triangles not on the top face (where contacts can be);
    surface_nodes (sorted nodes of `surface` not on the top: the nodes kept by 4.12–4.14);
    bottom / bottom_nodes: triangles and nodes of the ground face z = −thickness."""

    nodes: np.ndarray
    tets: np.ndarray
    E: np.ndarray
    nu: np.ndarray
    layer: np.ndarray
    top: np.ndarray
    boundary: np.ndarray
    surface: np.ndarray
    surface_nodes: np.ndarray
    bottom: np.ndarray
    bottom_nodes: np.ndarray
    thickness: float

    @classmethod
    def from_arrays(cls, nodes, tets, E, nu, layer=None, source="soles.mesh") -> SoleMesh:
        """Classify a mesh whose top face is z = 0 and ground face z = min z: orient the tets,
        find the boundary triangles (faces of one tetrahedron only) and the node sets."""
        X = np.ascontiguousarray(nodes, dtype=float)
        T = np.array(tets, dtype=np.int64)
        if X.ndim != 2 or X.shape[1] != 3 or T.ndim != 2 or T.shape[1] != 4 or len(T) == 0:
            raise ConfigError(message(source, "nodes/tets", "(N, 3) nodes and (M, 4) tets, M > 0", (X.shape, T.shape)))
        a, b, c, d = (X[T[:, k]] for k in range(4))
        vol6 = np.einsum("ij,ij->i", np.cross(b - a, c - a), d - a)
        if np.any(np.abs(vol6) <= 1e-15 * np.max(np.abs(vol6))):
            raise ConfigError(message(source, "tets", "non-degenerate tetrahedra", int(np.argmin(np.abs(vol6)))))
        T[vol6 < 0] = T[vol6 < 0][:, [0, 2, 1, 3]]
        faces = np.concatenate([T[:, f] for f in _FACES])
        key = np.sort(faces, axis=1)
        _, inv, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
        boundary = faces[counts[inv.ravel()] == 1]
        h = float(-X[:, 2].min())
        tol = 1e-9 * max(h, 1e-12)
        on_top = X[:, 2] >= -tol
        on_bottom = X[:, 2] <= -h + tol
        surface = boundary[~np.all(on_top[boundary], axis=1)]
        bottom = boundary[np.all(on_bottom[boundary], axis=1)]
        s_nodes = np.unique(surface)
        E = np.broadcast_to(np.asarray(E, dtype=float), (len(T),)).copy()
        nu = np.broadcast_to(np.asarray(nu, dtype=float), (len(T),)).copy()
        lay = np.zeros(len(T), np.int64) if layer is None else np.asarray(layer, dtype=np.int64)
        return cls(
            nodes=X,
            tets=T,
            E=E,
            nu=nu,
            layer=lay,
            top=np.flatnonzero(on_top),
            boundary=boundary,
            surface=surface,
            surface_nodes=s_nodes[~on_top[s_nodes]],
            bottom=bottom,
            bottom_nodes=np.unique(bottom),
            thickness=h,
        )

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)


def _check_layers(layers, source):
    layers = tuple(layers)
    if not layers or not all(isinstance(x, Layer) for x in layers):
        raise ConfigError(message(source, "layers", "a non-empty sequence of soles.Layer", layers))
    return layers


def _divisions(extent: float, resolution: float) -> int:
    return max(1, math.ceil(extent / resolution - 1e-9))


def _resolution(resolution, source) -> tuple[float, float, float]:
    """(rx, ry, rz) [m] of one target edge or one per axis, each > 0."""
    if isinstance(resolution, (int, float, np.integer, np.floating)) and not isinstance(resolution, bool):
        r = finite_number(resolution, source, "resolution", minimum=0.0, strict=True, unit="m")
        return r, r, r
    r = finite_vector(resolution, 3, source, "resolution")
    if np.any(r <= 0):
        raise ConfigError(message(source, "resolution", "one or three lengths > 0 [m]", resolution))
    return float(r[0]), float(r[1]), float(r[2])


def box_sole(length=LENGTH, width=WIDTH, layers=None, resolution=RESOLUTION, source="soles.box_sole") -> SoleMesh:
    """Structured Kuhn-tetrahedral mesh of a length × width box [m] made of `layers` (top first;
    default one 2 cm layer of `RUBBER`). `resolution` [m] > 0 is the target element edge, one value
    or one per axis (x, y, z): each extent is cut into ceil(extent / resolution) equal cells, each
    layer into at least one."""
    length = finite_number(length, source, "length", minimum=0.0, strict=True, unit="m")
    width = finite_number(width, source, "width", minimum=0.0, strict=True, unit="m")
    rx, ry, rz = _resolution(resolution, source)
    layers = _check_layers((Layer(THICKNESS, RUBBER),) if layers is None else layers, source)
    nx, ny = _divisions(length, rx), _divisions(width, ry)
    z, lay_of_cell, top_z = [0.0], [], 0.0
    for i, lay in enumerate(layers):
        nz = _divisions(lay.thickness, rz)
        z += list(top_z - lay.thickness * np.arange(1, nz + 1) / nz)
        lay_of_cell += [i] * nz
        top_z -= lay.thickness
    z = np.array(z[::-1])  # ascending; cell k spans z[k]..z[k+1]
    lay_of_cell = np.array(lay_of_cell[::-1])
    nz = len(z) - 1
    xs, ys = np.linspace(-length / 2, length / 2, nx + 1), np.linspace(-width / 2, width / 2, ny + 1)
    X, Y, Z = np.meshgrid(xs, ys, z, indexing="ij")
    nodes = np.stack([X.ravel(), Y.ravel(), Z.ravel()], axis=1)

    def nid(i, j, k):
        return (i * (ny + 1) + j) * (nz + 1) + k

    I, J, K = (g.ravel() for g in np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij"))
    tets = []
    for perm in itertools.permutations(range(3)):  # the 6 Kuhn tetrahedra of a cell
        off, verts = np.zeros(3, np.int64), [np.zeros(3, np.int64)]
        for axis in perm:
            off = off.copy()
            off[axis] = 1
            verts.append(off)
        tets.append(np.stack([nid(I + v[0], J + v[1], K + v[2]) for v in verts], axis=1))
    tets = np.concatenate(tets)
    cell_layer = np.tile(lay_of_cell[K], 6)
    E = np.array([lay.material.E for lay in layers])[cell_layer]
    nu = np.array([lay.material.nu for lay in layers])[cell_layer]
    return SoleMesh.from_arrays(nodes, tets, E, nu, cell_layer, source)


def from_gmsh(layers, source="soles.from_gmsh") -> SoleMesh:
    """The `SoleMesh` of the current gmsh model (gmsh initialised by the caller): all nodes,
    the 4-node tetrahedra (type 4) and, per element, the layer of its volume's physical group
    tag (tag i + 1 = layers[i], top first; no physical groups: one layer). Nodes in the sole
    frame (top face z = 0)."""
    import gmsh

    layers = _check_layers(layers, source)
    tags, coords, _ = gmsh.model.mesh.getNodes()
    index = {int(t): i for i, t in enumerate(tags)}
    nodes = np.asarray(coords, dtype=float).reshape(-1, 3)
    tets, lay = [], []
    for dim, vol in gmsh.model.getEntities(3):
        phys = gmsh.model.getPhysicalGroupsForEntity(dim, vol)
        li = int(phys[0]) - 1 if len(phys) and 1 <= int(phys[0]) <= len(layers) else 0
        etypes, _, enodes = gmsh.model.mesh.getElements(dim, vol)
        for et, en in zip(etypes, enodes, strict=True):
            if et == 4:
                t = np.array([index[int(n)] for n in en], dtype=np.int64).reshape(-1, 4)
                tets.append(t)
                lay.append(np.full(len(t), li))
    tets, lay = np.concatenate(tets), np.concatenate(lay)
    E = np.array([x.material.E for x in layers])[lay]
    nu = np.array([x.material.nu for x in layers])[lay]
    return SoleMesh.from_arrays(nodes, tets, E, nu, lay, source)


def gmsh_box_sole(length=LENGTH, width=WIDTH, layers=None, resolution=RESOLUTION, source="soles.gmsh_box_sole"):
    """Unstructured gmsh tetrahedral mesh of the same box as `box_sole` (one OCC box per layer,
    fragmented so that the interfaces are conforming; characteristic length `resolution`)."""
    import gmsh

    length = finite_number(length, source, "length", minimum=0.0, strict=True, unit="m")
    width = finite_number(width, source, "width", minimum=0.0, strict=True, unit="m")
    resolution = finite_number(resolution, source, "resolution", minimum=0.0, strict=True, unit="m")
    layers = _check_layers((Layer(THICKNESS, RUBBER),) if layers is None else layers, source)
    gmsh.initialize()
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.model.add("sole")
        top, boxes = 0.0, []
        for lay in layers:
            boxes.append(
                gmsh.model.occ.addBox(-length / 2, -width / 2, top - lay.thickness, length, width, lay.thickness)
            )
            top -= lay.thickness
        if len(boxes) > 1:
            gmsh.model.occ.fragment([(3, b) for b in boxes[:1]], [(3, b) for b in boxes[1:]])
        gmsh.model.occ.synchronize()
        for dim, vol in gmsh.model.getEntities(3):
            zc = gmsh.model.occ.getCenterOfMass(dim, vol)[2]
            edges = -np.cumsum([0.0] + [x.thickness for x in layers])
            li = int(np.flatnonzero((zc <= edges[:-1]) & (zc >= edges[1:]))[0])
            gmsh.model.addPhysicalGroup(3, [vol], li + 1)
        gmsh.option.setNumber("Mesh.CharacteristicLengthMax", resolution)
        gmsh.model.mesh.generate(3)
        return from_gmsh(layers, source)
    finally:
        gmsh.finalize()
