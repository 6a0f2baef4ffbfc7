"""The deformable soles inside a `humanoid_sim.World` step (Chardonnet
2009, §4.3.4, eqs. (4.16)–(4.22) with the three corrections of `coupling.py`; docs/soles.md
"In the simulator").

`FemSoles` is the one object the World talks to when a scene sets ``robot.soles: fem``. Per step:

1. ``add_contacts(batch, R, p, sweep)`` (collision stage): the surface nodes of each sole,
   deformed by the sole's displacement U_s^t of the previous step, placed by the foot's joint;
   every node whose height above the flat ground is at most the activation margin becomes a point
   contact of the foot (body A) with the ground (Chardonnet 2009, §4.5: a node is in contact when it
   is below the ground, and the contact force acts at that node), appended
   to the step's `ContactBatch`. The node's gap includes U_s^t, so the contact stage's gap term
   and the solve see the deformed sole.
2. ``couple(systems, contacts)`` (after the Delassus stage, before the solve): in the foot's
   collision group, W += T K_c⁻¹ Tᵀ/dt over the sole's contact rows and v_free −= T U_c^t/dt
   (eq. 4.21 corrected: W_rigid = dt Λ, the free term is the previous contact-node
   displacement, the sole-frame node blocks rotated into the contact frames; `coupling.py`).
   K_c⁻¹ = (K_s⁻¹)_cc is a gather from the surface compliance stored once (`fem.py`). The
   same solver (NSGS-Newton by default) then solves the group.
3. ``update(forces, contacts)`` (after the solve): the node forces F_c = Tᵀ f give U_c = K_c⁻¹ F_c
   and the other surface nodes U_n = −K_nn⁻¹ K_nc U_c (eq. 4.22), both at once as
   U_s = (K_s⁻¹)_{s,c} F_c (block inversion, the identity `test_soles_fem.py` checks). Without a
   contact node the (massless, static: Chardonnet 2009, §4.3.5) sole is undeformed.

Stones (static boxes of the scene, e.g. the `gravel` scene's): a box vertex under a sole's
deformed ground face is a contact whose point is not a node (`obstacles.py`); its row of P holds
the barycentric weights of the contacted triangle (eqs 4.24–4.29), so the sole's block becomes
P K_c⁻¹ Pᵀ/dt, the free term −P U_c/dt and the node loads Pᵀ f (eqs 4.31–4.32 with the
virtual-work-consistent mapping of `distribution.py`). Node contacts are P's identity rows.

The rigid part of the foot keeps its collision shapes: the sole hangs below them by its
thickness, and the World raises the robot's initial base by that thickness
(`World._build_model`), so that the undeformed soles touch the ground. Ground: the scene's
``ground`` half-space; other static shapes than boxes are not met by the soles (docs/soles.md).

Units: W [m/s per N], f [N], U [m], dt [s].
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import message
from humanoid_sim.collision.batch import ContactBatch

from .coupling import add_coupling, node_loads
from .fem import CondensedSole, node_dofs
from .ground import append_sole_contacts, sole_frames
from .material import Layer, Material
from .mesh import box_sole
from .obstacles import box_vertices, face_vertex_contacts

__all__ = ["FemSoles", "WorldSole", "condensed_sole"]

SOURCE = "soles.world_coupling"


@lru_cache(maxsize=16)
def _condensed(length, width, layers, resolution) -> CondensedSole:
    mesh = box_sole(length, width, tuple(Layer(t, Material(E, nu)) for t, E, nu in layers), resolution)
    sole = CondensedSole(mesh)
    sole.C_s  # noqa: B018 - build K_s and its inverse now, once per geometry
    return sole


def condensed_sole(spec) -> CondensedSole:
    """The `CondensedSole` of a `humanoid_model.sole_spec.SoleSpec`, built once per geometry and
    material (cached: two mirrored feet, or two worlds, share it; it is never written to)."""
    layers = tuple((x.thickness, x.E, x.nu) for x in spec.layers)
    return _condensed(spec.length, spec.width, layers, tuple(spec.resolution))


@dataclass
class WorldSole:
    """One sole in a world: spec; sole (`CondensedSole`); joint (the foot's joint id); jR, jp: the
    sole frame in the joint frame (3 × 3, (3,) [m]); geom: the foot's mobile geometry index used
    as body A of its node contacts; mu: the friction of that geometry with the ground; X (S, 3):
    the surface nodes in the sole frame [m]; U (3S,): their displacement U_s [m] (sole frame,
    surface order: what the next step starts from; a view of `FemSoles`' one array of every sole's
    displacements, written in place); rows: the batch rows of its node contacts in
    the current step; nodes: their positions in the surface order."""

    spec: object
    sole: CondensedSole
    joint: int
    jR: np.ndarray
    jp: np.ndarray
    geom: int
    mu: float
    X: np.ndarray
    U: np.ndarray
    rows: np.ndarray
    nodes: np.ndarray
    R: np.ndarray = None  # the sole frame's world orientation in the current step
    P: np.ndarray = None  # (k, len(nodes)) distribution weights of the contacts, None: each contact is a node
    Pk: np.ndarray = None  # P ⊗ I₃ (3k, 3 len(nodes)): P on the node dofs (set and cleared with P)
    bottom: np.ndarray = None  # (T, 3) ground-face triangles, rows into the surface nodes
    radius: float = 0.0  # [m] bounding radius of the sole about its frame origin
    cache: dict = field(default_factory=dict)  # node set -> compliance gathers (`FemSoles._compliance`)


class FemSoles:
    """The soles of a world's robot (module docstring).

    specs: `SoleSpec`s; model: the combined Pinocchio model; mobile / static: the world's
    geometries (`humanoid_sim.collision.geometry`); detector: the `CollisionDetector` (margin, pair
    friction); dt [s]."""

    def __init__(self, specs, model, mobile, static, detector, dt: float):
        self.dt = float(dt)
        self.margin = float(detector.margin)
        ground = [k for k, s in enumerate(static) if s.name == "ground" and s.halfspace]
        self.ground = ground[0] if ground else None
        if self.ground is not None:
            g = static[self.ground]
            self.n = np.asarray(g.R, float)[:, 2].copy()  # outward normal of the half-space
            self.h = float(self.n @ np.asarray(g.p, float))
        from humanoid_model.coal_import import coal

        # stones: static boxes (not the ground); their vertices meet the soles' faces (obstacles.py)
        self.boxes = [
            (k, np.asarray(g.R, float), np.asarray(g.p, float), np.asarray(g.shape.halfSide, float))
            for k, g in enumerate(static)
            if not g.halfspace and isinstance(g.shape, coal.Box)
        ]
        self._mu_ms = detector._mu_ms  # pair friction, mobile × static
        self.soles: list[WorldSole] = []
        for spec in specs:
            if not model.existFrame(spec.body):
                raise ConfigError(message(SOURCE, f"soles.{spec.name}.body", "a link of the robot", spec.body))
            frame = model.frames[model.getFrameId(spec.body)]
            geoms = [k for k, g in enumerate(mobile) if g.body == spec.body]
            if not geoms:
                raise ConfigError(
                    message(SOURCE, f"soles.{spec.name}.body", "a link with a collision shape", spec.body)
                )
            sole = condensed_sole(spec)
            Rs, ps = spec.placement
            jM = frame.placement
            mu = detector._mu_ms[geoms[0]][self.ground] if self.ground is not None else 0.0
            X = sole.mesh.nodes[sole.mesh.surface_nodes]
            mesh = sole.mesh
            self.soles.append(
                WorldSole(
                    spec,
                    sole,
                    int(frame.parentJoint),
                    jM.rotation @ Rs,
                    jM.translation + jM.rotation @ ps,
                    geoms[0],
                    float(mu),
                    X,
                    np.zeros(X.size),
                    np.zeros(0, np.int64),
                    np.zeros(0, np.int64),
                    bottom=np.searchsorted(mesh.surface_nodes, mesh.bottom),
                    radius=float(np.linalg.norm(mesh.nodes, axis=1).max()),
                )
            )
        self.joints = np.array([s.joint for s in self.soles], np.int64)
        # constants of `add_contacts`: the soles' frames in their joints', surface nodes (stacked, sole
        # j's rows _start[j] .. _start[j + 1]), geometries, frictions and margins; the ground plane
        self._jR = np.array([s.jR for s in self.soles]).reshape(-1, 3, 3)
        self._jp = np.array([s.jp for s in self.soles]).reshape(-1, 3)
        self._X = np.concatenate([s.X for s in self.soles]) if self.soles else np.zeros((0, 3))
        self._start = np.cumsum([0] + [len(s.X) for s in self.soles]).astype(np.int64)
        self._start_list = self._start.tolist()
        # the displacements of every sole in one array (as `append_sole_contacts` reads them); each
        # sole's U is its view, written in place (`update`, `restore`)
        self._U = np.zeros(3 * self._X.shape[0])
        for j, s in enumerate(self.soles):
            s.U = self._U[3 * self._start_list[j] : 3 * self._start_list[j + 1]]
        self._geoms = np.array([s.geom for s in self.soles], np.int64)
        self._mus = np.array([s.mu for s in self.soles], float)
        self._margins = np.full(len(self.soles), self.margin)
        self._ground = -1 if self.ground is None else int(self.ground)
        self._n = self.n if self.ground is not None else np.zeros(3)
        self._h = self.h if self.ground is not None else 0.0
        z = np.zeros(len(self.soles) + 1, np.int64)
        self._no_stones = (np.zeros((0, 8)), np.zeros((0, 2), np.int64), z)

    @property
    def thickness(self) -> float:
        """The largest sole thickness [m] (the World raises the initial base by it)."""
        return max((s.spec.thickness for s in self.soles), default=0.0)

    # ------------------------------------------------------------------ 1. collision stage
    def add_contacts(self, batch, oMi_R, oMi_p, sweep=None):
        """The step's `ContactBatch` with the soles' contacts appended (module docstring, 1): per sole,
        the surface nodes on the flat ground, then the stones' vertices under the ground face
        (`obstacles.py`, distributed by P): the soles placed by `ground.sole_frames`, their contacts
        appended by one kernel call (`ground.append_sole_contacts`). oMi_R, oMi_p: the joints' world
        placements (`CollisionDetector.joint_placements`); sweep: None or (n_mobile,) travel of each
        shape in the step [m] (widens the margin)."""
        if not self.soles:
            return batch
        R, p = sole_frames(oMi_R, oMi_p, self.joints, self._jR, self._jp)
        margins = self._margins if sweep is None else np.maximum(self.margin, sweep[self._geoms])
        stones, found = self._no_stones, None
        if self.boxes:
            stones, found = self._stones(R, p, margins)
        slot = batch.slot if batch.slot is not None else np.zeros(batch.m, np.int64)
        fields = (batch.geom_a, batch.geom_b, batch.b_static, batch.points, batch.normals, batch.gaps)
        fields += (batch.mu, batch.e, slot)
        args = (self._X, self._U, self._start, R, p, self._n, self._h, self._ground, margins, self._geoms, self._mus)
        out, hit, counts = append_sole_contacts(fields, *args, stones)
        nodes, contacts = counts.tolist()
        m = batch.m
        for j, s in enumerate(self.soles):
            s.R = R[j]
            a = self._start_list[j]
            s.nodes, s.P, s.Pk = hit[a : a + nodes[j]], None, None
            if found is not None and found[j] is not None:
                self._distribution(s, *found[j])
            s.rows = np.arange(m, m + contacts[j])
            m += contacts[j]
        return batch if m == batch.m else ContactBatch(*out)

    def _stones(self, R, p, margins):
        """(stones, found): the stones' vertices under each sole's deformed ground face
        (`obstacles.py`) as the ``stones`` argument of `append_sole_contacts` (point, normal: the
        sole's z axis, gap, mu; the box's static index, slot 1 000 000 (box + 1) + vertex), and per
        sole None or its contacted triangles and barycentric weights (eqs 4.24–4.29)."""
        f, i, rows, found = [], [], [0], []
        for j, s in enumerate(self.soles):
            Xd = s.X + s.U.reshape(-1, 3)
            tris, weights = [], []
            for k, Rb, pb, half in self.boxes:
                if np.linalg.norm(pb - p[j]) > s.radius + np.linalg.norm(half) + margins[j]:
                    continue
                V = box_vertices(Rb, pb, half)
                idx, tri, w, g = face_vertex_contacts((V - p[j]) @ R[j], Xd, s.bottom, margins[j])
                if len(idx):
                    c = len(idx)
                    f.append(
                        np.column_stack([V[idx], np.tile(R[j][:, 2], (c, 1)), g, np.full(c, self._mu_ms[s.geom][k])])
                    )
                    i.append(np.column_stack([np.full(c, k), 1_000_000 * (k + 1) + idx]))
                    tris.append(tri)
                    weights.append(w)
            rows.append(rows[-1] + sum(len(t) for t in tris))
            found.append((np.concatenate(tris), np.concatenate(weights)) if tris else None)
        if not f:
            return self._no_stones, None
        return (np.concatenate(f), np.concatenate(i).astype(np.int64), np.array(rows, np.int64)), found

    @staticmethod
    def _distribution(s, tri, w):
        """s.nodes and s.P of sole s with stone contacts on triangles tri (c, 3), weights w (c, 3)
        after its node contacts s.nodes (P, eqs 4.27–4.29: identity rows for the node contacts,
        barycentric rows for the stones)."""
        hit = s.nodes
        nodes = np.unique(np.concatenate([hit, tri.ravel()]))
        P = np.zeros((len(hit) + len(tri), len(nodes)))
        P[np.arange(len(hit)), np.searchsorted(nodes, hit)] = 1.0
        rows = len(hit) + np.arange(len(tri))
        for j in range(3):
            np.add.at(P, (rows, np.searchsorted(nodes, tri[:, j])), w[:, j])
        s.nodes, s.P, s.Pk = nodes, P, np.kron(P, np.eye(3))

    # ------------------------------------------------------------------ 2. before the solve
    @staticmethod
    def _span(s) -> slice:
        """The batch rows of sole s's contacts (contiguous, `add_contacts`)."""
        a = int(s.rows[0])
        return slice(a, a + s.rows.shape[0])

    @staticmethod
    def _compliance(s):
        """(K_c⁻¹ (3k, 3k), (K_s⁻¹)_{s,c} (3S, 3k)) of the sole's current contact nodes: gathers
        from C_s = K_s⁻¹ (`fem.py`), kept per node set (a standing foot keeps its set)."""
        key = s.nodes.tobytes()
        hit = s.cache.get(key)
        if hit is None:
            c = node_dofs(s.nodes)
            Cs = s.sole.C_s
            hit = (Cs[np.ix_(c, c)], np.ascontiguousarray(Cs[:, c]), c)
            if len(s.cache) >= 256:  # a walking foot visits many sets: keep the memory bounded
                s.cache.clear()
            s.cache[key] = hit
        return hit

    def couple(self, systems, contacts):
        """Add each sole's compliance and free term to its group's W and v_free, in place
        (module docstring, 2). systems: the step's `GroupSystem`s; contacts: its `StepContacts`."""
        for s in self.soles:
            if not s.rows.shape[0]:
                continue
            first = int(s.rows[0])
            for g in systems:
                a = first  # one group holds every contact (index a slice), in batch order
                if not isinstance(g.index, slice):  # the group's contacts ascend, the sole's rows among them
                    rows = g.index[: g.nc]
                    a = int(np.searchsorted(rows, first))
                    if a == rows.shape[0] or rows[a] != first:
                        continue
                C, _, c = self._compliance(s)
                Uc = s.U[c]
                if s.P is not None:  # contacts between nodes: P K_c⁻¹ Pᵀ and P U (eqs 4.31–4.32)
                    C, Uc = s.Pk @ C @ s.Pk.T, s.Pk @ Uc
                # T C Tᵀ/dt and −T U_c/dt, T = blockdiag(F_i R), added block by block (`coupling.py`)
                add_coupling(g.W, g.v_free, 3 * a, C, contacts.frames[self._span(s)], s.R, Uc, self.dt)
                break

    # ------------------------------------------------------------------ 3. after the solve
    def update(self, forces, contacts):
        """U_s of every sole from the step's contact forces (m, 3) [N] in the contact frames
        (module docstring, 3)."""
        for s in self.soles:
            if not s.rows.shape[0]:
                s.U[:] = 0.0
                continue
            np.dot(self._compliance(s)[1], self._node_loads(s, forces, contacts.frames), out=s.U)

    def _node_loads(self, s, forces, frames) -> np.ndarray:
        """(3n,) the forces on the sole's contact nodes [N], sole frame: Pᵀ Tᵀ f (Pᵀ: the
        virtual-work-consistent mapping, `distribution.py`)."""
        span = self._span(s)
        F = node_loads(forces[span], frames[span], s.R)  # Tᵀ f
        return F if s.P is None else s.Pk.T @ F

    # ------------------------------------------------------------------ outputs and state
    def node_forces(self, forces, frames) -> list[np.ndarray]:
        """Per sole, (S, 3) the ground's and stones' forces on its surface nodes [N] in the sole
        frame, of the last step's contact forces (m, 3) and frames (m, 3, 3) (`World.last`)."""
        out = []
        for s in self.soles:
            F = np.zeros((s.X.shape[0], 3))
            if s.rows.shape[0]:
                F[s.nodes] = self._node_loads(s, forces, frames).reshape(-1, 3)
            out.append(F)
        return out

    def surface_points(self, model, q) -> dict[str, np.ndarray]:
        """sole name -> (V, 3) world points [m] of the vertices of its surface triangles (the
        surface nodes, deformed by the last step's displacements, and the fixed top-edge nodes)
        at configuration q of the combined ``model``, for viewers and recordings."""
        import pinocchio as pin

        data = model.createData()
        pin.forwardKinematics(model, data, q)
        out = {}
        for s in self.soles:
            mesh = s.sole.mesh
            oMi = data.oMi[s.joint]
            R, p = oMi.rotation @ s.jR, oMi.translation + oMi.rotation @ s.jp
            U = np.zeros_like(mesh.nodes)
            U[mesh.surface_nodes] = s.U.reshape(-1, 3)
            v = np.unique(mesh.surface)
            out[s.spec.name] = p + (mesh.nodes[v] + U[v]) @ R.T
        return out

    def surface_triangles(self) -> dict[str, dict]:
        """sole name -> {"body": its link, "triangles": (T, 3) its surface triangles (outward) as
        rows of `surface_points`} (JSON-ready lists)."""
        out = {}
        for s in self.soles:
            mesh = s.sole.mesh
            tri = np.searchsorted(np.unique(mesh.surface), mesh.surface)
            out[s.spec.name] = {"body": s.spec.body, "triangles": tri.tolist()}
        return out

    def memory(self) -> list[np.ndarray]:
        """What the next step depends on: the displacements U_s (copies)."""
        return [s.U.copy() for s in self.soles]

    def restore(self, memory) -> None:
        """Restore a `memory` of soles of the same meshes."""
        if (
            memory is None
            or len(memory) != len(self.soles)
            or any(np.shape(u) != s.U.shape for u, s in zip(memory, self.soles, strict=False))
        ):
            raise ConfigError("world: set_state: the snapshot's soles differ from this world's")
        for s, u in zip(self.soles, memory, strict=True):
            s.U[:] = np.asarray(u, float)
