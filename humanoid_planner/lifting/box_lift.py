"""The dynamic box lift's preliminary motion up to the impact (Chardonnet 2009, §5.2.1, after Arisumi
et al. 2007), on the symmetric sagittal model of the robot (`sagittal.SagittalChain`).

The box stands on the floor ahead of the feet, too far for a static lift: the robot leans on it, its
centre of mass and the box's together ahead of its toes (§5.2.1.1). It lifts the box in one swing:
it moves to build momentum with its hands on the box (the preliminary motion, §5.2.1.4), locks its
arms on it (the impact, §5.2.1.3) and turns back over its feet with it as an inverted pendulum
(§5.2.1.2). `plan_box_lift` designs the motion up to the impact:

1. **The impact posture** (`impact_posture`): the hands at the grasp points on the box, the arms
   nearly straight (elbow `BoxLiftSettings.elbow`), the chest and the wrists at zero (§5.2.1.4: "the
   torso's and the wrist's joint positions are fixed"), the waist pitched forward by `base_pitch`,
   and the centre of mass of everything that will move with the box (robot, box and feet, locked)
   leaning `lean` ahead of the foot centre.
2. **The impact** (`impact.design_impact`): the robot's velocity and angular momentum just before it
   that leave the foot centre at rest and bring the whole to rest above the foot centre
   (5.10)–(5.14). The feet and the box are the bodies at rest that the moving robot locks onto.
3. **The path** (5.15)–(5.18): the robot's centre of mass moves on a line along the lift direction
   with the cam profile (`cam.cam_profile`), p(t) = α P(t / t_f), over ``path`` metres before the
   impact at T = 0.5; the waist's pitch turns with the same profile, q(t) = β P(t / t_f). With
   P(0.5) = 1/2, α = 2 ``path``; t_f makes the speed at T = 0.5 the impact's, t_f = α V(0.5) / v_r⁻; β
   makes the robot's angular momentum there the impact's (deviation: the thesis sets the base's
   angular velocity ω_r with the robot as one rigid body, I_r ω_r; a moving robot's angular momentum
   also counts its joints' motion, so ours sets h_r⁻ exactly, `impact` module).
4. **Inverse kinematics** at every sample (every 5 ms, HRP-2's control period, §5.2.3): the ankle,
   knee, hip, shoulder and elbow angles put the robot's centre of mass and waist pitch on the path
   while the hands stay on the box (§5.2.1.4: "inverse kinematics for the rest"; the ankles stay on
   the floor by the chain's construction). The joint rates and accelerations follow from the path's.

The thesis gives the box and the hands' height only (§5.2.1.6); every other number is ours
(`BoxLiftSettings`), chosen so that HRP-2's motion stays within its URDF's joint, velocity and effort
limits, measured with `benchmarks/box_lift.py`:

- the lean: 10 deg puts the locked whole's centre of mass 0.144 m ahead of the ankle, past the toes
  (0.13 m), where the thesis's robot needs the box to stand (§5.2.1.1); the impact is then at 0.50 m/s;
- the elbow at −0.6 rad (34 deg bent), not straighter: the hands stay on the box while the body moves
  at the impact's speed, and a straighter arm turns faster (at −0.3 rad the elbow needs 1.7 times its
  velocity limit);
- the cam's ramp 0.5 (deviation): the whole first half accelerates and the impact comes at the end of
  the ramp, at zero acceleration; with the thesis's mostly linear profile (ramp 1/8 or 1/4) the same
  speed over the same path needs 1.3 (ramp 1/4) to 2.4 (ramp 1/8) times the ankles' maximum torque,
  and the ZMP leaves the feet and the box (0.59 and 0.99 m ahead of the ankle, the box's far face at
  0.45 m).

Two measures of the motion before the impact:

- `BoxLiftMotion.support_zmp`: the ZMP of the robot and the box together on the floor, which the
  thesis bounds by the feet and the box (§5.2.1.5, Fig. 5.22);
- `hold_reserve`: how the load can be shared. The robot needs one wrench from the floor and the box
  together (its dynamics); how much the hands take depends on the joints' stiffness, which a
  simulation decides. `hold_reserve` finds, at each sample, the hands' force with the largest least
  margin of the box's four conditions (5.19)–(5.22) (`box_hold`) while the feet take the rest
  within their friction cone (5.23) without lifting (5.24), their centre of pressure inside the
  soles (a linear programme). A reserve ≥ 0 at every sample: some sharing keeps the box and the feet
  still; the thesis's simulation shows its hand force inside that set (Fig. 5.21).

The motion after the impact is `box_swing`'s; `humanoid_execution.box_lift_playback` plays both in the
simulator.

Frame: the chain's, x forward from the ankle, z up from the sole.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from humanoid_planner.exceptions import PlanningError

from .box_hold import THESIS_BOX, THESIS_HAND_HEIGHT, Box
from .cam import cam_profile
from .impact import ImpactDesign, design_impact
from .lift_tasks import LiftTasks, outside_limits
from .sagittal import G, SagittalChain

__all__ = ["BoxLiftSettings", "BoxLiftMotion", "hold_reserve", "impact_posture", "plan_box_lift"]

FOOT_FRICTION = 0.4  #: μ_p of (5.23), the floor's (Chardonnet 2009, §3.1.6.1)

# the chain's joints (HRP2_SAGITTAL's order): the five the inverse kinematics moves, the two it holds
_MOVED = (0, 1, 2, 4, 5)  # ankle, knee, hip, shoulder, elbow
_POSED = (0, 1, 2, 4)  # the impact posture's unknowns: the elbow is set (`BoxLiftSettings.elbow`)
_ELBOW = 5


@dataclass(frozen=True)
class BoxLiftSettings:
    """The box lift's choices (module docstring); every default is ours unless it cites the thesis."""

    box: Box = THESIS_BOX  #: Chardonnet 2009, §5.2.1.6
    hand_height: float = THESIS_HAND_HEIGHT  #: z_h [m], §5.2.1.6; the box's centre of mass at this height
    box_gap: float = 0.02  #: [m] from the toes to the box's near face (chosen)
    lean: float = np.radians(10.0)  #: [rad] the locked whole's centre of mass ahead of the foot centre (chosen)
    base_pitch: float = 0.5  #: [rad] the waist pitched forward at the impact (chosen)
    elbow: float = -0.6  #: [rad] the arms "nearly straight" (§5.2.1.4; the angle chosen, module docstring)
    path: float = 0.12  #: [m] the robot's centre of mass's travel before the impact (chosen)
    sample: float = 0.005  #: [s] HRP-2's control period (§5.2.3)
    ramp: float = 0.5  #: the cam's acceleration ramp (`cam` module; chosen, module docstring)

    def __post_init__(self):
        for name in ("hand_height", "path", "sample"):
            value = getattr(self, name)
            if not np.isfinite(value) or value <= 0:
                raise PlanningError(f"box lift: {name} must be a finite number > 0; value {value}")
        if not 0.0 < self.lean < np.pi / 2:
            raise PlanningError(f"box lift: lean must be in (0, 90) deg; value {np.degrees(self.lean):.1f} deg")

    @property
    def box_inertia(self) -> float:
        """The box's inertia [kg m²] about its centre of mass: uniform, d_o deep and 2 z_h tall (its
        centre of mass at the grasp height, §5.2.1.6; the height is our reading)."""
        b = self.box
        return b.mass * (b.depth**2 + (2.0 * self.hand_height) ** 2) / 12.0


