"""Spherical (ball) joints from a URDF: a robot's sidecar names groups of three revolute joints
that `merge_spherical` turns into one Pinocchio ``JointModelSpherical`` each (quaternion
configuration, Chardonnet 2009, §3.3.2: a ball joint is kept
as a native 3-DOF joint, not as three revolute joints with massless bodies, which is numerically
fragile and singular where the middle axis lines the first and last up).

URDF has no spherical joint type. The usual way to write one (and what RViz, robot_state_publisher
and any URDF tool can display) is three revolute joints at one point joined by two massless links;
the sidecar ``NAME.yaml`` then says which triples are ball joints:

    spherical:
      R_SHOULDER: [R_SHOULDER_PITCH, R_SHOULDER_ROLL, R_SHOULDER_YAW]   # parent first

The triple must be a chain (each joint the only child of the previous one's link), with the
second and third joints at the first one's origin (identity ``<origin>``), mutually orthogonal unit
axes, and massless links between them (no ``<inertial>``, no geometry). The merged joint has the
first joint's placement and the third link's body; its rotation is R = R_a1(θ1) R_a2(θ2) R_a3(θ3)
for the three angles of the URDF, so a posture written with the URDF's angles
(`SphericalMerge.configuration`) and the inverse (`SphericalMerge.angles`: the three Euler angles
of a rotation, e.g. to publish /joint_states for a URDF viewer) are exact. The velocity of the
merged joint is the child's angular velocity relative to the parent, in the child frame
(Pinocchio's convention), and its three velocity entries take the three joints' effort, velocity,
armature, damping and friction entries in order. Quaternions have no position limits: the
triple's limits are dropped (the thesis's avatar has none either, Chardonnet 2009, §3.3.3).

Frames of the two intermediate links are kept (attached to the merged joint with their placement
relative to their own joint: exact at zero angles only; they carry nothing).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_model.exceptions import ModelError

__all__ = ["SphericalJoint", "SphericalMerge", "read_spherical", "merge_spherical", "euler_angles", "AXIS_TOL"]

AXIS_TOL = 1e-9  # largest |a_i · a_j| and |‖a‖ − 1| of a triple's axes; largest offset of joints 2, 3 [m] (rounding)
_V_FIELDS = (
    "effortLimit",
    "lowerEffortLimit",
    "upperEffortLimit",
    "velocityLimit",
    "lowerVelocityLimit",
    "upperVelocityLimit",
    "armature",
    "damping",
    "friction",
    "lowerDryFrictionLimit",
    "upperDryFrictionLimit",
    "rotorInertia",
    "rotorGearRatio",
)
_Q_FIELDS = ("lowerPositionLimit", "upperPositionLimit", "positionLimitMargin")
_AXES = {"JointModelRX": (1.0, 0.0, 0.0), "JointModelRY": (0.0, 1.0, 0.0), "JointModelRZ": (0.0, 0.0, 1.0)}


@dataclass(frozen=True)
class SphericalJoint:
    """One ball joint: its ``name`` and the URDF's three revolute ``joints`` (parent first)."""

    name: str
    joints: tuple[str, str, str]


def read_spherical(section, source: str) -> tuple[SphericalJoint, ...]:
    """The sidecar's ``spherical:`` section (name -> three joint names), shape-checked."""
    if section is None:
        return ()
    if not isinstance(section, Mapping):
        raise ModelError(
            f"{source}: field 'spherical' must be a mapping name -> [three joint names]; value {section!r}"
        )
    out = []
    for name, joints in section.items():
        if not (isinstance(joints, (list, tuple)) and len(joints) == 3 and all(isinstance(j, str) for j in joints)):
            raise ModelError(f"{source}: field 'spherical.{name}' must be three joint names; value {joints!r}")
        if len(set(joints)) != 3:
            raise ModelError(f"{source}: field 'spherical.{name}' must be three distinct joints; value {joints!r}")
        out.append(SphericalJoint(str(name), tuple(joints)))
    used = [j for s in out for j in s.joints]
    dup = sorted({j for j in used if used.count(j) > 1})
    if dup:
        raise ModelError(f"{source}: field 'spherical': joints {dup} belong to more than one ball joint")
    return tuple(out)


