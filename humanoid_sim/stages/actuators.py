"""Actuators (Chardonnet 2009, §5.1.2.3, eq. (5.8)): PD position control with
the thesis's joint model, direct torque control and JointTrajectory following.

    Γ = R (K_p (q_d − q) + K_v (q̇_d − q̇)) + μ_v q̇ + μ_d sign(q̇)            (5.8)

saturated at the URDF effort limit. The thesis identifies R, K_p, K_v, μ_v, μ_d
on the robot but prints no values (Chardonnet 2009, §5.1.2.3); ours are chosen and documented:

* R = 1 (gains are joint-side);
* K_p = ω_n² I_j, K_v = 2 ζ ω_n I_j with ω_n = 2π·10 rad/s and ζ = 1, where I_j is the
  inertia joint j sees with both feet welded to the ground (the same rule as the Pinocchio and
  MuJoCo comparison loops of `benchmarks/sim_step.py`), computed at the initial posture; a robot
  without feet (an arm, a chain) uses the inertia with its root welded (`standing_gains`);
* μ_v = μ_d = 0. (5.8) adds the friction terms with a plus sign; a dissipative joint friction
  is obtained with μ_v ≤ 0 and μ_d ≤ 0, which is how we read the identified values.

Integration: the damping part R K_v is integrated implicitly, i.e. added to the
mass matrix diagonal as dt·K_v (Pinocchio ``armature``), as MuJoCo does for joint damping and
as the peer loop does; a joint whose explicit torque reaches the effort limit is clipped and
gets no implicit damping in that step. `PDActuator.torque` returns the explicit part; the
applied torque is that part minus K_v Δq̇ of the step (`Actuation.applied`, reported by the World).

Implicit PD (option, ``PDActuator.implicit_dt``; `World(implicit_pd=True)`): the stiffness is
integrated implicitly too, for stiff position servos. The torque of the step is the PD law at the
end of the step, against the target at the end of the step, with q⁺ = q + dt q̇⁺ (semi-implicit
Euler) and q_d⁺ = q_d + dt q̇_d:

    Γ = R (K_p (q_d⁺ − q⁺) + K_v (q̇_d − q̇⁺))
      = R (K_p (q_d − q) + (K_v + dt K_p)(q̇_d − q̇))  −  R (K_v + dt K_p) Δq̇,   Δq̇ = q̇⁺ − q̇

i.e. the explicit law with the velocity gain K_v + dt K_p, and R (K_v + dt K_p) as the implicit
gain: the mass matrix of the step is M̃ = M + dt R K_v + dt² R K_p on those joints. The free
velocity and the contact problem (W = dt J M̃⁻¹ Jᵀ) both use M̃, so the servo acts within the
step's contact impulse, as a stiff position servo does. Alone, a joint is then backward Euler on
m q̈ = −K_p q − K_v q̇ (unconditionally stable; `test_actuators.py`). ``implicit_dt`` is per joint
(0: the stiffness stays explicit, the default; the World leaves passive springs explicit).

`Actuation` is the actuator stage of a World step: the actuator's explicit torque (plus the
gravity torques with ``gravity_compensation``) into the generalised forces, and the implicit
damping into the model's armature. `apply_gain_groups` sets PD gains per joint-name prefix (the
simulator node's ``gains.*`` parameters).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from humanoid_model import interpolation
from humanoid_model.exceptions import ConfigError

__all__ = [
    "actuators",
    "PDActuator",
    "JointTrajectory",
    "Actuation",
    "standing_gains",
    "apply_gain_groups",
    "posture_trajectory",
    "WN_DEFAULT",
]

WN_DEFAULT = 2 * np.pi * 10.0  # [rad/s] PD natural frequency (chosen, as the peer benchmarks)


INERTIA_FLOOR = 1e-6  # [kg·m²] least inertia a joint is given (a joint moving a massless subtree; chosen)
WELD_COND_MAX = 1e8  # largest condition number of J M⁻¹ Jᵀ for independent foot welds (chosen: HRP-2 and BIP ~8e2)


def standing_gains(model, q, feet_joints: Sequence[int], n_free: int = 6, wn: float = WN_DEFAULT, zeta: float = 1.0):
    """(K_p, K_v) per actuated dof (n,) = (ω_n² I_j, 2 ζ ω_n I_j), with I_j the inertia joint j sees
    at configuration q, by the rule of docs/simulator.md "Default PD gains":

    1. with feet (``feet_joints``: the joints carrying the sole contact locations) whose welds are
       independent (cond(J M⁻¹ Jᵀ) ≤ WELD_COND_MAX): the inertia with the feet welded,
       I_j = 1 / [M⁻¹ − M⁻¹ Jᵀ (J M⁻¹ Jᵀ)⁻¹ J M⁻¹]_jj;
    2. otherwise (no feet, welds that over-constrain the robot such as two "feet" on one chain, or
       a singular M): the inertia with the root welded, I_j = 1 / [(M_aa)⁺]_jj, M_aa the actuated
       block of M (the fixed-base arm rule);
       clipped to M_jj (the inertia with every other joint locked too, its upper bound);
    3. at least INERTIA_FLOOR (a joint that moves no mass).
    """
    import pinocchio as pin

    data = model.createData()
    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    inertia = None
    feet = list(dict.fromkeys(feet_joints))  # two soles on one joint are one weld
    if feet:
        pin.computeJointJacobians(model, data, q)
        J = np.vstack([pin.getJointJacobian(model, data, j, pin.LOCAL) for j in feet])
        with np.errstate(all="ignore"):
            try:
                Mi = np.linalg.inv(M)
                A = J @ Mi @ J.T
                if np.linalg.cond(A) <= WELD_COND_MAX:
                    Mci = Mi - Mi @ J.T @ np.linalg.solve(A, J @ Mi)
                    inertia = 1.0 / np.diag(Mci)[n_free:]
            except np.linalg.LinAlgError:
                inertia = None
    if inertia is None or not np.all(np.isfinite(inertia) & (inertia > 0)):
        Ma = M[n_free:, n_free:]
        with np.errstate(divide="ignore"):
            inertia = 1.0 / np.diag(np.linalg.pinv(Ma, hermitian=True)) if Ma.size else np.zeros(0)
        upper = np.diag(Ma)  # Schur complement: 1 / [M_aa⁻¹]_jj <= M_jj; pinv rounding may break it
        inertia = np.where(np.isfinite(inertia) & (inertia <= upper), inertia, upper)
    inertia = np.maximum(inertia, INERTIA_FLOOR)
    return wn**2 * inertia, 2 * zeta * wn * inertia


class PDActuator:
    """Joint-space actuator for n actuated dofs.

    mode ``pd`` (default): eq. 5.8 toward (q_d, q̇_d) (+ optional feedforward torque);
    mode ``torque``: the commanded torque only (+ μ_v q̇ + μ_d sign q̇), saturated.

    ``balls``: the ball joints among the actuated joints, as (b, 2) integer rows (first index of
    the joint's quaternion x y z w in the actuated q, first index of its 3 dofs in the actuated v);
    None (the default) for 1-DOF joints only. With ball joints, positions (q_d, a trajectory's
    points) are in the configuration layout (nq = n + b values: a ball joint's quaternion), and
    velocities and gains per dof (n). A ball joint's PD is eq. (5.8) on its three axes (the avatar's
    PD torques on the three rotation axes, Chardonnet 2009, §3.3.3): the position error is log(R(q)ᵀ
    R(q_d)) in the joint's child frame, the velocity error q̇_d − ω with q̇_d carried into that
    frame (`_ball_errors`).
    """

    def __init__(self, names, kp, kv, effort_max, reduction=None, mu_v=None, mu_d=None, balls=None):
        self.names = list(names)
        n = len(self.names)
        self.balls = None if balls is None or len(balls) == 0 else np.asarray(balls, np.int64).reshape(-1, 2)
        self.nq = n if self.balls is None else n + self.balls.shape[0]
        #: each dof's index in the actuated q, −1 for a ball joint's three (a quaternion: no single value)
        self.dof_q = np.arange(n, dtype=np.int64)
        if self.balls is not None:
            dof_q, k = np.full(n, -1, np.int64), 0
            starts = {int(iv): int(iq) for iq, iv in self.balls}
            i = 0
            while i < n:
                if i in starts:
                    k, i = starts[i] + 4, i + 3
                    continue
                dof_q[i] = k
                k, i = k + 1, i + 1
            self.dof_q = dof_q
        self.kp = np.broadcast_to(np.asarray(kp, float), (n,)).copy()
        self.kv = np.broadcast_to(np.asarray(kv, float), (n,)).copy()
        self.R = np.ones(n) if reduction is None else np.broadcast_to(np.asarray(reduction, float), (n,)).copy()
        self.mu_v = np.zeros(n) if mu_v is None else np.broadcast_to(np.asarray(mu_v, float), (n,)).copy()
        self.mu_d = np.zeros(n) if mu_d is None else np.broadcast_to(np.asarray(mu_d, float), (n,)).copy()
        em = np.asarray(effort_max, float)
        self.effort_max = np.where(em > 0, em, np.inf)
        self.mode = "pd"
        self.q_d = np.zeros(self.nq)
        self.v_d = np.zeros(n)
        self.tau_ff = np.zeros(n)
        self.tau_cmd = np.zeros(n)
        self.trajectory: JointTrajectory | None = None
        self.trajectory_start = 0.0
        #: per joint, the step [s] over which K_p is integrated implicitly (module docstring "Implicit
        #: PD"): the law's velocity gain is K_v + implicit_dt K_p; 0 (the default): explicit stiffness
        self.implicit_dt = np.zeros(n)

    # ------------------------------------------------------------------ commands
    def _vec(self, values, field, size=None):
        size = len(self.names) if size is None else size
        try:
            a = np.asarray(values, float).reshape(-1)
        except (TypeError, ValueError):
            a = np.full(1, np.nan)  # not numbers: reported below with the value
        if a.shape != (size,) or not np.all(np.isfinite(a)):
            raise ConfigError(
                f"actuator command: field '{field}' must be {size} finite values; value {np.asarray(values).tolist()}"
            )
        return a

    def _positions(self, q_d):
        """Position set-points (nq,), ball joints' quaternions normalised (a zero one refused)."""
        q = self._vec(q_d, "positions", self.nq)
        if self.balls is not None:
            q = q.copy()  # normalised below, not in the caller's array
            for iq in self.balls[:, 0]:
                norm = np.linalg.norm(q[iq : iq + 4])
                if norm < 1e-9:
                    raise ConfigError(
                        f"actuator command: field 'positions' holds a zero quaternion at index {int(iq)}; "
                        f"value {q[iq : iq + 4].tolist()}"
                    )
                q[iq : iq + 4] /= norm
        return q

    def set_position(self, q_d, v_d=None, tau_ff=None):
        """PD toward q_d [rad] (and q̇_d [rad/s], feedforward τ [N·m]); stops a trajectory.
        With ball joints q_d has the configuration layout and q̇_d one value per dof (class
        docstring)."""
        # validate everything first: a rejected command leaves the previous one running
        q = self._positions(q_d)
        v = np.zeros(len(self.names)) if v_d is None else self._vec(v_d, "velocities")
        ff = None if tau_ff is None else self._vec(tau_ff, "feedforward")
        self.mode = "pd"
        self.trajectory = None
        self.q_d, self.v_d = q, v
        if ff is not None:
            self.tau_ff = ff

    def set_torque(self, tau):
        """Torque mode: the commanded torques [N·m] (saturated); stops a trajectory."""
        tau = self._vec(tau, "efforts")
        self.mode = "torque"
        self.trajectory = None
        self.tau_cmd = tau

    def set_trajectory(self, trajectory: JointTrajectory, t_start: float):
        """Follow ``trajectory`` from simulated time ``t_start`` [s] (PD on its samples)."""
        n = self.nq
        if trajectory.p.shape[1] != n:
            raise ConfigError(
                f"trajectory: field 'positions' must have {n} values per point; value {trajectory.p.shape[1]} per point"
            )
        if not np.isfinite(float(t_start)):
            raise ConfigError(f"trajectory: field 't_start' must be finite; value {t_start!r}")
        self.mode = "pd"
        self.trajectory = trajectory
        self.trajectory_start = float(t_start)

    # ------------------------------------------------------------------ law
    def torque(self, t, q, v):
        """(explicit torque (n,), implicit damping gain (n,) ≥ 0 [N·m·s/rad]: R K_v, or
        R (K_v + dt K_p) with ``implicit_dt`` = dt)."""
        if self.trajectory is not None:
            self.q_d, self.v_d = self.trajectory.sample(t - self.trajectory_start)
            if self.balls is not None:  # interpolated quaternions (nlerp) and their rates -> unit q_d, ω_d
                self.q_d, self.v_d = _ball_targets(self.q_d, self.v_d, self.dof_q, self.balls)
        if self.mode == "torque":
            tau = self.tau_cmd.copy()
            damp = np.zeros_like(tau)
        elif self.balls is None:  # the whole law (friction and saturation too) in one compiled call
            return _pd_torque(
                self.R, self.kp, self.kv, self.implicit_dt, self.q_d, self.v_d, self.tau_ff, q, v,
                self.mu_v, self.mu_d, self.effort_max,
            )  # fmt: skip
        else:
            kv = self.kv + self.implicit_dt * self.kp if np.count_nonzero(self.implicit_dt) else self.kv
            e, vd = _ball_errors(q, self.q_d, self.v_d, self.dof_q, self.balls)
            tau, damp = _pd_law(self.R, self.kp, kv, e, vd, self.tau_ff, np.zeros_like(e), v)
        if np.count_nonzero(self.mu_v) or np.count_nonzero(self.mu_d):  # = .any(), 5x faster
            tau += self.mu_v * v + self.mu_d * np.sign(v)
        sat = np.abs(tau) > self.effort_max
        if np.count_nonzero(sat):
            tau = np.clip(tau, -self.effort_max, self.effort_max)
            damp = np.where(sat, 0.0, damp)
        return tau, damp


@njit(cache=True)
def _pd_law(R, kp, kv, q_d, v_d, tau_ff, q, v):
    """(R (K_p (q_d − q) + K_v (q̇_d − q̇)) + τ_ff, R K_v) per joint: eq. 5.8 without friction and
    saturation, element by element (the numpy expression's arithmetic, in one compiled call)."""
    n = q.shape[0]
    tau = np.empty(n)
    damp = np.empty(n)
    for i in range(n):
        tau[i] = R[i] * (kp[i] * (q_d[i] - q[i]) + kv[i] * (v_d[i] - v[i])) + tau_ff[i]
        damp[i] = R[i] * kv[i]
    return tau, damp


@njit(cache=True)
def _pd_torque(R, kp, kv, implicit_dt, q_d, v_d, tau_ff, q, v, mu_v, mu_d, effort_max):
    """`PDActuator.torque` of 1-DOF joints in PD mode, element by element with the numpy
    expressions' arithmetic: the law's velocity gain K_v + implicit_dt K_p when some implicit_dt
    is nonzero (else K_v), `_pd_law`, plus μ_v q̇ + μ_d sign(q̇) when some friction is nonzero,
    then the saturation at ±effort_max (saturated joints get no implicit damping)."""
    n = q.shape[0]
    implicit = False
    friction = False
    for i in range(n):
        implicit = implicit or implicit_dt[i] != 0.0
        friction = friction or mu_v[i] != 0.0 or mu_d[i] != 0.0
    tau = np.empty(n)
    damp = np.empty(n)
    for i in range(n):
        k = kv[i] + implicit_dt[i] * kp[i] if implicit else kv[i]
        x = R[i] * (kp[i] * (q_d[i] - q[i]) + k * (v_d[i] - v[i])) + tau_ff[i]
        if friction:
            x += mu_v[i] * v[i] + mu_d[i] * np.sign(v[i])
        d = R[i] * k
        if abs(x) > effort_max[i]:  # np.clip's bound on that side
            x = effort_max[i] if x > 0.0 else -effort_max[i]
            d = 0.0
        tau[i] = x
        damp[i] = d
    return tau, damp


@njit(cache=True)
def _quat_mul(a, b):
    """Hamilton product of quaternions stored x y z w."""
    ax, ay, az, aw = a[0], a[1], a[2], a[3]
    bx, by, bz, bw = b[0], b[1], b[2], b[3]
    return np.array(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ]
    )