@dataclass(frozen=True)
class BoxLiftMotion:
    """The preliminary motion (module docstring): ``t`` (k,) [s] from its start to the impact,
    ``theta``, ``theta_d``, ``theta_dd`` (k, 7) the chain's angles [rad] and their rates; ``t_f``,
    ``alpha`` [m] and ``beta`` [rad] of (5.15)–(5.18); ``grasp`` (2,) [m] the hands' point on the box;
    ``box_x``: the box's near face [m]; ``ik_residual``: the largest inverse-kinematics residual [m or
    rad] over the samples; ``support_zmp`` (k,) [m] and ``support`` (heel, box's far face) [m]: the
    ZMP of robot and box on the floor and its bounds."""

    settings: BoxLiftSettings
    design: ImpactDesign
    impact: np.ndarray
    t_f: float
    alpha: float
    beta: float
    t: np.ndarray
    theta: np.ndarray
    theta_d: np.ndarray
    theta_dd: np.ndarray
    grasp: np.ndarray
    box_x: float
    ik_residual: float
    support_zmp: np.ndarray
    support: tuple


def _at_rest(chain: SagittalChain, s: BoxLiftSettings, grasp: np.ndarray):
    """(mass, centre of mass, inertia about it) of the bodies the robot locks onto: the box and the
    feet (both sides)."""
    fm, fc, fi = chain.foot[0], chain.foot_com, chain.foot_inertia
    mo = s.box.mass
    m = fm + mo
    c = (fm * fc + mo * grasp) / m
    return m, c, fi + fm * float((fc - c) @ (fc - c)) + s.box_inertia + mo * float((grasp - c) @ (grasp - c))


