"""A frame task: a robot frame follows a reference placement, velocity and acceleration in the
world (a swing foot, a hand before its contact, the base's orientation).

    A = J_f (LOCAL_WORLD_ALIGNED),   b = a_ref + K_p e + K_d (v_ref − v_f) − J̇_f v
    e = (p_ref − p, log₃(R_ref Rᵀ))  (the rotation error as a world rotation vector)

``mask`` (6,) keeps some rows: (1, 1, 1, 0, 0, 0) the position only, (0, 0, 0, 1, 1, 1) the
orientation only. ``max_error`` bounds the error the PD acts on (its position and rotation parts
scaled down to those norms): a frame that something holds back pulls the rest of the robot no
harder than that error would.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin

from humanoid_control.wbc.base import Task, critical_damping

__all__ = ["FrameTask"]


class FrameTask(Task):
    """Frame ``fid`` of the controller's model tracks a placement (rows of ``mask``)."""

    def __init__(self, name: str, fid: int, weight=1.0, kp=100.0, kd=None, mask=(1, 1, 1, 1, 1, 1), max_error=None):
        self.name, self.fid = name, int(fid)
        #: (position [m], rotation [rad]) the PD acts on at most: a frame held back (a foot against a
        #: step's edge) pulls no harder than that error would (None: no bound)
        self.max_error = max_error
        self.weight, self.kp = float(weight), float(kp)
        self.kd = critical_damping(kp) if kd is None else float(kd)
        self.rows_kept = np.flatnonzero(np.asarray(mask, bool))
        self.dim = len(self.rows_kept)
        self.placement = pin.SE3.Identity()
        self.velocity = np.zeros(6)
        self.acceleration = np.zeros(6)

    def set_reference(self, placement: pin.SE3, velocity=None, acceleration=None) -> None:
        """Reference placement (world), velocity and acceleration (6,) LOCAL_WORLD_ALIGNED."""
        self.placement = placement
        self.velocity = np.zeros(6) if velocity is None else np.asarray(velocity, float)
        self.acceleration = np.zeros(6) if acceleration is None else np.asarray(acceleration, float)

    def _error(self, dyn) -> np.ndarray:
        M = dyn.placement(self.fid)
        e = np.empty(6)
        e[:3] = self.placement.translation - M.translation
        e[3:] = pin.log3(self.placement.rotation @ M.rotation.T)
        return e

    def error(self, dyn) -> np.ndarray:
        return self._error(dyn)[self.rows_kept]

    def _bounded(self, e):
        if self.max_error is None:
            return e
        out = e.copy()
        for part, bound in ((out[:3], self.max_error[0]), (out[3:], self.max_error[1])):
            norm = math.sqrt(part.dot(part))  # np.linalg.norm's formula, without its overhead each cycle
            if norm > bound:
                part *= bound / norm
        return out

    def rows(self, dyn):
        J, drift = dyn.frame(self.fid)
        e = self._bounded(self._error(dyn))
        a = self.acceleration + self.kp * e + self.kd * (self.velocity - dyn.frame_velocity(self.fid))
        k = self.rows_kept
        return J[k], (a - drift)[k]
