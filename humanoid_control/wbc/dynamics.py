"""The robot's dynamics at the measured state, computed once per control cycle and shared by the
tasks, the contacts and the limits of the whole-body QP.

    dyn = RobotDynamics(model)
    dyn.update(q, v)                  # one pass of Pinocchio: M, h, Jacobians, CoM and its drift
    dyn.M, dyn.h                      # M(q) a + h(q, v) = Sᵀ τ + Σ J_cᵀ f_c
    J, drift = dyn.frame(fid)         # J (6, nv) and J̇ v (6,) of a frame, LOCAL_WORLD_ALIGNED
    dyn.com, dyn.com_velocity, dyn.com_jacobian, dyn.com_drift

Frames are expressed LOCAL_WORLD_ALIGNED by `frame` (origin at the frame, axes of the world;
`local_frame` gives them in the frame's own axes), so the linear part of ``J a + J̇ v`` is the
classical acceleration of the frame's origin in the world and the angular part its angular
acceleration. ``J̇ v`` ("drift") is the acceleration with a = 0, from a second-order forward pass
with zero acceleration (Pinocchio's classical acceleration).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

__all__ = ["RobotDynamics"]

LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
LOCAL = pin.ReferenceFrame.LOCAL


class RobotDynamics:
    """Pinocchio quantities of one floating-base ``model`` at (q, v): see the module docstring.
    ``n_free`` (6) is the size of the unactuated floating-base block of v."""

    def __init__(self, model: pin.Model):
        self.model = model
        self.data = model.createData()
        self.nv = model.nv
        self.n_free = 6
        self.q = pin.neutral(model)
        self.v = np.zeros(model.nv)
        self._zero = np.zeros(model.nv)
        self._frames: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._local: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def update(self, q, v) -> None:
        """Compute M, h, the joint Jacobians, the CoM, its Jacobian and its drift at (q, v)."""
        model, data = self.model, self.data
        self.q, self.v = q, v
        pin.computeAllTerms(model, data, q, v)  # M, nle, joint Jacobians, CoM and its Jacobian, placements
        self.M = data.M.copy()  # Pinocchio >= 3 fills both triangles
        self.h = data.nle.copy()
        self.com = data.com[0].copy()
        self.com_velocity = data.vcom[0].copy()
        self.com_jacobian = data.Jcom.copy()
        # a second-order pass with a = 0: every joint's and the CoM's acceleration is then its drift
        pin.centerOfMass(model, data, q, v, self._zero, False)
        self.com_drift = data.acom[0].copy()
        pin.updateFramePlacements(model, data)
        self._frames.clear()
        self._local.clear()

    def placement(self, fid: int) -> pin.SE3:
        """The frame's placement in the world."""
        return self.data.oMf[fid]

    def frame(self, fid: int) -> tuple[np.ndarray, np.ndarray]:
        """(J (6, nv), J̇ v (6,)) of frame ``fid`` (LOCAL_WORLD_ALIGNED, linear then angular)."""
        out = self._frames.get(fid)
        if out is None:
            J = pin.getFrameJacobian(self.model, self.data, fid, LWA)
            drift = pin.getFrameClassicalAcceleration(self.model, self.data, fid, LWA).vector
            out = (J, drift)
            self._frames[fid] = out
        return out

    def local_frame(self, fid: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(J (6, nv), J̇ v (6,), velocity (6,)) of frame ``fid`` in its own axes (LOCAL)."""
        out = self._local.get(fid)
        if out is None:
            J = pin.getFrameJacobian(self.model, self.data, fid, LOCAL)
            drift = pin.getFrameClassicalAcceleration(self.model, self.data, fid, LOCAL).vector
            vel = pin.getFrameVelocity(self.model, self.data, fid, LOCAL).vector
            out = (J, drift, vel)
            self._local[fid] = out
        return out

    def frame_velocity(self, fid: int) -> np.ndarray:
        """The frame's velocity (6,) LOCAL_WORLD_ALIGNED (linear then angular)."""
        return pin.getFrameVelocity(self.model, self.data, fid, LWA).vector