def _locked_com(kin: LiftTasks, chain: SagittalChain, s: BoxLiftSettings, grasp, theta) -> np.ndarray:
    m_o, c_o, _ = _at_rest(chain, s, grasp)
    c_r = np.array(kin.task(theta)).ravel()[:2]
    return (kin.mass * c_r + m_o * c_o) / (kin.mass + m_o)


def _grasp_point(chain: SagittalChain, s: BoxLiftSettings) -> tuple[np.ndarray, float]:
    """The hands' point on the box (at its centre of mass, both hands on its sides) and its near face."""
    box_x = chain.foot_x[1] + s.box_gap
    return np.array([box_x + s.box.com_x, s.hand_height]), box_x


def _foot_centre(chain: SagittalChain) -> np.ndarray:
    """B: the middle of the sole's heel-to-toe extent, on the floor."""
    return np.array([0.5 * sum(chain.foot_x), 0.0])


def impact_posture(
    chain: SagittalChain, s: BoxLiftSettings = BoxLiftSettings(), tasks: LiftTasks | None = None
) -> np.ndarray:
    """The seven angles at the impact (module docstring, step 1); ``tasks``: `LiftTasks` of
    ``chain`` if already built. `PlanningError` if the robot cannot take it within its joint limits."""
    kin = tasks or LiftTasks(chain)
    grasp, _ = _grasp_point(chain, s)
    pivot = _foot_centre(chain)
    moved = list(_POSED)
    lo, hi = chain.lower[moved], chain.upper[moved]
    if not chain.lower[_ELBOW] <= s.elbow <= chain.upper[_ELBOW]:
        raise PlanningError(f"box lift: elbow {s.elbow} rad is outside the joint's limits")

    def full(x):
        theta = np.zeros(chain.n)
        theta[moved] = x
        theta[_ELBOW] = s.elbow
        return theta

    def residual(x):
        theta = full(x)
        task = np.array(kin.task(theta)).ravel()
        d = _locked_com(kin, chain, s, grasp, theta) - pivot
        return np.concatenate([task[3:5] - grasp, [task[2] + s.base_pitch, np.arctan2(d[0], d[1]) - s.lean]])

    best = None
    for x0 in ([-0.5, 1.2, -0.7, -0.8], [-0.2, 2.0, -1.5, -1.0], [0.0, 0.5, -0.5, -0.5]):
        sol = least_squares(residual, np.clip(x0, lo, hi), bounds=(lo, hi), xtol=1e-14, ftol=1e-14, gtol=1e-14)
        if best is None or sol.cost < best.cost:
            best = sol
    worst = float(np.max(np.abs(best.fun)))
    if worst > 1e-9:
        raise PlanningError(
            f"box lift: the robot cannot take the impact posture within its joint limits (residual {worst:.3g}: "
            f"hands at ({grasp[0]:.3f}, {grasp[1]:.3f}) m, waist pitched {s.base_pitch} rad, lean "
            f"{np.degrees(s.lean):.1f} deg); try another lean, base_pitch or box_gap"
        )
    return full(best.x)


