"""Planar BIP models in absolute angles, written by hand in CasADi (no ``pinocchio.casadi``).

A :class:`PlanarTree` is a planar tree of rigid bodies in a vertical plane (X0 horizontal forward,
Y0 up, rotations about Z0, the thesis's frame, Chessé 2002, §I.3.3).  The
coordinates are the absolute angles q_i = angle(X0, X_i).  Body i has its joint origin O_i at a
fixed point of its parent (or of the ground), its COM at a_i X_i + b_i Y_i, mass m_i and inertia
I_i about (O_i, Z0).  Joints connect a parent (or the ground) to a child; an actuated joint's
torque C acts on the child (+C) and the parent (-C), so Q = S^T tau with the relative angles
phi = S q.  Released contact forces enter through J^T F.

Two models are built from one :class:`~humanoid_planner.gait.params.BipParams`:

* :func:`ds_model` - double support, 7 bodies rooted at the rear toe (passive pivot), controls
  u = (C12, C23, C37, C74, C45, C56, FB1, FB2, FB12) (Chessé 2002, §III.3.2.1, Fig. III-23a, and the
  generalised forces of §III.3.2.3);
* :func:`ss_model` - single support, 6 bodies rooted at the stance ankle (stance foot flat,
  Fig. III-23b), controls u = the 6 joint torques.

Equations of motion: M(q) qdd + c(q, qd) + dV/dq = B(q) u with c = Mdot qd - dT/dq; the thesis's
Hamiltonian right-hand side pdot = 1/2 qd^T dM/dq qd - dV/dq + B u (Chessé 2002, eq. (I.14b)) is
``hamiltonian_pdot``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from .params import BipParams, SagittalSegment


@dataclass
class PlanarBody:
    """One body of a `PlanarTree`: its parent body and joint origin, its sagittal segment data."""

    name: str
    parent: int  # -1 = ground
    attach: tuple  # joint origin in the parent frame (or world if parent == -1) [m]
    seg: SagittalSegment  # mass, COM (a, b) in the body frame, inertia about O


@dataclass
class PlanarTree:
    """A planar tree in absolute angles with CasADi expressions for its dynamics."""

    name: str
    bodies: list
    joints: list  # (parent_index or -1, child_index, name, actuated, armature)
    points: dict  # name -> (body index, (x, y) in the body frame)
    force_points: list  # released forces: (point name, direction (2,)) one per force
    g: float = 9.81
    coordinate_names: list = field(default_factory=list)
    control_names: list = field(default_factory=list)

    def __post_init__(self):
        n = len(self.bodies)
        self.n = n
        self.n_tau = sum(1 for j in self.joints if j[3])
        self.n_f = len(self.force_points)
        self.m = self.n_tau + self.n_f
        q = ca.SX.sym("q", n)
        v = ca.SX.sym("v", n)
        a = ca.SX.sym("a", n)
        u = ca.SX.sym("u", self.m)
        self._q, self._v = q, v
        c, s = [ca.cos(q[i]) for i in range(n)], [ca.sin(q[i]) for i in range(n)]

        def rot(i, vec):
            x, y = vec
            return ca.vertcat(c[i] * x - s[i] * y, s[i] * x + c[i] * y)

        origin = [None] * n

        def o(i):
            if origin[i] is None:
                b = self.bodies[i]
                if b.parent < 0:
                    origin[i] = ca.DM(list(b.attach))
                else:
                    origin[i] = o(b.parent) + rot(b.parent, b.attach)
            return origin[i]

        for i in range(n):
            o(i)
        coms = [origin[i] + rot(i, (self.bodies[i].seg.a, self.bodies[i].seg.b)) for i in range(n)]
        M = ca.SX.zeros(n, n)
        V = 0
        for i, b in enumerate(self.bodies):
            J = ca.jacobian(coms[i], q)
            M += b.seg.mass * (J.T @ J)
            M[i, i] += b.seg.I_c
            V += b.seg.mass * self.g * coms[i][1]
        # relative-angle map phi = S q for every joint (armature acts on the relative velocity)
        S = np.zeros((len(self.joints), n))
        for k, (p, ch, _name, _act, _arm) in enumerate(self.joints):
            S[k, ch] = 1.0
            if p >= 0:
                S[k, p] = -1.0
        self.S = S
        arm = np.array([j[4] for j in self.joints], dtype=float)
        M += ca.DM(S.T @ np.diag(arm) @ S)
        self.S_act = S[[k for k, j in enumerate(self.joints) if j[3]], :]
        pts = {name: origin[bi] + rot(bi, off) for name, (bi, off) in self.points.items()}
        Jf = []
        for pname, d in self.force_points:
            Jp = ca.jacobian(pts[pname], q)
            Jf.append(Jp.T @ ca.DM(list(d)))
        Bmat = ca.horzcat(ca.DM(self.S_act.T), *Jf) if Jf else ca.DM(self.S_act.T)
        T = 0.5 * v.T @ M @ v
        dTdq = ca.gradient(T, q)
        Mv = M @ v
        Mdot_v = ca.jacobian(Mv, q) @ v
        gq = ca.gradient(V, q)
        bias = Mdot_v - dTdq + gq
        self.f_M = ca.Function("M", [q], [M])
        self.f_V = ca.Function("V", [q], [V])
        self.f_gq = ca.Function("dVdq", [q], [gq])
        self.f_bias = ca.Function("bias", [q, v], [bias])
        self.f_B = ca.Function("B", [q], [Bmat])
        self.f_id = ca.Function("inv_dyn_residual", [q, v, a, u], [M @ a + bias - Bmat @ u])
        self.f_fd = ca.Function("fwd_dyn", [q, v, u], [ca.solve(M, Bmat @ u - bias)])
        self.f_half_vdMv = ca.Function("half_vdMdq_v", [q, v], [dTdq])
        self.f_points = {k: ca.Function(f"p_{k}", [q], [p]) for k, p in pts.items()}
        self.f_points_vel = {k: ca.Function(f"v_{k}", [q, v], [ca.jacobian(p, q) @ v]) for k, p in pts.items()}
        self.f_origins = ca.Function("origins", [q], [ca.horzcat(*origin)])
        self.f_coms = ca.Function("coms", [q], [ca.horzcat(*coms)])
        self.point_expr = pts
        self.q_sym = q
        self.v_sym = v
        masses = np.array([b.seg.mass for b in self.bodies])
        self.total_mass = float(masses.sum())
        com_tot = sum(masses[i] * coms[i] for i in range(n)) / self.total_mass
        self.f_com = ca.Function("com", [q], [com_tot])

    # numeric helpers -------------------------------------------------------------------------
    def M(self, q):
        return np.array(self.f_M(q))

    def V(self, q):
        return float(self.f_V(q))

    def dVdq(self, q):
        return np.array(self.f_gq(q)).ravel()

    def B(self, q):
        return np.array(self.f_B(q))

    def point(self, name, q):
        return np.array(self.f_points[name](q)).ravel()

    def point_velocity(self, name, q, v):
        return np.array(self.f_points_vel[name](q, v)).ravel()

    def forward_dynamics(self, q, v, u):
        return np.array(self.f_fd(q, v, u)).ravel()

    def hamiltonian_pdot(self, q, v, u):
        """pdot = 1/2 v^T dM/dq v - dV/dq + B u (Chessé 2002, eq. (I.14b))."""
        return np.array(self.f_half_vdMv(q, v)).ravel() - self.dVdq(q) + self.B(q) @ np.asarray(u, dtype=float)

    def relative(self, q):
        """Joint (relative) angles phi = S q for every joint of ``self.joints``."""
        return self.S @ np.asarray(q, dtype=float)


# ---------------------------------------------------------------------------------------------
DS_TORQUES = ["C12_rear_ankle", "C23_rear_knee", "C37_rear_hip", "C74_front_hip", "C45_front_knee", "C56_front_ankle"]
DS_FORCES = ["FB1_heel_normal", "FB2_toe_normal", "FB12_heel_tangential"]
SS_TORQUES = ["stance_ankle", "stance_knee", "stance_hip", "swing_hip", "swing_knee", "swing_ankle"]


def ds_model(p: BipParams) -> PlanarTree:
    """Double-support tree rooted at the rear toe O1 (Chessé 2002, §III.3.2.1, Fig. III-23a).

    Coordinates (absolute angles) q1..q7: S1 rear foot (toe->ankle), S2 rear shank, S3 rear
    thigh, S4 front thigh (hip->knee), S5 front shank, S6 front foot (ankle->heel), S7 trunk.
    The front thigh hangs from the trunk's origin (the hip O4 = O7), so its joint is the
    actuated front hip C74.  Points: rear toe, rear ankle, rear knee, hip, front knee, front
    ankle, heel B1, toe B2 (at r7 along q6 + alpha_p, Annex C, eq. (C.4)), trunk COM direction.
    """
    L = p.r_leg
    ft = p.foot
    a6, b6 = p.foot_front_heel_frame()
    foot6 = SagittalSegment(p.foot_front.mass, a6, b6, p.foot_front.I_O)
    al = ft.alpha_p
    bodies = [
        PlanarBody("S1_rear_foot", -1, (0.0, 0.0), p.foot_rear),
        PlanarBody("S2_rear_shank", 0, (p.r1, 0.0), p.shank_rear),
        PlanarBody("S3_rear_thigh", 1, (L, 0.0), p.thigh_rear),
        PlanarBody("S4_front_thigh", 6, (0.0, 0.0), p.thigh_front),
        PlanarBody("S5_front_shank", 3, (L, 0.0), p.shank_front),
        PlanarBody("S6_front_foot", 4, (L, 0.0), foot6),
        PlanarBody("S7_trunk", 2, (L, 0.0), p.trunk),
    ]
    arm = p.armature
    joints = [
        (-1, 0, "rear_toe", False, 0.0),
        (0, 1, "rear_ankle", True, arm["ankle"]),
        (1, 2, "rear_knee", True, arm["knee"]),
        (2, 6, "rear_hip", True, arm["hip"]),
        (6, 3, "front_hip", True, arm["hip"]),
        (3, 4, "front_knee", True, arm["knee"]),
        (4, 5, "front_ankle", True, arm["ankle"]),
    ]
    points = {
        "rear_toe": (0, (0.0, 0.0)),
        "rear_ankle": (0, (p.r1, 0.0)),
        "rear_knee": (1, (L, 0.0)),
        "hip": (2, (L, 0.0)),
        "front_knee": (3, (L, 0.0)),
        "front_ankle": (4, (L, 0.0)),
        "heel": (5, (ft.r_heel, 0.0)),
        "toe": (5, (ft.r_toe * math.cos(al), ft.r_toe * math.sin(al))),
        "head": (6, (0.66, 0.0)),
    }
    # rear heel: X1 = toe->ankle, ankle->toe = q1 + pi, ankle->heel = q1 + pi - alpha_p, i.e. the
    # angle pi - alpha_p in the S1 frame
    points["rear_heel"] = (0, (p.r1 + ft.r_heel * math.cos(math.pi - al), ft.r_heel * math.sin(math.pi - al)))
    force_points = [("heel", (0.0, 1.0)), ("toe", (0.0, 1.0)), ("heel", (1.0, 0.0))]
    return PlanarTree(
        "bip_ds_" + p.name,
        bodies,
        joints,
        points,
        force_points,
        g=p.g,
        coordinate_names=[b.name for b in bodies],
        control_names=DS_TORQUES + DS_FORCES,
    )


def ss_model(p: BipParams) -> PlanarTree:
    """Single-support tree rooted at the stance ankle, stance foot flat (Chessé 2002, Fig. III-23b).

    Coordinates: 1 stance shank (ankle->knee), 2 stance thigh (knee->hip), 3 swing thigh
    (hip->knee), 4 swing shank (knee->ankle), 5 swing foot (ankle->toe), 6 trunk.  Segment data by
    role (chosen, as the DS tree: the root-side leg takes the rear leg's data): the stance leg uses
    S2, S3; the swing leg S4, S5, S6; the trunk S7.
    The stance ankle is at (heel_to_ankle_x, ankle_height) from the stance heel, i.e. the origin
    of the SS frame is the stance heel.
    """
    L = p.r_leg
    ft = p.foot
    a5, b5 = p.foot_front_toe_frame()
    foot5 = SagittalSegment(p.foot_front.mass, a5, b5, p.foot_front.I_O)
    al = ft.alpha_p
    bodies = [
        PlanarBody("stance_shank", -1, (ft.heel_to_ankle_x, ft.ankle_height), p.shank_rear),
        PlanarBody("stance_thigh", 0, (L, 0.0), p.thigh_rear),
        PlanarBody("swing_thigh", 5, (0.0, 0.0), p.thigh_front),
        PlanarBody("swing_shank", 2, (L, 0.0), p.shank_front),
        PlanarBody("swing_foot", 3, (L, 0.0), foot5),
        PlanarBody("trunk", 1, (L, 0.0), p.trunk),
    ]
    arm = p.armature
    joints = [
        (-1, 0, "stance_ankle", True, arm["ankle"]),
        (0, 1, "stance_knee", True, arm["knee"]),
        (1, 5, "stance_hip", True, arm["hip"]),
        (5, 2, "swing_hip", True, arm["hip"]),
        (2, 3, "swing_knee", True, arm["knee"]),
        (3, 4, "swing_ankle", True, arm["ankle"]),
    ]
    points = {
        "stance_ankle": (0, (0.0, 0.0)),
        "stance_knee": (0, (L, 0.0)),
        "hip": (1, (L, 0.0)),
        "swing_knee": (2, (L, 0.0)),
        "swing_ankle": (3, (L, 0.0)),
        "swing_toe": (4, (ft.r_toe, 0.0)),
        "swing_heel": (4, (ft.r_heel * math.cos(-al), ft.r_heel * math.sin(-al))),
        "head": (5, (0.66, 0.0)),
    }
    return PlanarTree(
        "bip_ss_" + p.name,
        bodies,
        joints,
        points,
        [],
        g=p.g,
        coordinate_names=[b.name for b in bodies],
        control_names=SS_TORQUES,
    )
