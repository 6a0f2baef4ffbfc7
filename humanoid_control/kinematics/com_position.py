"""The 3-D centre-of-mass task: the CoM at a point, height included (the cart-table model's CoM
of a walking pattern; `ComTask` holds the ground projection only).

    e = c(q) - c* [m],  J = J_com (world axes)
"""

from __future__ import annotations

import numpy as np

from humanoid_control.kinematics.base import Constraint

__all__ = ["CenterOfMassTask"]


class CenterOfMassTask(Constraint):
    """The 3-D CoM at ``target`` [m]: e = c(q) - c*, J = J_com (world axes), level 1 (the cart-table
    model's CoM, height included). Default target: the CoM at the structure's initial configuration."""

    dim = 3
    needs_com = True
    row_scale = np.ones(3)
    linear = np.ones(3, dtype=bool)

    def __init__(self, structure, target=None, weight=1.0, level=1, gain=1.0, name="com3"):
        self.name, self.weight, self.level, self.gain = name, float(weight), int(level), float(gain)
        self.model = structure.model
        self.target = structure.com(structure.q0) if target is None else np.asarray(target, float)

    def set_target(self, target) -> None:
        """New target (3,) [m]."""
        self.target = np.asarray(target, float)

    def evaluate(self, q, data):
        return data.com[0] - self.target, data.Jcom
