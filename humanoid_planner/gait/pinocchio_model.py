"""Pinocchio twin of a :class:`~humanoid_planner.gait.model.PlanarTree` (relative coordinates).

Pinocchio cannot re-root a URDF tree, so the planar model is built programmatically: revolute
joints about Z0 (``JointModelRZ``) in the thesis plane (X0 forward, Y0 up, gravity (0, -g, 0)),
one joint per body, placed at the body's joint origin in its parent frame.  The configuration is
the vector of relative angles phi = S q (S from the tree), so the joint torques are exactly the
thesis's actuator torques (C12, C23, C37, C74, C45, C56 of Chessé 2002, §III.3.2.3) and the
absolute-angle mass matrix is M_abs = S^T M_rel S (the Annex B comparison, acceptance test 003 A2).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from .model import PlanarTree


def build_pinocchio(tree: PlanarTree):
    """Return ``(model, S)``: the Pinocchio model (joint k = body k of the tree, in the tree's
    joint order) and the map phi = S q from absolute to relative angles."""
    model = pin.Model()
    model.name = tree.name
    model.gravity = pin.Motion(np.array([0.0, -tree.g, 0.0]), np.zeros(3))
    # joints in the tree's joint order; a body's parent must already exist (tree.joints is ordered)
    body_to_jid = {}
    order = []
    for parent, child, name, _act, arm in tree.joints:
        b = tree.bodies[child]
        parent_jid = 0 if parent < 0 else body_to_jid[parent]
        placement = pin.SE3(np.eye(3), np.array([b.attach[0], b.attach[1], 0.0]))
        jid = model.addJoint(parent_jid, pin.JointModelRZ(), placement, name)
        seg = b.seg
        inertia = pin.Inertia(seg.mass, np.array([seg.a, seg.b, 0.0]), np.diag([1e-6, 1e-6, seg.I_c]))
        model.appendBodyToJoint(jid, inertia, pin.SE3.Identity())
        body_to_jid[child] = jid
        order.append(child)
        model.armature[model.joints[jid].idx_v] = arm
    for pname, (bi, off) in tree.points.items():
        jid = body_to_jid[bi]
        model.addFrame(
            pin.Frame(pname, jid, 0, pin.SE3(np.eye(3), np.array([off[0], off[1], 0.0])), pin.FrameType.OP_FRAME)
        )
    # S rows in Pinocchio's joint (= tree.joints) order
    S = tree.S.copy()
    return model, S
