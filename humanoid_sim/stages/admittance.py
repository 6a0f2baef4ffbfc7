"""Admittance of a compliant robot guided by a haptic user (Chardonnet
2009, §3.4.1, eq. (3.65)):

    M_d q̈_d + B_d q̇_d = J_eᵀ f_e

The robot stays under position control (its PD), toward desired joint positions q_d that this
virtual inertia M_d and damping B_d (diagonal, positive; values not given by the thesis) generate
from the external force f_e on a body, J_e the Jacobian from the base to that body: the robot
yields to the hand that pulls it and keeps the place it was pulled to (no spring term). Integrated
by semi-implicit Euler with the world's dt; q_d is clipped to the joint limits (the velocity of a
clipped joint is zeroed). `humanoid_sim.stages.haptics.HapticDevice` runs it when attached to a robot link
with an admittance (`HapticDevice.attach(..., admittance=...)`): each step J_eᵀ f_e is the actuated
part of the coupling's generalised force and the PD set-point becomes (q_d, q̇_d) for the next step.

Units: q_d [rad] (or [m] for prismatic joints), M_d [kg·m²], B_d [N·m·s/rad], torques [N·m].
"""

from __future__ import annotations

import numpy as np

from humanoid_model.validation import finite_vector
from humanoid_sim.exceptions import CommandError

__all__ = ["Admittance"]

SOURCE = "admittance"


class Admittance:
    """Eq. 3.65 over n joints: ``inertia`` M_d and ``damping`` B_d (scalars or (n,), > 0),
    ``q_d`` (n,) the start positions, ``lower``/``upper`` (n,) the joint limits (±inf: none).
    `step(torque, dt)` advances (q_d, q̇_d) = (``q_d``, ``v_d``)."""

    def __init__(self, inertia, damping, q_d, lower=None, upper=None):
        self.q_d = finite_vector(q_d, None, source=SOURCE, field="q_d", error=CommandError)
        n = self.q_d.shape[0]
        self.inertia = self._positive(inertia, n, "inertia")
        self.damping = self._positive(damping, n, "damping")
        self.v_d = np.zeros(n)
        self.lower = np.full(n, -np.inf) if lower is None else np.asarray(lower, float)
        self.upper = np.full(n, np.inf) if upper is None else np.asarray(upper, float)

    @staticmethod
    def _positive(x, n, name):
        a = np.broadcast_to(np.asarray(x, float), (n,)).copy() if np.ndim(x) == 0 else np.asarray(x, float)
        a = finite_vector(a, n, source=SOURCE, field=name, error=CommandError)
        if np.any(a <= 0):
            raise CommandError(f"{SOURCE}: field '{name}' must be > 0 (diagonal, positive: eq. 3.65); value {a}")
        return a

    def step(self, torque, dt: float) -> tuple[np.ndarray, np.ndarray]:
        """One step of dt [s] under the generalised force J_eᵀ f_e ``torque`` (n,): returns
        (q_d, q̇_d) (copies)."""
        acc = (np.asarray(torque, float) - self.damping * self.v_d) / self.inertia
        self.v_d = self.v_d + dt * acc
        q = self.q_d + dt * self.v_d
        clipped = (q < self.lower) | (q > self.upper)
        self.q_d = np.clip(q, self.lower, self.upper)
        self.v_d[clipped] = 0.0
        return self.q_d.copy(), self.v_d.copy()
