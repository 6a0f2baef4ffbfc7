"""The centre-of-mass task: the CoM follows its reference position, velocity and acceleration.

A = J_com,   b = c̈_ref + K_p (c_ref − c) + K_d (ċ_ref − ċ) − J̇_com v
"""

from __future__ import annotations

import numpy as np

from humanoid_control.wbc.base import Task, critical_damping

__all__ = ["ComTask"]


class ComTask(Task):
    """CoM tracking in the world (3 rows, [m/s²]); ``axes`` a (3,) mask of the rows kept."""

    def __init__(self, weight: float = 1.0, kp: float = 100.0, kd: float | None = None, axes=(1, 1, 1)):
        self.name = "com"
        self.weight, self.kp = float(weight), float(kp)
        self.kd = critical_damping(kp) if kd is None else float(kd)
        self.axes = np.flatnonzero(np.asarray(axes, bool))
        self.dim = len(self.axes)
        self.position = np.zeros(3)
        self.velocity = np.zeros(3)
        self.acceleration = np.zeros(3)

    def set_reference(self, position, velocity=None, acceleration=None) -> None:
        """The CoM reference: position [m], velocity [m/s], acceleration [m/s²] (world)."""
        self.position = np.asarray(position, float)
        self.velocity = np.zeros(3) if velocity is None else np.asarray(velocity, float)
        self.acceleration = np.zeros(3) if acceleration is None else np.asarray(acceleration, float)

    def error(self, dyn) -> np.ndarray:
        return (self.position - dyn.com)[self.axes]

    def rows(self, dyn):
        a = (
            self.acceleration
            + self.kp * (self.position - dyn.com)
            + self.kd * (self.velocity - dyn.com_velocity)
            - dyn.com_drift
        )
        return dyn.com_jacobian[self.axes], a[self.axes]
