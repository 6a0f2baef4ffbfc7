"""The joint limits of the whole-body QP, as bounds on the actuated joints' accelerations and
torques.

Positions and speeds become acceleration bounds over a horizon (the bound that stops the joint at
its limit, as in Del Prete, "Joint Position and Velocity Bounds in Discrete-Time
Acceleration/Torque Control of Robot Manipulators", RA-L 2018: a speed term, a braking term and
the viability term below):

    a ≤ min( (q̇_max − q̇) / h_v,  2 (q_max − q − h_p q̇) / h_p²,  viability ),   a ≥ the mirror image,

with h_v the control period (the speed limit reached in one cycle at most) and h_p a braking
horizon (chosen, `BRAKING_HORIZON`). The braking term alone lets a joint pass its limit: at that
bound the distance to the limit e obeys ë + (2/h_p) ė + (2/h_p²) e = 0, an oscillator of damping
ratio 1/√2, and a joint driven at its bound from the speed limit V ends h_p V e^(−3π/4)/√2 =
0.067 h_p V beyond it (0.061 rad for HRP-2's fastest joint, 9.14 rad/s). So a third term keeps
the joint viable (Del Prete's condition, with the deceleration ``a_max``): after the cycle
(semi-implicit Euler, v₁ = q̇ + a dt, q₁ = q + v₁ dt, as the simulator integrates) the joint must
still be able to stop before its limit braking at a_max,

    q₁ + v₁² / (2 a_max) ≤ q_max   ⇔   v₁ ≤ −a_max dt + √(a_max² dt² + 2 a_max (q_max − q)),

a bound on a (and its mirror image at q_min). Braking at a_max from there, cycle by cycle, travels
at most v₁²/(2 a_max) (the discrete sum is below the integral) and keeps the condition true at
every later cycle, so a joint that starts inside its limits never passes them while the
accelerations stay within the bounds. Away from the limits the braking term is the tighter one
(a joint at 1 rad/s starts braking 0.1 rad before its limit, where viability asks 5 mm), so the
third term only cuts the braking term's overshoot.

A bound is never tighter than stopping the joint where it is (it always contains the
acceleration that stops the joint in one cycle: the bounds stay ordered, and a joint already
beyond its limit is only asked to stop), and at most ``a_max`` in size. The torques,
|τ| ≤ τ_max with τ = M_a a + h_a − (J_cᵀ G)_a f, are rows of the QP
(`humanoid_control.wbc.problem`); the guarantee above assumes the torques allow braking at a_max.
"""

from __future__ import annotations

import numpy as np

from humanoid_control.exceptions import ControlError
from humanoid_model.validation import finite_number

__all__ = ["JointAccelerationBounds", "BRAKING_HORIZON", "A_MAX"]

BRAKING_HORIZON = 0.1  # [s] (chosen) h_p: a joint at 1 rad/s stops within 0.05 rad of its limit
A_MAX = 100.0  # [rad/s²] (chosen) largest joint acceleration the controller asks for


class JointAccelerationBounds:
    """Acceleration bounds (n,) of the actuated joints from their position ``lower``/``upper``
    [rad] and speed limits ``v_max`` [rad/s] (module docstring); ``dt`` [s] the control period."""

    def __init__(self, lower, upper, v_max, dt: float, horizon: float = BRAKING_HORIZON, a_max: float = A_MAX):
        src = "joint acceleration bounds"
        dt = finite_number(dt, src, "dt", 0.0, strict=True, error=ControlError)
        horizon = finite_number(horizon, src, "horizon", 0.0, strict=True, error=ControlError)
        a_max = finite_number(a_max, src, "a_max", 0.0, strict=True, error=ControlError)
        big = 1e6  # an unbounded joint: a limit this far never gives a bound below a_max
        self.lower = np.nan_to_num(np.asarray(lower, float), neginf=-big, posinf=big)
        self.upper = np.nan_to_num(np.asarray(upper, float), neginf=-big, posinf=big)
        self.v_max = np.nan_to_num(np.asarray(v_max, float), posinf=big)
        self.dt, self.horizon, self.a_max = float(dt), float(horizon), float(a_max)

    def bounds(self, q, v) -> tuple[np.ndarray, np.ndarray]:
        """(a_lo, a_hi) at joint angles ``q`` and speeds ``v`` (n,)."""
        h, dt, a_max = self.horizon, self.dt, self.a_max
        drift = q + h * v
        hi = np.minimum((self.v_max - v) / dt, (2.0 / h**2) * (self.upper - drift))
        lo = np.maximum((-self.v_max - v) / dt, (2.0 / h**2) * (self.lower - drift))
        # viability (module docstring): the next speed from which braking at a_max stops at the limit
        hi = np.minimum(hi, (self._viable_speed(self.upper - q) - v) / dt)
        lo = np.maximum(lo, (-self._viable_speed(q - self.lower) - v) / dt)
        # stopping the joint in one cycle is always allowed: the bounds stay ordered and feasible
        stop = np.minimum(np.maximum(-v / dt, -a_max), a_max)
        hi = np.minimum(np.maximum(hi, stop), a_max)
        lo = np.maximum(np.minimum(lo, stop), -a_max)
        return lo, hi

    def _viable_speed(self, room):
        """The largest speed v₁ >= 0 towards a limit ``room`` [rad] away (n,) with which the joint
        can still stop there braking at ``a_max`` after one cycle (module docstring); 0 at or
        beyond the limit."""
        a, dt = self.a_max, self.dt
        return np.maximum(-a * dt + np.sqrt(np.maximum(a * a * dt * dt + 2.0 * a * room, 0.0)), 0.0)