@njit(cache=True)
def _rotate(qu, x):
    """x (3,) rotated by the unit quaternion qu (x y z w): R(qu) x."""
    u = qu[:3]
    w = qu[3]
    t = 2.0 * np.cross(u, x)
    return x + w * t + np.cross(u, t)


@njit(cache=True)
def _ball_errors(q, q_d, v_d, dof_q, balls):
    """(e, q̇_d) per dof of the PD with ball joints: a 1-DOF joint's q_d − q and q̇_d; a ball
    joint's e = log(R(q)ᵀ R(q_d)) (the rotation vector of q⁻¹ ⊗ q_d, shortest way) and its ω_d,
    given in the q_d frame, carried into the current child frame: R(q)ᵀ R(q_d) ω_d."""
    n = dof_q.shape[0]
    e = np.empty(n)
    vd = np.empty(n)
    for i in range(n):
        if dof_q[i] >= 0:
            e[i] = q_d[dof_q[i]] - q[dof_q[i]]
            vd[i] = v_d[i]
    for k in range(balls.shape[0]):
        iq, iv = balls[k, 0], balls[k, 1]
        a = q[iq : iq + 4].copy()
        a[:3] = -a[:3]  # conjugate: the inverse rotation of a unit quaternion
        err = _quat_mul(a, q_d[iq : iq + 4])
        if err[3] < 0.0:
            err = -err  # the same rotation; the shorter way (angle ≤ π)
        s = np.sqrt(err[0] * err[0] + err[1] * err[1] + err[2] * err[2])
        scale = 2.0 * np.arctan2(s, err[3]) / s if s > 1e-12 else 2.0 / err[3]
        e[iv : iv + 3] = scale * err[:3]
        vd[iv : iv + 3] = _rotate(err, v_d[iv : iv + 3].copy())
    return e, vd


