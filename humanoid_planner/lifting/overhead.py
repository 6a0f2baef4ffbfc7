"""The overhead lift of a heavy object (Chardonnet 2009, §5.2.2, "haltérophilie"; Arisumi et al. 2008):
joint B-splines optimised for the actuators' energy under DC-motor limits, with IPOPT.

**Strategy** (§5.2.2.1, Fig. 5.29). The arms hold the object near a vertical singular configuration
(A), arms down, and end near the other one (C), arms up, the robot crouched under the object; in
between the object must pass the horizontal, where no static posture can hold it. The postures
(`thesis_postures`) are the thesis's (§5.2.2.3): the object at (x_o, z_o, φ_o) = (0.26 m, 0.65 m, 90°)
then (0.2 m, 1.3 m, -90°), the hip joint (joint 3) at (-0.1, 0.63) then (-0.12, 0.3) and the shoulder
(joint 5) at (-0.039, 1.156) then (-0.043, 0.824) [m]. The thesis writes y_o for the vertical
coordinate. Here x is forward from the ankle and z up from the sole, and the object's point is the
hand's grasp point (the robot YAML's hand contact point). The seven angles are found by least squares
on those seven coordinates, within the joint limits (`LiftPostures.residual` says how far our model is
from the thesis's points).

**Trajectory** (5.28): each joint angle is a clamped cubic B-spline in normalised time s = t / t_f
with ``control_points`` coefficients. The first and last three are the end postures, so the motion
starts and ends at rest with zero acceleration. The free coefficients and t_f are the variables.

**Constraints**, at ``samples`` instants, with the inverse dynamics of the symmetric sagittal model
(`sagittal.SagittalChain`), the object's mass and inertia added to the hands (§5.2.2.2) and joint
friction τ_f = μ_v q̇ + μ_d tanh(q̇ / ε) added to each motor's torque (the thesis's §2.17 model; its
identified values are not printed, ours are in `LiftSettings`):
- DC-motor limits per joint and side, (5.25)-(5.26): |q̇ / q̇^M + Γ / Γ^M| <= 1 and |Γ| <= Γ^M, with q̇^M and
  Γ^M the URDF's velocity and effort limits;
- the joint limits, on the B-spline coefficients (the curve stays in their convex hull, so the limits
  hold at every instant); the transition time t_f <= t_m = 3 s (§5.2.2.3);
- the ZMP inside the feet, ``zmp_margin`` from the heel and toe; the feet neither slip (|F_x| <= μ F_z,
  μ = 0.4, §3.1.6.1) nor lift (F_z > 0);
- the wrist sensors' loads (§5.2.2.3): 5 N·m about the lateral axis, 200 N along the hand, 100 N across.

**Cost** (5.29): E_r = ∫ Σ_j c_j Γ_j² + q̇_j Γ_j dt over every motor. c_j is the motor's Joule coefficient
R / k² seen at the joint; for the DC motor of (5.25) (stall torque Γ^M = k V / R, no-load speed
q̇^M = V / k) it is exactly c_j = q̇^M / Γ^M, so the URDF's limits give it.

**Static torques** (5.27): held for long, the torques are limited by the motors' nominal output,
below 20 % of Γ^M (§5.2.2.3). `static_torques` gives them along a path; the thesis's quasi-static
variant (the same path followed slowly) fails on them (§5.2.2.3: about 10 s, torques above nominal).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import casadi as ca
import numpy as np
from scipy.interpolate import BSpline
from scipy.optimize import least_squares

from ..exceptions import PlanningError
from .sagittal import SagittalChain

__all__ = [
    "LiftPoint",
    "NOMINAL",
    "LiftPostures",
    "LiftSettings",
    "LiftResult",
    "THESIS_START",
    "THESIS_END",
    "thesis_postures",
    "optimise_lift",
    "static_torques",
    "check_lift",
    "LiftCheck",
    "lift_energy",
]


NOMINAL = 0.2  # the motors' nominal output over their maximum torque (§5.2.2.3: "below 20 %")


@dataclass(frozen=True)
class LiftPoint:
    """A posture as the thesis gives it (§5.2.2.3): the object (x, z [m], angle [rad]), the hip joint
    (joint 3) and the shoulder joint (joint 5) positions (x, z) [m]."""

    object: tuple
    hip: tuple
    shoulder: tuple


THESIS_START = LiftPoint((0.26, 0.65, math.radians(90)), (-0.1, 0.63), (-0.039, 1.156))
THESIS_END = LiftPoint((0.2, 1.3, math.radians(-90)), (-0.12, 0.3), (-0.043, 0.824))


@dataclass
class LiftPostures:
    """The end postures: the seven joint angles [rad] and, per posture, the distance [m] (and angle
    error [rad]) between our model's points and the thesis's."""

    start: np.ndarray
    end: np.ndarray
    residual: dict = field(default_factory=dict)


@dataclass
class LiftSettings:
    """The optimisation's settings (our choices unless cited)."""

    t_max: float = 3.0  # [s] t_m, the motors' overload time (§5.2.2.3)
    t_min: float = 0.3  # [s] the shortest transition tried
    control_points: int = 10  # B-spline coefficients per joint (4 free after the fixed ends)
    samples: int = 41  # constraint and cost instants, t_f / (samples - 1) apart
    # (5.25)-(5.26) and the wrist loads are imposed at 99 % at the samples, so that they hold between them
    # (measured: 0.7 % over the limit between 41 samples without it)
    limit_margin: float = 0.01
    zmp_margin: float = 0.02  # [m] from the heel and the toe
    friction: float = 0.4  # feet on the floor (§3.1.6.1)
    hand_moment: float = 5.0  # [N m] wrist sensor, about the lateral axis (§5.2.2.3)
    hand_along: float = 200.0  # [N] wrist sensor, along the hand (§5.2.2.3)
    hand_across: float = 100.0  # [N] wrist sensor, across the hand (§5.2.2.3)
    nominal: float = NOMINAL
    dry_speed: float = 0.05  # [rad/s] ε of the smooth sign tanh(q̇ / ε)
    tolerance: float = 1e-8
    max_iterations: int = 500
    guess_time: float = 1.5  # [s] the first t_f tried


