"""One kinematics pass per iterate, and the Jacobians of body-fixed points and vectors.

`update` fills a ``pin.Data`` for every constraint of an iterate (001_escande.md:99-102, the
thesis's "pre-gradients" computed together once per FSQP call; here Pinocchio's joint
Jacobians). The point and vector Jacobians are the thesis's (3.23) and (3.26)
(001_escande.md:100) written with the frame Jacobian in LOCAL_WORLD_ALIGNED: a body point
p_W = R p_B + t moves with v_p = v_o + w x (R p_B), a body vector u_W = R u_B with w x u_W.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

__all__ = ["frame_id", "point_jacobian", "skew", "update", "vector_jacobian"]


def update(model: pin.Model, data: pin.Data, q: np.ndarray, com: bool = False) -> None:
    """Joint placements, joint Jacobians and frame placements at ``q``; the CoM ``data.com[0]``
    [m] and its Jacobian ``data.Jcom`` (3, nv) too when ``com``."""
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    if com:
        pin.jacobianCenterOfMass(model, data, q, False)


def frame_id(model: pin.Model, name: str, error=ValueError) -> int:
    """The id of frame ``name`` (a link or an added frame), or ``error`` naming it."""
    if not model.existFrame(name):
        raise error(f"model {model.name!r}: no frame {name!r}")
    return model.getFrameId(name)


def skew(u: np.ndarray) -> np.ndarray:
    """The cross-product matrix [u]x (3, 3)."""
    return np.array([[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]])


def _world_jacobian(model, data, fid):
    return pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED)


def point_jacobian(model, data, fid: int, point_body: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(p_W, J)``: the world position [m] of a point fixed in frame ``fid`` and d p_W / dv (3, nv)."""
    M = data.oMf[fid]
    r = M.rotation @ point_body
    J = _world_jacobian(model, data, fid)
    return M.translation + r, J[:3] - skew(r) @ J[3:]


def vector_jacobian(model, data, fid: int, vectors_body: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(U_W, J)`` for k vectors fixed in frame ``fid`` (k, 3): their world coordinates (k, 3)
    and d u_W / dv (k, 3, nv)."""
    M = data.oMf[fid]
    U = np.atleast_2d(vectors_body) @ M.rotation.T
    Jw = _world_jacobian(model, data, fid)[3:]
    return U, np.stack([-skew(u) @ Jw for u in U])
