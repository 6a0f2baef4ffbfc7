"""One kinematics pass per iterate, and the Jacobians of body-fixed points and vectors.

`update` fills a ``pin.Data`` for every constraint of an iterate (the
"pre-gradients" of Escande 2008, §3.2.3, computed together once per FSQP call; here Pinocchio's joint
Jacobians). The point and vector Jacobians are the thesis's (3.23) and (3.26)
(Escande 2008, §3.2.3) written with the frame Jacobian in LOCAL_WORLD_ALIGNED: a body point
p_W = R p_B + t moves with v_p = v_o + w x (R p_B), a body vector u_W = R u_B with w x u_W
(w x u = -[u]x w for the angular Jacobian's columns w; `dot_rows` for products u . e with fixed
world vectors e, whose Jacobian is (u x e) . w).
"""

from __future__ import annotations

import weakref

import numba as nb
import numpy as np
import pinocchio as pin

__all__ = [
    "dot_rows",
    "frame_id",
    "frame_jacobian",
    "per_model",
    "point_jacobian",
    "support_columns",
    "update",
    "vector_jacobian",
    "world_normal_rows",
]


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


@nb.njit(cache=True)
def _point_rows(R, t, pb, J6):
    """``(p_W, J)`` of `point_jacobian` from the frame's rotation ``R``, origin ``t``, the body
    point ``pb`` and the frame Jacobian ``J6`` (6, nv): p_W = t + r, J = J6[:3] - [r]x J6[3:] with
    r = R pb, written out (a few (3, nv) rows: NumPy's temporaries cost more than the arithmetic)."""
    nv = J6.shape[1]
    r0 = R[0, 0] * pb[0] + R[0, 1] * pb[1] + R[0, 2] * pb[2]
    r1 = R[1, 0] * pb[0] + R[1, 1] * pb[1] + R[1, 2] * pb[2]
    r2 = R[2, 0] * pb[0] + R[2, 1] * pb[1] + R[2, 2] * pb[2]
    p = np.empty(3)
    p[0], p[1], p[2] = t[0] + r0, t[1] + r1, t[2] + r2
    J = np.empty((3, nv))
    for j in range(nv):
        wx, wy, wz = J6[3, j], J6[4, j], J6[5, j]
        J[0, j] = J6[0, j] - (r1 * wz - r2 * wy)
        J[1, j] = J6[1, j] - (r2 * wx - r0 * wz)
        J[2, j] = J6[2, j] - (r0 * wy - r1 * wx)
    return p, J


@nb.njit(cache=True)
def _rotated_rows(R, B):
    """(k, 3): the body vectors ``B`` (k, 3) in the world, R B_i per row, written out."""
    U = np.empty((B.shape[0], 3))
    for i in range(B.shape[0]):
        for a in range(3):
            U[i, a] = R[a, 0] * B[i, 0] + R[a, 1] * B[i, 1] + R[a, 2] * B[i, 2]
    return U


@nb.njit(cache=True)
def _dot_rows(U, E, Jw):
    """`dot_rows` written out: c_i = u_i . e_i, J_i = (u_i x e_i) . Jw."""
    k, nv = U.shape[0], Jw.shape[1]
    c = np.empty(k)
    J = np.empty((k, nv))
    for i in range(k):
        u0, u1, u2 = U[i, 0], U[i, 1], U[i, 2]
        e0, e1, e2 = E[i, 0], E[i, 1], E[i, 2]
        c[i] = u0 * e0 + u1 * e1 + u2 * e2
        x0, x1, x2 = u1 * e2 - u2 * e1, u2 * e0 - u0 * e2, u0 * e1 - u1 * e0
        for j in range(nv):
            J[i, j] = x0 * Jw[0, j] + x1 * Jw[1, j] + x2 * Jw[2, j]
    return c, J


def _world_jacobian(model, data, fid):
    return pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED)


def point_jacobian(model, data, fid: int, point_body: np.ndarray, J6=None) -> tuple[np.ndarray, np.ndarray]:
    """``(p_W, J)``: the world position [m] of a point fixed in frame ``fid`` and d p_W / dv (3, nv).
    ``J6``: the frame's LOCAL_WORLD_ALIGNED Jacobian when the caller already has it.
    v_p = v_o + w x r = v_o - [r]x w with r = R p_B."""
    M = data.oMf[fid]
    J = _world_jacobian(model, data, fid) if J6 is None else J6
    return _point_rows(M.rotation, M.translation, np.asarray(point_body, float), J)


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
    return _dot_rows(np.ascontiguousarray(U, float), np.ascontiguousarray(E, float), np.ascontiguousarray(Jw))


def frame_jacobian(model, data, fid: int) -> np.ndarray:
    """The frame's Jacobian (6, nv) in LOCAL_WORLD_ALIGNED (linear rows of the origin, angular rows)."""
    return _world_jacobian(model, data, fid)


def per_model(store: dict, model, build):
    """``build(model)``, made once per model and kept in ``store`` (id(model) -> (weakref to the
    model, value)) until the model is collected."""
    key = id(model)
    hit = store.get(key)
    if hit is not None and hit[0]() is model:
        return hit[1]
    value = build(model)
    store[key] = (weakref.ref(model, lambda _: store.pop(key, None)), value)
    return value


_SUPPORTS: dict = {}  # `per_model` store of `support_columns`


def support_columns(model: pin.Model) -> np.ndarray:
    """(njoints, nv) bool, read-only: row j marks the velocity columns of the joints from the root
    to joint j (its support), the only columns where a point of joint j's body moves. Built once
    per model (a Python loop over the joint table, ~0.1 ms)."""
    return per_model(_SUPPORTS, model, _support_columns)


def _support_columns(model) -> np.ndarray:
    S = np.zeros((model.njoints, model.nv), np.bool_)
    for j in range(1, model.njoints):
        for s in model.supports[j]:
            if s > 0:
                jt = model.joints[s]
                S[j, jt.idx_v : jt.idx_v + jt.nv] = True
    S.flags.writeable = False
    return S


def world_normal_rows(J, support, points, normals) -> np.ndarray:
    """(N, nv): n_i . dp_i/dv for N body-fixed points at world positions ``points`` (N, 3) [m]
    along ``normals`` (N, 3), from the world joint Jacobians ``J`` (6, nv: ``data.J`` after
    `update`, the twists in the world frame at the world origin) and each point's body support
    ``support`` (N, nv) bool (`support_columns`): dp/dv = J_lin + w x p on the support, 0 elsewhere
    (the terms of Escande 2008, eq. (3.56), without a Jacobian per joint)."""
    return _world_normal_rows(J, support, np.ascontiguousarray(points, float), np.ascontiguousarray(normals, float))


@nb.njit(cache=True)
def _world_normal_rows(J, support, points, normals):
    m, nv = points.shape[0], J.shape[1]
    out = np.zeros((m, nv))
    for i in range(m):
        n0, n1, n2 = normals[i, 0], normals[i, 1], normals[i, 2]
        p0, p1, p2 = points[i, 0], points[i, 1], points[i, 2]
        l0, l1, l2 = p1 * n2 - p2 * n1, p2 * n0 - p0 * n2, p0 * n1 - p1 * n0  # (p x n) . w = n . (w x p)
        for c in range(nv):
            if support[i, c]:
                out[i, c] = n0 * J[0, c] + n1 * J[1, c] + n2 * J[2, c] + l0 * J[3, c] + l1 * J[4, c] + l2 * J[5, c]
    return out