@njit(cache=True)
def _ball_targets(q_d, dq_d, dof_q, balls):
    """(unit q_d (nq,), q̇_d (n,)) from an interpolated configuration and its time derivative (both
    in the configuration layout): quaternions normalised, their rates turned into the angular
    velocity in the q_d frame, ω = 2 vec(q̂⁻¹ ⊗ d/dt q̂) with q̂ = q/‖q‖."""
    q = q_d.copy()
    n = dof_q.shape[0]
    vd = np.empty(n)
    for i in range(n):
        if dof_q[i] >= 0:
            vd[i] = dq_d[dof_q[i]]
    for k in range(balls.shape[0]):
        iq, iv = balls[k, 0], balls[k, 1]
        x = q_d[iq : iq + 4]
        dx = dq_d[iq : iq + 4]
        norm = np.sqrt(np.sum(x * x))
        u = x / norm
        du = (dx - u * np.sum(u * dx)) / norm  # derivative of x/‖x‖
        inv = u.copy()
        inv[:3] = -inv[:3]
        w = _quat_mul(inv, du)
        q[iq : iq + 4] = u
        vd[iv : iv + 3] = 2.0 * w[:3]
    return q, vd


class JointTrajectory:
    """Joint-space trajectory (ros2_control semantics): ``times`` (k,) strictly increasing from
    the start [s], ``positions`` (k, n), optional ``velocities`` (k, n). Sampling: cubic Hermite
    between points when velocities are given, linear otherwise; held at the last point."""

    def __init__(self, times, positions, velocities=None, names: Sequence[str] | None = None):
        try:
            self.t = np.asarray(times, float).reshape(-1)
        except (TypeError, ValueError):
            raise ConfigError(f"trajectory: field 'time_from_start' must be numbers; value {times!r}") from None
        self.names = list(names) if names is not None else None
        if self.t.shape[0] < 1 or not np.all(np.isfinite(self.t)) or np.any(np.diff(self.t) <= 0) or self.t[0] < 0:
            raise ConfigError(
                f"trajectory: field 'time_from_start' must be finite, >= 0 and strictly "
                f"increasing; value {self.t.tolist()}"
            )
        self.p = self._points(positions, "positions", (self.t.shape[0], -1))
        self.v = None if velocities is None else self._points(velocities, "velocities", self.p.shape)

    def _points(self, values, field, shape):
        """values as a finite float array of ``shape`` (one row per point), else ConfigError."""
        try:
            a = np.asarray(values, float).reshape(shape)
        except (TypeError, ValueError):
            try:
                got = f"shape {np.shape(values)}"
            except ValueError:
                got = "rows of unequal length"
            raise ConfigError(
                f"trajectory: field '{field}' must be {self.t.shape[0]} points of equal "
                f"length (shape {shape}); value: {got}"
            ) from None
        if a.ndim != 2 or a.shape[0] != self.t.shape[0]:
            raise ConfigError(
                f"trajectory: field '{field}' must have one row per point ({self.t.shape[0]}); value shape {a.shape}"
            )
        if not np.all(np.isfinite(a)):
            raise ConfigError(f"trajectory: field '{field}' contains NaN or inf")
        return a

    def sample(self, tau):
        """(q_d, q̇_d) at time ``tau`` after the start (`humanoid_model.interpolation.sample`)."""
        q, dq, _ = interpolation.sample(self.t, self.p, self.v, tau)
        return q, dq


