"""The optimal cyclic step of any planar biped from its URDF: HRP-2's sagittal reduction,
or any URDF whose YAML has a ``planar`` section.

`biped_problem(robot)` is a :class:`~humanoid_planner.gait.phase_sequence.GaitProblem` on the generated planar
models (`generated_model.generated_tree`, ``model="generated"``) with

* `biped_params`: the robot's sagittal geometry in the gait's terms (thigh = shank length, the foot
  triangle of ankle, heel and toe, the segments' mass, COM and inertia from the URDF, the YAML
  armature by role); heel and toe are the YAML's ``heel``/``toe`` contacts or the rear and front edges
  of its ``sole`` contact;
* `similar_gait`: the thesis's BIP cyclic step (Chessé 2002, §III.3.2.8) carried over by dynamic
  similarity (chosen, docs/gait.md): lengths times k, the ratio of the hips' height with straight legs
  (thigh + shank + ankle height: HRP-2 0.705 m, BIP 0.903 m, k = 0.78), durations and speeds times
  sqrt(k) (equal Froude numbers), angles and the rear foot's rotation rate omega1 kept (the similar
  omega1 / sqrt(k) = -5.66 rad/s drives HRP-2's rear knee to 4.31 rad/s at the DS end, over its
  3.98 rad/s limit; -5 rad/s gives 3.46); the hip's horizontal place kept relative to the middle of the
  rear-toe / front-heel span (each robot's own foot);
* the robot's own joint ranges and speed limits from its URDF (`joint_limits`), the other weights the
  gait generator's defaults.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from humanoid_model.exceptions import ModelError
from humanoid_model.paths import resolve, shipped_files, urdf_dir
from humanoid_model.urdf_description import read_sidecar, read_urdf

from . import boundary as bd
from .cost import Weights
from .generated_model import generated_tree, sagittal_legs
from .params import BipParams, FootTriangle, get_params

ROLES = ("hip", "knee", "ankle")
LIMIT_KEYS = {"hip": "hip_pitch", "knee": "knee", "ankle": "ankle_pitch"}  # Weights.limits keys


def _path(robot):
    return resolve(str(robot), shipped_files(urdf_dir(), ".urdf"), "robot", (".urdf",), ModelError, file_kind="URDF")


def _rear_leg(robot, root_leg):
    legs = sagittal_legs(robot)
    leg = next((lg for lg in legs.values() if lg.hip.name.lower().startswith(root_leg.lower())), None)
    if leg is None:
        raise ModelError(f"planar biped {robot}: no leg whose hip joint starts with '{root_leg}'")
    return leg


def biped_params(robot="hrp2", root_leg="l") -> BipParams:
    """The gait's description of a planar biped (module docstring); the leg starting with
    ``root_leg`` gives the lengths. Raises ModelError when thigh and shank differ (the boundary
    inverse kinematics of Chessé 2002, Annex A, takes one leg-segment length) or heel and toe are not
    on one sole line."""
    leg = _rear_leg(robot, root_leg)
    thigh = float(np.hypot(leg.knee.origin_xyz[0], leg.knee.origin_xyz[2]))
    shank = float(np.hypot(leg.ankle.origin_xyz[0], leg.ankle.origin_xyz[2]))
    if abs(thigh - shank) > 1e-9:
        raise ModelError(f"planar biped {robot}: thigh {thigh} m and shank {shank} m must be equal")
    heel, toe = np.asarray(leg.heel, float), np.asarray(leg.toe, float)
    if abs(heel[1] - toe[1]) > 1e-9:
        raise ModelError(f"planar biped {robot}: heel {heel} and toe {toe} must be at one height")
    foot = FootTriangle(
        l_pied=float(np.linalg.norm(toe - heel)), r_heel=float(np.linalg.norm(heel)), r_toe=float(np.linalg.norm(toe))
    )
    segs = [b.seg for b in generated_tree(robot, "ds", root_leg=root_leg, armature={}).bodies]
    path = _path(robot)
    yaml_arm = read_sidecar(path).armature if read_sidecar(path) is not None else {}
    joints = dict(zip(ROLES, (leg.hip, leg.knee, leg.ankle)))
    return BipParams(
        name=path.stem,
        r_leg=thigh,
        r1=foot.r_toe,
        foot_rear=segs[0],
        shank_rear=segs[1],
        thigh_rear=segs[2],
        thigh_front=segs[3],
        shank_front=segs[4],
        foot_front=segs[5],
        foot_front_frame="heel",  # the generated DS tree's front foot: X6 = ankle -> heel
        trunk=segs[6],
        foot=foot,
        armature={role: float(yaml_arm.get(j.name, 0.0)) for role, j in joints.items()},
    )


def _straight_height(p: BipParams) -> float:
    """Hip height above the sole with straight legs [m]."""
    return 2 * p.r_leg + p.foot.ankle_height


def similar_gait(p: BipParams, reference: BipParams | None = None, gait: bd.GaitData | None = None) -> bd.GaitData:
    """`gait` (default the thesis's cyclic step) of `reference` (default the thesis's BIP) carried to
    the biped `p` by dynamic similarity (module docstring)."""
    ref = reference or get_params("thesis")
    g = gait or bd.GaitData()
    k = _straight_height(p) / _straight_height(ref)
    st = math.sqrt(k)  # time scale; speeds scale by k / st = st
    m0, m = (g.step_length - ref.foot.l_pied) / 2, (k * g.step_length - p.foot.l_pied) / 2

    def hip(h):
        return (m + k * (h[0] - m0), k * h[1])

    return replace(
        g,
        step_length=k * g.step_length,
        hip0=hip(g.hip0),
        hip1=hip(g.hip1),
        hipv0=(st * g.hipv0[0], st * g.hipv0[1]),
        hipv1=(st * g.hipv1[0], st * g.hipv1[1]),
        t_ds=st * g.t_ds,
        t_ss=st * g.t_ss,
    )


def joint_limits(robot="hrp2", root_leg="l") -> tuple[dict, dict]:
    """(ranges, speed limits) of the hip, knee and ankle pitch joints from the URDF, in the keys of
    `Weights.limits` / `Weights.vel_limits` (URDF signs; the gait's angle map takes BIP's joint
    convention, hip + = extension, knee + = flexion, ankle + = plantar flexion, which HRP-2 shares)."""
    leg = _rear_leg(robot, root_leg)
    urdf = {j.name: j for j in read_urdf(_path(robot)).joints}
    ranges, speeds = {}, {}
    for role, j in zip(ROLES, (leg.hip, leg.knee, leg.ankle)):
        uj = urdf[j.name]
        ranges[LIMIT_KEYS[role]] = uj.limits
        speeds[LIMIT_KEYS[role]] = uj.velocity if uj.velocity else math.inf
    return ranges, speeds


def biped_problem(robot="hrp2", weights: Weights | None = None, **weight_fields):
    """The cyclic-step problem of a planar biped (module docstring): `GaitProblem` on its generated
    models with `biped_params`, `similar_gait` and the URDF's joint limits; ``weights`` (default the
    gait generator's, with the contact extension) or ``weight_fields`` replacing some of them."""
    from .phase_sequence import GaitProblem

    p = biped_params(robot)
    ranges, speeds = joint_limits(robot)
    w = (weights or Weights(enforce_contacts=True)).with_(limits=ranges, vel_limits=speeds, **weight_fields)
    k = _straight_height(p) / _straight_height(get_params("thesis"))
    st = math.sqrt(k)
    return GaitProblem(
        p,
        similar_gait(p),
        w,
        t_start=st * bd.T_START,
        t_prestop=st * bd.T_PRESTOP_DS,
        t_stop=st * bd.T_STOP,
        prestop_u4f=st * bd.PRESTOP_U4F,
        rest_hip_height=k * bd.REST_HIP_HEIGHT,
        rest_hip_dx=k * bd.REST_HIP_DX,
        rest_hip_dx_stop=k * bd.REST_HIP_DX_STOP,
        model="generated",
        robot=str(robot),
    )