def plan_box_lift(chain: SagittalChain, s: BoxLiftSettings = BoxLiftSettings()) -> BoxLiftMotion:
    """The preliminary motion of the dynamic box lift up to the impact (module docstring)."""
    kin = LiftTasks(chain)
    grasp, box_x = _grasp_point(chain, s)
    impact = impact_posture(chain, s, kin)
    pivot = _foot_centre(chain)
    c_r = np.array(kin.task(impact)).ravel()[:2]
    m_o, c_o, i_o = _at_rest(chain, s, grasp)
    design = design_impact(kin.mass, c_r, float(kin.inertia(impact)), m_o, c_o, i_o, pivot, g=G)

    moved = list(_MOVED)

    def rates(theta, task_rate):
        J = np.array(kin.jacobian(theta))[:, moved]
        out = np.zeros(chain.n)
        out[moved] = np.linalg.solve(J, task_rate)
        return out

    # the waist's pitch rate at the impact that gives the robot the design's angular momentum
    u = design.direction
    v_imp = design.robot_velocity
    h_v = float(kin.momentum(impact, rates(impact, np.array([*u, 0.0, 0.0, 0.0]))))
    h_w = float(kin.momentum(impact, rates(impact, np.array([0.0, 0.0, 1.0, 0.0, 0.0]))))
    w_imp = (design.robot_momentum - v_imp * h_v) / h_w
    P5, V5, _ = (float(x) for x in cam_profile(0.5, s.ramp))
    alpha = s.path / P5
    t_f = alpha * V5 / v_imp
    beta = w_imp * t_f / V5
    half = 0.5 * t_f
    k = int(np.ceil(half / s.sample - 1e-9))
    t = np.linspace(0.0, half, k + 1)
    P, V, A = cam_profile(t / t_f, s.ramp)
    # the path's positions, rates and accelerations: (centre of mass x, z, waist pitch, grasp x, z)
    q_imp = float(np.array(kin.task(impact)).ravel()[2])
    pos = np.column_stack(
        [
            c_r[0] + u[0] * alpha * (P - P5),
            c_r[1] + u[1] * alpha * (P - P5),
            q_imp + beta * (P - P5),
            np.full_like(t, grasp[0]),
            np.full_like(t, grasp[1]),
        ]
    )
    rate = np.column_stack([u[0] * alpha * V, u[1] * alpha * V, beta * V, 0 * t, 0 * t]) / t_f
    acc = np.column_stack([u[0] * alpha * A, u[1] * alpha * A, beta * A, 0 * t, 0 * t]) / t_f**2

    # from the impact back to the start: each sample's solve starts from its neighbour's
    back = slice(None, None, -1)
    theta, theta_d, theta_dd, worst = kin.follow(impact, pos[back], rate[back], acc[back], range(5), _MOVED)
    theta, theta_d, theta_dd = theta[back], theta_d[back], theta_dd[back]
    if not worst < 1e-9:
        raise PlanningError(
            f"box lift: the inverse kinematics cannot follow the preliminary motion's path (residual {worst:.3g}); "
            "try a shorter path"
        )
    bad = outside_limits(chain, theta)
    if bad is not None:
        i, j = bad
        raise PlanningError(
            f"box lift: the preliminary motion leaves joint {chain.joints.labels[j]!r}'s limits at t = "
            f"{t[i]:.3f} s ({theta[i, j]:.3f} rad); try a shorter path"
        )
    zmp = _support_zmp(chain, s, grasp, theta, theta_d, theta_dd)
    support = (chain.foot_x[0], box_x + s.box.depth)
    return BoxLiftMotion(
        s, design, impact, t_f, alpha, beta, t, theta, theta_d, theta_dd, grasp, box_x, worst, zmp, support,
    )  # fmt: skip


