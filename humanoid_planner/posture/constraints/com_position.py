"""Task: the centre of mass at a target, G(q)[axes] - target = 0 (equalities [m]; by default the
horizontal x and y: "CoM x-y fixed" of the common projection problem of the benchmarks,
benchmarks/peers/ik_problem.py). A task's equalities g_i(q) = 0 of (3.5), Escande 2008, §3.1; the
Jacobian is Pinocchio's CoM Jacobian (w.r.t. the tangent at q, like every constraint)."""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

from ..base import EQUALITY, PostureConstraint

__all__ = ["ComPosition"]


class ComPosition(PostureConstraint):
    """The CoM's coordinates ``axes`` (indices into x, y, z) at ``target`` (len(axes),) [m] (world)."""

    needs_com = True
    equations = "(3.5), Escande 2008, §3.1"

    def __init__(self, model, target, axes=(0, 1), name: str = "com_position"):
        self.axes = np.asarray(axes, int).reshape(-1)
        self.target = np.asarray(target, float).reshape(-1)
        if len(self.axes) != len(self.target) or not set(self.axes.tolist()) <= {0, 1, 2} or not len(self.axes):
            raise PlanningError(f"{name}: fields 'axes' (subset of 0, 1, 2) and 'target' must match; {axes}, {target}")
        self.model = model
        self.name = name
        self.dim = len(self.axes)
        self.kinds = (EQUALITY,) * self.dim

    def evaluate(self, q, data):
        return data.com[0][self.axes] - self.target, data.Jcom[self.axes]