def _axis(model, jid, where) -> np.ndarray:
    j = model.joints[jid]
    kind = j.shortname()
    if kind in _AXES:
        return np.array(_AXES[kind])
    if kind == "JointModelRevoluteUnaligned":
        return np.asarray(j.axis, float).copy()
    raise ModelError(f"{where}: joint '{model.names[jid]}' is {kind}; a ball joint is made of three revolute joints")


def _check_triple(model, group: SphericalJoint, source: str) -> tuple[list[int], np.ndarray]:
    where = f"{source}: spherical.{group.name}"
    ids = []
    for name in group.joints:
        if not model.existJointName(name):
            raise ModelError(f"{where}: unknown joint '{name}'")
        ids.append(model.getJointId(name))
    axes = np.array([_axis(model, jid, where) for jid in ids])
    for k in (1, 2):
        if model.parents[ids[k]] != ids[k - 1]:
            raise ModelError(f"{where}: joint '{group.joints[k]}' is not the child of '{group.joints[k - 1]}'")
        M = model.jointPlacements[ids[k]]
        if np.abs(M.translation).max() > AXIS_TOL or np.abs(M.rotation - np.eye(3)).max() > AXIS_TOL:
            raise ModelError(
                f"{where}: joint '{group.joints[k]}' must sit at the first joint's origin (identity <origin>)"
            )
    for k in (0, 1):
        jid = ids[k]
        inertia = model.inertias[jid]
        if inertia.mass != 0.0 or np.abs(inertia.inertia).max() != 0.0:
            raise ModelError(f"{where}: the link after '{group.joints[k]}' must be massless (no <inertial>)")
        children = [c for c in range(1, model.njoints) if model.parents[c] == jid]
        if children != [ids[k + 1]]:
            raise ModelError(f"{where}: the link after '{group.joints[k]}' must carry only '{group.joints[k + 1]}'")
    if np.abs(axes @ axes.T - np.eye(3)).max() > AXIS_TOL:
        raise ModelError(f"{where}: the three axes must be orthogonal unit vectors; axes {axes.tolist()}")
    return ids, axes


def _rot(axis, angle) -> np.ndarray:
    return pin.exp3(np.asarray(axis) * angle)


def euler_angles(R, axes) -> np.ndarray:
    """(θ1, θ2, θ3) with R = R_a1(θ1) R_a2(θ2) R_a3(θ3) for orthonormal axes a1, a2, a3 [rad];
    θ2 in [−π/2, π/2] (at ±π/2 the split of θ1 + θ3 is arbitrary: θ3 = 0)."""
    B = np.asarray(axes, float).T
    s = float(np.sign(np.linalg.det(B)))  # a left-handed triple: a3 -> −a3, θ3 -> −θ3
    B = B * np.array([1.0, 1.0, s])
    Rp = B.T @ np.asarray(R, float) @ B  # = Rx(θ1) Ry(θ2) Rz(s θ3)
    t2 = math.asin(min(max(float(Rp[0, 2]), -1.0), 1.0))  # libm: the same bits on every processor
    if abs(Rp[0, 2]) < 1.0 - 1e-12:
        t1 = math.atan2(-Rp[1, 2], Rp[2, 2])
        t3 = math.atan2(-Rp[0, 1], Rp[0, 0])
    else:  # gimbal lock: the first and last axes line up
        t1, t3 = math.atan2(Rp[2, 1], Rp[1, 1]), 0.0
    return np.array([t1, t2, s * t3])


