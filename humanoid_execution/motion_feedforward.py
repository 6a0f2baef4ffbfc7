"""The joint torques a planned motion needs, fed forward to the PD servos that play it (the box lift's
and the overhead lift's playbacks, `box_lift_playback`, `lift_playback`).

    v, a = finite_rates(model, qs, t)                          # the samples' rates
    tau = feedforward(model, qs, v, a, hands, hand_forces, feet)   # (k, nv - 6) joint torques

τ = M a + b − J_hᵀ f_h − J_fᵀ w_f below the floating base's six rows, with the planned forces f_h on
the hands and the feet's wrenches w_f taking the rest of the base's wrench (least-norm wrenches):
the inverse dynamics of the motion with the contacts it plans (Pinocchio's RNEA and frame Jacobians).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

__all__ = ["feedforward", "finite_rates"]


def finite_rates(model, qs, t):
    """(v, a) (k, nv) of the configurations ``qs`` (k, nq) at the times ``t`` (k,) [s] (central
    differences on the configuration space, one-sided at the ends)."""
    k = len(qs)
    v = np.zeros((k, model.nv))
    for i in range(k):
        lo, hi = max(i - 1, 0), min(i + 1, k - 1)
        v[i] = pin.difference(model, qs[lo], qs[hi]) / (t[hi] - t[lo])
    a = np.gradient(v, t, axis=0)
    return v, a


def _point_jacobian(model, data, q, frame, point):
    """(3, nv) world Jacobian of ``point`` (frame coordinates [m]) of ``frame``."""
    J = pin.computeFrameJacobian(model, data, q, frame, pin.LOCAL_WORLD_ALIGNED)
    r = data.oMf[frame].rotation @ np.asarray(point, float)
    return J[:3] - pin.skew(r) @ J[3:]


def feedforward(model, qs, v, a, hands, hand_forces, feet) -> np.ndarray:
    """(k, nv − 6) the joint torques of the motion (qs, v, a) with ``hand_forces`` (k, 3) the force
    on the robot at each of ``hands`` ((frame, point) pairs; the same force on each) and the feet
    (frames) taking the rest of the wrench the base needs (least-norm wrenches):
    τ = (M a + b − J_hᵀ f_h − J_fᵀ w_f) below the base's six rows."""
    data = model.createData()
    out = np.zeros((len(qs), model.nv - 6))
    for i, (q, vi, ai) in enumerate(zip(qs, v, a, strict=True)):
        tau = pin.rnea(model, data, q, vi, ai).copy()
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        for frame, point in hands:
            tau -= _point_jacobian(model, data, q, frame, point).T @ hand_forces[i]
        Jf = np.vstack([pin.getFrameJacobian(model, data, f, pin.LOCAL_WORLD_ALIGNED) for f in feet])
        w = np.linalg.lstsq(Jf[:, :6].T, tau[:6], rcond=None)[0]
        out[i] = (tau - Jf.T @ w)[6:]
    return out