@dataclass
class LiftResult:
    """An optimised lift: t_f [s], the joint B-spline over normalised time s = t / t_f, the energy [J],
    IPOPT's status, iterations and time [s], and the optimiser's normalised instants ``samples``."""

    t_f: float
    spline: BSpline
    energy: float
    status: str
    success: bool
    iterations: int
    seconds: float
    samples: np.ndarray

    @property
    def coefficients(self) -> np.ndarray:
        """The B-spline coefficients (control_points x 7)."""
        return self.spline.c

    @property
    def theta(self) -> np.ndarray:
        """The path's postures at the optimiser's instants (samples x 7; the same for any t_f)."""
        return self.spline(self.samples)

    def retimed(self, t_f: float) -> LiftResult:
        """The same path played in `t_f` seconds."""
        return replace(self, t_f=float(t_f))

    def sample(self, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(t, θ, θ̇, θ̈) every `dt` seconds from 0 to t_f."""
        t = np.linspace(0.0, self.t_f, max(2, int(round(self.t_f / dt)) + 1))
        s = t / self.t_f
        b = self.spline
        return t, b(s, 0), b(s, 1) / self.t_f, b(s, 2) / self.t_f**2


def _basis(n_ctrl: int, s: np.ndarray, degree: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The clamped B-spline basis of `n_ctrl` coefficients at `s`: values, first and second derivatives
    (len(s) x n_ctrl each) and the knots."""
    inner = np.linspace(0.0, 1.0, n_ctrl - degree + 1)
    knots = np.concatenate([[0.0] * degree, inner, [1.0] * degree])
    eye = np.eye(n_ctrl)
    out = []
    for d in range(3):
        out.append(np.column_stack([BSpline(knots, eye[i], degree)(s, d) for i in range(n_ctrl)]))
    return out[0], out[1], out[2], knots


def thesis_postures(chain: SagittalChain, start: LiftPoint = THESIS_START, end: LiftPoint = THESIS_END) -> LiftPostures:
    """The seven joint angles that put our model's hip, shoulder and grasp point where the thesis puts
    joints 3 and 5 and the object (least squares within the joint limits)."""
    th = ca.SX.sym("theta", chain.n)
    o = chain.f_origins(th)
    grasp = chain.f_points["grasp"](th)
    f = ca.Function("pts", [th], [ca.vertcat(o[:, 2], o[:, 4], grasp, chain.f_object_angle(th))])
    out, res = [], {}
    for name, p in (("start", start), ("end", end)):
        target = np.array([*p.hip, *p.shoulder, *p.object])
        scale = np.array([1, 1, 1, 1, 1, 1, 0.1])  # 0.1 rad weighs like 1 cm

        def r(x, target=target, scale=scale):
            return (np.array(f(x)).ravel() - target) * scale

        best = None
        for knee in (0.3, 1.2, 2.2):  # a few starts: the deep crouch is far from the upright one
            x0 = np.clip(np.array([-knee / 2, knee, -knee / 2, 0, 0, 0, 0]), chain.lower, chain.upper)
            sol = least_squares(r, x0, bounds=(chain.lower, chain.upper), xtol=1e-12, ftol=1e-12)
            if best is None or sol.cost < best.cost:
                best = sol
        d = np.array(f(best.x)).ravel() - target
        res[name] = {
            "hip": float(np.hypot(*d[0:2])),
            "shoulder": float(np.hypot(*d[2:4])),
            "object": float(np.hypot(*d[4:6])),
            "angle": float(abs(d[6])),
        }
        out.append(best.x)
    return LiftPostures(out[0], out[1], res)


def _motor_torques(chain: SagittalChain, s: LiftSettings, tau, thd):
    """Each motor's torque Γ (per side) for the sides' summed joint torques `tau`, joint friction added."""
    return tau / ca.DM(chain.sides) + ca.DM(chain.viscous) * thd + ca.DM(chain.dry) * ca.tanh(thd / s.dry_speed)


def _sample_terms(chain: SagittalChain, s: LiftSettings):
    """One instant's constraint vector g (with its bounds) and the motors' power Σ c Γ² + q̇ Γ, as a
    CasADi function of (θ, θ̇, θ̈), mapped over the samples by `optimise_lift`."""
    n = chain.n
    th, thd, thdd = ca.SX.sym("theta", n), ca.SX.sym("theta_d", n), ca.SX.sym("theta_dd", n)
    tau = chain.f_tau(th, thd, thdd)
    gam = _motor_torques(chain, s, tau, thd)
    cj = chain.velocity / chain.effort  # Joule coefficient R / k² = q̇^M / Γ^M (module docstring)
    power = ca.sum1(ca.DM(chain.sides) * (ca.DM(cj) * gam**2 + thd * gam))
    fr = chain.f_reaction(th, thd, thdd)
    zlo, zhi = chain.foot_x[0] + s.zmp_margin, chain.foot_x[1] - s.zmp_margin
    hand = chain.f_hand(th, thd, thdd) / ca.DM([s.hand_along, s.hand_across, s.hand_moment])
    g = ca.vertcat(
        thd / ca.DM(chain.velocity) + gam / ca.DM(chain.effort),  # (5.25)
        gam / ca.DM(chain.effort),  # (5.26)
        fr[2] - zlo * fr[1],  # ZMP behind the toe margin, ahead of the heel margin
        zhi * fr[1] - fr[2],
        s.friction * fr[1] - fr[0],  # no slip (with F_z > 0: no lift)
        s.friction * fr[1] + fr[0],
        hand,  # the wrist sensors
    )
    m = 1.0 - s.limit_margin
    lo = np.concatenate([np.full(2 * n, -m), np.zeros(4), np.full(3, -m)])
    hi = np.concatenate([np.full(2 * n, m), np.full(4, np.inf), np.full(3, m)])
    return ca.Function("lift_terms", [th, thd, thdd], [g, power]), lo, hi


def optimise_lift(
    chain: SagittalChain, postures: LiftPostures, settings: LiftSettings | None = None, guess=None
) -> LiftResult:
    """Minimise E_r (5.29) over the B-spline coefficients and t_f subject to (5.25)-(5.26), the ZMP, the
    feet and the wrist sensors (module docstring). `guess`: a `LiftResult` or an intermediate posture
    (7,) through which the first guess passes at mid-time (the thesis gave its optimiser one,
    §5.2.2.3). Raises `PlanningError` with IPOPT's status and the worst constraint when it fails."""
    s = settings or LiftSettings()
    n, nc, N = chain.n, s.control_points, s.samples
    sv = np.linspace(0.0, 1.0, N)
    B0, B1, B2, knots = _basis(nc, sv)
    terms, lbg1, ubg1 = _sample_terms(chain, s)
    P = ca.MX.sym("P", nc - 6, n)
    tf = ca.MX.sym("tf")
    A, C = postures.start, postures.end
    full = ca.vertcat(ca.DM(np.tile(A, (3, 1))), P, ca.DM(np.tile(C, (3, 1))))
    th, thd, thdd = (ca.DM(B0) @ full).T, (ca.DM(B1) @ full).T / tf, (ca.DM(B2) @ full).T / tf**2
    gs, power = terms.map(N)(th, thd, thdd)
    weights = np.full(N, 1.0 / (N - 1))
    weights[[0, -1]] *= 0.5  # the trapezoid rule over [0, t_f]
    cost = tf * ca.mtimes(power, ca.DM(weights))
    g = ca.vec(gs)
    lbg = np.tile(lbg1, N)
    ubg = np.tile(ubg1, N)
    x = ca.vertcat(ca.vec(P), tf)
    nlp = {"x": x, "f": cost, "g": g}
    solver = ca.nlpsol(
        "overhead_lift",
        "ipopt",
        nlp,
        # MX with the exact Hessian: 6 s; expanded to SX, building the Hessian alone takes 12 s, and IPOPT's
        # limited-memory Hessian does not reach the tolerance in 500 iterations (measured)
        {
            "print_time": False,
            "ipopt": {"print_level": 0, "sb": "yes", "tol": s.tolerance, "max_iter": s.max_iterations},
        },
    )
    x0 = _guess(chain, postures, s, guess, nc)
    # the joint limits on the coefficients: a B-spline stays in their convex hull, so within the limits
    lbx = np.concatenate([np.repeat(chain.lower, nc - 6), [s.t_min]])
    ubx = np.concatenate([np.repeat(chain.upper, nc - 6), [s.t_max]])
    t0 = time.perf_counter()
    sol = solver(x0=x0, lbx=lbx, ubx=ubx, lbg=lbg, ubg=ubg)
    seconds = time.perf_counter() - t0
    st = solver.stats()
    xs = np.array(sol["x"]).ravel()
    Pn = xs[:-1].reshape(n, nc - 6).T
    coeffs = np.vstack([np.tile(A, (3, 1)), Pn, np.tile(C, (3, 1))])
    t_f = float(xs[-1])
    spline = BSpline(knots, coeffs, 3)
    res = LiftResult(
        t_f, spline, float(sol["f"]), st["return_status"], bool(st["success"]), int(st["iter_count"]), seconds, sv
    )
    if not res.success:
        gv = np.array(sol["g"]).ravel()
        worst = float(np.max(np.maximum(lbg - gv, gv - ubg)))
        raise PlanningError(
            f"overhead lift: IPOPT ended with {res.status} after {res.iterations} iterations "
            f"(worst constraint violation {worst:.3g}, t_f {t_f:.3f} s)"
        )
    return res


def _guess(chain, postures, s, guess, nc) -> np.ndarray:
    if isinstance(guess, LiftResult):
        return np.concatenate([guess.coefficients[3:-3].T.ravel(), [guess.t_f]])
    A, C = postures.start, postures.end
    sc = np.linspace(0.0, 1.0, nc)[3:-3]
    if guess is None:
        inner = np.outer(1 - sc, A) + np.outer(sc, C)
    else:
        mid = np.asarray(guess, dtype=float)
        inner = np.array([A + (mid - A) * (u / 0.5) if u <= 0.5 else mid + (C - mid) * ((u - 0.5) / 0.5) for u in sc])
    return np.concatenate([inner.T.ravel(), [s.guess_time]])


def static_torques(chain: SagittalChain, theta: np.ndarray) -> np.ndarray:
    """The per-side static torques g(q) (5.27) [N m] at each row of `theta` (samples x 7)."""
    z = np.zeros(chain.n)
    sides = np.array(chain.sides, dtype=float)
    return np.array([chain.tau(th, z, z) / sides for th in np.atleast_2d(theta)])


@dataclass
class LiftCheck:
    """A lift's constraints measured every `dt` along the whole trajectory, not only at the optimiser's
    samples: the largest (5.25) ratio |q̇/q̇^M + Γ/Γ^M| and (5.26) ratio |Γ|/Γ^M over every motor, the
    smallest ZMP margin to the heel or toe [m], the largest |F_x| / (μ F_z), the smallest F_z [N], the
    largest wrist load ratios (along, across, moment: load / limit), the smallest joint-limit margin
    [rad], and the largest per-joint static torque (5.27) over nominal output along the same path."""

    motor: float
    torque: float
    zmp_margin: float
    slip: float
    normal: float
    hand: np.ndarray
    joint_margin: float
    static_over_nominal: np.ndarray

    def exceeded(self) -> list[str]:
        """The limits this check found exceeded: "(5.25)", "(5.26)", "wrist", "ZMP", "slip"."""
        bad = (self.motor > 1, self.torque > 1, max(self.hand) > 1, self.zmp_margin < 0, self.slip >= 1)
        return [name for name, b in zip(("(5.25)", "(5.26)", "wrist", "ZMP", "slip"), bad, strict=True) if b]

    def lines(self) -> list[str]:
        return [
            f"(5.25) |q'/q'M + G/GM| max {self.motor:.3f}; (5.26) |G|/GM max {self.torque:.3f}",
            f"ZMP margin min {1000 * self.zmp_margin:.1f} mm; |Fx|/(mu Fz) max {self.slip:.3f}; "
            f"Fz min {self.normal:.0f} N",
            "wrist loads / limits: along {:.2f}, across {:.2f}, moment {:.2f}".format(*self.hand),
            f"joint-limit margin min {math.degrees(self.joint_margin):.1f} deg",
            "static torque / nominal along the path (5.27): " + ", ".join(f"{v:.2f}" for v in self.static_over_nominal),
        ]


def check_lift(
    chain: SagittalChain, result: LiftResult, settings: LiftSettings | None = None, dt: float = 1e-3
) -> LiftCheck:
    """Measure `result`'s constraints every `dt` seconds (`LiftCheck`)."""
    s = settings or LiftSettings()
    t, th, thd, thdd = result.sample(dt)
    motor, torque, zm, slip, normal = 0.0, 0.0, np.inf, 0.0, np.inf
    hand = np.zeros(3)
    lim = np.array([s.hand_along, s.hand_across, s.hand_moment])
    for i in range(len(t)):
        tau = chain.f_tau(th[i], thd[i], thdd[i])
        gam = np.array(_motor_torques(chain, s, tau, thd[i])).ravel()
        motor = max(motor, float(np.max(np.abs(thd[i] / chain.velocity + gam / chain.effort))))
        torque = max(torque, float(np.max(np.abs(gam) / chain.effort)))
        fx, fz, mo = np.array(chain.f_reaction(th[i], thd[i], thdd[i])).ravel()
        x = mo / fz
        zm = min(zm, x - chain.foot_x[0], chain.foot_x[1] - x)
        slip = max(slip, abs(fx) / (s.friction * fz))
        normal = min(normal, fz)
        hand = np.maximum(hand, np.abs(np.array(chain.f_hand(th[i], thd[i], thdd[i])).ravel()) / lim)
    margin = float(np.min(np.minimum(th - chain.lower, chain.upper - th)))
    static = np.abs(static_torques(chain, th)).max(0) / (s.nominal * chain.effort)
    return LiftCheck(motor, torque, float(zm), slip, float(normal), hand, margin, static)


def lift_energy(chain: SagittalChain, result: LiftResult, settings: LiftSettings | None = None, dt=1e-3) -> float:
    """E_r (5.29) [J] of `result` by the trapezoid rule every `dt` seconds (finer than the optimiser's
    samples; `LiftResult.retimed` gives the same path played faster or slower)."""
    s = settings or LiftSettings()
    t, th, thd, thdd = result.sample(dt)
    terms, _lo, _hi = _sample_terms(chain, s)
    power = np.array(terms.map(len(t))(th.T, thd.T, thdd.T)[1]).ravel()
    return float(np.trapezoid(power, t))