def posture_trajectory(robot, keyframes) -> JointTrajectory:
    """The PD set-point through the postures of ``keyframes`` ((t [s], posture name[, joint angle
    overrides {name: rad}]), ...; a scene's ``robot.motion``): cubic Hermite with zero velocity at
    every keyframe (it eases in and out), the first posture held before the first keyframe, the
    last after the last. A ball joint's quaternion takes the sign nearer the previous keyframe's
    (the shorter way); the actuator normalises the interpolated quaternion (`PDActuator`, ``balls``)."""
    times = [float(k[0]) for k in keyframes]
    P = np.array([robot.with_angles(robot.q(k[1]), k[2] if len(k) > 2 else {})[7:] for k in keyframes])
    for iq, _ in robot.ball_joints:
        for k in range(1, len(P)):
            if P[k, iq : iq + 4] @ P[k - 1, iq : iq + 4] < 0:
                P[k, iq : iq + 4] *= -1.0
    return JointTrajectory(times, P, np.zeros_like(P))


def apply_gain_groups(actuator: PDActuator, groups, kp, kv, source: str = "actuator gains"):
    """Set (K_p [N·m/rad], K_v [N·m·s/rad]) of every joint whose name starts with a group's prefix,
    group by group (later groups win); other joints keep their gains. A prefix that matches no
    joint raises `ConfigError` naming ``source``, the field and the prefix, before any gain
    changes."""
    selections = []
    for prefix in groups:
        sel = [i for i, n in enumerate(actuator.names) if n.startswith(prefix)]
        if not sel:
            raise ConfigError(
                f"{source}: field 'gains.groups' must be prefixes of joint names; value {prefix!r} matches no joint"
            )
        selections.append(sel)
    for sel, p, d in zip(selections, kp, kv):
        actuator.kp[sel], actuator.kv[sel] = p, d


