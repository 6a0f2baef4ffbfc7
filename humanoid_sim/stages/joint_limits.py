"""Joint limits as unilateral constraints of the contact solve (docs/simulator.md).

An actuated joint closer than ``LIMIT_MARGIN`` to a finite limit gets one constraint row in the
robot's collision group: a frictionless "contact" (μ = 0) whose normal row is ±e_j (positive
away from the limit), whose gap term follows the contact law (gap/dt, β·gap/dt when violated,
`humanoid_sim.stages.contacts.gap_term`), and whose two tangential rows have no Jacobian and a unit
compliance, so their force is zero. The normal force is the limit torque [N·m]. Each limit row
warm-starts from its force of the previous step (keyed by joint name and side).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from humanoid_sim.stages.contacts import BETA

__all__ = ["JointLimitRows", "LimitRows", "LIMIT_MARGIN"]

LIMIT_MARGIN = 0.01  # [rad] joint limits enter the solve 0.01 rad (0.57 deg) before the limit (chosen)


@njit(cache=True)
def _limits_clear(q, iq, lo, hi, margin):
    """True when every limited joint q[iq[i]] is at least ``margin`` from both limits."""
    for i in range(lo.shape[0]):
        x = q[iq[i]]
        if x - lo[i] < margin or hi[i] - x < margin:
            return False
    return True


@njit(cache=True)
def _active_limits(q, iq, iv, lo, hi, margin, nv, dt, beta):
    """The limits within ``margin`` at q, lower ones first, each in joint order: (joint indices
    (k,), signs (k,) +1 lower / −1 upper, gap terms (k,) [rad/s] as `contacts.gap_term`, Jacobian
    rows (k, nv) ±e at each joint's velocity index iv)."""
    n = lo.shape[0]
    k = 0
    for i in range(n):
        x = q[iq[i]]
        k += (x - lo[i] < margin) + (hi[i] - x < margin)
    idx = np.empty(k, np.int64)
    sign = np.empty(k)
    gaps = np.empty(k)
    rows = np.zeros((k, nv))
    j = 0
    for side in range(2):
        s = 1.0 if side == 0 else -1.0
        for i in range(n):
            g = q[iq[i]] - lo[i] if side == 0 else hi[i] - q[iq[i]]
            if g < margin:
                idx[j], sign[j] = i, s
                gaps[j] = (g if g >= 0.0 else beta * g) / dt
                rows[j, iv[i]] = s
                j += 1
    return idx, sign, gaps, rows


@dataclass(slots=True)
class LimitRows:
    """The active limits of one step (k of them): joints (k,) actuated-joint indices; rows
    (k, nv_robot) Jacobian rows ±e_j; gap (k,) gap terms [rad/s]; keys: (joint name, "lower" or
    "upper") per row; sign (k,) +1 for a lower, −1 for an upper limit."""

    joints: np.ndarray
    rows: np.ndarray
    gap: np.ndarray
    keys: list
    sign: np.ndarray

    @property
    def k(self) -> int:
        """Number of active limits."""
        return int(self.joints.shape[0])


class JointLimitRows:
    """A robot's joint limits turned into unilateral constraint rows of the contact solve
    (module docstring): `rows` gives the step's active rows (`LimitRows`), `warm` and `remember`
    carry their forces from one step to the next.

    names: the 1-DOF actuated joints' names; q_lower, q_upper (n,) [rad] (±inf where unlimited);
    act_q, act_v: their indices in q and v (a ball joint's quaternion has no limits and no row);
    nv_robot: the robot's velocity dimension;
    dt [s]. ``torques`` holds the last step's limit torques by joint name [N·m]."""

    def __init__(self, names, q_lower, q_upper, act_q, act_v, nv_robot: int, dt: float):
        self.names = list(names)
        self.q_lower, self.q_upper = np.asarray(q_lower, float), np.asarray(q_upper, float)
        self.act_q, self.act_v = np.asarray(act_q, np.int64), np.asarray(act_v, np.int64)
        self.nv_robot, self.dt = int(nv_robot), float(dt)
        self._previous: dict = {}
        self.torques: dict[str, float] = {}

    def rows(self, q) -> LimitRows | None:
        """The limits within ``LIMIT_MARGIN`` at configuration q, or None (then the previous
        forces are forgotten)."""
        if _limits_clear(q, self.act_q, self.q_lower, self.q_upper, LIMIT_MARGIN):
            return self._none()
        idx, sign, gaps, rows = _active_limits(
            q, self.act_q, self.act_v, self.q_lower, self.q_upper, LIMIT_MARGIN, self.nv_robot, self.dt, BETA
        )
        if idx.size == 0:
            return self._none()
        keys = [(self.names[i], "lower" if s > 0 else "upper") for i, s in zip(idx.tolist(), sign.tolist())]
        return LimitRows(idx, rows, gaps, keys, sign)

    def _none(self):
        self._previous = {}
        self.torques = {}

    def memory(self) -> tuple[dict, dict]:
        """What the next step depends on (copies): the previous forces and the torques."""
        return dict(self._previous), dict(self.torques)

    def restore(self, memory: tuple[dict, dict]) -> None:
        """Back to a `memory` (copied in)."""
        self._previous, self.torques = dict(memory[0]), dict(memory[1])

    def warm(self, lim: LimitRows) -> list[float]:
        """Previous-step force of each row [N·m] (0 for a limit that just became active)."""
        return [self._previous.get(k, 0.0) for k in lim.keys]

    def remember(self, lim: LimitRows, forces):
        """The rows' normal forces of this step (k,): kept for the next warm start and summed
        into ``torques`` per joint (signed: positive pushes toward larger q)."""
        fl = forces.tolist()
        self._previous = dict(zip(lim.keys, fl))
        torques = {}
        for key, val, sgn in zip(lim.keys, fl, lim.sign.tolist()):
            torques[key[0]] = torques.get(key[0], 0.0) + sgn * val
        self.torques = torques
