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

__all__ = ["WAIST", "LiftTasks", "outside_limits"]

WAIST = 2  #: the chain's body after the hip joint: the waist, the "base" whose pitch a lift sets


class LiftTasks:
    """The task functions of `chain` (module docstring): ``task`` (θ) → (centre of mass x, z, waist
    pitch, grasp x, z); ``jacobian``; ``jdot_v`` (θ, θ̇); ``momentum`` (θ, θ̇); ``inertia`` (θ);
    ``mass``; `follow` tracks targets of some of the tasks with some of the joints."""

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

    def follow(self, x, targets, rates, accels, rows, cols):
        """The angles, rates and accelerations (k, 7) that put the task ``rows`` on ``targets`` (k,
        len(rows)) with their ``rates`` and ``accels``, moving the joints ``cols`` (a square system),
        sample after sample from ``x`` (Newton's method, each sample from the one before), and the
        largest task residual left."""
        rows, cols = list(rows), list(cols)
        x = np.array(x, dtype=float)
        k = len(targets)
        theta = np.tile(x, (k, 1))
        theta_d, theta_dd = np.zeros_like(theta), np.zeros_like(theta)
        worst = 0.0
        for i in range(k):
            for _ in range(50):
                r = np.array(self.task(x)).ravel()[rows] - targets[i]
                if np.max(np.abs(r)) < 1e-12:
                    break
                x[cols] -= np.linalg.solve(np.array(self.jacobian(x))[np.ix_(rows, cols)], r)
            worst = max(worst, float(np.max(np.abs(np.array(self.task(x)).ravel()[rows] - targets[i]))))
            J = np.array(self.jacobian(x))[np.ix_(rows, cols)]
            theta[i] = x
            theta_d[i, cols] = np.linalg.solve(J, rates[i])
            theta_dd[i, cols] = np.linalg.solve(J, accels[i] - np.array(self.jdot_v(x, theta_d[i])).ravel()[rows])
        return theta, theta_d, theta_dd, worst


def outside_limits(chain: SagittalChain, theta) -> tuple[int, int] | None:
    """(sample, joint) of the first sample of ``theta`` (k, 7) with a joint outside ``chain``'s limits
    (by more than 1e-9 rad), or None."""
    out = (theta < chain.lower - 1e-9) | (theta > chain.upper + 1e-9)
    bad = np.flatnonzero(out.any(axis=1))
    return None if bad.size == 0 else (int(bad[0]), int(np.argmax(out[bad[0]])))
