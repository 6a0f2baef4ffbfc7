"""One kinematics pass per iterate, and the Jacobians of body-fixed points and vectors.

`update` fills a ``pin.Data`` for every constraint of an iterate (001_escande.md:99-102, the
thesis's "pre-gradients" computed together once per FSQP call; here Pinocchio's joint
Jacobians). The point and vector Jacobians are the thesis's (3.23) and (3.26)
(001_escande.md:100) written with the frame Jacobian in LOCAL_WORLD_ALIGNED: a body point
p_W = R p_B + t moves with v_p = v_o + w x (R p_B), a body vector u_W = R u_B with w x u_W
(w x u = -[u]x w for the angular Jacobian's columns w; `dot_rows` for products u . e with fixed
world vectors e, whose Jacobian is (u x e) . w).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

__all__ = ["dot_rows", "frame_id", "frame_jacobian", "point_jacobian", "update", "vector_jacobian"]


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


_YZX, _ZXY = np.array([1, 2, 0]), np.array([2, 0, 1])


def _skew(u) -> np.ndarray:
    """[u]x (3, 3): [u]x w = u x w."""
    x, y, z = u.tolist()
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cross products of (k, 3) arrays (np.cross costs more on a few rows)."""
    return a[:, _YZX] * b[:, _ZXY] - a[:, _ZXY] * b[:, _YZX]


def _world_jacobian(model, data, fid):
    return pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED)


def point_jacobian(model, data, fid: int, point_body: np.ndarray, J6=None) -> tuple[np.ndarray, np.ndarray]:
    """``(p_W, J)``: the world position [m] of a point fixed in frame ``fid`` and d p_W / dv (3, nv).
    ``J6``: the frame's LOCAL_WORLD_ALIGNED Jacobian when the caller already has it.
    v_p = v_o + w x r = v_o - [r]x w with r = R p_B."""
    M = data.oMf[fid]
    r = M.rotation @ point_body
    J = _world_jacobian(model, data, fid) if J6 is None else J6
    return M.translation + r, J[:3] - _skew(r) @ J[3:]


def vector_jacobian(model, data, fid: int, vectors_body: np.ndarray, J6=None) -> tuple[np.ndarray, np.ndarray]:
    """``(U_W, J)`` for k vectors fixed in frame ``fid`` (k, 3): their world coordinates (k, 3)
    and d u_W / dv = w x u_W (k, 3, nv). ``J6`` as in `point_jacobian`."""
    M = data.oMf[fid]
    U = np.atleast_2d(vectors_body) @ M.rotation.T
    Jw = (_world_jacobian(model, data, fid) if J6 is None else J6)[3:]
    k = len(U)
    S = np.zeros((k, 3, 3))
    S[:, 0, 1], S[:, 0, 2], S[:, 1, 2] = U[:, 2], -U[:, 1], U[:, 0]  # -[u]x: w x u = -[u]x w
    S[:, 1, 0], S[:, 2, 0], S[:, 2, 1] = -U[:, 2], U[:, 1], -U[:, 0]
    return U, (S.reshape(3 * k, 3) @ Jw).reshape(k, 3, Jw.shape[1])


def dot_rows(U: np.ndarray, E: np.ndarray, Jw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows c_i = u_i . e_i for body-fixed vectors u_i (world coordinates U (k, 3)) against fixed
    world vectors e_i (E (k, 3)), and their Jacobians (k, nv): d(u . e)/dv = (w x u) . e =
    (u x e) . w, one (k, 3) @ (3, nv) product with the angular Jacobian ``Jw`` (3, nv)."""
    return (U * E).sum(axis=1), _cross(U, E) @ Jw


def frame_jacobian(model, data, fid: int) -> np.ndarray:
    """The frame's Jacobian (6, nv) in LOCAL_WORLD_ALIGNED (linear rows of the origin, angular rows)."""
    return _world_jacobian(model, data, fid)
