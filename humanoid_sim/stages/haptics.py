"""Haptic interaction with a simulated world (Chardonnet 2009, §3.4,
eqs. (3.63)–(3.65); docs/haptics.md).

A `HapticDevice` is the pointer of a haptic arm (a PHANTOM Omni in the thesis) inside a
`humanoid_sim.World`. The device sets the pointer pose (`set_pointer`); each world step then asks
the device for the generalised forces of the coupling (`__call__`, the World's actuators stage:
the known external wrench Jᵀ f_e of eq. (3.64)) and the device keeps the wrench it would
render to the user (`feedback`). Modes (Chardonnet 2009, §3.4):

* **attach** (bilateral, eq. (3.63)): a 6-D spring-damper between a point of a body and
  the pointer. The force rendered to the user (on the pointer) is

      f_e = k_p (x_object − x_pointer) + k_v (ẋ_object − ẋ_pointer),   k_v = √(2 m k_p)

  and the body gets −f_e at the attach point (Newton's third law); the rotational half is the same
  law on the relative rotation log(R_target R_bodyᵀ) with k_r and k_ω = √(2 I k_r). The attach
  point is where the pointer is when attach is pressed (the thesis's stylus button) unless
  given, and the body's orientation relative to the pointer at that moment is the rest
  orientation, so attaching never jerks the body.
  **m** (the thesis's m_object, eq. (3.63)): the translational block of the operational-space inertia
  Λ = (J M⁻¹ Jᵀ)⁻¹ at the attach point (6-D: translation and rotation both held), its smallest
  eigenvalue. For a free body this block is exactly the body's mass whatever the point, the thesis's
  m_object; for a robot link it is the effective mass of the robot at the point (the lightest
  direction: the largest k_v/m, the stable choice). **I**: likewise the smallest eigenvalue of
  Λ's rotational block (for a free body: its inertia about the attach point). Λ is computed once,
  at attach. Note: k_v = √(2 m k_p) is a damping ratio of 1/√2, not critical damping.
* **compliant robot** (eq. (3.65), §3.4.1): attached to a robot link with an admittance (M_d, B_d),
  the robot's PD set-point follows M_d q̈_d + B_d q̇_d = J_eᵀ f_e (`humanoid_sim.stages.admittance`).
* **touch** (unilateral): a god-object (proxy) coupling. The pointer is a sphere of
  radius ``radius``; while the device's sphere penetrates a body by d (coal signed distance), the
  proxy is the sphere pushed out along the contact normal onto the body surface (it never
  penetrates) and the device renders F = (k_p d + k_v ḋ) n ≥ 0 along the outward normal n
  (clamped: it pushes, never pulls); the body gets −w F at the contact point, with w the thesis's
  "arbitrary weight" (default 1, Newton's third law). The thesis takes this contact from
  the device's own library because a constraint on a massless point is ill-posed (§3.4): the
  same reason for a penalty here rather than a row of the contact solve.

The coupling is explicit: the wrench is computed from the state at the start of the step and
enters the free velocity like any external wrench. A stiffness whose ω_n·dt = √(k/m)·dt exceeds
`MAX_OMEGA_DT` is refused (too stiff a coupling diverges, Chardonnet 2009, §3.4).

Units: SI, world frame; quaternions xyzw; wrenches (force [N], torque [N·m]) about the attach
point (attach) or the contact point (touch).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from humanoid_model.coal_import import coal
from humanoid_model.validation import finite_number, finite_vector, message
from humanoid_sim.exceptions import CommandError

__all__ = ["HapticDevice", "HapticSettings", "MAX_OMEGA_DT", "MODES", "effective_inertia"]

MODES = ("off", "attach", "touch")
MAX_OMEGA_DT = 0.5  # chosen: semi-implicit Euler with explicit damping is stable to ~1.4 at ζ = 1/√2; margin ×3
VELOCITY_WINDOW = 0.05  # [s] chosen: pointer samples further apart than this give no velocity estimate
SOURCE = "haptics"


@dataclass(frozen=True)
class HapticSettings:
    """Gains of the coupling (the thesis gives none, Chardonnet 2009, §3.4).

    stiffness k_p [N/m] (chosen 500: the thesis's 1.75 kg object, §3.4.1, hangs 34 mm below the pointer,
    ω_n = 16.9 rad/s); angular_stiffness k_r [N·m/rad] (chosen 2: a 10 cm 1.75 kg box turns at
    ω_n ≈ 26 rad/s); radius [m] of the touch sphere (chosen 1 cm, a stylus tip); weight: the
    factor on the force applied to the touched body (1 = Newton's third law);
    damping_mass [kg] / damping_inertia [kg·m²]: the m and I of k_v = √(2 m k_p), None = from Λ
    (module docstring)."""

    stiffness: float = 500.0
    angular_stiffness: float = 2.0
    radius: float = 0.01
    weight: float = 1.0
    damping_mass: float | None = None
    damping_inertia: float | None = None

    def checked(self, source: str = SOURCE) -> HapticSettings:
        """The settings, each value checked (`CommandError` naming the field and the value)."""
        kw = dict(source=source, error=CommandError)
        finite_number(self.stiffness, field="stiffness", minimum=0.0, strict=True, unit="N/m", **kw)
        finite_number(self.angular_stiffness, field="angular_stiffness", minimum=0.0, unit="N m/rad", **kw)
        finite_number(self.radius, field="radius", minimum=0.0, unit="m", **kw)
        finite_number(self.weight, field="weight", minimum=0.0, **kw)
        for name in ("damping_mass", "damping_inertia"):
            if getattr(self, name) is not None:
                finite_number(getattr(self, name), field=name, minimum=0.0, strict=True, **kw)
        return self


def effective_inertia(model, data, q, joint: int, point, mask) -> tuple[float, float]:
    """(m [kg], I [kg·m²]): the smallest eigenvalues of the translational and rotational blocks
    of Λ = (J M⁻¹ Jᵀ)⁻¹ at the world ``point`` of ``joint`` (J: the 6 × nv Jacobian of the point,
    [linear; angular], world axes; ``mask``: the joint's support columns). ``data`` is scratch."""
    pin.computeJointJacobians(model, data, q)
    pin.crba(model, data, q)
    M = np.triu(data.M) + np.triu(data.M, 1).T
    J = data.J * mask
    shift = np.eye(6)
    shift[:3, 3:] = -pin.skew(np.asarray(point, float))  # v_point = v_o + ω × p = v_o − [p]× ω
    Jp = shift @ J
    Lam = np.linalg.pinv(Jp @ np.linalg.solve(M, Jp.T))
    return float(np.linalg.eigvalsh(Lam[:3, :3])[0]), float(np.linalg.eigvalsh(Lam[3:, 3:])[0])


@dataclass
class _Target:
    """A coupled body: frame id, joint, tree index, its world-frame support mask row."""

    body: str
    frame: int
    joint: int
    tree: int
    mask: np.ndarray
    point: np.ndarray = None  # attach point in the body frame [m]
    R_rest: np.ndarray = None  # body orientation relative to the pointer's at attach
    m: float = 0.0
    inertia: float = 0.0
    geoms: list = field(default_factory=list)  # mobile geometry indices (touch)


class HapticDevice:
    """The haptic pointer of one world (module docstring). Build it with
    `humanoid_sim.World.connect_haptics`; ``mode`` is one of `MODES`.

    Read after each step: ``feedback`` (6,) the wrench rendered to the user [N, N·m] (world frame,
    force then torque; zeros when nothing is coupled), ``body_wrench`` (6,) the wrench on the
    coupled body at ``application_point`` (world [m]), ``depth`` the device sphere's penetration
    [m] (touch), ``proxy`` the god-object position [m] (touch; the pointer otherwise)."""

    def __init__(self, world, settings: HapticSettings | None = None):
        self.world = world
        self.model = world.model
        self.data = world.model.createData()  # scratch for Λ (the world's data stays the step's)
        self.settings = (settings or HapticSettings()).checked()
        self.mode = "off"
        self.target: _Target | None = None
        self.position = None  # pointer position [m], quaternion xyzw, velocities [m/s, rad/s]
        self.rotation = np.eye(3)
        self.velocity = np.zeros(3)
        self.angular_velocity = np.zeros(3)
        self._sample_t = None
        self.stiffness_damping = (0.0, 0.0, 0.0, 0.0)  # k_p, k_v, k_r, k_ω of the current coupling
        self.admittance = None  # `humanoid_sim.stages.admittance.Admittance` of a compliant robot (attach)
        self._zero()

    def _zero(self):
        self.feedback = np.zeros(6)
        self.body_wrench = np.zeros(6)
        self.application_point = np.zeros(3) if self.position is None else self.position.copy()
        self.depth = 0.0
        self.proxy = None if self.position is None else self.position.copy()

    # ------------------------------------------------------------------ inputs
    def set_pointer(self, position, quaternion=None, velocity=None, angular_velocity=None, t=None):
        """The pointer pose: position (3,) [m], quaternion (4,) xyzw (None: identity), world frame.
        Velocities [m/s, rad/s] as given; when None and ``t`` [s] is given, the linear velocity is
        the difference with the previous sample over the time between them when that is within
        `VELOCITY_WINDOW` (else 0). `CommandError` (nothing changes) for a non-finite value."""
        src = f"{SOURCE}: pointer"
        p = finite_vector(position, 3, source=src, field="position", error=CommandError)
        R = np.eye(3)
        if quaternion is not None:
            qx = finite_vector(quaternion, 4, source=src, field="quaternion", error=CommandError)
            n = np.linalg.norm(qx)
            if not 0.5 < n < 2.0:
                raise CommandError(message(src, "quaternion", "a unit quaternion xyzw", quaternion))
            R = pin.Quaternion(qx[3], qx[0], qx[1], qx[2]).normalized().toRotationMatrix()
        v = None if velocity is None else finite_vector(velocity, 3, source=src, field="velocity", error=CommandError)
        w = (
            None
            if angular_velocity is None
            else finite_vector(angular_velocity, 3, source=src, field="angular_velocity", error=CommandError)
        )
        if t is not None:
            t = finite_number(t, source=src, field="t", error=CommandError, unit="s")
        if v is None:
            v = np.zeros(3)
            if t is not None and self._sample_t is not None and 0.0 < t - self._sample_t <= VELOCITY_WINDOW:
                v = (p - self.position) / (t - self._sample_t)
        self.position, self.rotation, self.velocity = p, R, v
        self.angular_velocity = np.zeros(3) if w is None else w
        self._sample_t = t

    def _target(self, body: str, field_name: str) -> _Target:
        model, world = self.model, self.world
        if not isinstance(body, str) or model.getFrameId(body) >= len(model.frames):
            raise CommandError(message(SOURCE, field_name, "a free body or robot link name", body))
        fid = model.getFrameId(body)
        joint = model.frames[fid].parentJoint
        tree = world.wrenches.tree_of(body)
        geoms = [i for i, g in enumerate(world.mobile) if g.body == body]
        return _Target(body, fid, joint, tree, world.masks[joint], geoms=geoms)

    def _body_pose(self, data, target):
        oMf = data.oMi[target.joint] * self.model.frames[target.frame].placement
        return oMf.rotation, oMf.translation

    def attach(self, body: str, point=None, admittance=None):
        """Attach the pointer to ``body`` at ``point`` (body frame [m]; None: where the pointer
        is now). ``admittance``: None, or (M_d, B_d) for a robot link: the robot becomes compliant
        (eq. 3.65, `humanoid_sim.stages.admittance`), its PD set-point following the admittance from the
        robot's current set-point. `CommandError` without a pointer pose, for an unknown body or a
        point that is not 3 finite numbers, an admittance on a free body, or for a stiffness too
        high for the world's dt (`MAX_OMEGA_DT`)."""
        if self.position is None:
            raise CommandError(f"{SOURCE}: attach: no pointer pose yet (set_pointer first)")
        target = self._target(body, "body")
        world, s = self.world, self.settings
        data = self.data
        pin.forwardKinematics(self.model, data, world.q)
        R, p = self._body_pose(data, target)
        if point is None:
            target.point = R.T @ (self.position - p)
        else:
            target.point = finite_vector(point, 3, source=f"{SOURCE}: attach", field="point", error=CommandError)
        x = p + R @ target.point
        m, inertia = effective_inertia(self.model, data, world.q, target.joint, x, target.mask)
        target.m = s.damping_mass if s.damping_mass is not None else m
        target.inertia = s.damping_inertia if s.damping_inertia is not None else inertia
        self._check_stiffness(s.stiffness, target.m, "stiffness")
        if s.angular_stiffness > 0:
            self._check_stiffness(s.angular_stiffness, target.inertia, "angular_stiffness")
        compliant = self._admittance(target, admittance) if admittance is not None else None
        target.R_rest = self.rotation.T @ R
        kv = np.sqrt(2.0 * target.m * s.stiffness)  # Chardonnet 2009, eq. (3.63)
        kw = np.sqrt(2.0 * target.inertia * s.angular_stiffness)
        self.stiffness_damping = (s.stiffness, kv, s.angular_stiffness, kw)
        self.target, self.mode, self.admittance = target, "attach", compliant
        self._zero()

    def _admittance(self, target, gains):
        from humanoid_sim.stages.admittance import Admittance

        world = self.world
        if world.robot is None or target.tree != 0:
            raise CommandError(message(f"{SOURCE}: attach", "admittance", "used with a robot link only", target.body))
        act = world.actuator
        if act.balls is not None:  # eq. 3.65 integrates q_d in joint space: 1-DOF joints only (docs/avatar.md)
            raise CommandError(
                message(f"{SOURCE}: attach", "admittance", "used with a robot of 1-DOF joints", world.robot.name)
            )
        start = act.q_d if act.mode == "pd" else world.q[world.act_q]
        return Admittance(gains[0], gains[1], start, world.q_lower, world.q_upper)

    def touch(self, body: str):
        """Touch mode against ``body``'s collision shapes (module docstring). `CommandError` for
        an unknown body or one without collision geometry."""
        target = self._target(body, "body")
        if not target.geoms:
            raise CommandError(message(SOURCE, "body", "a body with collision geometry", body))
        s, world = self.settings, self.world
        pin.forwardKinematics(self.model, self.data, world.q)
        _, p = self._body_pose(self.data, target)
        m, _ = effective_inertia(self.model, self.data, world.q, target.joint, p, target.mask)
        target.m = s.damping_mass if s.damping_mass is not None else m
        self._check_stiffness(s.stiffness, target.m, "stiffness")
        self.stiffness_damping = (s.stiffness, np.sqrt(2.0 * target.m * s.stiffness), 0.0, 0.0)
        self._sphere = coal.Sphere(s.radius) if s.radius > 0 else coal.Sphere(1e-9)
        self.target, self.mode, self.admittance = target, "touch", None
        self._zero()

    def release(self):
        """Nothing coupled: the world steps as without a device (bit for bit)."""
        self.target, self.mode, self.admittance = None, "off", None
        self.stiffness_damping = (0.0, 0.0, 0.0, 0.0)
        self._zero()

    def _check_stiffness(self, k, m, name):
        wdt = np.sqrt(k / m) * self.world.dt
        if wdt > MAX_OMEGA_DT:
            raise CommandError(
                message(
                    SOURCE,
                    name,
                    f"at most {MAX_OMEGA_DT**2 * m / self.world.dt**2:.6g} for m = {m:.6g} and dt = "
                    f"{self.world.dt:g} s (sqrt(k/m) dt <= {MAX_OMEGA_DT}: too stiff diverges)",
                    k,
                )
            )

    # ------------------------------------------------------------------ per step
    @property
    def active(self) -> bool:
        """Whether a body is coupled (the World skips the device otherwise)."""
        return self.target is not None

    @property
    def trees(self) -> set[int]:
        """The mobile trees the device pushes (excluded from the momentum projection)."""
        return {self.target.tree} if self.target is not None else set()

    def __call__(self, data, v) -> np.ndarray | None:
        """Generalised forces (nv,) of the coupling at the step's start (``data`` after
        ``pin.computeJointJacobians``, ``v`` the velocity), or None when nothing acts; sets
        ``feedback``, ``body_wrench``, ``application_point``, ``depth``, ``proxy``."""
        if self.target is None:
            return None
        if self.mode == "attach":
            return self._attach(data, v)
        return self._touch(data, v)

    def _twist(self, data, target, v):
        """World spatial velocity (v_o, ω) of the target's tree at the world origin."""
        return (data.J * target.mask) @ v

    def _generalized(self, data, target, wrench, x):
        """Jᵀ [f; τ + x × f] of a wrench (f, τ) applied at the world point x."""
        f, tau = wrench[:3], wrench[3:]
        return (data.J * target.mask).T @ np.concatenate([f, tau + np.cross(x, f)])

    def _attach(self, data, v):
        t = self.target
        kp, kv, kr, kw = self.stiffness_damping
        R, p = self._body_pose(data, t)
        x = p + R @ t.point
        V = self._twist(data, t, v)
        omega = V[3:]
        xdot = V[:3] + np.cross(omega, x)
        f_e = kp * (x - self.position) + kv * (xdot - self.velocity)  # eq. 3.63, on the pointer
        R_target = self.rotation @ t.R_rest
        e = pin.log3(R_target @ R.T)  # rotation taking the body to its rest orientation, world axes
        tau_body = kr * e - kw * (omega - self.angular_velocity)
        self.body_wrench = np.concatenate([-f_e, tau_body])
        self.feedback = -self.body_wrench
        self.application_point = x
        self.proxy = self.position.copy()
        tau = self._generalized(data, t, self.body_wrench, x)
        if self.admittance is not None:  # eq. 3.65: the set-point of the next step
            world = self.world
            world.actuator.set_position(*self.admittance.step(tau[world.act_v], world.dt))
        return tau

    def _touch(self, data, v):
        t, world, s = self.target, self.world, self.settings
        kp, kv, _, _ = self.stiffness_damping
        pointer = coal.Transform3s()
        pointer.setTranslation(self.position)
        best = None
        for gi in t.geoms:
            g = world.mobile[gi]
            oMi = data.oMi[g.joint]
            Rg = oMi.rotation @ g.placement_R
            pg = oMi.translation + oMi.rotation @ g.placement_p
            res = coal.DistanceResult()
            d = coal.distance(g.shape, coal.Transform3s(Rg, pg), self._sphere, pointer, coal.DistanceRequest(), res)
            if best is None or d < best[0]:
                best = (d, np.array(res.getNearestPoint1()), np.array(res.normal))
        self._zero()
        d, c, n = best
        if d >= 0.0:
            return None
        depth = -d
        V = self._twist(data, t, v)
        cdot = V[:3] + np.cross(V[3:], c)
        rate = float(n @ (cdot - self.velocity))  # d(depth)/dt: the body approaching the pointer
        fn = max(kp * depth + kv * rate, 0.0)  # unilateral: pushes, never pulls
        self.depth = depth
        self.proxy = self.position + depth * n
        self.feedback = np.concatenate([fn * n, np.zeros(3)])
        self.body_wrench = -s.weight * self.feedback
        self.application_point = c
        return self._generalized(data, t, self.body_wrench, c)