def _support_zmp(chain, s, grasp, theta, theta_d, theta_dd) -> np.ndarray:
    """The ZMP x [m] of the floor's reaction on the robot and the box together (the box at rest)."""
    out = np.empty(len(theta))
    w = s.box.mass * G
    for i in range(len(theta)):
        fx, fz, mo = (float(v) for v in np.array(chain.f_reaction(theta[i], theta_d[i], theta_dd[i])).ravel())
        out[i] = (mo + w * grasp[0]) / (fz + w)
    return out


def hold_reserve(
    chain: SagittalChain,
    motion: BoxLiftMotion,
    foot_friction: float = FOOT_FRICTION,
    hand_moment: bool = True,
    feet_margin: bool = False,
):
    """(k,) the largest least margin [N] of (5.19)–(5.22) over the hands' forces that, with the feet
    within (5.23)–(5.24) and their centre of pressure inside the soles, give the robot the floor's
    and the box's wrench its motion needs, at each sample (module docstring; the tipping margins
    [N·m] divided by the box's depth), and (k, 3) the hands' force (f_hx, f_hz, τ_h) that has it.
    -inf where no sharing exists even with negative margins (the feet alone cannot).
    ``hand_moment`` False: τ_h = 0, the hands hold the box at points (a point grasp). ``feet_margin``:
    the feet's conditions keep the same margin too (friction [N], centre of pressure [N·m] over the
    sole's length), so that the sharing loads the feet as well as the box."""
    from scipy.optimize import linprog

    s = motion.settings
    box, w = s.box, s.box.mass * G
    cx, cz = motion.grasp
    x_h, z_h, d = cx - motion.box_x, cz, box.depth
    heel, toe = chain.foot_x
    k = len(motion.t)
    reserve, force = np.full(k, -np.inf), np.full((k, 3), np.nan)
    # variables: f_px, f_pz, m_p (the feet, moment about the ankle's floor point), f_hx, f_hz, tau_h, r
    cost = np.zeros(7)
    cost[6] = -1.0
    A_ub = np.array([
        [1, -foot_friction, 0, 0, 0, 0, 0],  # |f_px| <= mu_p f_pz  (5.23)
        [-1, -foot_friction, 0, 0, 0, 0, 0],
        [0, heel, -1, 0, 0, 0, 0],  # heel f_pz <= m_p <= toe f_pz (and f_pz >= 0, (5.24))
        [0, -toe, 1, 0, 0, 0, 0],
        [0, 0, 0, 1, box.friction, 0, 1],  # r <= mu_o (w - f_hz) - |f_hx|  (5.19)
        [0, 0, 0, -1, box.friction, 0, 1],
        [0, 0, 0, -z_h / d, x_h / d, 1 / d, 1],  # r <= -tau_e1 / d  (5.20)
        [0, 0, 0, z_h / d, (d - x_h) / d, -1 / d, 1],  # r <= tau_e2 / d  (5.21)
        [0, 0, 0, 0, 1, 0, 1],  # r <= w - f_hz  (5.22)
    ], dtype=float)  # fmt: skip
    if feet_margin:
        A_ub[0:2, 6] = 1.0
        A_ub[2:4, 6] = [toe - heel, toe - heel]
        A_ub[2:4] /= toe - heel
    b_ub = np.array([0, 0, 0, 0, box.friction * w, box.friction * w, w * box.com_x / d, w * (d - box.com_x) / d, w])
    # the robot's needed wrench = the feet's + the box's on the hands (-f_h at the grasp point, -tau_h)
    A_eq = np.array([[1, 0, 0, -1, 0, 0, 0], [0, 1, 0, 0, -1, 0, 0], [0, 0, 1, cz, -cx, -1, 0]], dtype=float)
    bounds = [(None, None)] * 7
    if not hand_moment:
        bounds[5] = (0.0, 0.0)
    for i in range(k):
        need = np.array(chain.f_reaction(motion.theta[i], motion.theta_d[i], motion.theta_dd[i])).ravel()
        sol = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=need, bounds=bounds, method="highs")
        if sol.status == 0:
            reserve[i], force[i] = sol.x[6], sol.x[3:6]
    return reserve, force
