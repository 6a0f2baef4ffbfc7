"""One kinematics pass per iterate, and the Jacobians of body-fixed points and vectors.

`update` fills a ``pin.Data`` for every constraint of an iterate (001_escande.md:99-102, the
thesis's "pre-gradients" computed together once per FSQP call; here Pinocchio's joint
Jacobians). The point and vector Jacobians are the thesis's (3.23) and (3.26)
(001_escande.md:100) written with the frame Jacobian in LOCAL_WORLD_ALIGNED: a body point
p_W = R p_B + t moves with v_p = v_o + w x (R p_B), a body vector u_W = R u_B with w x u_W
(`_cross_columns`: w x u for every column w of the angular Jacobian).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

__all__ = ["frame_id", "frame_jacobian", "point_jacobian", "update", "vector_jacobian"]


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


def _cross_columns(Jw: np.ndarray, U: np.ndarray) -> np.ndarray:
    """(k, 3, nv): column j of block i is Jw[:, j] x U[i] (angular Jacobian rows Jw (3, nv), vectors U (k, 3))."""
    wx, wy, wz = Jw[0], Jw[1], Jw[2]
    ux, uy, uz = U[:, 0:1], U[:, 1:2], U[:, 2:3]
    return np.stack([wy * uz - wz * uy, wz * ux - wx * uz, wx * uy - wy * ux], axis=1)


def _world_jacobian(model, data, fid):
    return pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED)


def point_jacobian(model, data, fid: int, point_body: np.ndarray, J6=None) -> tuple[np.ndarray, np.ndarray]:
    """``(p_W, J)``: the world position [m] of a point fixed in frame ``fid`` and d p_W / dv (3, nv).
    ``J6``: the frame's LOCAL_WORLD_ALIGNED Jacobian when the caller already has it."""
    M = data.oMf[fid]
    r = M.rotation @ point_body
    J = _world_jacobian(model, data, fid) if J6 is None else J6
    return M.translation + r, J[:3] + _cross_columns(J[3:], r[None])[0]


def vector_jacobian(model, data, fid: int, vectors_body: np.ndarray, J6=None) -> tuple[np.ndarray, np.ndarray]:
    """``(U_W, J)`` for k vectors fixed in frame ``fid`` (k, 3): their world coordinates (k, 3)
    and d u_W / dv = w x u_W (k, 3, nv). ``J6`` as in `point_jacobian`."""
    M = data.oMf[fid]
    U = np.atleast_2d(vectors_body) @ M.rotation.T
    Jw = (_world_jacobian(model, data, fid) if J6 is None else J6)[3:]
    return U, _cross_columns(Jw, U)


def frame_jacobian(model, data, fid: int) -> np.ndarray:
    """The frame's Jacobian (6, nv) in LOCAL_WORLD_ALIGNED (linear rows of the origin, angular rows)."""
    return _world_jacobian(model, data, fid)
