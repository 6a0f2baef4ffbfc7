"""Floating-base coordinates of the generator and their conversion to Pinocchio's free-flyer.

The generator's floating base (URDF ``floating`` joint, or ``parse_urdf(..., floating_base=True)``)
is the report's WJ "3P + 3R" block (Canovas, §4.2):

    q_b = (x, y, z, yaw, pitch, roll)
    position of the base frame  p = (x, y, z)                  (world axes) [m]
    orientation                 R = Rz(yaw) Ry(pitch) Rx(roll)  (= URDF rpy (roll, pitch, yaw))

The velocities are the time derivatives qd_b = (xd, yd, zd, yawd, pitchd, rolld), and qdd_b
their derivatives. The efforts on these coordinates are the world-axes force on the base
(f_x, f_y, f_z) [N] and the projections of the moment about the base origin on the three
rotation axes: tau_rot = E(q)^T n_world [N m], where the columns of E are the world
rotation axes:

    E = [ez, Rz(yaw) ey, Rz(yaw) Ry(pitch) ex],   omega_world = E @ (yawd, pitchd, rolld).

Pinocchio's free-flyer uses q = (p, quaternion xyzw of R), v = (R^T pd, R^T omega_world) (both in
the base frame) and a = dv/dt. So, with omega_l = R^T omega_world:

    v_lin = R^T pd,                 v_ang = R^T E qd_rot
    a_lin = R^T pdd - omega_l x v_lin,   a_ang = R^T (Edot qd_rot + E qdd_rot)
    f_world = R f_pin_lin,          tau_rot = E^T R n_pin   (virtual power: tau^T qd = tau_pin^T v)

(the base-frame angular acceleration has no extra term because omega_l x omega_l = 0). Euler
angles are singular at pitch = +-pi/2 (E loses rank); Pinocchio's free-flyer is not.
"""

from __future__ import annotations

import numpy as np

from .urdf import rpy_matrix

__all__ = ["base_rotation", "rotation_axes", "to_freeflyer", "tau_from_freeflyer"]


def _rz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _ry(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1.0, 0], [-s, 0, c]])


def base_rotation(qb) -> np.ndarray:
    """R = Rz(yaw) Ry(pitch) Rx(roll) for qb = (x, y, z, yaw, pitch, roll)."""
    return rpy_matrix((qb[5], qb[4], qb[3]))


def rotation_axes(qb, qdb=None):
    """E (3x3, world rotation axes as columns) and, if qdb is given, dE/dt."""
    yaw, pitch = qb[3], qb[4]
    ez, ey, ex = np.eye(3)[2], np.eye(3)[1], np.eye(3)[0]
    Rz, Ry = _rz(yaw), _ry(pitch)
    E = np.column_stack([ez, Rz @ ey, Rz @ Ry @ ex])
    if qdb is None:
        return E
    yawd, pitchd = qdb[3], qdb[4]
    wz = yawd * ez  # angular velocity of the Rz frame
    w_zy = wz + pitchd * (Rz @ ey)  # of the Rz Ry frame
    Ed = np.column_stack([np.zeros(3), np.cross(wz, Rz @ ey), np.cross(w_zy, Rz @ Ry @ ex)])
    return E, Ed


def to_freeflyer(qb, qdb, qddb):
    """(q7, v6, a6) of Pinocchio's free-flyer from the 3P+3R coordinates (6,), (6,), (6,)."""
    import pinocchio as pin

    qb, qdb, qddb = (np.asarray(x, float) for x in (qb, qdb, qddb))
    R = base_rotation(qb)
    E, Ed = rotation_axes(qb, qdb)
    quat = pin.Quaternion(R)
    q7 = np.concatenate([qb[:3], [quat.x, quat.y, quat.z, quat.w]])
    v_lin = R.T @ qdb[:3]
    w_l = R.T @ (E @ qdb[3:])
    a_lin = R.T @ qddb[:3] - np.cross(w_l, v_lin)
    a_ang = R.T @ (Ed @ qdb[3:] + E @ qddb[3:])
    return q7, np.concatenate([v_lin, w_l]), np.concatenate([a_lin, a_ang])


def tau_from_freeflyer(qb, tau6) -> np.ndarray:
    """The 3P+3R efforts (6,) from Pinocchio's free-flyer generalized force (6,) at qb."""
    R = base_rotation(qb)
    E = rotation_axes(qb)
    return np.concatenate([R @ tau6[:3], E.T @ (R @ tau6[3:])])
