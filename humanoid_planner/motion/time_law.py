"""The sinusoidal time law with a speed cap (001_escande.md §6 step 4, (7.3), thesis L3013-3028).

A segment's projections q^0 .. q^k form a piecewise-linear path (linear in the joints,
Pinocchio's ``interpolate`` for the free-flyer base). Its length is measured in seconds at the
caps: each piece j costs

    d_j = max( max_joints abs(dq) / v_joint, abs(dp_base) / v_base, abs(dtheta_base) / w_base )

so moving along the path at unit rate keeps every joint under ``v_joint`` [rad/s] and the base
under ``v_base`` [m/s] and ``w_base`` [rad/s]. With L = sum d_j, the arc length follows
a(t) = (L/2)(1 - cos(pi t / T)) (7.3), whose largest rate pi L / (2T) is 1 for T = pi L / 2;
T is rounded up to a whole number of control periods ``dt`` [s] (the thesis's T_i a multiple of
dt), so the segment's last sample is exactly q^k: every witness posture is a sample of the
trajectory, and the velocity is zero at both ends, where contacts are made and broken (A22,
001_escande.md:530).

Numbers: ``v_joint`` = 10 deg/s, the thesis's cap for its chair motion (001_escande.md:390,
L3028). Chosen: ``v_base`` 0.1 m/s and ``w_base`` 10 deg/s (the base is carried by the joints
and stays well under them in the plans seen; the caps only keep a base-only piece from getting
zero duration); ``dt`` 5 ms, HRP-2's control period (hrp2_data.md:113).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_planner.exceptions import PlanningError

__all__ = ["piece_costs", "sinusoidal_samples"]


def piece_costs(model, knots: np.ndarray, v_joint: float, v_base: float, w_base: float) -> np.ndarray:
    """(k,) seconds at the caps of each piece between consecutive ``knots`` (k+1, nq)."""
    out = np.empty(len(knots) - 1)
    for j in range(len(knots) - 1):
        d = pin.difference(model, knots[j], knots[j + 1])
        joints = np.max(np.abs(d[6:]), initial=0.0) / v_joint
        out[j] = max(joints, np.linalg.norm(d[:3]) / v_base, np.linalg.norm(d[3:6]) / w_base)
    return out


def sinusoidal_samples(model, knots, dt: float, v_joint: float, v_base: float, w_base: float):
    """``(t, q)``: the segment through ``knots`` (k+1, nq) sampled every ``dt`` [s] from t = 0 to
    T (module docstring); t (m,) and q (m, nq), first row knots[0], last row knots[-1]."""
    knots = np.asarray(knots, float)
    if not (dt > 0 and v_joint > 0 and v_base > 0 and w_base > 0):
        raise PlanningError(f"time law: dt, v_joint, v_base, w_base must be > 0; {dt}, {v_joint}, {v_base}, {w_base}")
    cost = piece_costs(model, knots, v_joint, v_base, w_base)
    length = float(cost.sum())
    steps = int(np.ceil(np.pi * length / 2.0 / dt - 1e-9))
    if steps == 0:
        return np.zeros(1), knots[:1].copy()
    cum = np.concatenate([[0.0], np.cumsum(cost)])
    t = np.arange(steps + 1) * dt
    arc = 0.5 * length * (1.0 - np.cos(np.pi * t / t[-1]))
    q = np.empty((steps + 1, model.nq))
    for n, a in enumerate(arc):
        j = min(int(np.searchsorted(cum, a, side="right")) - 1, len(cost) - 1)
        lam = 0.0 if cost[j] == 0 else min(max((a - cum[j]) / cost[j], 0.0), 1.0)
        q[n] = pin.interpolate(model, knots[j], knots[j + 1], lam)
    q[-1] = knots[-1]
    return t, q