@njit(cache=True)
def _same(a, b):
    """np.array_equal for two 1-D float arrays, without the temporaries."""
    if a.shape[0] != b.shape[0]:
        return False
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


class Actuation:
    """The actuator stage of a World step (module docstring).

    actuator: the `PDActuator`; act_q, act_v: indices of the actuated joints in q and v (the
    robot's joints after its free flyer: contiguous); armature (nv,): the model's own armature;
    dt [s]; gravity_compensation: add the generalised gravity torques to the explicit torque."""

    def __init__(self, actuator: PDActuator, act_q, act_v, armature, dt: float, gravity_compensation: bool = False):
        self.actuator = actuator
        self.act_q, self.act_v = np.asarray(act_q), np.asarray(act_v)
        # the actuated joints are contiguous: slices read q and v without copies
        self._q = slice(int(self.act_q[0]), int(self.act_q[-1]) + 1) if self.act_q.size else slice(0, 0)
        self._v = slice(int(self.act_v[0]), int(self.act_v[-1]) + 1) if self.act_v.size else slice(0, 0)
        self.armature = np.array(armature, float)
        self.dt = float(dt)
        self.gravity_compensation = bool(gravity_compensation)
        self.tau_explicit = np.zeros(self.act_v.shape[0])
        self._damp = None  # damping gains of the armature now in the model

    def __call__(self, model, data, q, v, t: float, tau):
        """Add the explicit actuator torque at time t [s] to ``tau`` (nv,) and set the model's
        armature to armature + dt·K_v (when K_v changed). Returns the damping gains (n,)."""
        ta, damp = self.actuator.torque(t, q[self._q], v[self._v])
        if self.gravity_compensation:
            import pinocchio as pin

            ta = ta + pin.computeGeneralizedGravity(model, data, q)[self.act_v]
        tau[self._v] = ta
        self.tau_explicit = ta
        if self._damp is None or not _same(damp, self._damp):
            arm = self.armature.copy()
            arm[self.act_v] += self.dt * damp
            model.armature = arm  # implicit PD damping (module docstring)
            self._damp = damp
        return damp

    def applied(self, damp, v, v_next):
        """The torque applied over the step (n,) [N·m]: explicit part minus K_v (q̇ᵗ⁺¹ − q̇ᵗ)."""
        return _applied(self.tau_explicit, damp, v_next, v, self._v.start)


