"""The mixed potential, a planner potential used as the posture generator's criterion (Escande
2008, §5.1.2, §5.3.5, §6.2.2): the mixed attractive potential (5.12)-(5.16) (first branch with
the 1/2, `base.mixed`) on the horizontal position of the root (the free-flyer's origin; the
thesis's mixed potential on the 3-D root position, §5.3.5), plus a small reference-posture term:

    U(q) = U_m(||r_xy(q) - g||) + w sum_i (q_i - q_ref,i)^2
    U_m(d) = a d²/2 if d <= d0, else a d0 d - a d0²/2                      (C¹ at d0)

The reference term keeps the witness postures close to the robot's default posture where the
root term does not decide them; the thesis's criterion (4.11) does that job in the PG alone
(§4.6, §5.4) and its potentials are C parts of U (§5.3.2.1). Horizontal only: the walking
goal says nothing about the root height.

Numbers chosen (the thesis gives no gains): a = 1 m^-2 and d0 = 1 m (the
quadratic branch covers the walking problems, whose goals are < 1 m away: the force is then the
displacement, in m); w = 0.01 rad^-2: a joint 0.5 rad from its reference costs 0.0025, as
much as the root 7 cm from the goal (a d²/2), so the root term leads and the reference term
breaks ties.

``evaluate(q) -> (U, dU/dv)`` is the criterion interface of `posture.problem.PostureProblem`;
the root position q[:3] moves with d r / d v_lin = R (base rotation, Pinocchio's local free-flyer
tangent), so dU/dv_lin = R^T grad_r U.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture.joint_bounds import bounded_joints

from .base import Potential, mixed

__all__ = ["MixedPotential"]


class MixedPotential(Potential):
    """U(q) of the module docstring toward ``goal`` (x, y) [m]; ``reference`` (nq,) the reference
    posture for the joints (the robot's default posture)."""

    name = "mixed_potential"
    equations = "(5.12)-(5.16), Escande 2008, §5.1.2 (first branch with the 1/2)"

    def __init__(self, model, goal, reference, a: float = 1.0, d0: float = 1.0, w: float = 0.01):
        if not (a > 0 and d0 > 0 and w >= 0):
            raise PlanningError(f"mixed potential: fields a, d0 > 0 and w >= 0 required; {a}, {d0}, {w}")
        self.model, self.nv = model, model.nv
        self.goal = np.asarray(goal, float).reshape(2)
        self.a, self.d0, self.w = float(a), float(d0), float(w)
        self.idx_q, self.idx_v, _, _ = bounded_joints(model)
        self.reference = np.asarray(reference, float)[self.idx_q]

    def evaluate(self, q) -> tuple[float, np.ndarray]:
        """``(U, dU/dv)`` (nv,)."""
        q = np.asarray(q, float)
        e = q[:2] - self.goal
        d = float(np.hypot(*e))
        u, du = mixed(d, self.a, self.d0)
        grad_r = np.zeros(3)
        if d > 0:
            grad_r[:2] = du * e / d
        g = np.zeros(self.model.nv)
        R = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
        g[:3] = R.T @ grad_r
        ej = q[self.idx_q] - self.reference
        g[self.idx_v] += 2.0 * self.w * ej
        return u + self.w * float(ej @ ej), g
