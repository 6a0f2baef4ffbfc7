"""Guide coordinates: a configuration q as a point y(q) of R^N in which the guide trajectory is a
polyline and distances are Euclidean (Escande 2008, §6.3.1-6.3.2: the guide T is a
piecewise-linear curve in C, the potential uses ||q - m||).

    y(q) = (p, w_rot log3(R), w_joint q_J)            N = 6 + number of bounded 1-DOF joints

p the root position [m], R its rotation (log3: the rotation vector [rad], continuous for
rotations below pi: the guides of humanoids turn the root by less), q_J the bounded joints [rad].
The thesis's q ∈ R^{n+6} has Euler angles and mixes metres and radians with weight 1; here the
weights are explicit (chosen): ``w_rot`` = 0.3 m/rad (a 1 rad tilt of the trunk moves its
shoulders by about 0.3 m on HRP-2), ``w_joint`` = 0.1 m/rad (the 30 joints of a posture change
such as standing -> all fours, about 1 rad each, weigh sqrt(30) 0.1 = 0.55 m, comparable with
the root's own motion, instead of dominating it 5 to 1).

``jacobian(q)`` is dy/dv (N, nv) for the tangent increment v of Pinocchio's free flyer: dp/dv_lin
= R, d log3(R)/dv_ang = Jlog3(R), the joints' identity.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture.joint_bounds import bounded_joints

__all__ = ["GuideCoordinates"]


class GuideCoordinates:
    """y(q) and dy/dv for ``model`` (module docstring); ``w_rot`` [m/rad], ``w_joint`` [m/rad]."""

    def __init__(self, model, w_rot: float = 0.3, w_joint: float = 0.1):
        if not (w_rot > 0 and w_joint > 0):
            raise PlanningError(f"guide coordinates: 'w_rot' and 'w_joint' [m/rad] must be > 0; {w_rot}, {w_joint}")
        self.model = model
        self.w_rot, self.w_joint = float(w_rot), float(w_joint)
        self.idx_q, self.idx_v, _, _ = bounded_joints(model)
        self.dim = 6 + len(self.idx_q)
        self._rows = np.arange(len(self.idx_v))

    def __call__(self, q) -> np.ndarray:
        q = np.asarray(q, float)
        R = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
        return np.concatenate([q[:3], self.w_rot * pin.log3(R), self.w_joint * q[self.idx_q]])

    def jacobian(self, q) -> np.ndarray:
        """dy/dv (dim, nv)."""
        return self.value_and_jacobian(q)[1]

    def value_and_jacobian(self, q) -> tuple[np.ndarray, np.ndarray]:
        """``(y(q), dy/dv)`` with one rotation matrix (the potentials' per-iterate call)."""
        q = np.asarray(q, float)
        R = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
        y = np.concatenate([q[:3], self.w_rot * pin.log3(R), self.w_joint * q[self.idx_q]])
        J = np.zeros((self.dim, self.model.nv))
        J[:3, :3] = R
        J[3:6, 3:6] = self.w_rot * pin.Jlog3(R)
        J[6 + self._rows, self.idx_v] = self.w_joint
        return y, J

    def configuration(self, y, q_template) -> np.ndarray:
        """The configuration with coordinates ``y`` (joints not in y taken from ``q_template``)."""
        y = np.asarray(y, float)
        q = np.array(q_template, float)
        q[:3] = y[:3]
        q[3:7] = pin.Quaternion(pin.exp3(y[3:6] / self.w_rot)).coeffs()
        q[self.idx_q] = y[6:] / self.w_joint
        return q