@dataclass
class SphericalMerge:
    """The merged model and the maps between its configurations and the URDF model's.

    ``model``: the merged `pin.Model`; ``urdf_model``: the model of the URDF as written;
    ``groups``: the `SphericalJoint`s with, per group, the URDF joint ids and axes."""

    model: pin.Model
    urdf_model: pin.Model
    groups: tuple[SphericalJoint, ...]
    _triples: dict  # group name -> (ids (3,), axes (3, 3))
    _q_map: np.ndarray  # per merged q entry, the URDF model's q index it copies (−1: a ball joint's quaternion)

    def _balls(self):
        """Per ball joint: (its first q index in the merged model, the URDF ids and axes of its triple)."""
        for name, (ids, axes) in self._triples.items():
            yield self.model.joints[self.model.getJointId(name)].idx_q, ids, axes

    def configuration(self, q_urdf) -> np.ndarray:
        """The merged model's q of a configuration of the URDF model (the URDF's angles)."""
        q_urdf = np.asarray(q_urdf, float)
        q = pin.neutral(self.model)
        keep = self._q_map >= 0
        q[keep] = q_urdf[self._q_map[keep]]
        for iq, ids, axes in self._balls():
            R = np.eye(3)
            for k in range(3):
                R = R @ _rot(axes[k], q_urdf[self.urdf_model.joints[ids[k]].idx_q])
            q[iq : iq + 4] = pin.Quaternion(R).coeffs()
        return q

    def angles(self, q) -> np.ndarray:
        """The URDF model's configuration of a merged ``q`` (each ball joint as its three angles,
        `euler_angles`)."""
        q = np.asarray(q, float)
        out = pin.neutral(self.urdf_model)
        keep = self._q_map >= 0
        out[self._q_map[keep]] = q[keep]
        for iq, ids, axes in self._balls():
            R = pin.Quaternion(q[iq + 3], *q[iq : iq + 3]).normalized().toRotationMatrix()
            for k, angle in enumerate(euler_angles(R, axes)):
                out[self.urdf_model.joints[ids[k]].idx_q] = angle
        return out


def merge_spherical(model: pin.Model, groups, source: str) -> SphericalMerge:
    """Replace each group of three revolute joints of ``model`` (built from a URDF) by one
    ``JointModelSpherical`` (module docstring). ``source`` names the sidecar in errors."""
    triples = {g.name: _check_triple(model, g, source) for g in groups}
    first = {ids[0]: name for name, (ids, _) in triples.items()}
    member = {jid: name for name, (ids, _) in triples.items() for jid in ids}
    clash = [g.name for g in groups if model.existJointName(g.name) and g.name not in member.values()]
    if clash:
        raise ModelError(f"{source}: spherical joint names {clash} are already joints of the URDF")
    new = pin.Model()
    new.name = model.name
    new.gravity = model.gravity
    jmap = {0: 0}
    q_src, v_src = [], []  # per new joint: the source q / v indices its entries copy (None: quaternion)
    for jid in range(1, model.njoints):
        if jid in member and jid not in first:
            jmap[jid] = jmap[triples[member[jid]][0][0]]
            continue
        parent = jmap[model.parents[jid]]
        if jid in first:
            ids, _ = triples[first[jid]]
            jnew = new.addJoint(parent, pin.JointModelSpherical(), model.jointPlacements[jid], first[jid])
            new.appendBodyToJoint(jnew, model.inertias[ids[2]], pin.SE3.Identity())
            v_src += [model.joints[i].idx_v for i in ids]
            q_src += [None] * 4
        else:
            j = model.joints[jid]
            jnew = new.addJoint(parent, j, model.jointPlacements[jid], model.names[jid])
            new.appendBodyToJoint(jnew, model.inertias[jid], pin.SE3.Identity())
            v_src += list(range(j.idx_v, j.idx_v + j.nv))
            q_src += list(range(j.idx_q, j.idx_q + j.nq))
        jmap[jid] = jnew
    for name in _V_FIELDS:
        setattr(new, name, np.asarray(getattr(model, name))[v_src].copy())
    for name in _Q_FIELDS:
        dst = np.array(getattr(new, name), float)
        src = np.asarray(getattr(model, name))
        keep = [k for k, i in enumerate(q_src) if i is not None]
        dst[keep] = src[[q_src[k] for k in keep]]
        setattr(new, name, dst)
    fmap, joint_frame = {0: 0}, {}  # old frame -> new frame; ball joint -> its JOINT frame
    for fid in range(1, len(model.frames)):
        f = model.frames[fid]
        owner = member.get(f.parentJoint)
        if f.type == pin.FrameType.JOINT and owner is not None:
            if owner in joint_frame:  # the second and third joints' frames: the ball joint's
                fmap[fid] = joint_frame[owner]
                continue
            frame = pin.Frame(owner, jmap[f.parentJoint], fmap[f.parentFrame], pin.SE3.Identity(), pin.FrameType.JOINT)
            fmap[fid] = joint_frame[owner] = new.addFrame(frame, False)
            continue
        frame = pin.Frame(f.name, jmap[f.parentJoint], fmap[f.parentFrame], f.placement, f.type, f.inertia)
        fmap[fid] = new.addFrame(frame, False)
    q_map = np.array([-1 if i is None else i for i in q_src], dtype=np.int64)
    return SphericalMerge(new, model, tuple(groups), triples, q_map)
