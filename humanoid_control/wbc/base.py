"""The one interface of the whole-body controller's tasks: a task asks for an acceleration.

A task is a block of ``dim`` rows A a ≈ b on the joint accelerations a (nv,) of the floating-base
robot, at the measured state (`humanoid_control.wbc.dynamics.RobotDynamics`):

    A = J (dim, nv),    b = a* − J̇ v,    a* = a_ref + K_p e + K_d ė

with J the Jacobian of the task's quantity, J̇ v its drift, and a* the reference acceleration
corrected by a PD on the error e (the reference minus the measured value) and its rate. The QP
minimises Σ weight ‖A a − b‖² (`humanoid_control.wbc.qp`); the hard constraints (dynamics,
contacts, limits) are not tasks. Gains: ``kp`` [1/s²], ``kd`` [1/s]; ``weight`` is relative to
the other tasks (units: the rows' own, m/s² or rad/s²).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

__all__ = ["Task", "critical_damping"]


def critical_damping(kp: float) -> float:
    """K_d = 2 √K_p: the PD on a unit mass without overshoot."""
    return 2.0 * float(np.sqrt(kp))


class Task(ABC):
    """A block of acceleration rows (module docstring). Subclasses set ``name``, ``dim``,
    ``weight``, ``kp``, ``kd`` and the reference with their own ``set_reference``."""

    name: str
    dim: int
    weight: float = 1.0
    kp: float = 0.0
    kd: float = 0.0

    @abstractmethod
    def rows(self, dyn) -> tuple[np.ndarray, np.ndarray]:
        """``(A, b)``: A (dim, nv) and b (dim,) at the state of ``dyn`` (updated this cycle)."""

    def error(self, dyn) -> np.ndarray:
        """The task's error e (dim,) now (reference minus measured): [m] or [rad]."""
        return np.zeros(self.dim)

    def accumulate(self, dyn, H, g) -> None:
        """Add the task's cost to the acceleration block: H += w AᵀA, g −= w Aᵀb (in place).
        A task whose rows are sparse may do it faster."""
        A, b = self.rows(dyn)
        w = self.weight
        H += w * (A.T @ A)
        g -= w * (A.T @ b)

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, dim={self.dim}, weight={self.weight:g})"
