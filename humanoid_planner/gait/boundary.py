"""Boundary states from minimal gait data and the phase transition maps (Chessé 2002).

* :func:`ds_boundary_states` - the inverse kinematics of Chessé 2002, Annex A, eqs. (A.1)-(A.23)
  (knee-forward branch, no knee counter-flexion, Fig. A-2), with one correction: the thesis's
  final-state rates (A.17), (A.18), (A.22), (A.23) drop the terms in the vertical hip velocity v4,
  which the code keeps (the BIP cyclic step ends with v4 = 0.05 m/s, so they matter).
* :func:`ds_to_ss` / :func:`ss_to_ds` - the relabelling maps of the phase transitions (Chessé 2002,
  §III.3.2.1, Fig. III-25).
* :func:`rest_state_ss` - the "legs together, feet flat" start/stop posture (the thesis gives no
  numbers for it: hip height chosen, see `REST_HIP_HEIGHT`).
* :func:`urdf_joint_angles` - thesis absolute angles -> BIP URDF joint angles and base pose (the
  URDF's joint axes and signs follow the HuMAnS model, [BIP-H]).

All positions in the DS frame have their origin at the rear toe O1; SS frames at the stance heel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from humanoid_planner.exceptions import PlanningError

from .params import BipParams


@dataclass(frozen=True)
class GaitData:
    """Minimal DS gait data (Chessé 2002, §III.3.2.1, Fig. III-24). Lengths [m], velocities [m/s],
    angles [rad].

    Defaults: the BIP cyclic step of Chessé 2002, §III.3.2.8 (LPAS 0.50, hip (0.07, 0.845) ->
    (0.20, 0.83), velocities (0.75, -0.2) -> (0.75, 0.05), delta 11 deg, omega1 -5 rad/s).
    Chosen (the thesis gives the rear foot's rate omega1 but not its angle at the DS end, and a trunk
    angle "close to pi/2"): heel lift of the rear foot at DS end ``heel_lift`` = 20 deg, trunk angle
    q7 = pi/2.
    """

    step_length: float = 0.50
    hip0: tuple = (0.07, 0.845)
    hipv0: tuple = (0.75, -0.2)
    hip1: tuple = (0.20, 0.83)
    hipv1: tuple = (0.75, 0.05)
    delta: float = math.radians(11.0)
    omega1: float = -5.0
    heel_lift: float = math.radians(20.0)
    trunk: float = math.pi / 2
    t_ds: float = 0.17  # Chessé 2002, §III.3.2.8
    t_ss: float = 0.5  # Chessé 2002, §III.3.2.8

    def with_(self, **kw) -> GaitData:
        return replace(self, **kw)

    def scaled_to(self, step_length: float, l_pied: float) -> GaitData:
        """The same gait at another step length (chosen rule, docs/gait.md): durations, heights,
        vertical velocities, delta, omega1, heel lift and trunk angle kept; the horizontal hip
        velocities scale with s = step_length / self.step_length (same step frequency, mean speed
        s times this gait's), and the hip x positions keep their place relative to the middle of
        the rear toe - front heel span, (LPAS - l_pied) / 2, with the hip travel scaled by s."""
        s = step_length / self.step_length
        m0, m = (self.step_length - l_pied) / 2, (step_length - l_pied) / 2

        def x(h):
            return (m + (h[0] - m0) * s, h[1])

        return replace(
            self,
            step_length=step_length,
            hip0=x(self.hip0),
            hip1=x(self.hip1),
            hipv0=(self.hipv0[0] * s, self.hipv0[1]),
            hipv1=(self.hipv1[0] * s, self.hipv1[1]),
        )


# Defaults of the whole walk: the durations and the pre-stop hip speed of Chessé 2002, §III.3.2.8
T_START = 0.45
T_PRESTOP_DS = 0.186
T_STOP = 0.5
PRESTOP_U4F = 0.65
# chosen: between the cyclic step's hip heights, 0.83-0.845 m (Chessé 2002, §III.3.2.8), and the straight-legged
# 0.903 m ([BIP-H]); see rest_state_ss
REST_HIP_HEIGHT = 0.88
REST_HIP_DX = 0.10  # chosen: start posture, hip 10 cm ahead of the ankles (see rest_state_ss)
REST_HIP_DX_STOP = 0.05  # chosen: stop posture, hip 5 cm ahead of the ankles (see docs/gait.md)


def _two_link(a, b, r_near, r_far, branch, where):
    """Angles (q_near, q_far) of a 2-link chain from the origin to (a, b): link far of length
    r_far then near of length r_near, as in (A.3) / (A.9) of Chessé 2002, Annex A."""
    rho = math.hypot(a, b)
    c = (a * a + b * b + r_near**2 - r_far**2) / (2 * r_near)
    if rho < 1e-12 or abs(c / rho) > 1.0:
        raise PlanningError(
            f"gait data: field '{where}' unreachable: distance {rho:.4f} m with segments {r_far:.3f} m + {r_near:.3f} m"
        )
    al = math.atan2(b, a)
    return al, math.acos(c / rho), c, rho


def rear_flat_angle(p: BipParams) -> float:
    """q1 of a flat rear foot: pi - gamma_p (the toe -> ankle direction; the thesis says only that q1
    follows from the foot geometry, Annex A)."""
    return math.pi - p.foot.gamma_p


def ds_boundary_state(p: BipParams, gait: GaitData, end: int):
    """DS boundary state (q, qd) at t0 (``end = 0``) or t1 (``end = 1``), Chessé 2002, Annex A."""
    L = p.r_leg
    r1, r6 = p.r1, p.foot.r_heel
    lp = p.foot.l_pied
    LP = gait.step_length
    x4, y4 = gait.hip0 if end == 0 else gait.hip1
    u4, v4 = gait.hipv0 if end == 0 else gait.hipv1
    q1 = rear_flat_angle(p) if end == 0 else rear_flat_angle(p) - gait.heel_lift
    qd1 = 0.0 if end == 0 else gait.omega1
    C1, S1 = math.cos(q1), math.sin(q1)
    # rear leg: O1 -> O2 (ankle) -> O3 (knee) -> O4 (hip)
    a1, b1 = x4 - r1 * C1, y4 - r1 * S1
    al1, ac1, _, _ = _two_link(a1, b1, L, L, "branch", f"hip{end} (rear leg)")
    q3 = al1 + ac1  # (A.3a) knee forward
    q2 = math.atan2(b1 - L * math.sin(q3), a1 - L * math.cos(q3))  # (A.3b)
    C2, S2, C3, S3 = math.cos(q2), math.sin(q2), math.cos(q3), math.sin(q3)
    den = math.sin(q2 - q3)
    qd2 = -(u4 * C3 + v4 * S3 + r1 * qd1 * math.sin(q1 - q3)) / (L * den)
    qd3 = (u4 * C2 + v4 * S2 + r1 * qd1 * math.sin(q1 - q2)) / (L * den)
    # front leg: hip -> O5 (knee) -> O6 (ankle) -> heel B1 at (LPAS - l_pied, 0)
    q6 = p.foot.beta_p + gait.delta - math.pi if end == 0 else p.foot.beta_p - math.pi
    C6, S6 = math.cos(q6), math.sin(q6)
    a2, b2 = LP - lp - r6 * C6 - x4, -r6 * S6 - y4
    al2, ac2, _, _ = _two_link(a2, b2, L, L, "branch", f"hip{end} (front leg)")
    q5 = al2 - ac2  # (A.9)
    q4 = math.atan2(b2 - L * math.sin(q5), a2 - L * math.cos(q5))  # (A.10)
    C4, S4, C5, S5 = math.cos(q4), math.sin(q4), math.cos(q5), math.sin(q5)
    if end == 0:
        D = L * math.sin(q4 - q5) + r6 * math.sin(q4 - q6)
        qd4 = (u4 * (L * C5 + r6 * C6) + v4 * (L * S5 + r6 * S6)) / (L * D)
        qd5 = -(u4 * C4 + v4 * S4) / D
        qd6 = qd5  # (A.11) no ankle rotation
    else:
        qd4 = (u4 * C5 + v4 * S5) / (L * math.sin(q4 - q5))  # (A.22) with v4 terms
        qd5 = -(u4 * C4 + v4 * S4) / (L * math.sin(q4 - q5))  # (A.23)
        qd6 = 0.0
    q = np.array([q1, q2, q3, q4, q5, q6, gait.trunk])
    qd = np.array([qd1, qd2, qd3, qd4, qd5, qd6, 0.0])
    return q, qd


def ds_boundary_states(p: BipParams, gait: GaitData):
    """((q0, qd0), (q1, qd1)) of the DS phase."""
    return ds_boundary_state(p, gait, 0), ds_boundary_state(p, gait, 1)


def ds_to_ss(p: BipParams, q, qd):
    """DS end -> SS start (Chessé 2002, §III.3.2.1, Fig. III-25a)."""
    q = np.asarray(q, float)
    qd = np.asarray(qd, float)
    qs = np.array([q[4] + math.pi, q[3] + math.pi, q[2] - math.pi, q[1] - math.pi, q[0] - math.pi, q[6]])
    vs = np.array([qd[4], qd[3], qd[2], qd[1], qd[0], qd[6]])
    return qs, vs


def ss_to_ds(p: BipParams, q, qd):
    """SS end -> next DS start (Chessé 2002, §III.3.2.1, Fig. III-25b); the DS rear foot is the flat SS stance
    foot (q1 = pi - gamma_p, qd1 = 0)."""
    q = np.asarray(q, float)
    qd = np.asarray(qd, float)
    qn = np.array([rear_flat_angle(p), q[0], q[1], q[2], q[3], q[4] - p.foot.alpha_p, q[5]])
    vn = np.array([0.0, qd[0], qd[1], qd[2], qd[3], qd[4], qd[5]])
    return qn, vn


def ds_to_ss_inverse(p: BipParams, q, qd):
    """Inverse of :func:`ss_to_ds` (SS end state from a DS start state)."""
    q = np.asarray(q, float)
    qd = np.asarray(qd, float)
    qs = np.array([q[1], q[2], q[3], q[4], q[5] + p.foot.alpha_p, q[6]])
    vs = np.array([qd[1], qd[2], qd[3], qd[4], qd[5], qd[6]])
    return qs, vs


def rest_state_ss(
    p: BipParams, hip_height: float = REST_HIP_HEIGHT, hip_dx: float = REST_HIP_DX, trunk: float = math.pi / 2
):
    """SS state of the start/stop posture: legs together, both feet flat side by side (swing heel
    at the stance heel), hip at ``hip_height`` [m] and ``hip_dx`` [m] ahead of the ankles, zero
    velocity.  The hip is ahead of the ankles (chosen, `REST_HIP_DX`) because with the hip above
    the ankle (0.12 m from the heel) the start step is infeasible with unilateral stance contact (an
    inverted pendulum from rest with its centre of pressure at the heel reaches only
    x = 0.12 cosh(0.45 sqrt(g/z)) ~ 0.27 m < 0.36 m of the cyclic SS end state in 0.45 s)."""
    L = p.r_leg
    _ax, ay = p.foot.heel_to_ankle_x, p.foot.ankle_height
    dz = hip_height - ay
    d = math.hypot(dz, hip_dx)
    if not 0.0 < d < 2 * L:
        raise PlanningError(f"gait data: field 'rest_hip_height' = {hip_height} m unreachable")
    half = math.acos(d / (2 * L))
    lean = math.atan2(dz, hip_dx)  # direction ankle -> hip
    # stance: shank ankle->knee leans forward (knee forward), thigh knee->hip leans back
    q1 = lean - half
    q2 = lean + half
    q3 = q2 - math.pi  # swing thigh hip->knee
    q4 = q1 - math.pi  # swing shank knee->ankle
    q5 = -p.foot.gamma_p  # swing foot ankle->toe, flat
    return np.array([q1, q2, q3, q4, q5, trunk]), np.zeros(6)


# -------------------------------------------------------------------- URDF joint-angle map
URDF_LEG_JOINTS = ("hip_pitch", "knee", "ankle_pitch")


def _leg_angles(thigh, shank, foot, trunk, toe_neutral):
    """URDF hip pitch, knee, ankle pitch from absolute directions (thesis angles, counter-clockwise
    in the X0-Y0 plane) of the thigh (hip->knee), shank (knee->ankle), foot (ankle->toe) and the
    trunk (upright = pi/2). A thesis-positive rotation is about URDF -y (X0 forward, Y0 up, Z0 = -y), URDF
    joints turn about +y, so each URDF angle is minus the thesis relative angle.
    ``toe_neutral``: ankle->toe direction of the flat foot at the URDF zero posture."""
    hip = -((thigh + math.pi / 2) - (trunk - math.pi / 2))
    knee = -(shank - thigh)
    ankle = -((foot - shank) - (toe_neutral + math.pi / 2))
    return hip, knee, ankle


def _wrap(x):
    return (x + math.pi) % (2 * math.pi) - math.pi


def urdf_joint_angles(p: BipParams, phase: str, q, root_leg: str):
    """Map thesis absolute angles to the BIP URDF sagittal joints.

    ``phase`` "ds" (q1..q7) or "ss" (6 angles); ``root_leg`` "l" or "r" is the physical leg of the
    tree's root-side leg (DS rear leg, SS stance leg).  Returns ``(joints, pitch)``: a dict of URDF
    joint angles [rad] and the pelvis pitch about URDF +y [rad].
    """
    q = np.asarray(q, float)
    toe_neutral = -p.foot.gamma_p
    other = "r" if root_leg == "l" else "l"
    if phase == "ds":
        trunk = q[6]
        root = _leg_angles(q[2] + math.pi, q[1] + math.pi, q[0] + math.pi, trunk, toe_neutral)
        dist = _leg_angles(q[3], q[4], q[5] + p.foot.alpha_p, trunk, toe_neutral)
    else:
        trunk = q[5]
        # stance foot flat: ankle->toe = -gamma_p
        root = _leg_angles(q[1] + math.pi, q[0] + math.pi, -p.foot.gamma_p, trunk, toe_neutral)
        dist = _leg_angles(q[2], q[3], q[4], trunk, toe_neutral)
    joints = {}
    for leg, ang in ((root_leg, root), (other, dist)):
        for name, a in zip(URDF_LEG_JOINTS, ang):
            joints[f"{leg}_{name}"] = _wrap(a)
    pitch = -(trunk - math.pi / 2)
    return joints, pitch


# ------------------------------------------------------------------ RABBIT (IK only)
RABBIT_LEG = 0.4  # tibia = thigh length [m], Chessé 2002, Table III-2


def rabbit_ds_boundary_state(step_length: float, hip, hipv, r: float = RABBIT_LEG):
    """RABBIT DS boundary state from the minimal step data (Chessé 2002, §III.3.1.1, 2-link inverse
    kinematics, knee forward): absolute angles q1 rear tibia (ground point O1 -> knee), q2 rear
    thigh (knee -> hip), q3 front thigh (hip -> knee), q4 front tibia (knee -> foot at
    (step_length, 0)) and their rates for the hip velocity ``hipv`` with both feet at rest.
    Only the kinematics of RABBIT are built (no RABBIT dynamics)."""
    x, y = hip
    u, v = hipv
    rho1 = math.hypot(x, y)
    rho2 = math.hypot(step_length - x, y)
    for name, rho in (("hip", rho1), ("step_length", rho2)):
        if not 0.0 < rho < 2 * r:
            raise PlanningError(f"RABBIT gait data: field '{name}' unreachable (distance {rho:.4f} m)")
    d1, h1 = math.atan2(y, x), math.acos(rho1 / (2 * r))
    q1, q2 = d1 - h1, d1 + h1
    d2, h2 = math.atan2(-y, step_length - x), math.acos(rho2 / (2 * r))
    q3, q4 = d2 + h2, d2 - h2

    def perp(a):
        return np.array([-math.sin(a), math.cos(a)])

    # hip velocity = r qd1 perp(q1) + r qd2 perp(q2); foot velocity 0 = hipv + r qd3 perp(q3) + ...
    J1 = r * np.column_stack([perp(q1), perp(q2)])
    J2 = r * np.column_stack([perp(q3), perp(q4)])
    qd12 = np.linalg.solve(J1, np.array([u, v]))
    qd34 = np.linalg.solve(J2, -np.array([u, v]))
    return np.array([q1, q2, q3, q4]), np.concatenate([qd12, qd34])