@njit(cache=True)
def _applied(tau, damp, v_next, v, start):
    """tau − damp (v_next − v) over the actuated velocities from ``start`` (contiguous), element by
    element as the numpy expression: a new array."""
    out = np.empty(tau.shape[0])
    for i in range(tau.shape[0]):
        out[i] = tau[i] - damp[i] * (v_next[start + i] - v[start + i])
    return out


def actuators(world, q, v):
    """The actuators stage of a World step: (τ (nv,) the generalised forces of the step [N, N·m],
    the actuation's implicit damping for `Actuation.applied`, None without a robot). τ is the
    actuator's explicit torque (`Actuation`), plus the scene's and the user's wrenches as Jᵀw
    (`humanoid_sim.stages.wrenches.Wrenches`), plus the haptic coupling's J_eᵀ f_e (eq. 3.64,
    `humanoid_sim.stages.haptics.HapticDevice`, while one is connected and coupled), plus the
    grasps' (`humanoid_sim.stages.grasp.Grasps`). Reads ``world.model``, ``world.data`` (after the
    kinematics stage), ``world.t``, ``world.actuation``, ``world.wrenches``, ``world.masks``,
    ``world.haptics`` and ``world.grasps``."""
    model, data, t = world.model, world.data, world.t
    tau = np.zeros(model.nv)
    actuation = world.actuation
    damp = actuation(model, data, q, v, t, tau) if actuation is not None else None
    wrenches = world.wrenches
    if wrenches.scene or wrenches.user:
        ext = wrenches.generalized_forces(data, world.masks, t)  # None when none acts now
        if ext is not None:
            tau += ext
    haptics = world.haptics
    if haptics is not None and haptics.active:  # eq. 3.64: J_eᵀ f_e of the device
        ext = haptics(data, v)
        if ext is not None:
            tau += ext
    grasps = world.grasps
    if grasps is not None and grasps.couplings:  # hands holding bodies (`humanoid_sim.stages.grasp`)
        tau += grasps(data, v)
    return tau, damp
