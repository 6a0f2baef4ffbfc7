"""The cam profile of the dynamic box lift's preliminary motion (Chardonnet 2009, §5.2.1.4, Fig. 5.19,
after Arisumi et al. 2007): a normalised rise P(T) from 0 to 1 over T ∈ [0, 1], "smooth, and linear
over most of the interval", with its velocity V = dP/dT and acceleration A = dV/dT. The lift uses its
first half only: the impact comes at T = 0.5, at full speed.

The thesis names the cam law but gives no formula. This is the modified constant-velocity cam (our
choice): a half sine of acceleration over the first ``ramp`` of the interval, constant velocity, and
the mirror deceleration over the last ``ramp``:

    A(T) = A₀ sin(π T / r)                     0 ≤ T ≤ r
    A(T) = 0                                   r ≤ T ≤ 1 − r
    A(T) = −A₀ sin(π (T − 1 + r) / r)          1 − r ≤ T ≤ 1

with V_c = 1 / (1 − r) the constant velocity (P(1) = 1) and A₀ = π V_c / (2 r). P, V and A are
continuous; at T = 0.5 (for r < 0.5) the speed is V_c and the acceleration zero. The default
ramp r = 1/8 is the classic modified constant-velocity cam's (our choice; the thesis's Fig. 5.19 shows a
rise linear over most of the interval).

The path and the base angle follow it (5.15)–(5.16):

    p(t) = α P(t / t_f),   q(t) = β P(t / t_f),   v(t) = α / t_f V(t / t_f),   ω(t) = β / t_f V(t / t_f)
"""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

__all__ = ["RAMP", "cam_profile"]

RAMP = 0.125  #: the acceleration ramp's share of the interval (module docstring; our choice)


def cam_profile(t, ramp: float = RAMP) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(P, V, A) of the modified constant-velocity cam (module docstring) at the normalised times `t`
    (clipped to [0, 1]); ``ramp`` ∈ (0, 0.5]."""
    if not 0.0 < ramp <= 0.5:
        raise PlanningError(f"cam_profile: ramp must be in (0, 0.5]; value {ramp}")
    t = np.clip(np.asarray(t, dtype=float), 0.0, 1.0)
    r = ramp
    vc = 1.0 / (1.0 - r)
    a0 = np.pi * vc / (2.0 * r)
    k = np.pi / r

    def rise(s):  # the first ramp, s in [0, r]
        return a0 / k * (s - np.sin(k * s) / k), a0 / k * (1.0 - np.cos(k * s)), a0 * np.sin(k * s)

    head = t <= r
    tail = t >= 1.0 - r
    p_r = a0 / k * r  # P at the end of the first ramp (= V_c r / 2)
    P = p_r + vc * (t - r)
    V = np.full_like(t, vc)
    A = np.zeros_like(t)
    ph, vh, ah = rise(np.where(head, t, 0.0))
    P, V, A = np.where(head, ph, P), np.where(head, vh, V), np.where(head, ah, A)
    pt, vt, at = rise(np.where(tail, 1.0 - t, 0.0))  # the mirror image: P(t) = 1 − P(1 − t)
    return np.where(tail, 1.0 - pt, P), np.where(tail, vt, V), np.where(tail, -at, A)
