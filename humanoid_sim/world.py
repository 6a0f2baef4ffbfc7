"""`World`: the simulator pipeline of one step (ARCHITECTURE.md "Simulator pipeline").

    world = World.from_scene("incline", overrides={"incline.angle_deg": 25})
    world.step(1000)
    world.state.bodies["box"].position

One combined Pinocchio model holds the robot (if any: its free-flyer tree first) and one
free-flyer joint per free body of the scene; each of these is a *mobile tree* (its velocity
indices are contiguous and the mass matrix is block-diagonal over trees). The static
environment (ground, planes, boxes, ...) lives in the collision stage only.

One step (dt, default 1 ms):

1. kinematics: ``pin.computeJointJacobians`` (placements and world Jacobians), ``pin.crba``;
2. actuators: PD / torque / trajectory torques (`humanoid_sim.actuators`), scene wrenches;
3. free step: q̇_free (`humanoid_sim.integrator.free_velocity`);
4. collision: broad + narrow phase (`humanoid_sim.collision`);
5. contacts: frames, collision groups, relative Jacobians (`humanoid_sim.contacts`);
6. per group: Delassus W = dt J M̃⁻¹ Jᵀ (robot tree: `humanoid_sim.delassus.CholeskyDelassus`;
   free bodies: their 6×6 blocks), impacts, then the frictional solve (`humanoid_sim.solvers`);
7. integration: q̇ᵗ⁺¹ = q̇_free + M̃⁻¹ Jᵀ (dt f), qᵗ⁺¹ = qᵗ ⊕ dt q̇ᵗ⁺¹.

Impacts and contact solve, sequencing (our choice; the thesis does not spell it out, spec §2.6
note): when a group has a contact with restitution e > 0 that is approaching faster than
``IMPACT_SPEED`` and will touch within the step (gap + dt v_n⁻ ≤ 0), the frictionless impact
LCP (3.7) of `impact_lcp` runs first on the free velocities q̇_free (the pre-impact velocity
of an impact at the end of the free step; Λ = J M̃⁻¹ Jᵀ, impulses), the velocities jump (3.9),
and the frictional contact problem of the step then runs on the updated free velocity. With e = 0 the velocity-level contact solve alone gives a plastic impact.

Forces: the solvers get W = dt Λ and return forces f [N] (impulse = dt f), spec eq. 3.25–3.26.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np
import pinocchio as pin
from numba import njit

from humanoid_model.exceptions import ConfigError, SceneError
from humanoid_sim import contacts as C
from humanoid_sim.collision import (DEFAULT_MARGIN, CollisionDetector, MobileGeom, StaticGeom,
                                    bounding_radius, shape_from_scene)
from humanoid_sim.delassus import CholeskyDelassus, support_masks
from humanoid_sim.integrator import free_velocity, integrate
from humanoid_sim.solvers import ContactProblem

__all__ = ["World", "WorldState", "BodyState", "STAGES"]

STAGES = ("kinematics", "actuators", "free", "collision", "contacts", "delassus", "solve", "integration")
LIMIT_MARGIN = 0.01        # [rad] joint limits enter the solve 0.01 rad (0.57 deg) before the limit (chosen)
MIN_SELF_JOINTS = 3        # robot self pairs need >= 3 joints between the links (see _build_geometry)
MAX_DT = 0.1               # [s] largest dt, as the CLI's --dt and the node's dt parameter (chosen there)
WARM_MATCH = 2e-3          # [m] a contact point within 2 mm of last step's (same pair) reuses its force (chosen)
IMPACT_SPEED_STEPS = 2.0   # impacts need |v_n⁻| > 2 |g| dt (chosen: resting contacts gain |g| dt per step)


@dataclass
class BodyState:
    """World pose and velocity of a body frame: position (3,) [m], quaternion (4,) xyzw,
    linear_velocity (3,) of the frame origin [m/s], angular_velocity (3,) [rad/s], world axes."""

    position: np.ndarray
    quaternion: np.ndarray
    linear_velocity: np.ndarray
    angular_velocity: np.ndarray


@dataclass
class WorldState:
    t: float
    q: np.ndarray
    v: np.ndarray
    bodies: Dict[str, BodyState]
    joint_names: List[str] = field(default_factory=list)
    joint_positions: np.ndarray = None
    joint_velocities: np.ndarray = None
    joint_torques: np.ndarray = None


@njit(cache=True)
def _prep(geom_joint, geom_tree, ga, gb, bs, points, R, p, n_mobile, n_static, gaps, dt, beta):
    """Per contact: joints and trees of A and B (0 / −1 for the environment), the warm-start
    pair key, the contact point in A's joint frame and the gap term c_n
    (`humanoid_sim.contacts.gap_term`, same arithmetic)."""
    m = ga.shape[0]
    cgap = np.empty(m)
    ja = np.empty(m, np.int64)
    jb = np.zeros(m, np.int64)
    ta = np.empty(m, np.int64)
    tb = np.full(m, -1, np.int64)
    keys = np.empty(m, np.int64)
    local = np.empty((m, 3))
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
    return ja, jb, ta, tb, keys, local, cgap


@njit(cache=True)
def _match(pk, pl, keys, local, tol):
    out = np.full(keys.shape[0], -1, np.int64)
    lo = np.searchsorted(pk, keys, side="left")
    hi = np.searchsorted(pk, keys, side="right")
    for k in range(keys.shape[0]):
        best, jb = tol, -1
        for j in range(lo[k], hi[k]):
            d = np.sqrt((pl[j, 0] - local[k, 0]) ** 2 + (pl[j, 1] - local[k, 1]) ** 2
                        + (pl[j, 2] - local[k, 2]) ** 2)
            if d < best:
                best, jb = d, j
        out[k] = jb
    return out


@njit(cache=True)
def _warm(pk, pl, pf, keys, local, tol, enabled):
    """Warm-start forces (m, 3) from last step's sorted keys / local points / forces, the hit
    mask (m,) and whether any contact is new (`_match` map)."""
    m = keys.shape[0]
    warm = np.zeros((m, 3))
    hit = np.zeros(m, np.bool_)
    if pk.shape[0] == 0:
        return warm, hit, m > 0
    idx = _match(pk, pl, keys, local, tol)
    any_new = False
    for k in range(m):
        if idx[k] >= 0:
            hit[k] = True
            if enabled:
                for i in range(3):
                    warm[k, i] = pf[idx[k], i]
        else:
            any_new = True
    return warm, hit, any_new


@njit(cache=True)
def _sorted_by_key(keys, forces, local):
    order = np.argsort(keys, kind="mergesort")     # stable, as np.argsort(kind="stable")
    return keys[order], forces[order], local[order]


@njit(cache=True)
def _limits_clear(q, q0, lo, hi, margin):
    """True when every actuated joint q[q0 + i] is at least ``margin`` from both limits."""
    for i in range(lo.shape[0]):
        x = q[q0 + i]
        if x - lo[i] < margin or hi[i] - x < margin:
            return False
    return True


@njit(cache=True)
def _same(a, b):
    """np.array_equal for two 1-D float arrays, without the temporaries."""
    if a.shape[0] != b.shape[0]:
        return False
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


def _skew3(c):
    return np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])


RESIDUAL_KEYS = ("complementarity", "penetration", "cone", "dissipation", "slip_force", "natural_map")


def _short(value, limit=80):
    """repr of a user value for an error message, truncated to ``limit`` characters."""
    r = repr(value)
    return r if len(r) <= limit else r[:limit] + f"... ({len(r)} characters)"


def _vec3(where, name, value):
    """A finite 3-vector from user input, or a ConfigError naming the argument and value."""
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        a = None
    if a is None or a.shape != (3,) or not np.all(np.isfinite(a)):
        raise ConfigError(f"world: {where}: argument {name!r} must be 3 finite numbers (no NaN or inf); "
                          f"value {_short(value)}")
    return a.copy()


def _settings(value):
    """Solver settings from None, a `SolverSettings` or a mapping of its field names."""
    from collections.abc import Mapping
    import dataclasses

    from humanoid_sim.solvers import SolverSettings

    if value is None or isinstance(value, SolverSettings):
        return value
    if not isinstance(value, Mapping):
        raise ConfigError("world: field 'solver_settings' must be a SolverSettings or a mapping of its "
                          f"fields; value {_short(value)}")
    known = {f.name for f in dataclasses.fields(SolverSettings)}
    bad = sorted(str(k) for k in value if k not in known)
    if bad:
        raise ConfigError(f"world: field 'solver_settings': unknown key(s) {bad}; known: {sorted(known)}")
    return SolverSettings(**dict(value))


def _resolve_solver(name):
    from humanoid_sim.solvers import DEFAULT_SOLVER, get_solver

    return get_solver(name or DEFAULT_SOLVER)


class World:
    """The simulated world: see the module docstring. Build it with `World.from_scene`."""

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_scene(cls, path_or_name, robot=None, solver: Optional[str] = None, dt: float = 1e-3,
                   overrides=None, **kw) -> "World":
        """World of a scene file or shipped scene name.

        robot: None (the scene's robot, if any), a robot name / URDF path or a loaded `Robot`
        (replaces the scene's robot; placed at its default posture if the scene has none).
        When the scene was written for another robot, its posture is kept only if the new robot
        knows a posture of that name (else the new robot's default posture) and its joint
        overrides only for joints the new robot has. The base placement rule is unchanged: the
        scene's ``placement`` is composed with the posture's base pose, and an absolute
        ``base`` pose of the scene replaces it (docs/scenes.md).
        solver: a `humanoid_sim.solvers` name (default ``nsgs_newton``). dt [s]. overrides:
        scene ``--set`` values. Other keyword arguments go to `World.__init__`.
        """
        from humanoid_model.scene import load_scene

        scene = path_or_name if hasattr(path_or_name, "free_bodies") else load_scene(path_or_name, overrides)
        rob = None
        if robot is not None:
            if hasattr(robot, "model"):
                rob = robot
            else:
                from humanoid_model.robot import load_robot

                rob = load_robot(robot)
            spec = scene.robot
            if spec is not None:
                import dataclasses

                posture = spec.posture if spec.posture in rob.postures else None
                joints = {j: v for j, v in spec.joints.items() if j in rob.joint_names}
                if posture != spec.posture or joints != spec.joints:
                    scene = dataclasses.replace(
                        scene, robot=dataclasses.replace(spec, posture=posture, joints=joints))
        elif scene.robot is not None:
            from humanoid_model.robot import load_robot

            rob = load_robot(str(scene.robot.urdf_path))
        return cls(scene, rob, solver=solver, dt=dt, **kw)

    def __init__(self, scene, robot=None, solver: Optional[str] = None, dt: float = 1e-3,
                 margin: float = DEFAULT_MARGIN, merge_groups: bool = False,
                 solver_settings=None, gains=None, gravity_compensation: bool = False,
                 self_collision: bool = True, warm_start: bool = True,
                 momentum_projection: bool = True, patch_points: int = 0,
                 joint_limits: bool = True):
        # dt range as the CLI's --dt (humanoid_stack/commands/simulate.py): (0, 0.1] s
        if isinstance(dt, bool) or not isinstance(dt, (int, float, np.integer, np.floating)) \
                or not (np.isfinite(dt) and 0 < dt <= MAX_DT):
            raise ConfigError(f"world: field 'dt' must be a number of seconds in (0, {MAX_DT}]; "
                              f"value {_short(dt)}")
        if isinstance(margin, bool) or not isinstance(margin, (int, float, np.integer, np.floating)) \
                or not (np.isfinite(margin) and margin >= 0):
            raise ConfigError(f"world: field 'margin' must be a finite distance >= 0 m; value {_short(margin)}")
        solver_settings = _settings(solver_settings)
        self.scene, self.robot, self.dt = scene, robot, float(dt)
        self.solver_name = solver
        self.solver = _resolve_solver(solver)
        self.solver_settings = solver_settings
        self.impact_solver = _resolve_solver("impact_lcp")
        self.merge_groups = merge_groups
        self.warm_start_enabled = warm_start
        self.gravity_compensation = gravity_compensation
        self.momentum_projection = momentum_projection
        self.joint_limits = joint_limits
        self._prev_limit = {}
        self.limit_torques = {}
        self.t = 0.0
        self._build_model()
        self._build_geometry(margin, self_collision, patch_points)
        self._build_actuators(gains)
        self.stage_time = dict.fromkeys(STAGES, 0.0)
        self.steps = 0
        self.step_times: List[float] = []
        self.stats_iterations: List[int] = []
        self.max_residuals: Dict[str, float] = {}
        self.unconverged = 0
        self._prev_keys = np.zeros(0, np.int64)
        self._prev_f = np.zeros((0, 3))
        self._prev_local = np.zeros((0, 3))
        self.last = None
        self.tau_applied = np.zeros(self.n_act)
        self.impacts = 0
        self.user_wrenches = {}
        self.stage_samples = None     # set to [] to keep per-step stage times (benchmarks)
        self._last_damp = None

    def _build_model(self):
        scene, robot = self.scene, self.robot
        if robot is not None:
            model = pin.Model(robot.model)
            self.arm0 = np.array(model.armature)
        else:
            model = pin.Model()
            self.arm0 = np.zeros(0)
        self.nv_robot = model.nv if robot is not None else 0
        self.tree_cols = []
        self.tree_names = []
        if robot is not None:
            self.tree_cols.append(np.arange(model.nv))
            self.tree_names.append(robot.name)
        self.body_joint: Dict[str, int] = {}
        for b in scene.free_bodies:
            jid = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), b.name)
            model.appendBodyToJoint(jid, pin.Inertia(b.mass, np.asarray(b.com, float),
                                                     np.asarray(b.inertia, float)), pin.SE3.Identity())
            model.addBodyFrame(b.name, jid, pin.SE3.Identity(), 0)
            self.body_joint[b.name] = jid
            iv = model.joints[jid].idx_v
            self.tree_cols.append(np.arange(iv, iv + 6))
            self.tree_names.append(b.name)
        self.arm0 = np.concatenate([self.arm0, np.zeros(model.nv - self.arm0.shape[0])])
        model.gravity.linear = np.asarray(scene.gravity, float)
        self.model = model
        self.data = model.createData()
        self.data_m = model.createData()
        self.tree_root = ([1] if robot is not None else []) + [self.body_joint[b.name] for b in scene.free_bodies]
        self.tree_mass = ([robot.mass] if robot is not None else []) + [b.mass for b in scene.free_bodies]
        self.masks = support_masks(model)
        self.free_tree0 = 1 if robot is not None else 0
        fb = scene.free_bodies
        self.fb_cols = np.array([self.tree_cols[self.free_tree0 + i] for i in range(len(fb))],
                                np.int64).reshape(-1, 6)
        # initial state
        q = pin.neutral(model)
        v = np.zeros(model.nv)
        if robot is not None:
            spec = scene.robot
            posture = spec.posture if spec is not None and spec.posture else robot.default_posture
            qr = robot.q(posture)
            if spec is not None:
                for j, val in spec.joints.items():
                    qr[robot.joint_index_q(j)] = val
                qr[:7] = spec.base_pose(qr[:7])
            q[:robot.model.nq] = qr
        for b in fb:
            j = model.joints[self.body_joint[b.name]]
            q[j.idx_q:j.idx_q + 7] = b.pose.xyz_quat
            R = b.pose.rotation
            v[j.idx_v:j.idx_v + 3] = R.T @ np.asarray(b.linear_velocity, float)
            v[j.idx_v + 3:j.idx_v + 6] = R.T @ np.asarray(b.angular_velocity, float)
        self.q, self.v = q, v
        self.q0 = q.copy()
        self.chol_robot = CholeskyDelassus(robot.model) if robot is not None else None
        g = np.linalg.norm(scene.gravity)
        self.impact_speed = IMPACT_SPEED_STEPS * max(g, 1e-9) * self.dt

    def _build_geometry(self, margin, self_collision, patch_points=0):
        scene, robot, model = self.scene, self.robot, self.model
        mobile: List[MobileGeom] = []
        if robot is not None:
            for go in robot.collision_model.geometryObjects:
                sh = go.geometry
                mobile.append(MobileGeom(go.name, model.frames[go.parentFrame].name if go.parentFrame < len(model.frames) else go.name,
                                         go.parentJoint, 0, sh, np.array(go.placement.rotation),
                                         np.array(go.placement.translation), bounding_radius(sh)))
        for i, b in enumerate(scene.free_bodies):
            for part in b.parts:
                sh = shape_from_scene(part.shape)
                mobile.append(MobileGeom(f"{b.name}/{part.name}", b.name, self.body_joint[b.name],
                                         self.free_tree0 + i, sh, part.pose.rotation, np.asarray(part.pose.xyz, float),
                                         bounding_radius(sh), b.friction, b.restitution))
        static: List[StaticGeom] = []
        if scene.ground is not None:
            gr = scene.ground
            static.append(StaticGeom("ground", shape_from_scene(type("S", (), {"kind": "plane"})()),
                                     np.eye(3), np.array([0.0, 0.0, gr.height]), np.inf, True,
                                     gr.friction, gr.restitution))
        for b in scene.bodies:
            try:
                sh = shape_from_scene(b.shape)
            except Exception as exc:  # noqa: BLE001
                raise SceneError(f"{scene.source}: static body '{b.name}': shape {b.shape.kind!r} "
                                 f"cannot be used for collision ({exc})") from None
            static.append(StaticGeom(b.name, sh, b.pose.rotation, np.asarray(b.pose.xyz, float),
                                     bounding_radius(sh), b.shape.kind == "plane", b.friction, b.restitution))
        # Mobile pairs: different trees always. Same robot tree: links joined by at least
        # MIN_SELF_JOINTS joints (so never a link and its parent, nor adjacent links: with fewer
        # joints between them the relative velocity of a point spans < 3 dimensions and a point
        # contact's 3x3 Delassus block is singular), and clear of each other at q0.
        pairs = []
        parents = model.parents

        def chain(j):
            out = set()
            while j > 0:
                out.add(j)
                j = parents[j]
            return out

        chains = {g.joint: chain(g.joint) for g in mobile}
        for a in range(len(mobile)):
            for b in range(a + 1, len(mobile)):
                A, B = mobile[a], mobile[b]
                if A.tree != B.tree:
                    pairs.append((a, b))
                elif self_collision and len(chains[A.joint] ^ chains[B.joint]) >= MIN_SELF_JOINTS:
                    pairs.append((a, b))
        default_mu = scene.ground.friction if scene.ground is not None else 0.4
        det = CollisionDetector(mobile, static, np.array(pairs, np.int64).reshape(-1, 2), margin,
                                default_friction=default_mu, patch_points=patch_points)
        self.geom_joints = np.unique(np.array([g.joint for g in mobile], np.int64))
        self._geom_joint_list = self.geom_joints.tolist()
        self._H = np.tile(np.eye(4), (model.njoints, 1, 1))
        # drop robot self pairs already within the margin at q0 (overlapping link boxes)
        pin.forwardKinematics(model, self.data, self.q)
        R, p = self._joint_placements()
        batch = det.detect(R, p)
        if batch.m:
            bad = set()
            for a, b, st in zip(batch.geom_a.tolist(), batch.geom_b.tolist(), batch.b_static.tolist()):
                if not st and mobile[a].tree == mobile[b].tree:
                    bad.add((a, b))
            if bad:
                keep = [pr for pr in pairs if tuple(pr) not in bad]
                det.mobile_pairs = np.array(keep, np.int64).reshape(-1, 2)
        self.detector = det
        self.mobile, self.static = mobile, static
        self.geom_tree = np.array([g.tree for g in mobile], np.int64)
        self.geom_joint = np.array([g.joint for g in mobile], np.int64)
        # a pair's restitution is one of these values (collision._combine): none > 0 -> no impacts
        es = [g.restitution for g in mobile] + [s.restitution for s in static] + [det.mat_e_default]
        self._any_restitution = any(x is not None and x > 0 for x in es)

    def _build_actuators(self, gains):
        robot = self.robot
        self.actuator = None
        self.n_act = 0
        if robot is None:
            return
        from humanoid_sim.actuators import PDActuator, standing_gains

        names = robot.joint_names
        self.n_act = len(names)
        self.act_v = np.arange(6, robot.model.nv)
        self.act_q = np.arange(7, robot.model.nq)
        if gains is None:
            feet = [robot.model.frames[robot.frame_id(c.body)].parentJoint
                    for c in robot.contact_locations.values() if c.kind == "sole"]
            kp, kv = standing_gains(robot.model, self.q[:robot.model.nq], feet)
        else:
            kp, kv = gains
        self.actuator = PDActuator(names, kp, kv, robot.effort_max)
        lo, hi = robot.q_lower, robot.q_upper
        finite = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
        self.q_lower = np.where(finite, lo, -np.inf)
        self.q_upper = np.where(finite, hi, np.inf)
        self.actuator.set_position(self.q[self.act_q])

    # ------------------------------------------------------------------ helpers
    def _joint_placements(self):
        """World rotations (njoints, 3, 3) and positions (njoints, 3) of the joints that carry
        collision geometry (views of one homogeneous buffer; other rows are stale)."""
        H = self._H
        oMi = self.data.oMi.tolist()    # one conversion: indexing the StdVec per joint is slower
        for j in self._geom_joint_list:
            H[j] = oMi[j].homogeneous
        return H[:, :3, :3], H[:, :3, 3]

    def apply_wrench(self, body: str, force=(0, 0, 0), torque=(0, 0, 0), point=(0, 0, 0)):
        """Apply a wrench on ``body`` (free body or robot link) from now on, until changed or
        cleared with `clear_wrenches`: world force [N] at ``point`` (body frame [m]) and world
        torque [N·m]. Added to the scene's timed wrenches."""
        if not isinstance(body, str) or self.model.getFrameId(body) >= len(self.model.frames):
            raise ConfigError(f"world: field 'body' = {body!r}: no free body or robot link of that name")
        vals = tuple(_vec3(f"apply_wrench({body!r})", name, x)
                     for name, x in (("force", force), ("torque", torque), ("point", point)))
        self.user_wrenches[body] = vals

    def clear_wrenches(self):
        self.user_wrenches = {}

    def _external_tau(self):
        """Generalised forces of the active wrenches (world force at a body point)."""
        tau = None
        if not self.scene.wrenches and not self.user_wrenches:
            return None
        active = self._active_wrenches()
        for body, force, torque, point in active:
            fid = self.model.getFrameId(body)
            if fid >= len(self.model.frames):
                continue
            fr = self.model.frames[fid]
            oMf = self.data.oMi[fr.parentJoint] * fr.placement
            p = oMf.act(np.asarray(point, float))
            force = np.asarray(force, float)
            wrench = np.concatenate([force, np.asarray(torque, float) + np.cross(p, force)])
            Jw = self.data.J * self.masks[fr.parentJoint]
            t = Jw.T @ wrench
            tau = t if tau is None else tau + t
        return tau

    def _minv_jt(self, group, J, M):
        """(M̃⁻¹ Jᵀ restricted to the group's columns, W = J M̃⁻¹ Jᵀ)."""
        k = J.shape[0]
        if len(group.trees) == 1 and group.trees[0] == 0 and self.robot is not None:
            # robot tree alone: X and W straight from the Cholesky kernel (W is exactly
            # symmetric there, so the symmetrisation below would not change it)
            n = self.tree_cols[0].shape[0]
            W, X = self.chol_robot(None, None, J, M=M[:n, :n])
            return X, W
        out = np.zeros((group.cols.shape[0], k))
        W = np.zeros((k, k))
        off = 0
        for t in group.trees:
            cols = self.tree_cols[t]
            n = cols.shape[0]
            Jt = J[:, off:off + n]
            if self.robot is not None and t == 0:
                Wt, X = self.chol_robot(None, None, Jt, M=M[:n, :n])   # reads the lower triangle
            else:
                Mb = M[cols[0]:cols[0] + n, cols[0]:cols[0] + n]
                Mb = np.tril(Mb) + np.tril(Mb, -1).T
                X = np.linalg.solve(Mb, Jt.T)
                Wt = Jt @ X
            out[off:off + n] = X
            W += Wt
            off += n
        return out, 0.5 * (W + W.T)

    def _joint_limit_rows(self, q):
        """Active joint limits of the robot (gap to a finite limit < ``LIMIT_MARGIN``): (joint
        indices (k,), Jacobian rows (k, nv_robot) = ±e_j so that the row's velocity is positive
        away from the limit, gap terms (k,) [rad/s] (same law as contacts: gap/dt, β gap/dt when
        violated), keys (joint name, "lower"/"upper") for warm starts, signs (k,)), or None.

        Joint limits are unilateral constraints in the same solve (issue 3): each is a
        frictionless "contact" (μ = 0) whose two tangential rows have no Jacobian and a unit
        compliance, so their force is zero; its normal force is the limit torque [N·m]."""
        if _limits_clear(q, 7, self.q_lower, self.q_upper, LIMIT_MARGIN):
            return None
        qa = q[self.act_q]
        lo = qa - self.q_lower
        hi = self.q_upper - qa
        if min(lo.min(), hi.min()) >= LIMIT_MARGIN:
            return None
        il = np.flatnonzero(lo < LIMIT_MARGIN)
        iu = np.flatnonzero(hi < LIMIT_MARGIN)
        if il.size == 0 and iu.size == 0:
            return None
        idx = np.concatenate([il, iu])
        sign = np.concatenate([np.ones(il.size), -np.ones(iu.size)])
        gaps = np.concatenate([lo[il], hi[iu]])
        rows = np.zeros((idx.size, self.nv_robot))
        rows[np.arange(idx.size), self.act_v[idx]] = sign
        names = self.robot.joint_names
        keys = [(names[i], "lower") for i in il.tolist()] + [(names[i], "upper") for i in iu.tolist()]
        return idx, rows, C.gap_term(gaps, self.dt), keys, sign

    def _active_wrenches(self):
        if not self.scene.wrenches and not self.user_wrenches:
            return []
        out = [(w.body, w.force, w.torque, w.point) for w in self.scene.wrenches if w.active(self.t)]
        return out + [(b, f, t, p) for b, (f, t, p) in self.user_wrenches.items()]

    def _tree_of_body(self, body):
        fid = self.model.getFrameId(body)
        j = self.model.frames[fid].parentJoint
        for t, cols in enumerate(self.tree_cols):
            if cols[0] <= self.model.joints[j].idx_v <= cols[-1]:
                return t
        return -1

    def _momenta(self, q, v, trees):
        """Spatial momentum about the world origin (linear; angular) (6,) of each tree, its
        base-velocity map (6, 6) and its centre of mass, at (q, v)."""
        model, d = self.model, self.data_m
        Ag = pin.computeCentroidalMap(model, d, q)
        pin.centerOfMass(model, d, q, False)
        c = d.com[0]
        X = np.eye(6)
        X[3:, :3] = _skew3(c)
        XA = X @ Ag
        out = []
        for t in trees:
            cols = self.tree_cols[t]
            out.append((XA[:, cols] @ v[cols], XA[:, cols[:6]], d.com[self.tree_root[t]].copy()))
        return out

    def _project_momentum(self, trees, q, v, qnew, vnew):
        """Momentum projection for trees in free flight (no contact, no applied wrench): the
        base velocity is corrected so that the tree's spatial momentum about the world origin
        equals its value at the start of the step plus the gravity impulse (m g dt, and
        c_mid × m g dt with the mid-step centre of mass). Joint velocities are untouched. The
        semi-implicit Euler step alone drifts by O(dt²) per step (integrator docstring)."""
        before = self._momenta(q, v, trees)
        after = self._momenta(qnew, vnew, trees)
        g = np.asarray(self.model.gravity.linear, float)
        vnew = vnew.copy()
        for t, (h0, _, c0), (h1, A1, c1) in zip(trees, before, after):
            mg = self.tree_mass[t] * g
            target = h0 + self.dt * np.concatenate([mg, np.cross(0.5 * (c0 + c1), mg)])
            cols = self.tree_cols[t][:6]
            vnew[cols] += np.linalg.solve(A1, target - h1)
        return vnew

    def _match_previous(self, keys, local):
        """Index of the previous step's contact with the same body pair and the nearest point
        on body A (within ``WARM_MATCH`` [m]), or −1: the warm-start map. Patch vertices come in
        no fixed order, so contacts are matched by position, not by rank."""
        if self._prev_keys.size == 0:
            return np.full(keys.shape[0], -1, np.int64)
        return _match(self._prev_keys, self._prev_local, keys, np.ascontiguousarray(local), WARM_MATCH)

    # ------------------------------------------------------------------ step
    def step(self, n: int = 1):
        """Advance ``n`` steps (a positive integer) of ``dt``."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ConfigError(f"world: step(n): 'n' must be a positive integer number of steps; "
                              f"value {_short(n)}")
        for _ in range(int(n)):
            self._step()
        return self

    def _step(self):
        model, data, dt = self.model, self.data, self.dt
        q, v = self.q, self.v
        tick = time.perf_counter
        t0 = tick()
        pin.computeJointJacobians(model, data, q)
        t1 = tick()
        tau = np.zeros(model.nv)
        damp = None
        if self.actuator is not None:
            ta, damp = self.actuator.torque(self.t, q[self.act_q], v[self.act_v])
            if self.gravity_compensation:
                ta = ta + pin.computeGeneralizedGravity(model, data, q)[self.act_v]
            tau[self.act_v] = ta
            self.tau_explicit = ta
            if self._last_damp is None or not _same(damp, self._last_damp):
                arm = self.arm0.copy()
                arm[self.act_v] += dt * damp
                model.armature = arm      # implicit PD damping (actuators docstring)
                self._last_damp = damp
        ext = self._external_tau()
        if ext is not None:
            tau += ext
        t2 = tick()
        pin.crba(model, data, q)
        vf = free_velocity(model, data, q, v, tau, dt)
        M = data.M.T            # crba fills the upper triangle: M.T holds it in the lower one
        t3 = tick()
        R, p = self._joint_placements()
        batch = self.detector.detect(R, p)
        t4 = tick()
        m_c = batch.m
        forces = np.zeros((m_c, 3))
        frames = C._frames(batch.normals) if m_c else np.zeros((0, 3, 3))   # (m, 3) float64, C order
        groups = []
        t_del = t_sol = 0.0
        iters = 0
        lim = self._joint_limit_rows(q) if self.robot is not None and self.joint_limits else None
        ta_ = tb_ = np.zeros(0, np.int64)
        if m_c:
            ja, jb, ta_, tb_, keys, local, cgap = _prep(self.geom_joint, self.geom_tree, batch.geom_a,
                                                        batch.geom_b, batch.b_static, batch.points, R, p,
                                                        len(self.mobile), len(self.static), batch.gaps,
                                                        dt, C.BETA)
            if len(self.tree_cols) == 1:
                groups = [C.Group(np.arange(m_c), [0], self.tree_cols[0])]
            else:
                groups = C.collision_groups(ta_, tb_, len(self.tree_cols), self.tree_cols, self.merge_groups)
            warm, hit, any_new = _warm(self._prev_keys, self._prev_local, self._prev_f, keys, local,
                                       WARM_MATCH, self.warm_start_enabled)
        else:
            ja = jb = np.zeros(0, np.int64)
        if lim is not None and not any(0 in g.trees for g in groups):
            groups.append(C.Group(np.zeros(0, np.int64), [0], self.tree_cols[0]))
        self.limit_torques = {}
        t_contacts = tick()
        dv = np.zeros(model.nv)
        single = len(groups) == 1 and groups[0].contacts.shape[0] == m_c
        Jw = np.ascontiguousarray(data.J)
        for g in groups:
            idx = slice(None) if single else g.contacts
            nc = m_c if single else g.contacts.shape[0]
            ta0 = tick()
            if single:
                J = C._rel_jac(Jw, self.masks, frames, batch.points, ja, jb, g.cols)
            else:
                J = C.relative_jacobian(Jw, self.masks, frames[idx], batch.points[idx], ja[idx],
                                        jb[idx], g.cols) if nc else np.zeros((0, g.cols.shape[0]))
            with_lim = lim is not None and 0 in g.trees
            if with_lim:   # joint-limit rows (robot tree: its columns come first in g.cols)
                Jl = np.zeros((3 * lim[0].shape[0], g.cols.shape[0]))
                Jl[0::3, :self.nv_robot] = lim[1]
                J = np.vstack([J, Jl])
            X, Lam = self._minv_jt(g, J, M)
            W = dt * Lam
            ta1 = tick()
            vfree = J @ (vf if g.cols.shape[0] == vf.shape[0] else vf[g.cols])   # all trees: cols = 0..nv-1
            mu = batch.mu[idx]
            comp = None
            if nc:
                # impacts (Newton restitution), module docstring
                e = batch.e[idx]
                if self._any_restitution and np.any(e > 0):
                    vminus = vfree[0:3 * nc:3]
                    gp = batch.gaps[idx]
                    hitting = (vminus < -self.impact_speed) & (gp + dt * vminus <= 0) & (e > 0)
                    if np.any(hitting):
                        active = gp + dt * np.minimum(vminus, 0) <= 0
                        ee = np.where(hitting, e, 0.0)
                        rows = np.repeat(active, 3)
                        prob = ContactProblem(Lam[:3 * nc, :3 * nc][np.ix_(rows, rows)],
                                              vfree[:3 * nc][rows], mu[active], restitution=ee[active])
                        res = self.impact_solver.solve(prob)
                        P = np.zeros(3 * nc)
                        P[rows] = res.impulses
                        jump = X[:, :3 * nc] @ P
                        vfree = vfree + J @ jump
                        dv[g.cols] += jump
                        self.impacts += 1
                vfree[0:3 * nc:3] += cgap[idx]
            wg = warm[idx].reshape(-1) if nc else np.zeros(0)
            if with_lim:
                vfree[3 * nc::3] += lim[2]
                mu = np.concatenate([mu, np.zeros(lim[0].shape[0])])
                comp = np.zeros(J.shape[0])
                comp[3 * nc + 1::3] = 1.0     # tangential rows of a limit: no Jacobian, no force
                comp[3 * nc + 2::3] = 1.0
                wl = np.zeros(3 * lim[0].shape[0])
                wl[0::3] = [self._prev_limit.get(k, 0.0) for k in lim[3]]
                wg = np.concatenate([wg, wl])
            if nc:
                if any_new if single else not np.all(hit[idx]):
                    new = ~hit[idx]
                    # New contacts start from the frictionless solution (normal forces only), so
                    # that a hyperstatic contact set does not lock in internal tangential forces
                    # produced by the order of a cold Gauss–Seidel sweep (spec §4.2, B1).
                    p0 = ContactProblem.trusted(W, vfree, np.zeros(mu.shape[0]), compliance=comp, source="world step")
                    f0 = self.solver.solve(p0, settings=self.solver_settings).impulses
                    rows = np.repeat(np.concatenate([new, np.zeros(mu.shape[0] - nc, bool)]), 3)
                    wg[rows] = f0[rows]
            prob = ContactProblem.trusted(W, vfree, mu, compliance=comp, source="world step")
            res = self.solver.solve(prob, warm_start=wg, settings=self.solver_settings)
            f = res.impulses
            iters += int(res.iterations)
            if not res.converged:
                self.unconverged += 1
            mr, rr = self.max_residuals, res.residuals
            for k in RESIDUAL_KEYS:
                if k in rr and rr[k] >= mr.get(k, 0.0):
                    mr[k] = float(rr[k])
            if nc:
                forces[idx] = f[:3 * nc].reshape(-1, 3)
            if with_lim:
                fl = f[3 * nc::3]
                self._prev_limit = dict(zip(lim[3], fl.tolist()))
                for key, val, sgn in zip(lim[3], fl.tolist(), lim[4].tolist()):
                    self.limit_torques[key[0]] = self.limit_torques.get(key[0], 0.0) + sgn * val
            dv[g.cols] += dt * (X @ f)
            ta2 = tick()
            t_del += ta1 - ta0
            t_sol += ta2 - ta1
        if lim is None:
            self._prev_limit = {}
        if m_c:
            self._prev_keys, self._prev_f, self._prev_local = _sorted_by_key(keys, forces, local)
        else:
            self._prev_keys = np.zeros(0, np.int64)
        vnew = vf + dv
        t5 = tick()
        qnew = integrate(model, q, vnew, dt)
        if self.momentum_projection and not (batch.m and len(self.tree_cols) == 1):
            in_contact = set()
            if batch.m:
                in_contact = set(ta_.tolist()) | set(tb_[tb_ >= 0].tolist())
            pushed = {self._tree_of_body(w_[0]) for w_ in self._active_wrenches()}
            free = [t for t in range(len(self.tree_cols)) if t not in in_contact and t not in pushed]
            if free:
                vnew = self._project_momentum(free, q, v, qnew, vnew)
        self.q = qnew
        if self.actuator is not None:
            self.tau_applied = self.tau_explicit - damp * (vnew[self.act_v] - v[self.act_v])
        self.q_start, self.v_start = q, v
        self.v = vnew
        self.t += dt
        t6 = tick()
        st = self.stage_time
        st["kinematics"] += t1 - t0
        st["actuators"] += t2 - t1
        st["free"] += t3 - t2
        st["collision"] += t4 - t3
        st["contacts"] += (t_contacts - t4) + (t5 - t_contacts - t_del - t_sol)
        st["delassus"] += t_del
        st["solve"] += t_sol
        st["integration"] += t6 - t5
        if self.stage_samples is not None:
            self.stage_samples.append((t1 - t0, t2 - t1, t3 - t2, t4 - t3,
                                       (t_contacts - t4) + (t5 - t_contacts - t_del - t_sol),
                                       t_del, t_sol, t6 - t5))
        self.steps += 1
        self.step_times.append(t6 - t0)
        self.stats_iterations.append(iters)
        self.last = dict(batch=batch, forces=forces, frames=frames, groups=groups)

    # ------------------------------------------------------------------ outputs
    def contact_forces_world(self):
        """(points (m, 3), world force on body A (m, 3)) of the last step [N]."""
        if self.last is None or self.last["batch"].m == 0:
            return np.zeros((0, 3)), np.zeros((0, 3))
        f = np.einsum("mi,mij->mj", self.last["forces"], self.last["frames"])
        return self.last["batch"].points, f

    def contact_list(self):
        """Contacts of the last step as dicts {body_a, body_b, point, normal, force, gap}."""
        if self.last is None:
            return []
        b = self.last["batch"]
        _, fw = self.contact_forces_world()
        out = []
        for k in range(b.m):
            A = self.mobile[b.geom_a[k]].body
            B = self.static[b.geom_b[k]].name if b.b_static[k] else self.mobile[b.geom_b[k]].body
            out.append({"body_a": A, "body_b": B, "point": b.points[k].tolist(),
                        "normal": b.normals[k].tolist(), "force": fw[k].tolist(), "gap": float(b.gaps[k])})
        return out

    def body_state(self, name: str) -> BodyState:
        jid = self.body_joint.get(name)
        if jid is None:
            if self.robot is None or name not in (self.robot.name, "base", "root_joint"):
                raise ConfigError(f"world: field 'body' has no free body or robot base {name!r}")
            jid = 1
        j = self.model.joints[jid]
        qj = self.q[j.idx_q:j.idx_q + 7]
        vj = self.v[j.idx_v:j.idx_v + 6]
        R = pin.Quaternion(qj[6], qj[3], qj[4], qj[5]).toRotationMatrix()
        return BodyState(qj[:3].copy(), qj[3:7].copy(), R @ vj[:3], R @ vj[3:])

    @property
    def state(self) -> WorldState:
        bodies = {}
        if self.robot is not None:
            bodies[self.robot.name] = self.body_state(self.robot.name)
        for name in self.body_joint:
            bodies[name] = self.body_state(name)
        st = WorldState(self.t, self.q.copy(), self.v.copy(), bodies)
        if self.robot is not None:
            st.joint_names = list(self.robot.joint_names)
            st.joint_positions = self.q[self.act_q].copy()
            st.joint_velocities = self.v[self.act_v].copy()
            st.joint_torques = np.array(self.tau_applied)
        return st

    def stats(self) -> dict:
        """Step-time statistics [s], per-stage mean time [s], iterations, max residuals."""
        ts = np.array(self.step_times) if self.step_times else np.zeros(1)
        n = max(self.steps, 1)
        return {"steps": self.steps, "median_step_time": float(np.median(ts)),
                "max_step_time": float(np.max(ts)),
                "stage_time": {k: v / n for k, v in self.stage_time.items()},
                "solver": self.solver.name, "iterations_total": int(np.sum(self.stats_iterations)),
                "iterations_max": int(np.max(self.stats_iterations, initial=0)),
                "unconverged_solves": self.unconverged, "impacts": self.impacts,
                "max_residuals": dict(self.max_residuals)}
