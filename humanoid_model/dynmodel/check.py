"""Checking generated models against Pinocchio (used by the tests and the benchmark).

`PinocchioReference` builds a Pinocchio model from the same URDF (armature set to 0, since
``pin.rnea`` adds ``model.armature * a``), maps the generator's joint order and coordinates to
Pinocchio's (by joint **name**; ``continuous`` joints are (cos, sin) pairs in Pinocchio; the
3P+3R floating base is converted with `humanoid_model.dynmodel.floating`), and returns
``pin.rnea`` in the generator's order.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from humanoid_model.exceptions import ModelError
from humanoid_model.files import read_text

from .floating import tau_from_freeflyer, to_freeflyer
from .urdf import TreeModel, parse_urdf

FLOATING_NAMES = ("root_x", "root_y", "root_z", "root_yaw", "root_pitch", "root_roll")


class PinocchioReference:
    def __init__(self, urdf, gravity=(0.0, 0.0, -9.81), floating_base=False, tree: TreeModel | None = None):
        import pinocchio as pin

        self.pin = pin
        text = read_text(urdf, "URDF file", ModelError) if isinstance(urdf, Path) or "<" not in str(urdf) else str(urdf)
        self.tree = tree or parse_urdf(text, floating_base=floating_base)  # validated before Pinocchio sees it
        self.model = (
            pin.buildModelFromXML(text, pin.JointModelFreeFlyer()) if floating_base else pin.buildModelFromXML(text)
        )
        self.model.armature[:] = 0.0
        self.model.gravity = pin.Motion(np.concatenate([np.asarray(gravity, float), np.zeros(3)]))
        self.data = self.model.createData()
        self.floating = floating_base
        names = self.tree.joint_names
        if floating_base:
            assert tuple(names[:6]) == FLOATING_NAMES, names[:6]
            names = names[6:]
        self.slots = []  # (generator index, idx_q, idx_v, nq)
        off = 6 if floating_base else 0
        for k, n in enumerate(names):
            jid = self.model.getJointId(n)
            if jid >= self.model.njoints:
                raise KeyError(f"joint {n!r} not in the Pinocchio model")
            j = self.model.joints[jid]
            self.slots.append((k + off, j.idx_q, j.idx_v, j.nq))
        assert self.model.nv == self.tree.nv, (self.model.nv, self.tree.nv)

    def state(self, q, qd, qdd):
        """Pinocchio (q, v, a) from the generator's (q, qd, qdd)."""
        m = self.model
        qp, vp, ap = np.zeros(m.nq), np.zeros(m.nv), np.zeros(m.nv)
        if self.floating:
            qp[:7], vp[:6], ap[:6] = to_freeflyer(q[:6], qd[:6], qdd[:6])
        for k, iq, iv, nq in self.slots:
            if nq == 2:
                qp[iq : iq + 2] = math.cos(q[k]), math.sin(q[k])
            else:
                qp[iq] = q[k]
            vp[iv], ap[iv] = qd[k], qdd[k]
        return qp, vp, ap

    def fext(self, q, rows):
        """Pinocchio's per-joint external forces (local frames) from the generator's f_ext rows.

        Each body's row is [force, moment about the link frame origin] in world axes."""
        pin = self.pin
        qp = self.state(q, np.zeros(len(q)), np.zeros(len(q)))[0]
        pin.forwardKinematics(self.model, self.data, qp)
        out = [pin.Force.Zero() for _ in range(self.model.njoints)]
        for k, body in enumerate(self.tree.joints):
            jid = self.model.getJointId(body.name) if not (self.floating and k < 6) else 1
            if self.floating and k < 5:
                # the massless intermediate bodies of the 3P+3R block have no Pinocchio twin
                if np.any(np.asarray(rows[k]) != 0):
                    raise ValueError("f_ext rows of the 3P+3R intermediate bodies must be zero")
                continue
            R = self.data.oMi[jid].rotation
            out[jid] = out[jid] + pin.Force(np.concatenate([R.T @ rows[k][:3], R.T @ rows[k][3:]]))
        return out

    def rnea(self, q, qd, qdd, f_ext_rows=None):
        """pin.rnea in the generator's joint order and coordinates."""
        pin = self.pin
        qp, vp, ap = self.state(q, qd, qdd)
        if f_ext_rows is None:
            tp = pin.rnea(self.model, self.data, qp, vp, ap)
        else:
            tp = pin.rnea(self.model, self.data, qp, vp, ap, self.fext(q, f_ext_rows))
        tau = np.zeros(self.tree.nv)
        if self.floating:
            tau[:6] = tau_from_freeflyer(q[:6], tp[:6])
        for k, _iq, iv, _nq in self.slots:
            tau[k] = tp[iv]
        return tau

    def _fixed_base_indices(self):
        if self.floating:
            raise ValueError("crba/nle in the generator's coordinates: fixed base only (the 3P+3R block differs)")
        return [iv for _k, _iq, iv, _nq in self.slots]

    def crba(self, q):
        """pin.crba (armature included), symmetrised (Pinocchio fills the upper triangle), in the
        generator's joint order; fixed base."""
        idx = self._fixed_base_indices()
        qp = self.state(q, np.zeros(len(q)), np.zeros(len(q)))[0]
        M = self.pin.crba(self.model, self.data, qp)
        M = np.triu(M) + np.triu(M, 1).T
        return M[np.ix_(idx, idx)]

    def nle(self, q, qd):
        """pin.nonLinearEffects in the generator's joint order; fixed base."""
        idx = self._fixed_base_indices()
        qp, vp, _ = self.state(q, qd, np.zeros(len(q)))
        return self.pin.nonLinearEffects(self.model, self.data, qp, vp)[idx]


