"""`World`: the simulated world and its step pipeline (docs/simulator.md, "One step").

    world = World.from_scene("incline", overrides={"incline.angle_deg": 25})
    world.step(1000)
    world.state.bodies["box"].position
    world.last.forces_world()          # StepResult of the last step

One combined Pinocchio model holds the robot (if any: its free-flyer tree first) and one
free-flyer joint per free body of the scene; each of these is a *mobile tree* (its velocity
indices are contiguous and the mass matrix is block-diagonal over trees). The static
environment (ground, planes, boxes, ...) lives in the collision stage only. The World builds
the model, the geometry and the stages' objects, holds the state and hands out the outputs;
`World._step` calls one function per stage, each a module of `humanoid_sim.stages` named after its
`StepStats` timer, in the order of MuJoCo's ``mj_step``:

==============  =====================================================================
kinematics      `stages.kinematics`: joint placements and world Jacobians
actuators       `stages.actuators`: PD / torque / trajectory (`Actuation`, implicit damping),
                scene and user wrenches (`stages.wrenches`), the haptic coupling, eq. 3.64
                (`stages.haptics`, while a device is connected), the grasps (`stages.grasp`)
free            `stages.free`: ``pin.crba`` and q̇_free = q̇ + dt M̃⁻¹(τ − b)
collision       `stages.collision`: the `humanoid_sim.collision` detector -> `ContactBatch`,
                each shape's margin widened to its travel in the step
                (`stages.impacts.SweptMargins`), plus the FEM soles' contacts
contacts        `stages.contacts`: frames, per-contact data, collision groups (`ContactStage`),
                last step's forces (`stages.warm_start`), joint-limit rows
                (`stages.joint_limits`)
delassus        `stages.delassus`: per group J, M̃⁻¹Jᵀ, W = dt J M̃⁻¹ Jᵀ, J q̇_free
                (`humanoid_sim.delassus.group.GroupDelassus`), FEM soles' coupling
solve           `stages.solve`: restitution impacts (`stages.impacts`, when any body has
                e > 0), then the frictional problem per group (`ContactSolve`)
integration     `stages.integration`: q̇ᵗ⁺¹ = q̇_free + M̃⁻¹Jᵀ(dt f), qᵗ⁺¹ = qᵗ ⊕ dt q̇ᵗ⁺¹
                (`stages.integrator`; a split penetration correction moves the positions
                only), momentum projection of trees in free flight
==============  =====================================================================

A stage function reads the World's objects and state it needs (each says which) and returns its
outputs to the next stages; the non-finite checks after the free and the integration stages
name the stage a NaN or inf came from (`NonFiniteStateError`).

Forces: the solvers get W = dt Λ and return forces f [N] (impulse = dt f), Chardonnet 2009, eqs. (3.25)–(3.26).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from copy import deepcopy
from time import perf_counter

import numpy as np
import pinocchio as pin

from humanoid_model.exceptions import ConfigError
from humanoid_model.start_posture import scene_robot_q, sole_lift, spec_for_robot
from humanoid_model.urdf_description import read_once
from humanoid_model.validation import finite_number, integer, message
from humanoid_sim.collision.detector import DEFAULT_MARGIN, CollisionDetector
from humanoid_sim.collision.geometry import mobile_geometry, static_geometry
from humanoid_sim.collision.pair_filter import PairFilter
from humanoid_sim.collision.pairs import candidate_pairs
from humanoid_sim.contact_pipeline import contact_pipeline, pipeline_applies
from humanoid_sim.delassus.group import GroupDelassus
from humanoid_sim.exceptions import NonFiniteStateError
from humanoid_sim.stages.actuators import Actuation, actuators
from humanoid_sim.stages.collision import collision
from humanoid_sim.stages.contacts import ContactStage, contacts, support_masks
from humanoid_sim.stages.delassus import delassus
from humanoid_sim.stages.free import free
from humanoid_sim.stages.impacts import Impacts, SweptMargins, impact_speed
from humanoid_sim.stages.integration import integration
from humanoid_sim.stages.integrator import MomentumProjection, at_start, free_flyers
from humanoid_sim.stages.joint_limits import JointLimitRows
from humanoid_sim.stages.kinematics import kinematics
from humanoid_sim.stages.solve import ContactSolve, solve
from humanoid_sim.stages.warm_start import WarmStart
from humanoid_sim.stages.wrenches import Wrenches
from humanoid_sim.state import BodyState, StepResult, WorldSnapshot, WorldState
from humanoid_sim.step_stats import STAGES, StepStats

__all__ = ["World", "WorldState", "WorldSnapshot", "BodyState", "StepResult", "STAGES", "MAX_DT"]

MAX_DT = 0.1  # [s] largest dt of the World, `humanoid-stack simulate --dt` and the node (chosen: 100 × 1 ms)


def _settings(value):
    """Solver settings from None, a `SolverSettings` or a mapping of its field names."""
    from humanoid_sim.solvers import SolverSettings

    if value is None or isinstance(value, SolverSettings):
        return value
    known = sorted(f.name for f in dataclasses.fields(SolverSettings))
    if not isinstance(value, Mapping):
        raise ConfigError(message("world", "solver_settings", "a SolverSettings or a mapping of its fields", value))
    bad = sorted(str(k) for k in value if k not in known)
    if bad:
        raise ConfigError(
            message("world", "solver_settings", f"a mapping of SolverSettings fields {known} (unknown: {bad})", value)
        )
    return SolverSettings(**dict(value))


def _sole_specs(soles, scene, robot) -> list:
    """The `SoleSpec`s the world simulates as FEM soles: ``soles`` None (the scene's
    ``robot.soles``), "rigid", "fem" (the robot's declared soles) or a sequence of `SoleSpec`."""
    from humanoid_model.sole_spec import SOLE_MODELS

    if soles is None:
        soles = getattr(scene.robot, "soles", "rigid") if scene.robot is not None else "rigid"
    if isinstance(soles, str):
        if soles not in SOLE_MODELS:
            raise ConfigError(message("world", "soles", f"one of {list(SOLE_MODELS)} or SoleSpecs", soles))
        if soles == "rigid":
            return []
        if robot is None or not robot.soles:
            raise ConfigError(message("world", "soles", "'fem' for a robot whose YAML declares soles", soles))
        return list(robot.soles.values())
    specs = list(soles)
    if specs and robot is None:
        raise ConfigError(message("world", "soles", "soles of a robot (this world has none)", soles))
    return specs


def _resolve_solver(name):
    from humanoid_sim.solvers import DEFAULT_SOLVER, get_solver

    return get_solver(name or DEFAULT_SOLVER)


class World:
    """The simulated world: see the module docstring. Build it with `World.from_scene`.

    Public state: ``t`` [s], ``q``, ``v`` (combined model), ``q_start``/``v_start`` (the last
    step's start; ``v_step``: ``v`` expressed at ``q_start``), ``last`` (its `StepResult`, None
    before the first step), ``steps`` (steps taken), ``step_stats`` (`StepStats`, drained by
    readers), ``tau_applied`` (actuated joints), ``pipeline`` (the contacts, Delassus and solve
    stages in one compiled call where the world allows it, `humanoid_sim.contact_pipeline`; set
    False to run the three stages every step, with the same results).
    """

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_scene(
        cls, path_or_name, robot=None, solver: str | None = None, dt: float = 1e-3, overrides=None, **kw
    ) -> World:
        """World of a scene file or shipped scene name.

        robot: None (the scene's robot, if any), a robot name / URDF path or a loaded `Robot`
        (replaces the scene's robot; placed at its default posture if the scene has none).
        When the scene was written for another robot, its posture is kept only if the new robot
        knows a posture of that name (else the new robot's default posture) and its joint
        overrides only for joints the new robot has. The base placement rule is unchanged: the
        scene's ``placement`` is composed with the posture's base pose, and an absolute
        ``base`` pose of the scene replaces it (docs/scenes.md).
        solver: a `humanoid_sim.solvers` name (default ``nsgs_newton``). dt [s]. overrides:
        scene ``--set`` values. Other keyword arguments go to `World.__init__`. The robot's URDF and
        sidecar are read once (`humanoid_model.urdf_description.read_once`).
        """
        from humanoid_model.robot import load_robot
        from humanoid_model.scene import load_scene

        with read_once():
            scene = path_or_name if hasattr(path_or_name, "free_bodies") else load_scene(path_or_name, overrides)
            rob = None
            if robot is not None:
                rob = robot if hasattr(robot, "model") else load_robot(robot)
                spec = spec_for_robot(scene.robot, rob)
                if spec is not scene.robot:
                    scene = dataclasses.replace(scene, robot=spec)
            elif scene.robot is not None:
                rob = load_robot(scene.robot.urdf_path, ankle=scene.robot.ankle)  # (a xacro path keeps its arguments)
            return cls(scene, rob, solver=solver, dt=dt, **kw)

    def __init__(
        self,
        scene,
        robot=None,
        solver: str | None = None,
        dt: float = 1e-3,
        margin: float = DEFAULT_MARGIN,
        merge_groups: bool = False,
        solver_settings=None,
        gains=None,
        gravity_compensation: bool = False,
        self_collision: bool = True,
        warm_start: bool = True,
        momentum_projection: bool = True,
        patch_points: int = 0,
        joint_limits: bool = True,
        soles=None,
        implicit_pd: bool = False,
    ):
        dt = finite_number(dt, source="world", field="dt", minimum=0.0, strict=True, maximum=MAX_DT, unit="s")
        margin = finite_number(margin, source="world", field="margin", minimum=0.0, unit="m")
        solver_settings = _settings(solver_settings)
        self.scene, self.robot, self.dt = scene, robot, dt
        self.solver_name = solver
        self.solver = _resolve_solver(solver)
        self.solver_settings = solver_settings
        self.t = 0.0
        self.steps = 0
        self.sole_specs = _sole_specs(soles, scene, robot)
        self._build_model()
        self._build_geometry(margin, self_collision, patch_points)
        self.soles = None  # `humanoid_sim.soles.world_coupling.FemSoles` when the soles are deformable
        if self.sole_specs:
            from humanoid_sim.soles.world_coupling import FemSoles

            self.soles = FemSoles(self.sole_specs, self.model, self.mobile, self.static, self.detector, dt)
        self._build_actuators(gains, gravity_compensation, joint_limits, implicit_pd)
        self.wrenches = Wrenches(self.model, scene.wrenches, self.tree_cols)
        self.haptics = None  # `humanoid_sim.stages.haptics.HapticDevice` while one is connected (`connect_haptics`)
        self.grasps = None  # `humanoid_sim.stages.grasp.Grasps` from the first `grasp` on
        self.contacts = ContactStage(
            self.geom_joint, self.geom_tree, len(self.static), self.tree_cols, merge_groups, dt
        )
        self.warm_start = WarmStart(enabled=warm_start)
        self.delassus = GroupDelassus(self.tree_cols, robot.model if robot is not None else None, self.masks, dt)
        self.impacts = Impacts(impact_speed(scene.gravity, dt), dt) if self._any_restitution else None
        self.solve = ContactSolve(self.solver, solver_settings, dt, impact_speed(scene.gravity, dt))
        self.momentum = (
            MomentumProjection(self.model, self.tree_cols, self.tree_root, self.tree_mass, dt)
            if momentum_projection
            else None
        )
        self.step_stats = StepStats()
        self.last: StepResult | None = None
        self.q_start, self.v_start = self.q, self.v
        # the contacts, Delassus and solve stages in one compiled call where the world allows it
        # (`humanoid_sim.contact_pipeline`; False: always the three stages, the same results)
        self.pipeline = pipeline_applies(self)

    def _build_model(self):
        scene, robot = self.scene, self.robot
        if robot is not None:
            robot.check_floating_inertia()  # a massless floating robot has no defined motion
            if hasattr(robot, "check_no_mimic"):
                robot.check_no_mimic("the simulator")
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
        self.body_joint: dict[str, int] = {}
        for b in scene.free_bodies:
            jid = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), b.name)
            model.appendBodyToJoint(
                jid, pin.Inertia(b.mass, np.asarray(b.com, float), np.asarray(b.inertia, float)), pin.SE3.Identity()
            )
            model.addBodyFrame(b.name, jid, pin.SE3.Identity(), 0)
            self.body_joint[b.name] = jid
            iv = model.joints[jid].idx_v
            self.tree_cols.append(np.arange(iv, iv + 6))
            self.tree_names.append(b.name)
        self.arm0 = np.concatenate([self.arm0, np.zeros(model.nv - self.arm0.shape[0])])
        model.gravity.linear = np.asarray(scene.gravity, float)
        self.model = model
        self.data = model.createData()
        self.flyers = free_flyers(model)  # the robot's root joint and every free body (`integrate`)
        self.tree_root = ([1] if robot is not None else []) + [self.body_joint[b.name] for b in scene.free_bodies]
        self.tree_mass = ([robot.mass] if robot is not None else []) + [b.mass for b in scene.free_bodies]
        self.masks = support_masks(model)
        # initial state
        q = pin.neutral(model)
        v = np.zeros(model.nv)
        if robot is not None:  # lifted by the FEM soles: undeformed, they touch the ground
            q[: robot.model.nq] = scene_robot_q(robot, scene.robot, lift=sole_lift(self.sole_specs))
        for b in scene.free_bodies:
            j = model.joints[self.body_joint[b.name]]
            q[j.idx_q : j.idx_q + 7] = b.pose.xyz_quat
            R = b.pose.rotation
            v[j.idx_v : j.idx_v + 3] = R.T @ np.asarray(b.linear_velocity, float)
            v[j.idx_v + 3 : j.idx_v + 6] = R.T @ np.asarray(b.angular_velocity, float)
        self.q, self.v = q, v
        self.q0 = q.copy()

    def _build_geometry(self, margin, self_collision, patch_points=0):
        scene, model = self.scene, self.model
        mobile = mobile_geometry(model, self.robot, scene.free_bodies, self.body_joint)
        static = static_geometry(scene)
        pin.forwardKinematics(model, self.data, self.q)  # candidate pairs: clear at the initial posture
        pair_filter = PairFilter.of_world(scene, self.robot)  # the scene's and the sidecar's `collision` rules
        pairs = candidate_pairs(mobile, model.parents, self.data, margin, self_collision, pair_filter)
        default_mu = scene.ground.friction if scene.ground is not None else 0.4
        self.detector = CollisionDetector(
            mobile,
            static,
            pairs,
            margin,
            default_friction=default_mu,
            patch_points=patch_points,
            static_blocked=pair_filter.static_blocked(mobile, static),
        )
        self.mobile, self.static = mobile, static
        self.sweeps = SweptMargins(model, mobile, margin, self.dt)  # speculative activation (`impacts`)
        self.geom_tree = np.array([g.tree for g in mobile], np.int64)
        self.geom_joint = np.array([g.joint for g in mobile], np.int64)
        # a pair's restitution is one of these values (`collision.detector._combine`): none > 0 -> no impacts
        es = [g.restitution for g in mobile] + [s.restitution for s in static] + [self.detector.mat_e_default]
        self._any_restitution = any(x is not None and x > 0 for x in es)

    def _build_actuators(self, gains, gravity_compensation, joint_limits, implicit_pd=False):
        robot = self.robot
        self.actuator = self.actuation = self.limits = None
        self.n_act = 0
        self.tau_applied = np.zeros(0)
        if robot is None:
            return
        from humanoid_sim.stages.actuators import PDActuator, posture_trajectory, standing_gains

        names = robot.dof_names  # = joint_names, with a ball joint's three axes (humanoid_model.spherical_joints)
        balls = robot.ball_joints
        self.n_act = len(names)
        self.act_v = np.arange(6, robot.model.nv)
        self.act_q = np.arange(7, robot.model.nq)  # the actuated configuration (a ball joint's quaternion)
        if gains is None:
            feet = [
                robot.model.frames[robot.frame_id(c.body)].parentJoint
                for c in robot.contact_locations.values()
                if c.kind == "sole"
            ]
            if robot.springs:  # weld above the springs: the legs get the rigid-ankle robot's inertias
                springs = {robot.model.getJointId(j) for j in robot.springs}
                feet = sorted({robot.model.parents[j] for j in springs} - springs)
            kp, kv = standing_gains(robot.model, self.q[: robot.model.nq], feet)
        else:
            kp, kv = gains
        if robot.springs:  # passive spring-dampers (flexible ankle, Chardonnet 2009, eq. (4.3)): a PD held at 0
            kp, kv = np.array(kp, float), np.array(kv, float)
            for j, (k, c) in robot.springs.items():
                kp[names.index(j)], kv[names.index(j)] = k, c
        self.actuator = PDActuator(names, kp, kv, robot.effort_max, balls=balls)
        if implicit_pd:  # stiff servos: K_p integrated implicitly too; passive springs keep theirs explicit
            self.actuator.implicit_dt[:] = self.dt
            for j in robot.springs or ():
                self.actuator.implicit_dt[names.index(j)] = 0.0
        lo, hi = robot.q_lower, robot.q_upper
        finite = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
        self.q_lower = np.where(finite, lo, -np.inf)
        self.q_upper = np.where(finite, hi, np.inf)
        self.actuator.set_position(self.q[self.act_q])
        if self.scene.robot is not None and self.scene.robot.motion:  # the scene's keyframes (docs/scenes.md)
            self.actuator.set_trajectory(posture_trajectory(robot, self.scene.robot.motion), t_start=0.0)
        self.actuation = Actuation(self.actuator, self.act_q, self.act_v, self.arm0, self.dt, gravity_compensation)
        self.tau_applied = np.zeros(self.n_act)
        if joint_limits:
            sel = np.flatnonzero(self.actuator.dof_q >= 0)  # the 1-DOF joints: a quaternion has no limits
            self.limits = JointLimitRows(
                [names[i] for i in sel],
                self.q_lower[sel],
                self.q_upper[sel],
                self.act_q[self.actuator.dof_q[sel]],
                self.act_v[sel],
                self.nv_robot,
                self.dt,
            )

    # ------------------------------------------------------------------ inputs
    def apply_wrench(self, body: str, force=(0, 0, 0), torque=(0, 0, 0), point=(0, 0, 0), duration=None):
        """Apply a wrench on ``body`` (free body or robot link) from now on: world force [N] at
        ``point`` (body frame [m]) and world torque [N·m], added to the scene's timed wrenches.
        It acts for ``duration`` [s] (None: until changed or cleared with `clear_wrenches`)."""
        self.wrenches.apply(body, force, torque, point, self.t, duration)

    def clear_wrenches(self):
        """Remove every wrench applied with `apply_wrench`."""
        self.wrenches.clear()

    @property
    def user_wrenches(self) -> dict:
        """body -> (force, torque, point) of the wrenches applied with `apply_wrench`."""
        return self.wrenches.user

    def connect_haptics(self, settings=None):
        """Connect a haptic device (`humanoid_sim.stages.haptics.HapticDevice`, ``settings``: its
        `HapticSettings`) and return it; it acts from the next step while a body is coupled
        (attach / touch). One device per world: a new one replaces the old."""
        from humanoid_sim.stages.haptics import HapticDevice

        self.haptics = HapticDevice(self, settings)
        return self.haptics

    def disconnect_haptics(self):
        """Remove the haptic device: the world steps as one that never had one."""
        self.haptics = None

    def grasp(self, link: str, body: str, point=(0, 0, 0), body_point=None, stiffness=1e4, angular_stiffness=0.0):
        """Hold ``body`` with ``link`` from the next step (`humanoid_sim.stages.grasp`): a spring-damper
        of ``stiffness`` [N/m] (and ``angular_stiffness`` [N·m/rad], 0: a point grasp) between
        ``point`` on the link (its frame [m]) and ``body_point`` on the body (its frame [m]; None:
        where the link's point is now), equal and opposite wrenches on both. Returns its
        `humanoid_sim.stages.grasp.Grasp` (``wrench``: the force and torque on the body after each
        step). `CommandError` for an unknown link or body, a bad point or gain, or too stiff a
        spring for ``dt``."""
        from humanoid_sim.stages.grasp import Grasps

        grasps = self.grasps if self.grasps is not None else Grasps(self)
        made = grasps.add(link, body, point, body_point, stiffness, angular_stiffness)
        self.grasps = grasps
        return made

    def release(self, link: str | None = None, body: str | None = None):
        """Let go the grasps of ``link`` (None: every grasp), of ``body`` only if given.
        `CommandError` if ``link`` holds nothing."""
        if self.grasps is not None:
            self.grasps.release(link, body)
        elif link is not None:
            from humanoid_sim.stages.grasp import Grasps

            Grasps(self).release(link, body)  # the error

    # ------------------------------------------------------------------ step
    def step(self, n: int = 1):
        """Advance ``n`` steps (a positive integer) of ``dt``."""
        for _ in range(integer(n, source="world: step(n)", field="n", minimum=1)):
            self._step()
        return self

    def _step(self):
        """One step: the stages in order, each timed by a `perf_counter` reading at its start (the
        free stage's includes its finiteness check), recorded by `StepStats.record_stages`
        (module docstring)."""
        q, v = self.q, self.v
        if self.wrenches.until:
            self.wrenches.expire(self.t, self.dt)
        t0 = perf_counter()  # the step's wall time starts with the kinematics stage
        kinematics(self, q)
        t1 = perf_counter()
        tau, damp = actuators(self, q, v)
        t2 = perf_counter()
        vf, M = free(self, q, v, tau)
        if not math.isfinite(np.add.reduce(vf)):  # = vf.sum(); NaN/inf in q, v or tau ends here, before the contacts
            raise self._non_finite_start(q, v, tau, vf)
        t3 = perf_counter()
        batch, R, p = collision(self, vf)
        t4 = perf_counter()
        lim = self.limits.rows(q) if self.limits is not None else None  # the active joint-limit rows
        fused = None
        if self.pipeline and batch.m and lim is None and self.impacts is None:
            fused = contact_pipeline(self, batch, R, p, M, vf)  # None: left to the stages
        if fused is None:
            cs, warm = contacts(self, batch, R, p, lim)
            t5 = perf_counter()
            systems = delassus(self, cs, lim, M, vf)
            t6 = perf_counter()
            forces, iterations, dv, dv_position = solve(self, systems, cs, warm, lim)
        else:  # the call's time is the solve stage's (`humanoid_sim.contact_pipeline`)
            cs, forces, iterations, dv = fused
            dv_position = None
            t5 = t6 = t4
        t7 = perf_counter()
        qnew, vnew = integration(self, q, v, vf, dv, dv_position, cs, damp)
        t8 = perf_counter()
        if not math.isfinite(np.add.reduce(vnew)):  # (= vnew.sum()) q integrates a finite v from a finite q: finite
            raise self._non_finite_end(dv, qnew, vnew)
        self.q, self.v = qnew, vnew
        self.q_start, self.v_start = q, v
        self.t += self.dt
        self.steps += 1
        stats = self.step_stats
        stats.record_stages((t0, t1, t2, t3, t4, t5, t6, t7, t8))
        stats.end_step(t8 - t0, iterations, cs.min_gap)
        self.last = StepResult(batch, cs.frames, forces, cs.groups, self.limit_torques, iterations)

    def _non_finite_start(self, q, v, tau, vf) -> NonFiniteStateError:
        """The error of a non-finite free velocity ``vf``: from the step's start state (set from
        outside), from the actuators stage (``tau``) or from the free stage."""
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            return self._non_finite("the state at the start of the step (world.q / world.v set from outside?)", q, v)
        return self._non_finite("stage 'actuators'" if not np.all(np.isfinite(tau)) else "stage 'free'", q, vf)

    def _non_finite_end(self, dv, qnew, vnew) -> NonFiniteStateError:
        """The error of a non-finite end velocity ``vnew``: from the solve stage (the contacts'
        velocity change ``dv``) or from the integration stage."""
        return self._non_finite("stage 'solve'" if not np.all(np.isfinite(dv)) else "stage 'integration'", qnew, vnew)

    def _non_finite(self, where: str, q, v) -> NonFiniteStateError:
        """The error of a non-finite state met at ``where``, naming the first bad coordinates."""
        bad_q, bad_v = np.flatnonzero(~np.isfinite(q))[:3], np.flatnonzero(~np.isfinite(v))[:3]
        return NonFiniteStateError(
            f"world: non-finite state at t = {self.t:.6g} s (step {self.steps}), from {where}: "
            f"q indices {bad_q.tolist()}, v indices {bad_v.tolist()}; the world keeps its last finite state"
        )

    # ------------------------------------------------------------------ outputs
    @property
    def limit_torques(self) -> dict:
        """joint name -> torque of its active limit in the last step [N·m] (signed)."""
        return self.limits.torques if self.limits is not None else {}

    def contact_forces_world(self):
        """(points (m, 3), world force on body A (m, 3)) of the last step [N]."""
        if self.last is None or self.last.batch.m == 0:
            return np.zeros((0, 3)), np.zeros((0, 3))
        return self.last.batch.points, self.last.forces_world()

    def contact_list(self):
        """Contacts of the last step as dicts {body_a, body_b, point, normal, force, gap}."""
        if self.last is None:
            return []
        b = self.last.batch
        _, fw = self.contact_forces_world()
        out = []
        for k in range(b.m):
            A = self.mobile[b.geom_a[k]].body
            B = self.static[b.geom_b[k]].name if b.b_static[k] else self.mobile[b.geom_b[k]].body
            out.append(
                {
                    "body_a": A,
                    "body_b": B,
                    "point": b.points[k].tolist(),
                    "normal": b.normals[k].tolist(),
                    "force": fw[k].tolist(),
                    "gap": float(b.gaps[k]),
                }
            )
        return out

    def body_state(self, name: str) -> BodyState:
        """`BodyState` of a free body or of the robot base (its name, "base" or "root_joint")."""
        jid = self.body_joint.get(name)
        if jid is None:
            if self.robot is None or name not in (self.robot.name, "base", "root_joint"):
                raise ConfigError(message("world: body_state", "body", "a free body or the robot base", name))
            jid = 1
        j = self.model.joints[jid]
        qj = self.q[j.idx_q : j.idx_q + 7]
        vj = self.v[j.idx_v : j.idx_v + 6]
        R = pin.Quaternion(qj[6], qj[3], qj[4], qj[5]).toRotationMatrix()
        return BodyState(qj[:3].copy(), qj[3:7].copy(), R @ vj[:3], R @ vj[3:])

    @property
    def state(self) -> WorldState:
        """The `WorldState` now (copies)."""
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

    @property
    def v_step(self) -> np.ndarray:
        """The last step's post-contact velocity expressed at its start configuration ``q_start``:
        the velocity the contact law holds on, J(q_start) v_step. ``v`` is the same motion
        expressed at ``q`` (free flyers: `integrator.carry`); they differ in the free flyers'
        linear velocities only, by the step's rotation."""
        return at_start(self.q_start, self.q, self.v, self.flyers)

    # ------------------------------------------------------------------ save and restore
    def get_state(self) -> WorldSnapshot:
        """A `WorldSnapshot` of everything the next steps depend on (deep copies)."""
        return WorldSnapshot(
            t=self.t,
            steps=self.steps,
            q=self.q.copy(),
            v=self.v.copy(),
            q_start=self.q_start.copy(),
            v_start=self.v_start.copy(),
            armature=np.array(self.model.armature),
            actuator=deepcopy(vars(self.actuator)) if self.actuator is not None else None,
            # the actuation's own memory; its actuator is the world's, restored above it
            actuation=deepcopy({k: x for k, x in vars(self.actuation).items() if k != "actuator"})
            if self.actuation is not None
            else None,
            warm_start=deepcopy((self.warm_start.keys, self.warm_start.forces, self.warm_start.local)),
            limits=self.limits.memory() if self.limits is not None else None,
            wrenches=deepcopy((self.wrenches.user, self.wrenches.until)),
            tau_applied=np.array(self.tau_applied),
            nq=self.model.nq,
            nv=self.model.nv,
            soles=self.soles.memory() if self.soles is not None else None,
            grasps=self.grasps.memory() if self.grasps is not None else None,
        )

    def set_state(self, snapshot: WorldSnapshot) -> None:
        """Restore a `get_state` snapshot of this world (or of a world built the same way); the
        next steps repeat the original ones bit for bit. The snapshot's grasps replace this world's
        (none for a snapshot without grasps). `ConfigError` for a snapshot of another model or one
        whose grasps name a body this world does not have, before anything changes."""
        s = snapshot
        if not isinstance(s, WorldSnapshot) or (s.nq, s.nv) != (self.model.nq, self.model.nv):
            got = f"nq, nv = {s.nq}, {s.nv}" if isinstance(s, WorldSnapshot) else type(s).__name__
            want = f"nq, nv = {self.model.nq}, {self.model.nv}"
            raise ConfigError(f"world: set_state: a snapshot of a world with {want} expected; got {got}")
        if (s.actuator is None) != (self.actuator is None):
            raise ConfigError("world: set_state: the snapshot's world and this one differ in having a robot")
        if (s.soles is None) != (self.soles is None):
            raise ConfigError("world: set_state: the snapshot's world and this one differ in having FEM soles")
        from humanoid_sim.stages.grasp import Grasps

        grasps = Grasps.restored(self, getattr(s, "grasps", None))  # None: a snapshot from before grasps were saved
        if self.soles is not None:
            self.soles.restore(s.soles)
        self.t, self.steps = s.t, s.steps
        self.q, self.v, self.q_start, self.v_start = s.q.copy(), s.v.copy(), s.q_start.copy(), s.v_start.copy()
        self.model.armature = np.array(s.armature)
        if self.actuator is not None:
            vars(self.actuator).update(deepcopy(s.actuator))  # in place: the actuation holds this object
            actuation = deepcopy(s.actuation)
            actuation["actuator"] = self.actuator
            vars(self.actuation).update(actuation)
        self.warm_start.keys, self.warm_start.forces, self.warm_start.local = deepcopy(s.warm_start)
        if self.limits is not None:
            self.limits.restore(s.limits)
        self.wrenches.user, self.wrenches.until = deepcopy(s.wrenches)
        self.tau_applied = np.array(s.tau_applied)
        self.grasps = grasps
        self.last = None

    def stats(self) -> dict:
        """Statistics since the last `step_stats.drain()` (the whole run if none): step time
        median / max / mean [s], per-stage mean time [s], iterations, unconverged solves, impacts
        and residual maxima (docs/recording.md)."""
        s = self.step_stats.summary()
        return {
            "steps": s.steps,
            "median_step_time": s.median_step_time,
            "max_step_time": s.max_step_time,
            "mean_step_time": s.mean_step_time,
            "stage_time": s.stage_time,
            "solver": self.solver.name,
            "iterations_total": s.iterations_total,
            "iterations_max": s.iterations_max,
            "unconverged_solves": s.unconverged_solves,
            "impacts": s.impacts,
            "max_residuals": s.max_residuals,
        }
