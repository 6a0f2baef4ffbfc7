"""The task functions of a lift on the sagittal chain (`sagittal.SagittalChain`): the moving bodies'
centre of mass, the waist's pitch and the grasp point, as CasADi functions of the chain's seven angles,
with their Jacobian, the Jacobian's derivative times the rates, the angular momentum about the moving
centre of mass, and the moving bodies' inertia about it when locked. The feet, at rest on the floor,
are not among the moving bodies; a carried object on the hands is (`sagittal.CarriedObject`).

Planar angles, moments and angular momenta are positive from x (forward) to z (up).
"""

from __future__ import annotations

import casadi as ca
import numpy as np

from .sagittal import SagittalChain

__all__ = ["WAIST", "LiftTasks"]

WAIST = 2  #: the chain's body after the hip joint: the waist, the "base" whose pitch a lift sets


class LiftTasks:
    """The task functions of `chain` (module docstring): ``task`` (θ) → (centre of mass x, z, waist
    pitch, grasp x, z); ``jacobian``; ``jdot_v`` (θ, θ̇); ``momentum`` (θ, θ̇); ``inertia`` (θ);
    ``mass``."""

    def __init__(self, chain: SagittalChain):
        n = chain.n
        th, thd = ca.SX.sym("theta", n), ca.SX.sym("theta_d", n)
        L = np.tril(np.ones((n, n)))
        q, v = L @ (chain.sign * th), L @ (chain.sign * thd)
        tree = chain.tree
        m = np.array([b.seg.mass for b in tree.bodies])
        coms = tree.f_coms(q)
        c = coms @ ca.DM(m) / m.sum()
        task = ca.vertcat(c, q[WAIST], chain.f_points["grasp"](th))
        J = ca.jacobian(task, th)
        h = 0
        for i, b in enumerate(tree.bodies):
            ci = coms[:, i]
            vi = ca.jacobian(ci, th) @ thd
            d = ci - c
            h = h + b.seg.I_c * v[i] + m[i] * (d[0] * vi[1] - d[1] * vi[0])
        self.mass = float(m.sum())
        self.task = ca.Function("task", [th], [task])
        self.jacobian = ca.Function("task_jacobian", [th], [J])
        self.jdot_v = ca.Function("jdot_v", [th, thd], [ca.jacobian(J @ thd, th) @ thd])
        self.momentum = ca.Function("momentum", [th, thd], [h])
        # the locked robot's inertia about its moving centre of mass
        inertia = sum(b.seg.I_c + m[i] * ca.sumsqr(coms[:, i] - c) for i, b in enumerate(tree.bodies))
        self.inertia = ca.Function("inertia", [th], [inertia])
