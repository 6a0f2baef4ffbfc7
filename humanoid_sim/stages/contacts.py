"""Contact stage (Chardonnet 2009, §3.1.4.1, §3.2.5): contact frames, contact
descriptions, relative contact Jacobians, collision groups and the per-contact data of a step.

Conventions (shared with `humanoid_sim.delassus` and `humanoid_sim.solvers`): each contact has rows
(n, t1, t2) in the world frame, n pointing from body B into body A, so the relative velocity v_c =
R_c (v_A(p) − v_B(p)) has v_n > 0 when separating. Body A is always mobile; B is mobile or the fixed
environment (joint 0). The contact-frame velocity of the material point at p_c of a body moving with
the world-origin spatial velocity (v_O, ω) is X_c (v_O, ω) with X_c = R_c [I3, −skew(p_c)]
(`contact_projectors`: the unit contact wrench of Chardonnet 2009, eq. (3.38)); the relative
Jacobian stacks X_c (S_A − S_B) J_world (`relative_jacobian`: the difference of the two bodies'
projected velocities, Chardonnet 2009, §3.1.4.1). This is the one implementation of frames and
Jacobians: `humanoid_sim.delassus`, the recursive algorithms and the World all use it.

Collision groups (Chardonnet 2009, §3.2.5): connected components of the graph whose vertices are the mobile trees
(the robot, each free body) and whose edges are contacts between two mobile trees. The fixed
environment joins no group. Each group gets one Delassus matrix and one solve.

Gap stabilisation (our addition; the thesis has none: its time-stepping tolerates small
penetrations, Chardonnet 2009, §2.5.2.3): the normal row of the
free velocity gets a term c_n so that the solver enforces v_n⁺ + c_n ≥ 0:

* gap ≥ 0 (within the activation margin): c_n = gap/dt. No force acts until the body would
  reach the surface during this step; the contact then closes the gap exactly (the "speculative"
  form of the Anitescu–Hart constraint v_n⁺ ≥ −φ/dt, Chardonnet 2009, §2.5.2.2, eqs. (2.66)–(2.68)).
* gap < 0 (penetration): c_n = β·gap/dt with ``BETA = 0.2``: a fifth of the penetration is
  removed per step (a bounded Baumgarte/ERP term, chosen as in the Pinocchio loop of
  `benchmarks/sim_step.py`). Penetration therefore decays geometrically and stays bounded.

The stage of a World step (`ContactStage`): frames of the batch's normals, per contact the
joints and trees of both bodies, the warm-start key and point (`humanoid_sim.stages.warm_start`), the
gap term, and the collision groups, as one `StepContacts`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin
from numba import njit

from humanoid_model.exceptions import SolverError

__all__ = [
    "contacts",
    "BETA",
    "frame_from_normal",
    "frames_from_normals",
    "ContactSet",
    "contacts_from_locations",
    "support_masks",
    "contact_projectors",
    "relative_jacobian",
    "contact_jacobian",
    "Group",
    "collision_groups",
    "gap_term",
    "ContactStage",
    "StepContacts",
]

BETA = 0.2  # fraction of a penetration removed per step (chosen, see module docstring)


# --------------------------------------------------------------------------- frames
def frame_from_normal(n) -> np.ndarray:
    """3×3 rows (n, t1, t2) of one normal (`frames_from_normals`)."""
    return frames_from_normals(n)[0]


def frames_from_normals(normals) -> np.ndarray:
    """(m, 3, 3) frames with rows (n, t1, t2), n normalised; t1 = a × n normalised, with a the
    world axis least aligned with n (the first one on ties); t2 = n × t1 (our convention)."""
    return _frames(np.ascontiguousarray(np.asarray(normals, float).reshape(-1, 3)))


@njit(cache=True)
def _frames(N):
    m = N.shape[0]
    F = np.empty((m, 3, 3))
    for c in range(m):
        n0, n1, n2 = N[c, 0], N[c, 1], N[c, 2]
        s = np.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
        n0, n1, n2 = n0 / s, n1 / s, n2 / s
        a0, a1, a2 = abs(n0), abs(n1), abs(n2)
        # t1 = axis × n with axis the least aligned world axis (first minimum, as np.argmin)
        if a0 <= a1 and a0 <= a2:
            t0, t1_, t2_ = 0.0, -n2, n1  # e_x × n
        elif a1 <= a2:
            t0, t1_, t2_ = n2, 0.0, -n0  # e_y × n
        else:
            t0, t1_, t2_ = -n1, n0, 0.0  # e_z × n
        u = np.sqrt(t0 * t0 + t1_ * t1_ + t2_ * t2_)
        t0, t1_, t2_ = t0 / u, t1_ / u, t2_ / u
        F[c, 0, 0], F[c, 0, 1], F[c, 0, 2] = n0, n1, n2
        F[c, 1, 0], F[c, 1, 1], F[c, 1, 2] = t0, t1_, t2_
        F[c, 2, 0] = n1 * t2_ - n2 * t1_
        F[c, 2, 1] = n2 * t0 - n0 * t2_
        F[c, 2, 2] = n0 * t1_ - n1 * t0
    return F


# --------------------------------------------------------------------------- contact descriptions
@dataclass(frozen=True)
class ContactSet:
    """The contacts of one collision group, as the Delassus paths take them.

    joint_a: (m,) int, Pinocchio joint id of body A (must be > 0: a mobile body).
    joint_b: (m,) int, joint id of body B, 0 for the fixed environment.
    points:  (m, 3) contact points in the world frame [m].
    frames:  (m, 3, 3) rows (n, t1, t2) in the world frame, orthonormal, n from B into A.
    """

    joint_a: np.ndarray
    joint_b: np.ndarray
    points: np.ndarray
    frames: np.ndarray

    @classmethod
    def make(cls, joint_a, points, frames, joint_b=None, source="ContactSet"):
        """Validated constructor; `frames` may also be (m, 3) normals (tangents then chosen by
        `frames_from_normals`). Bad input raises `SolverError` naming the field."""
        ja = np.atleast_1d(np.asarray(joint_a, dtype=np.int64))
        m = ja.shape[0]
        jb = np.zeros(m, np.int64) if joint_b is None else np.atleast_1d(np.asarray(joint_b, np.int64))
        pts = np.asarray(points, dtype=float).reshape(-1, 3) if m else np.zeros((0, 3))
        fr = np.asarray(frames, dtype=float)
        if fr.ndim == 2 and fr.shape == (m, 3):
            fr = frames_from_normals(fr)
        if jb.shape != (m,) or pts.shape != (m, 3) or fr.shape != (m, 3, 3):
            raise SolverError(
                f"{source}: field 'points'/'frames'/'joint_b' must have {m} rows matching joint_a; "
                f"got points {pts.shape}, frames {fr.shape}, joint_b {jb.shape}"
            )
        if m and (ja.min() < 1):
            raise SolverError(f"{source}: field 'joint_a' must hold mobile joint ids (> 0); value {ja.tolist()}")
        if not (np.all(np.isfinite(pts)) and np.all(np.isfinite(fr))):
            raise SolverError(f"{source}: field 'points'/'frames' contains NaN or inf")
        if m and np.abs(np.einsum("kij,klj->kil", fr, fr) - np.eye(3)).max() > 1e-8:
            raise SolverError(f"{source}: field 'frames' rows (n, t1, t2) are not orthonormal")
        return cls(ja, jb, pts, fr)

    @property
    def m(self) -> int:
        """Number of contacts."""
        return int(self.joint_a.shape[0])


def contacts_from_locations(robot, data, q, names) -> ContactSet:
    """ContactSet of the hull corners of the robot's named contact locations (DEVELOPERS.md
    `ContactLocation`) against the fixed environment, at configuration q. The location's
    `normal` (inward into the robot body) becomes n (from the environment B into body A)."""
    model = robot.model
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    ja, pts, nrm = [], [], []
    for name in names:
        loc = robot.contact_locations[name]
        fid = model.getFrameId(loc.body)
        oMf = data.oMf[fid]
        for corner in np.asarray(loc.hull, float):
            ja.append(model.frames[fid].parentJoint)
            pts.append(oMf.act(corner))
            nrm.append(oMf.rotation @ np.asarray(loc.normal, float))
    return ContactSet.make(ja, np.array(pts), np.array(nrm), source=f"contact locations {list(names)}")


# --------------------------------------------------------------------------- Jacobians
_MASKS: dict = {}


def support_masks(model) -> np.ndarray:
    """(njoints, nv) bool: columns of the joints on the path root→joint (inclusive). Cached per
    model object."""
    key = id(model)
    hit = _MASKS.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    masks = np.zeros((model.njoints, model.nv), bool)
    for j in range(1, model.njoints):
        p = model.parents[j]
        masks[j] = masks[p]
        iv, nvj = model.joints[j].idx_v, model.joints[j].nv
        masks[j, iv : iv + nvj] = True
    _MASKS[key] = (model, masks)
    return masks


def contact_projectors(frames, points) -> np.ndarray:
    """X_c (m, 3, 6): maps a world-origin spatial velocity (v_O, ω) of a body to the contact-frame
    velocity of the material point at p_c: R_c [I3, −skew(p_c)] (Chardonnet 2009, eq. (3.38)).
    frames (m, 3, 3) rows (n, t1, t2); points (m, 3) [m]."""
    return _projectors(np.ascontiguousarray(frames, dtype=float), np.ascontiguousarray(points, dtype=float))


@njit(cache=True)
def _projectors(R, P):
    m = R.shape[0]
    X = np.empty((m, 3, 6))
    for c in range(m):
        px, py, pz = P[c, 0], P[c, 1], P[c, 2]
        for i in range(3):
            r0, r1, r2 = R[c, i, 0], R[c, i, 1], R[c, i, 2]
            X[c, i, 0], X[c, i, 1], X[c, i, 2] = r0, r1, r2
            # row i of −R skew(p) = (p × r_i)ᵀ
            X[c, i, 3] = py * r2 - pz * r1
            X[c, i, 4] = pz * r0 - px * r2
            X[c, i, 5] = px * r1 - py * r0
    return X


def relative_jacobian(Jw, masks, frames, points, joint_a, joint_b, cols) -> np.ndarray:
    """J (3m, len(cols)): rows (n, t1, t2) of v_A(p) − v_B(p) for each contact.

    Jw (6, nv): Pinocchio's world-frame joint Jacobian matrix (``data.J`` after
    ``computeJointJacobians``: spatial velocity (v_O, ω) at the world origin); masks
    (njoints, nv) bool: support of each joint (`support_masks`); joint_b = 0 for the
    environment; cols: the velocity indices kept (a group's columns). Row block of contact c:
    X_c (S_A − S_B) Jw (`contact_projectors`)."""
    return _rel_jac(
        np.ascontiguousarray(Jw),
        masks,
        np.ascontiguousarray(frames, dtype=float),
        np.ascontiguousarray(points, dtype=float),
        np.asarray(joint_a, np.int64),
        np.asarray(joint_b, np.int64),
        np.asarray(cols, np.int64),
    )


@njit(cache=True)
def _rel_jac(Jw, masks, F, P, ja, jb, cols):
    m = F.shape[0]
    k = cols.shape[0]
    J = np.zeros((3 * m, k))
    X = _projectors(F, P)
    for c in range(m):
        for i in range(3):
            row = 3 * c + i
            for q in range(k):
                col = cols[q]
                s = (1.0 if masks[ja[c], col] else 0.0) - (1.0 if (jb[c] > 0 and masks[jb[c], col]) else 0.0)
                if s != 0.0:
                    acc = 0.0
                    for j in range(6):
                        acc += X[c, i, j] * Jw[j, col]
                    J[row, q] = s * acc
    return J


def contact_jacobian(model, data, contacts: ContactSet, q=None) -> np.ndarray:
    """J (3m, nv) of the relative contact velocities of a `ContactSet` (rows n, t1, t2 per
    contact): `relative_jacobian` over all columns. If q is given,
    `pin.computeJointJacobians(model, data, q)` is called first; otherwise ``data.J`` must be up
    to date for the current configuration."""
    if q is not None:
        pin.computeJointJacobians(model, data, q)
    return relative_jacobian(
        data.J,
        support_masks(model),
        contacts.frames,
        contacts.points,
        contacts.joint_a,
        contacts.joint_b,
        np.arange(model.nv),
    )


# --------------------------------------------------------------------------- groups
@dataclass
class Group:
    """One collision group: ``contacts`` (indices into the step's contact batch), ``trees``
    (mobile tree indices) and ``cols`` (the velocity indices of those trees, concatenated)."""

    contacts: np.ndarray
    trees: list[int]
    cols: np.ndarray


def collision_groups(tree_a, tree_b, n_trees: int, tree_cols, merge_all: bool = False) -> list[Group]:
    """Connected components (union–find) of the contact graph over mobile trees.

    tree_a (m,): tree of body A; tree_b (m,): tree of body B or −1 (environment);
    tree_cols: list of velocity-index arrays per tree; merge_all: one group for all contacts
    (the thesis's single-Λ reference for the groups benchmark)."""
    tree_a = np.asarray(tree_a, np.int64)
    tree_b = np.asarray(tree_b, np.int64)
    m = tree_a.shape[0]
    if m == 0:
        return []
    parent = list(range(n_trees))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    if merge_all:
        roots = np.zeros(m, np.int64)
    else:
        for a, b in zip(tree_a.tolist(), tree_b.tolist()):
            if b >= 0:
                ra, rb = find(a), find(b)
                if ra != rb:
                    parent[rb] = ra
        roots = np.array([find(a) for a in tree_a.tolist()], np.int64)
    groups = []
    order = np.argsort(roots, kind="stable")
    r_sorted = roots[order]
    bounds = [0, *(np.flatnonzero(np.diff(r_sorted)) + 1).tolist(), m]
    for lo, hi in zip(bounds[:-1], bounds[1:]):  # = np.split(order, cuts), without its overhead
        idx = order[lo:hi]
        trees = sorted(set(tree_a[idx].tolist()) | {t for t in tree_b[idx].tolist() if t >= 0})
        cols = np.concatenate([tree_cols[t] for t in trees])
        groups.append(Group(idx, trees, cols))
    return groups


def gap_term(gaps, dt: float, beta: float = BETA) -> np.ndarray:
    """c_n per contact [m/s] (module docstring): gap/dt for gap ≥ 0, β gap/dt for penetration."""
    g = np.asarray(gaps, float)
    return np.where(g >= 0.0, g, beta * g) / dt


# --------------------------------------------------------------------------- the stage
@dataclass(slots=True)
class StepContacts:
    """The contacts stage's output for one step (m contacts of ``batch``).

    frames (m, 3, 3); joint_a, joint_b (m,): joints of bodies A and B (0: environment);
    tree_a, tree_b (m,): their mobile trees (−1: environment); keys (m,), local (m, 3): the
    warm-start pair key and the point in A's joint frame [m] (`humanoid_sim.stages.warm_start`);
    gap (m,): the gap term c_n [m/s] (`gap_term`); groups: collision groups; min_gap: the most
    negative gap [m] (0 when none penetrates); single: one group holds every contact (its
    arrays are then used without indexing)."""

    batch: object
    frames: np.ndarray
    joint_a: np.ndarray
    joint_b: np.ndarray
    tree_a: np.ndarray
    tree_b: np.ndarray
    keys: np.ndarray
    local: np.ndarray
    gap: np.ndarray
    groups: list
    min_gap: float
    single: bool = False

    def add_tree_group(self, tree: int, cols):
        """Give ``tree`` a group of its own when no contact put it in one (the robot's
        joint-limit rows need one); then recompute ``single``."""
        for g in self.groups:  # (a loop: any() of a generator costs more for one or two groups)
            if tree in g.trees:
                break
        else:
            self.groups.append(Group(np.zeros(0, np.int64), [tree], cols))
        self.single = len(self.groups) == 1 and self.groups[0].contacts.shape[0] == self.batch.m


@njit(cache=True)
def _prep(geom_joint, geom_tree, ga, gb, bs, points, normals, R, p, n_mobile, n_static, gaps, dt, beta):
    """Per contact: the frame (`frames_from_normals`), joints and trees of A and B (0 / −1 for
    the environment) and the warm-start pair key (rows of one (5, m) array), the contact point in
    A's joint frame, the gap term c_n (`gap_term`, same arithmetic) and the most negative gap."""
    frames = _frames(normals)
    m = ga.shape[0]
    cgap = np.empty(m)
    # the integer rows (joint A, joint B, tree A, tree B, key) packed: one array to box
    ints = np.empty((5, m), np.int64)
    ja, jb, ta, tb, keys = ints[0], ints[1], ints[2], ints[3], ints[4]
    jb[:] = 0
    tb[:] = -1
    local = np.empty((m, 3))
    gmin = 0.0
    for c in range(m):
        a = ga[c]
        ja[c] = geom_joint[a]
        ta[c] = geom_tree[a]
        if bs[c]:
            keys[c] = a * (n_mobile + n_static + 1) + n_mobile + gb[c]
        else:
            jb[c] = geom_joint[gb[c]]
            tb[c] = geom_tree[gb[c]]
            keys[c] = a * (n_mobile + n_static + 1) + gb[c]
        j = ja[c]
        for i in range(3):
            acc = 0.0
            for k in range(3):
                acc += R[j, k, i] * (points[c, k] - p[j, k])
            local[c, i] = acc
        g = gaps[c]
        cgap[c] = (g if g >= 0.0 else beta * g) / dt
        if g < gmin:
            gmin = g
    return frames, ints, local, cgap, gmin


class ContactStage:
    """The contacts stage of a World step (module docstring): ``stage(batch, oMi_R, oMi_p)`` ->
    `StepContacts`.

    geom_joint, geom_tree (n_mobile,): joint and tree of each mobile geometry; n_static: number
    of static geometries; tree_cols: velocity indices of each mobile tree; merge_groups: one
    group for all contacts (the thesis's single-Λ reference); dt [s]."""

    def __init__(self, geom_joint, geom_tree, n_static: int, tree_cols, merge_groups: bool, dt: float):
        self.geom_joint = np.asarray(geom_joint, np.int64)
        self.geom_tree = np.asarray(geom_tree, np.int64)
        self.n_mobile, self.n_static = self.geom_joint.shape[0], int(n_static)
        self.tree_cols = tree_cols
        self.merge_groups = merge_groups
        self.dt = float(dt)
        self._one_tree: dict[int, Group] = {}  # m -> the group of a one-tree world (`one_group`, reused)

    def one_group(self, m: int) -> list:
        """The groups of a one-tree world's m contacts: a new list of one group holding them all
        (the group built once per m)."""
        one = self._one_tree.get(m)
        if one is None:
            one = self._one_tree[m] = Group(np.arange(m), [0], self.tree_cols[0])
        return [one]

    def __call__(self, batch, oMi_R, oMi_p) -> StepContacts:
        m = batch.m
        if m == 0:
            z = np.zeros(0, np.int64)
            return StepContacts(batch, np.zeros((0, 3, 3)), z, z, z, z, z, np.zeros((0, 3)), np.zeros(0), [], 0.0)
        frames, ints, local, cgap, gmin = _prep(
            self.geom_joint,
            self.geom_tree,
            batch.geom_a,
            batch.geom_b,
            batch.b_static,
            batch.points,
            batch.normals,  # (m, 3) float64, C order
            oMi_R,
            oMi_p,
            self.n_mobile,
            self.n_static,
            batch.gaps,
            self.dt,
            BETA,
        )
        ja, jb, ta, tb, keys = ints
        if len(self.tree_cols) == 1:
            groups = self.one_group(m)
        else:
            groups = collision_groups(ta, tb, len(self.tree_cols), self.tree_cols, self.merge_groups)
        single = len(groups) == 1 and groups[0].contacts.shape[0] == m
        return StepContacts(batch, frames, ja, jb, ta, tb, keys, local, cgap, groups, gmin, single)


def contacts(world, batch, oMi_R, oMi_p, rows):
    """The contacts stage of a World step: (the `StepContacts` of ``batch`` (the world's
    `ContactStage`), the warm start of its contacts (`humanoid_sim.stages.warm_start.WarmStart.lookup`;
    None without contacts)). ``rows``: the active joint-limit rows at the step's configuration
    (`humanoid_sim.stages.joint_limits.JointLimitRows.rows`; None when none), which get the robot's
    tree a group of its own when no contact gave it one. Reads ``world.contacts``,
    ``world.warm_start`` and ``world.tree_cols``."""
    step = world.contacts(batch, oMi_R, oMi_p)
    warm = world.warm_start.lookup(step.keys, step.local) if batch.m else None
    if rows is not None:
        step.add_tree_group(0, world.tree_cols[0])
    return step, warm
