"""The dynamic box lift after the impact: the swing back over the feet with the box in the hands
(Chardonnet 2009, §5.2.1.2, Fig. 5.15 (d), after Arisumi et al. 2007).

After the impact the robot and the box move as one (§5.2.1.3). "The configuration of the upper part
of the robot is fixed after it has lifted the object, and the position of the centre of mass is
controlled by the legs to follow the trajectory of an inverted pendulum" turning about the foot
centre B, whose final position is "on the vertical line through the foot centre" (§5.2.1.2).

`plan_box_swing` holds the chest, shoulders, elbows and wrists at the impact posture and moves the
ankles, knees and hips so that:

- the centre of mass A of everything that moved at the impact (robot, box and feet, the impact's
  merged body) stays at the pendulum's length l from B, at the lean θ(t) from the vertical;
- the waist turns with the pendulum, by θ₀ − θ(t) (the upper body turns as one with it).

θ(t) starts as the free pendulum leaves the impact (θ₀, θ̇ = −ω_s⁺, θ̈ = k sin θ₀ with
k = m_s g l / I_B) and comes to rest at θ = 0 after ``duration`` (a quintic; our choice: the free
pendulum that the design's energy sets would take forever to reach the top, `impact` module). The
default 1 s (`SWING_DURATION`) is ours.

Measured: the ZMP on the floor (the chain carries the box at the grasp points,
`sagittal.CarriedObject`), which the thesis keeps inside the feet after the impact (§4.16, F1), and
the joints' torques and speeds. Frame: the chain's, x forward from the ankle, z up from the sole.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humanoid_planner.exceptions import PlanningError

from .box_lift import BoxLiftMotion
from .lift_tasks import LiftTasks, outside_limits
from .sagittal import CarriedObject, G, SagittalChain

__all__ = ["SWING_DURATION", "BoxSwing", "carrying_chain", "plan_box_swing"]

SWING_DURATION = 1.0  #: [s] from the impact to rest over the feet (chosen)
_LEGS = [0, 1, 2]  # ankle, knee, hip: the joints the swing moves


@dataclass(frozen=True)
class BoxSwing:
    """The swing (module docstring): ``t`` (k,) [s] from the impact; ``theta``, ``theta_d``,
    ``theta_dd`` (k, 7); ``lean`` (k,) θ [rad]; ``zmp`` (k,) [m] from the ankle; ``ik_residual``: the
    largest inverse-kinematics residual [m or rad]."""

    t: np.ndarray
    theta: np.ndarray
    theta_d: np.ndarray
    theta_dd: np.ndarray
    lean: np.ndarray
    zmp: np.ndarray
    ik_residual: float


def carrying_chain(chain: SagittalChain, motion: BoxLiftMotion) -> SagittalChain:
    """`chain`'s robot with the lifted box on its hands (its centre of mass at the grasp points)."""
    s = motion.settings
    return SagittalChain(chain.robot, CarriedObject(s.box.mass, s.box.depth, 2.0 * s.hand_height), chain.joints)


def _quintic(x0, v0, a0, T, t):
    """A quintic from (x0, v0, a0) at 0 to rest at 0 at T: position, velocity, acceleration at t."""
    # x(t) = x0 + v0 t + a0 t²/2 + c3 t³ + c4 t⁴ + c5 t⁵ with x(T) = v(T) = a(T) = 0
    M = np.array([[T**3, T**4, T**5], [3 * T**2, 4 * T**3, 5 * T**4], [6 * T, 12 * T**2, 20 * T**3]])
    rhs = -np.array([x0 + v0 * T + a0 * T**2 / 2, v0 + a0 * T, a0])
    c3, c4, c5 = np.linalg.solve(M, rhs)
    x = x0 + v0 * t + a0 * t**2 / 2 + c3 * t**3 + c4 * t**4 + c5 * t**5
    v = v0 + a0 * t + 3 * c3 * t**2 + 4 * c4 * t**3 + 5 * c5 * t**4
    a = a0 + 6 * c3 * t + 12 * c4 * t**2 + 20 * c5 * t**3
    return x, v, a


def plan_box_swing(
    chain: SagittalChain, motion: BoxLiftMotion, duration: float = SWING_DURATION, carrying: SagittalChain | None = None
) -> BoxSwing:
    """The swing after `motion`'s impact (module docstring); ``carrying``: `carrying_chain`'s result,
    if already built. `PlanningError` if the legs cannot follow it within their joint limits."""
    if not np.isfinite(duration) or duration <= 0:
        raise PlanningError(f"box swing: duration must be a finite number of seconds > 0; value {duration}")
    carrying = carrying or carrying_chain(chain, motion)
    tasks = LiftTasks(carrying)
    d = motion.design
    m_f, c_f = chain.foot[0], chain.foot_com
    if abs(tasks.mass + m_f - d.mass) > 1e-9 * d.mass:
        raise PlanningError("box swing: the carrying chain's mass is not the impact's merged mass")
    k_pend = d.mass * G * d.arm / (d.inertia + d.mass * d.arm**2)
    step = motion.settings.sample
    n = int(np.ceil(duration / step - 1e-9))
    t = np.linspace(0.0, duration, n + 1)
    th, thd, thdd = _quintic(d.lean, -d.omega, k_pend * np.sin(d.lean), duration, t)
    if np.any(th < -1e-12) or np.any(np.diff(th) > 1e-12):
        raise PlanningError(
            f"box swing: in {duration} s the lean does not rise monotonically to the top (it passes it or turns "
            f"back); try a duration nearer {2.0 * d.lean / d.omega:.2f} s, the impact's lean over half its speed"
        )
    s, c = np.sin(th), np.cos(th)
    # the merged centre of mass on the pendulum, then the moving bodies' (the feet stay)
    a_pos = d.pivot + d.arm * np.column_stack([s, c])
    a_vel = d.arm * np.column_stack([c, -s]) * thd[:, None]
    a_acc = d.arm * (np.column_stack([c, -s]) * thdd[:, None] - np.column_stack([s, c]) * thd[:, None] ** 2)
    pos = (d.mass * a_pos - m_f * c_f) / tasks.mass
    vel, acc = d.mass * a_vel / tasks.mass, d.mass * a_acc / tasks.mass
    waist0 = float(np.array(tasks.task(motion.impact)).ravel()[2])
    target = np.column_stack([pos, waist0 + d.lean - th])
    rate = np.column_stack([vel, -thd])
    accel = np.column_stack([acc, -thdd])
    theta, theta_d, theta_dd, worst = tasks.follow(motion.impact, target, rate, accel, range(3), _LEGS)
    if not worst < 1e-9:
        raise PlanningError(f"box swing: the legs cannot follow the pendulum (residual {worst:.3g})")
    bad = outside_limits(chain, theta)
    if bad is not None:
        raise PlanningError(
            f"box swing: joint {chain.joints.labels[bad[1]]!r} leaves its limits during the swing, at "
            f"{t[bad[0]]:.3f} s after the impact"
        )
    zmp = np.array([float(carrying.f_zmp(*x)) for x in zip(theta, theta_d, theta_dd)])
    return BoxSwing(t, theta, theta_d, theta_dd, th, zmp, worst)
