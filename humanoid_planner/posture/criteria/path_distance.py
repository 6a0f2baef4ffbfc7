"""Criterion: distance to a path, (3.27) of Escande 2008, §3.3:
obj(q) = min_s sum_i (q_i - p_i(s))^2, with p a piecewise-linear path through given waypoints.

The thesis's q is a vector (Euler angles for the root, App. A); ours has a quaternion, so the
sum runs over a flat embedding y(q) of the configuration (our choice):

    y(q) = (w_t * base position [m], w_r * vec(R) / sqrt(2) [-], w_j * internal joint coordinates)

vec(R) the 9 entries of the base rotation (|vec(R_1) - vec(R_2)|^2 / 2 = 2 (1 - cos theta) ~
theta^2 [rad^2] for a relative rotation by theta: no quaternion sign ambiguity). The path is
linear in y between the waypoints' embeddings (a point between two rotations is not a rotation:
the criterion only measures a distance to it). For each segment [a, b] the closest point is
a + t (b - a), t = clamp((y - a) . (b - a) / |b - a|^2, 0, 1); obj is the smallest squared
distance over the segments. Its gradient w.r.t. the tangent increment is 2 (y - p*)^T dy/dv at
the closest point p* (envelope theorem: p* moves, but the distance is stationary in it), with
dy/dv: the base position moves with R v_lin (Pinocchio's local free-flyer tangent), R with
R [w]x, a 1-DOF joint's coordinate by its increment, a continuous joint's (cos, sin) by
(-sin, cos) times it (other joint types are refused). obj is continuous; its
gradient jumps where two segments are equally close (the corners' bisectors, as the thesis's
guide potential, Escande 2008, §6.3.2, which it rounds for that reason).

Weights (chosen): 1 m^-1, 1 and 1 rad^-1, so a 1 cm base offset, a 0.01 rad base rotation and
a 0.01 rad joint offset cost the same.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_planner.exceptions import PlanningError

from ..base import PostureCriterion

__all__ = ["PathDistance"]


class PathDistance(PostureCriterion):
    """min over the path through ``waypoints`` (k >= 1, nq) of the squared embedded distance (module
    docstring); weights ``w_t`` [m^-1], ``w_r``, ``w_j`` [rad^-1] of the embedding."""

    name = "path_distance"
    equations = "(3.27), Escande 2008, §3.3"

    def __init__(self, model, waypoints, w_t: float = 1.0, w_r: float = 1.0, w_j: float = 1.0):
        W = np.atleast_2d(np.asarray(waypoints, float))
        if W.shape[1] != model.nq or not len(W) or not np.all(np.isfinite(W)):
            raise PlanningError(f"path distance: field 'waypoints' must be finite (k >= 1, {model.nq}); {W.shape}")
        if model.joints[1].shortname() != "JointModelFreeFlyer":
            raise PlanningError("path distance: the model must have a free-flyer root joint")
        self.model = model
        self.w = (float(w_t), float(w_r), float(w_j))
        self._ones, self._circles = [], []  # (idx_q, idx_v) of 1-DOF and of continuous (cos, sin) joints
        for j in model.joints[2:]:
            if j.nq == j.nv:
                self._ones += [(j.idx_q + k, j.idx_v + k) for k in range(j.nq)]
            elif (j.nq, j.nv) == (2, 1):
                self._circles.append((j.idx_q, j.idx_v))
            else:
                raise PlanningError(f"path distance: joint type {j.shortname()} (nq {j.nq}, nv {j.nv}) not supported")
        Y = np.array([self.embed(q) for q in W])
        self.starts, self.dirs = Y[:-1], np.diff(Y, axis=0)
        self.lengths2 = np.einsum("ij,ij->i", self.dirs, self.dirs)
        self.points = Y  # the single-waypoint case: a point

    def embed(self, q) -> np.ndarray:
        """y(q) (3 + 9 + nq - 7,) of the module docstring."""
        q = np.asarray(q, float)
        w_t, w_r, w_j = self.w
        R = pin.Quaternion(q[6], q[3], q[4], q[5]).normalized().toRotationMatrix()
        return np.concatenate([w_t * q[:3], (w_r / np.sqrt(2.0)) * R.reshape(-1), w_j * q[7:]])

    def closest(self, y) -> np.ndarray:
        """The path point p* closest to ``y`` (embedded)."""
        if not len(self.dirs):
            return self.points[0]
        t = np.einsum("ij,ij->i", y - self.starts, self.dirs) / np.where(self.lengths2 > 0, self.lengths2, 1.0)
        P = self.starts + np.clip(t, 0.0, 1.0)[:, None] * self.dirs
        return P[np.argmin(np.einsum("ij,ij->i", y - P, y - P))]

    def embedding_jacobian(self, q) -> np.ndarray:
        """dy/dv (len(y), nv) at ``q``."""
        m = self.model
        q = np.asarray(q, float)
        w_t, w_r, w_j = self.w
        R = pin.Quaternion(q[6], q[3], q[4], q[5]).normalized().toRotationMatrix()
        J = np.zeros((12 + m.nq - 7, m.nv))
        J[:3, :3] = w_t * R
        for k in range(3):
            J[3:12, 3 + k] = (w_r / np.sqrt(2.0)) * (R @ pin.skew(np.eye(3)[k])).reshape(-1)
        for iq, iv in self._ones:
            J[12 + iq - 7, iv] = w_j
        for iq, iv in self._circles:
            J[12 + iq - 7, iv], J[13 + iq - 7, iv] = -w_j * q[iq + 1], w_j * q[iq]
        return J

    def evaluate(self, q) -> tuple[float, np.ndarray]:
        """``(obj, d obj/dv)``: [embedded units^2] and (nv,)."""
        y = self.embed(q)
        e = y - self.closest(y)
        return float(e @ e), 2.0 * e @ self.embedding_jacobian(q)