def max_error(tau, tau_ref) -> float:
    """max |tau - tau_ref| / max(1, max |tau_ref|) (the error measure of the generator's acceptance tests)."""
    return float(np.max(np.abs(tau - tau_ref)) / max(1.0, float(np.max(np.abs(tau_ref)))))


def random_tree_urdf(n_links=8, seed=0, fixed=True, prismatic=True) -> str:
    """A random branching tree URDF: random origins (xyz, rpy), unit axes, masses, COMs and full
    inertia tensors (principal moments of a random box, randomly rotated); revolute, continuous,
    prismatic and fixed joints. For tests of the generator against Pinocchio."""
    rng = np.random.default_rng(seed)
    types = ["revolute", "continuous"] + (["prismatic"] if prismatic else []) + (["fixed"] if fixed else [])
    lines = ['<?xml version="1.0"?>', f'<robot name="random_tree_{seed}">']

    def f(v):
        return " ".join(repr(float(x)) for x in v)

    for i in range(n_links):
        m = rng.uniform(0.5, 5.0)
        dims = rng.uniform(0.05, 0.5, 3)
        Ip = m / 12 * np.array([dims[1] ** 2 + dims[2] ** 2, dims[0] ** 2 + dims[2] ** 2, dims[0] ** 2 + dims[1] ** 2])
        Q = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        I = Q @ np.diag(Ip) @ Q.T  # full tensor: exercises ixy, ixz, iyz
        lines += [
            f'  <link name="l{i}">',
            "    <inertial>",
            f'      <origin xyz="{f(rng.uniform(-0.2, 0.2, 3))}" rpy="{f(rng.uniform(-3, 3, 3))}"/>',
            f'      <mass value="{m!r}"/>',
            f'      <inertia ixx="{float(I[0, 0])!r}" ixy="{float(I[0, 1])!r}" ixz="{float(I[0, 2])!r}" '
            f'iyy="{float(I[1, 1])!r}" '
            f'iyz="{float(I[1, 2])!r}" izz="{float(I[2, 2])!r}"/>',
            "    </inertial>",
            "  </link>",
        ]
    for i in range(1, n_links):
        parent = int(rng.integers(0, i))
        t = types[int(rng.integers(0, len(types)))] if i > 1 else "revolute"
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        lim = '\n    <limit lower="-3" upper="3" effort="100" velocity="10"/>' if t in ("revolute", "prismatic") else ""
        lines += [
            f'  <joint name="j{i}" type="{t}">',
            f'    <parent link="l{parent}"/>',
            f'    <child link="l{i}"/>',
            f'    <origin xyz="{f(rng.uniform(-0.5, 0.5, 3))}" rpy="{f(rng.uniform(-3, 3, 3))}"/>',
            f'    <axis xyz="{f(axis)}"/>{lim}',
            "  </joint>",
        ]
    lines.append("</robot>")
    return "\n".join(lines) + "\n"
