"""Static stability B: contact forces exist in friction cones (with torque limits), the extended
problem Q' of Escande 2008, §3.4.5 (after Wieber 2002): (3.68) -f_n <= 0, (3.69)
|f_t|^2 - mu^2 f_n^2 <= 0, (3.70) g_2(q) - J_c2^T f = 0 and, with torque limits, (3.11)
tau + J(q)^T f = g(q) with (3.8) tau^- <= tau <= tau^+ (§3.1; the thesis prints A(q) of (3.67) as (-J_c1^T; J_c2^T), a
typo: tau = g_1 - J_c1^T f gives (-J_c1^T; +J_c1^T), the signs used here).

Contacts are point contacts at the corners of each contact location's surface hull (the thesis's
discretised contact; the hull points of `ContactLocation`), each with a force f_j (3,) written in
its contact frame (d_P, b_P, n_P): f_n = f . n_P (n_P points into the robot body, so the
environment pushes along +n_P), f_t the two tangential components. At a strong contact's
solution the frame matches the surface's (d_E, b_E, n_E), so the cones are the surface's; written
in the body, the cone rows (3.68)-(3.69) do not depend on q and the forces are fixed in the joint
frames, which is what Pinocchio's static-torque derivatives assume.

Rows (all in weight units: forces divided by m g [-], torques by m g [m], chosen for the
conditioning of the solve; the tolerance of 1e-6 is then 1e-6 m g, 0.55 mN on HRP-2):

    nv (torque limits) or 6 (none) equalities  tau_s(q, f) - S tau = 0   (3.11) / (3.70)
    per point: -f_n <= 0                                                  (3.68)
    per point: |f_t|^2 - mu^2 f_n^2 <= 0                                  (3.69)

with tau_s(q, f) = g(q) - sum_j J_j(q)^T F_j = RNEA(q, 0, 0, f_ext) the static torque (Pinocchio's
``computeStaticTorque``; its q-derivative ``computeStaticTorqueDerivatives``), S tau the actuated
joints' torques (zero on the 6 free-flyer rows, which are (3.70): Newton-Euler of the whole
robot). Without torque limits the joint rows are dropped: their tau is free (the robot is rigid,
as (3.63) assumes, §3.4.5). (3.8) are the bounds of the tau variables (like the joint bounds
(3.1), given to the solver as bounds).

Extended variables z (`base.ExtendedConstraint`): the forces (3 per point), then, with torque
limits, tau (one per actuated joint). Start (`extra_start`): each contact point carries the same
share of the weight along its normal, tau = the static torque of that (clipped to its limits).

The thesis gives no friction coefficient (§3.4.5); ``mu`` is per contact.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_planner.exceptions import PlanningError

from ..base import EQUALITY, INEQUALITY, ExtendedConstraint
from ..frames import RobotContactFrame
from ..kinematics import frame_id

__all__ = ["ForceStability"]


class ForceStability(ExtendedConstraint):
    """Forces at the hull points of ``contacts`` (a list of ``(ContactLocation, mu)``) balancing the
    robot's weight; ``torque_limits`` None (unlimited: the 6 Newton-Euler rows) or ``(lower,
    upper)`` [N m] (nv - 6,) for the actuated joints."""

    equations = "(3.68)-(3.70), (3.8), (3.11), Escande 2008, §3.1 and §3.4.5"

    def __init__(self, model, contacts, torque_limits=None, name: str = "force_stability"):
        if not contacts:
            raise PlanningError(f"{name}: field 'contacts' must name at least one (location, mu)")
        if model.joints[1].shortname() != "JointModelFreeFlyer":
            raise PlanningError(f"{name}: the model must have a free-flyer root joint")
        self.model, self.name = model, name
        self.data = model.createData()
        self.weight = float(pin.computeTotalMass(model) * np.linalg.norm(model.gravity.linear))
        self.points = []  # (joint id, point in the joint frame (3,), rotation contact -> joint (3, 3), mu)
        for location, mu in contacts:
            if not mu >= 0:
                raise PlanningError(f"{name}: field 'mu' of {location.name!r} must be >= 0; value {mu}")
            rf = RobotContactFrame.from_location(location)
            frame = model.frames[frame_id(model, rf.body, PlanningError)]
            R = frame.placement.rotation @ rf.rotation
            for h in np.asarray(location.hull, float):
                self.points.append((frame.parentJoint, frame.placement.act(h), R, float(mu)))
        k = len(self.points)
        self.mu = np.array([p[3] for p in self.points])
        self.limited = torque_limits is not None
        na = model.nv - 6
        if self.limited:
            lo, hi = (np.asarray(t, float).reshape(-1) for t in torque_limits)
            if lo.shape != (na,) or hi.shape != (na,) or np.any(lo > hi):
                raise PlanningError(
                    f"{name}: field 'torque_limits' must be (lower, upper) of ({na},) with lower <= upper"
                )
            self.tau_lower, self.tau_upper = lo / self.weight, hi / self.weight
        self.n_rows_eq = model.nv if self.limited else 6
        self.n_extra = 3 * k + (na if self.limited else 0)
        self.dim = self.n_rows_eq + 2 * k
        self.kinds = (EQUALITY,) * self.n_rows_eq + (INEQUALITY,) * (2 * k)
        # d f_ext(joint) / d f_j: the spatial force [R f; p x R f] in the joint frame (6, 3) per point
        self._wrench = np.array([np.vstack([R, pin.skew(p) @ R]) for _, p, R, _ in self.points])
        self.z = np.zeros(self.n_extra)

    def _fext(self, f):
        fext = [pin.Force.Zero() for _ in range(self.model.njoints)]
        for (joint, _, _, _), W, fj in zip(self.points, self._wrench, f):
            fext[joint] += pin.Force(W @ fj)
        return fext

    def evaluate_extended(self, q, data, z):
        m, d, nv, k = self.model, self.data, self.model.nv, len(self.points)
        f = np.asarray(z[: 3 * k], float).reshape(k, 3) * self.weight  # [N]
        fext = self._fext(f)
        tau_s = pin.computeStaticTorque(m, d, q, fext) / self.weight
        dtau = pin.computeStaticTorqueDerivatives(m, d, q, fext) / self.weight
        c = np.empty(self.dim)
        Jv = np.zeros((self.dim, nv))
        Jz = np.zeros((self.dim, self.n_extra))
        r = self.n_rows_eq
        c[:r], Jv[:r] = tau_s[:r], dtau[:r]
        # d tau_s / d f_j = -J_joint^T(LOCAL) W_j (forces in weight units: the weight cancels)
        pin.computeJointJacobians(m, d, q)
        for j, ((joint, _, _, _), W) in enumerate(zip(self.points, self._wrench)):
            Jz[:r, 3 * j : 3 * j + 3] = -(pin.getJointJacobian(m, d, joint, pin.LOCAL).T @ W)[:r]
        if self.limited:
            tau = np.asarray(z[3 * k :], float)
            c[6:nv] -= tau
            Jz[6:nv, 3 * k :] = -np.eye(nv - 6)
        fz = f / self.weight
        ft2 = fz[:, 0] ** 2 + fz[:, 1] ** 2
        rows = np.arange(k)
        c[r : r + k] = -fz[:, 2]  # (3.68)
        Jz[r + rows, 3 * rows + 2] = -1.0
        c[r + k :] = ft2 - self.mu**2 * fz[:, 2] ** 2  # (3.69)
        Jz[r + k + rows, 3 * rows] = 2.0 * fz[:, 0]
        Jz[r + k + rows, 3 * rows + 1] = 2.0 * fz[:, 1]
        Jz[r + k + rows, 3 * rows + 2] = -2.0 * self.mu**2 * fz[:, 2]
        return c, Jv, Jz

    def extra_bounds(self):
        lo, hi = np.full(self.n_extra, -np.inf), np.full(self.n_extra, np.inf)
        if self.limited:
            k3 = 3 * len(self.points)
            lo[k3:], hi[k3:] = self.tau_lower, self.tau_upper
        return lo, hi

    def extra_start(self, q, data):
        k = len(self.points)
        z = np.zeros(self.n_extra)
        z[2 : 3 * k : 3] = 1.0 / k  # the weight shared along the normals
        if self.limited:
            tau_s = pin.computeStaticTorque(
                self.model, self.data, q, self._fext(z[: 3 * k].reshape(k, 3) * self.weight)
            )
            z[3 * k :] = np.clip(tau_s[6:] / self.weight, self.tau_lower, self.tau_upper)
        self.z = z.copy()
        return z

    def forces(self, z) -> np.ndarray:
        """The contact forces [N] (k, 3) in their contact frames (d_P, b_P, n_P) from z."""
        return np.asarray(z[: 3 * len(self.points)], float).reshape(-1, 3) * self.weight
