"""The posture task: every actuated joint follows its reference angle, speed and acceleration.

    A = [0 | I],   b = q̈_ref + K_p (q_ref ⊖ q) + K_d (q̇_ref − q̇)    (the actuated rows of v)

The lowest-weight task: it fixes the motions the other tasks leave free.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_control.wbc.base import Task, critical_damping

__all__ = ["PostureTask"]


class PostureTask(Task):
    """The actuated joints (v indices ``n_free``..nv) of ``model`` track a configuration."""

    def __init__(self, model, weight=1e-3, kp=100.0, kd=None, n_free: int = 6):
        self.name, self.model, self.n_free = "posture", model, int(n_free)
        self.weight, self.kp = float(weight), float(kp)
        self.kd = critical_damping(kp) if kd is None else float(kd)
        self.dim = model.nv - self.n_free
        self.A = np.hstack([np.zeros((self.dim, self.n_free)), np.eye(self.dim)])
        self.q = pin.neutral(model)
        self.velocity = np.zeros(self.dim)
        self.acceleration = np.zeros(self.dim)
        self.kp_joint = np.full(self.dim, self.kp)  # per joint (a joint may be weaker, `set_gains`)
        self.kd_joint = np.full(self.dim, self.kd)

    def set_reference(self, q, velocity=None, acceleration=None) -> None:
        """Reference configuration q (nq,), actuated joint speeds and accelerations (nv − n_free,)."""
        self.q = np.asarray(q, float)
        self.velocity = np.zeros(self.dim) if velocity is None else np.asarray(velocity, float)
        self.acceleration = np.zeros(self.dim) if acceleration is None else np.asarray(acceleration, float)

    def error(self, dyn) -> np.ndarray:
        return pin.difference(self.model, dyn.q, self.q)[self.n_free :]

    def _target(self, dyn):
        return (
            self.acceleration + self.kp_joint * self.error(dyn) + self.kd_joint * (self.velocity - dyn.v[self.n_free :])
        )

    def rows(self, dyn):
        return self.A, self._target(dyn)

    def accumulate(self, dyn, H, g) -> None:
        k = np.arange(self.n_free, self.n_free + self.dim)  # A = [0 | I]: AᵀA is diagonal
        H[k, k] += self.weight
        g[self.n_free :] -= self.weight * self._target(dyn)
