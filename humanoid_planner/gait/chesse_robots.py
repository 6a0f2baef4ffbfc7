"""RABBIT and the bilateral five-bar: the two other mechanisms of Chessé 2002, optimal by the same
penalised optimal control as BIP (docs/gait.md, "RABBIT and the bilateral five-bar").

Both are built from their URDFs (``urdf/rabbit.urdf``, ``urdf/five_bar.urdf``, written by
``urdf/chesse_generate.py`` from Tables III-2 and III-1) into a
:class:`~humanoid_planner.gait.model.PlanarTree` in the thesis's absolute angles, and solved by
:func:`~humanoid_planner.gait.direct.solve_direct` (one optimal-control solver for every
mechanism): the chain is cut at one contact, the cut contact's forces are controls, the loop
closure is the exterior penalty 1/2 r_d gamma |O5O5'|^2 (r_d = 150, Chessé 2002, §II.4.1,
eqs. (III.6)-(III.7), (III.14)-(III.15)), the criterion the weighted squared torques and forces.

* RABBIT (§III.3.1): five bodies, absolute angles q1 rear tibia (foot O1 -> knee), q2 rear thigh
  (knee -> hip), q3 front thigh (hip -> knee), q4 front tibia (knee -> foot O5'), q5 trunk (hip ->
  top), rooted at the rear foot, a passive pivot (no foot, no ankle motor); torques C12 (rear
  knee), C25 (rear hip), C53 (front hip), C34 (front knee). DS: the front foot released, its forces
  F_O5y >= 0 (eq. (I.34)) and F_O5x controls, the closure O5' -> (LPAS, 0). SS: the same tree
  without released forces, rooted at the stance foot (under-actuated, §II.3.1), the swing foot
  kept above the ground by the anti-collision penalty (eq. (II.13)).
* The five-bar (§III.2): bars S1-S4 from O1 on the base, the 5 kg load S5 at O3 (the end of S2),
  the chain cut at the base joint O5; torques C1..C4 at O1..O4, C5 at O5 (on S4), the forces
  F_O5y, F_O5x at the cut (bilateral: no bound), the closure O5' -> (L, 0).

The reported energy is J_e = integral of sum |tau_j phi_j'| dt over the motors (Chessé 2002,
§II.3.3, the formula of §III.2.5), the ground or base reaction at the root pivot that of eqs. (III.17)-(III.18).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from humanoid_model.exceptions import ConfigError
from humanoid_model.formats.trajectory import gait_document, trajectory_samples
from humanoid_model.urdf_description import read_urdf, resolve_robot_path
from humanoid_planner.exceptions import PlanningError

from .boundary import rabbit_ds_boundary_state
from .cost import Weights
from .direct import (
    Phase,
    PhaseSolution,
    build_phase_nlp,
    contact_forces,
    ipopt_options,
    joint_power,
    range_rows,
    solve_direct,
    wrapped_angles,
)
from .model import PlanarBody, PlanarTree
from .params import G, SagittalSegment
from .phase_sequence import phase_entry

ROBOTS = ("rabbit", "five_bar")
PHASES = {"rabbit": ("ds", "ss", "cyclic"), "five_bar": ("small", "large", "transfers")}

# ---- RABBIT's step (Chessé 2002, §III.3.1.6): LPAS, hip position and velocity in a frame at the
# rear foot O1 at both ends of DS, the phase durations
RABBIT_STEP = 0.45  # [m]
RABBIT_HIP = ((0.1532, 0.70), (0.2556, 0.70))  # [m]
RABBIT_HIPV = ((0.99, 0.0), (1.0, 0.0))  # [m/s]
RABBIT_T_DS = 0.103  # [s]
RABBIT_T_SS = 0.425  # [s]
# trunk angle q5 at the phase ends, constant with q5' = 0 there (§III.3.1.6 gives no value):
# chosen upright, pi/2, as BIP's q7 "close to pi/2" (§III.3.2.8)
RABBIT_TRUNK = math.pi / 2
# ---- the five-bar (Chessé 2002, §III.2.4): rest-to-rest transfers in 0.42 s, symmetric in
# position. The amplitudes are not given (chosen): the load O3 moves at a height of 0.5 m from
# x = L/2 - A to L/2 + A, with its legs bent outwards (O2 left of O1-O3, O4 right of O5-O3);
# A = 0.1 m keeps the load between the base joints, A = 0.3 m takes it from beyond O1 to beyond O5
# (the weight passes from one base joint to the other, as the thesis's large example)
FIVE_BAR_T = 0.42  # [s]
FIVE_BAR_HEIGHT = 0.5  # [m] (chosen)
FIVE_BAR_AMPLITUDE = {"small": 0.1, "large": 0.3}  # [m] half the load's travel (chosen)
# nodes (chosen, as BIP's 5 ms in DS and 10 ms in SS): RABBIT DS 21 x 4.9 ms, SS 42 x 10.1 ms,
# the five-bar 42 x 10 ms
DEFAULT_N = {"ds": 21, "ss": 42, "transfer": 42}
CLOSURE_GAMMA = 2.0e4  # [1/m^2] closure scaling: BIP's (cost.Weights.gamma10), not re-chosen
# ChainProblem.minimum_energy (a measurement, not the thesis's criterion): the weight of the squared
# torques beside J_e (chosen: only regularises the arcs where a motor does no work; 1e-2, 1e-3 and
# 1e-4 give RABBIT's SS minimum to 0.1 J) and the bound on each component of O5O5' (the thesis's
# ~0.1 mm at r_d = 150, Chessé 2002, §III.3.1.6)
ENERGY_REG = 1.0e-4
ENERGY_CLOSURE_TOL = 1.0e-4  # [m]


@dataclass(frozen=True)
class _Body:
    name: str
    link: str  # URDF link (with its fixed children) of the segment
    proximal: str  # URDF joint at the segment's origin O_i
    distal: str  # URDF joint at its distal point (X_i = O_i -> distal)
    parent: int  # tree index, -1: the ground


def _layout(robot: str, rear: str = "l"):
    """Bodies (in the thesis's coordinate order), the tree joints (parent, child, name, actuated)
    and the control names of one mechanism."""
    if robot == "rabbit":
        a, b = rear, {"l": "r", "r": "l"}[rear]
        bodies = [
            _Body("S1_rear_tibia", f"{a}_tibia", f"{a}_foot_frame", f"{a}_knee", -1),
            _Body("S2_rear_thigh", f"{a}_thigh", f"{a}_knee", f"{a}_hip", 0),
            _Body("S3_front_thigh", f"{b}_thigh", f"{b}_hip", f"{b}_knee", 4),
            _Body("S4_front_tibia", f"{b}_tibia", f"{b}_knee", f"{b}_foot_frame", 2),
            _Body("S5_trunk", "torso", f"{a}_hip", "head_frame", 1),
        ]
        joints = [(-1, 0, "rear_foot", False), (0, 1, "rear_knee", True), (1, 4, "rear_hip", True)]
        joints += [(4, 2, "front_hip", True), (2, 3, "front_knee", True)]
        controls = ["C12_rear_knee", "C25_rear_hip", "C53_front_hip", "C34_front_knee", "F_O5y", "F_O5x"]
        return bodies, joints, controls
    bodies = [
        _Body(f"S{i + 1}", f"s{i + 1}", f"o{i + 1}", f"o{i + 2}" if i < 3 else "s4_end_frame", i - 1) for i in range(4)
    ]
    joints = [(-1, 0, "O1", True), (0, 1, "O2", True), (1, 2, "O3", True), (2, 3, "O4", True), (-1, 3, "O5", True)]
    return bodies, joints, ["C1", "C2", "C3", "C4", "C5", "F_O5y", "F_O5x"]


def _xz(v) -> np.ndarray:
    return np.array([float(v[0]), float(v[2])])


def _at(desc, link: str, joint: str) -> np.ndarray:
    """(x, z) [m] of a URDF joint's origin in ``link``'s frame (the link is its parent or child)."""
    j = next(j for j in desc.joints if j.name == joint)
    if j.child == link:
        return np.zeros(2)
    if j.parent == link:
        return _xz(j.xyz)
    raise ConfigError(f"{desc.source}: joint '{joint}' is not on link '{link}'")


def _rigid(desc, link: str):
    """Mass [kg], COM (x, z) [m] and centroidal inertia about y [kg m^2] of ``link`` with the links
    fixed to it (translations only, as in urdf/chesse_generate.py)."""
    parts = []

    def add(name, offset):
        inert = desc.links[name].inertial
        if inert is not None and inert.mass > 0:
            from humanoid_model.dynmodel.urdf import rpy_matrix

            R = rpy_matrix(inert.rpy)
            parts.append((inert.mass, offset + _xz(inert.xyz), float((R @ inert.inertia @ R.T)[1, 1])))
        for j in desc.joints:
            if j.parent == name and j.type == "fixed":
                add(j.child, offset + _xz(j.xyz))

    add(link, np.zeros(2))
    m = sum(p[0] for p in parts)
    c = sum(p[0] * p[1] for p in parts) / m
    return m, c, sum(p[2] + p[0] * float(np.sum((p[1] - c) ** 2)) for p in parts)


@dataclass
class ChainModel:
    """One mechanism from its URDF: the DS/SS trees (RABBIT) or the transfer tree (the five-bar),
    the map to the URDF's joints, the closure target and the phase terms of
    :class:`~humanoid_planner.gait.direct.PhaseProblemBuilder` (``phase_terms``, ``force_bounds``)."""

    robot: str
    rear: str = "l"  # RABBIT: the physical leg of the tree's root side (DS rear, SS stance)
    g: float = G
    trees: dict = field(init=False)

    def __post_init__(self):
        if self.robot not in ROBOTS:
            raise ConfigError(f"gait: robot {self.robot!r} has no chain model; expected one of {list(ROBOTS)}")
        self.desc = read_urdf(resolve_robot_path(self.robot))
        bodies, joints, controls = _layout(self.robot, self.rear)
        self.bodies = bodies
        frames, planar = [], []
        for bd in bodies:
            m, c, ic = _rigid(self.desc, bd.link)
            o, d = _at(self.desc, bd.link, bd.proximal), _at(self.desc, bd.link, bd.distal)
            r = float(np.linalg.norm(d - o))
            X = (d - o) / r
            Y = np.array([-X[1], X[0]])  # Z0 x X_i in the (x, z) plane, Z0 = -y
            a, b = float((c - o) @ X), float((c - o) @ Y)
            frames.append((o, X, Y, r, math.atan2(X[1], X[0])))
            planar.append(SagittalSegment(m, a, b, ic + m * (a * a + b * b)))
        self.theta0 = [f[4] for f in frames]
        self.lengths = [f[3] for f in frames]
        tree_bodies = []
        for i, bd in enumerate(bodies):
            if bd.parent < 0:
                attach = (0.0, 0.0)  # the root pivot at the origin of the phase frame
            else:
                o, X, Y = frames[bd.parent][:3]
                p = _at(self.desc, bodies[bd.parent].link, bd.proximal) - o
                attach = (float(p @ X), float(p @ Y))
            tree_bodies.append(PlanarBody(bd.name, bd.parent, attach, planar[i]))
        points = {}
        for i, bd in enumerate(bodies):
            points.setdefault(bd.proximal, (i, (0.0, 0.0)))
            points[bd.distal] = (i, (self.lengths[i], 0.0))
        self.cut = bodies[3].distal  # the released point O5' (the front foot, the end of S4)
        tree_joints = [(p, c, name, act, 0.0) for p, c, name, act in joints]
        cut_forces = [(self.cut, (0.0, 1.0)), (self.cut, (1.0, 0.0))]

        def tree(kind, forces):
            n_tau = sum(1 for j in joints if j[3])
            names = controls[: n_tau + len(forces)]
            return PlanarTree(
                f"{self.robot}_{kind}",
                tree_bodies,
                tree_joints,
                points,
                forces,
                self.g,
                [b.name for b in bodies],
                names,
            )

        if self.robot == "rabbit":
            self.trees = {"ds": tree("ds", cut_forces), "ss": tree("ss", [])}
            self.target = (RABBIT_STEP, 0.0)
        else:
            self.trees = {"transfer": tree("transfer", cut_forces)}
            self.target = tuple(_at(self.desc, self.desc.root, "o5_frame"))
        self.total_mass = self.trees[next(iter(self.trees))].total_mass
        self.link_body = {bd.link: i for i, bd in enumerate(bodies)}

    def tree(self, kind: str) -> PlanarTree:
        return self.trees[kind]

    # ---- the URDF's joints ------------------------------------------------------------------
    def urdf_angles(self, q):
        """The URDF's movable joint angles (declaration order) at the absolute angles q: a link's
        pitch about +y is theta0 - q_i (theta0 its axis at the zero posture; the root link of the
        five-bar, the base, does not turn); a joint angle is the child's pitch less the parent's,
        over the axis's y sign. Works on numbers and on CasADi expressions."""
        pitch = {bd.link: self.theta0[i] - q[i] for i, bd in enumerate(self.bodies)}
        return [
            (pitch.get(j.child, 0.0) - pitch.get(j.parent, 0.0)) / float(np.sign(j.axis[1]))
            for j in self.desc.movable_joints
        ]

    def base_pose(self, q, origin_x: float = 0.0) -> list:
        """[x, y, z, qx, qy, qz, qw] of the URDF's root link (RABBIT's trunk at the hip; the
        five-bar's base at the origin)."""
        if self.desc.root not in self.link_body:
            return [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
        i = self.link_body[self.desc.root]
        o = self.trees[next(iter(self.trees))].point(self.bodies[i].proximal, q)
        pitch = self.theta0[i] - q[i]
        return [o[0] + origin_x, 0.0, o[1], 0.0, math.sin(pitch / 2), 0.0, math.cos(pitch / 2)]

    # ---- PhaseProblemBuilder's terms ---------------------------------------------------------
    def phase_terms(self, phase: Phase, w: Weights, q, v):
        """Effort weights, closure vector, no flattening term, the inequalities h <= 0 (the URDF's
        joint ranges and speeds; RABBIT's swing foot above the ground in SS) and the URDF angles."""
        tree = self.tree(phase.kind)
        W = w.torque_w() + (w.force_w() if tree.n_f else [])
        closure = tree.point_expr[self.cut] - ca.DM(list(self.target)) if tree.n_f else ca.SX.zeros(2)
        ang = wrapped_angles(ca.vertcat(*self.urdf_angles(q)), q, phase.q0)
        bounds = [(j.lower, j.upper, j.velocity) for j in self.desc.movable_joints]
        hs = range_rows(ang, ca.jacobian(ang, q) @ v, bounds, w)
        if phase.kind == "ss":  # anti-collision of the swing foot (Chessé 2002, eq. (II.13))
            hs.append(-tree.point_expr[self.cut][1] / w.s_dist)
        return W, closure, 0, hs, ang

    @property
    def root_on_ground(self) -> bool:
        """RABBIT's root pivot is a foot resting on the ground (the DS rear foot, the SS stance foot):
        its reaction is unilateral and inside the friction cone ``Weights.friction`` in the NLP
        (`direct.build_phase_nlp`); without them the SS optimum pulled the ground (-381 N) with
        275 N of tangential force (docs/gait.md). The five-bar's base joint is a bilateral hinge."""
        return self.robot == "rabbit"

    def force_bounds(self, phase: Phase, w: Weights) -> list:
        """RABBIT's front foot pushes only, F_O5y >= 0 (eq. (I.34)); the five-bar's base joint is
        bilateral."""
        if not self.tree(phase.kind).n_f:
            return []
        return [(0.0 if self.robot == "rabbit" else -np.inf, np.inf), (-np.inf, np.inf)]

    def weights(self) -> Weights:
        """The weights of the mechanism (chosen, docs/gait.md): BIP's rule scaled by the weight Mg,
        torques 1/(0.1 m Mg), forces 1/(Mg) (BIP: 1/100 N m, 1/1000 N for 1028 N), the closure
        r_d = 150 (Chessé 2002, §III.3.1.6) with BIP's gamma, the other penalties BIP's, the
        torque box the URDF's effort limit."""
        mg = self.total_mass * self.g
        n_tau = self.tree(next(iter(self.trees))).n_tau
        effort = min(j.effort for j in self.desc.movable_joints)
        return Weights(
            xi_tau=(1.0,) * n_tau,
            xi_f=(1.0, 1.0),
            gamma_tau=1.0 / (0.1 * mg),
            gamma_f=1.0 / mg,
            gamma10=CLOSURE_GAMMA,
            tau_max=effort,
            toe_force_max=None,
            toe_contact_eps=None,
            toe_force_rate=None,
        )


# ---------------------------------------------------------------------------------- boundary states
def rabbit_boundary_states(trunk: float = RABBIT_TRUNK):
    """RABBIT's DS and SS boundary states ((q0, v0), (q1, v1)) each, from the step data of
    Chessé 2002, §III.3.1.6 (`boundary.rabbit_ds_boundary_state`) and the trunk angle. SS starts
    at the DS end with the legs relabelled (the front leg becomes the stance leg, its tibia and
    thigh turned by pi, the rear leg the swing leg) and ends at the DS start (the SS stance leg is
    the next DS rear leg): the cyclic step is periodic and both touchdowns impactless (the feet at
    rest at the DS ends)."""
    ends = []
    for hip, hipv in zip(RABBIT_HIP, RABBIT_HIPV):
        q, v = rabbit_ds_boundary_state(RABBIT_STEP, hip, hipv)
        ends.append((np.append(q, trunk), np.append(v, 0.0)))
    (qe, ve) = ends[1]
    ss0 = (
        np.array([qe[3] + math.pi, qe[2] + math.pi, qe[1] - math.pi, qe[0] - math.pi, qe[4]]),
        np.array([ve[3], ve[2], ve[1], ve[0], ve[4]]),
    )
    return (ends[0], ends[1]), (ss0, ends[0])


def _two_link(base, target, r, outward: float):
    """Absolute angles (near, far) of two links of length r from ``base`` to ``target``, the
    middle joint turned by ``outward`` (+1 counter-clockwise, -1 clockwise) off the line."""
    d = np.asarray(target, float) - np.asarray(base, float)
    rho = float(np.hypot(*d))
    if not 0.0 < rho < 2 * r:
        raise PlanningError(f"five-bar: field 'amplitude' unreachable: distance {rho:.4f} m with two {r} m bars")
    al, h = math.atan2(d[1], d[0]), math.acos(rho / (2 * r))
    return al + outward * h, al - outward * h


def five_bar_rest_state(model: ChainModel, x: float, height: float = FIVE_BAR_HEIGHT) -> np.ndarray:
    """The five-bar's absolute angles with the load O3 at (x, height), its legs bent outwards."""
    r = model.lengths[0]
    q1, q2 = _two_link((0.0, 0.0), (x, height), r, +1.0)
    b1, b2 = _two_link(model.target, (x, height), r, -1.0)  # from O5: S4 reversed, then S3 reversed
    return np.array([q1, q2, b2 + math.pi, b1 + math.pi])


# ---------------------------------------------------------------------------------- the problem
@dataclass
class ChainProblem:
    """RABBIT's cyclic step or the five-bar's transfers: phases, solves, checks, GAIT.json."""

    robot: str
    weights: Weights | None = None

    def __post_init__(self):
        self.model = ChainModel(self.robot)
        self.weights = self.weights or self.model.weights()

    def phases(self, which: str) -> list:
        if which not in PHASES.get(self.robot, ()):
            raise PlanningError(
                f"gait: field 'phase' has unknown value {which!r} for {self.robot}; "
                f"expected one of {list(PHASES[self.robot])}"
            )
        if self.robot == "rabbit":
            ds, ss = rabbit_boundary_states()
            out = {
                "ds": Phase("rabbit_ds", "ds", RABBIT_T_DS, *ds[0], *ds[1], RABBIT_STEP, "l", 0.0),
                "ss": Phase("rabbit_ss", "ss", RABBIT_T_SS, *ss[0], *ss[1], RABBIT_STEP, "r", RABBIT_STEP),
            }
            return [out["ds"], out["ss"]] if which == "cyclic" else [out[which]]
        zero = np.zeros(4)
        mid = self.model.target[0] / 2
        out = []
        for name in ("small", "large") if which == "transfers" else (which,):
            A = FIVE_BAR_AMPLITUDE[name]
            q0, q1 = (five_bar_rest_state(self.model, mid + s * A) for s in (-1.0, 1.0))
            out.append(Phase(f"five_bar_{name}", "transfer", FIVE_BAR_T, q0, zero, q1, zero, 0.0, "l", 0.0))
        return out

    def solve_phase(self, phase: Phase, N: int | None = None, verbose: bool = False) -> PhaseSolution:
        tree = self.model.tree(phase.kind)
        sol = solve_direct(tree, self.model, phase, self.weights, N=N or DEFAULT_N[phase.kind], verbose=verbose)
        sol.checks = self.check(sol)
        return sol

    def solve(self, which: str, progress=None) -> list:
        sols = []
        for ph in self.phases(which):
            if progress:
                progress(f"solving {ph.name} ({ph.duration} s) ...")
            sols.append(self.solve_phase(ph))
        return sols

    def minimum_energy(self, sol: PhaseSolution, reg: float = ENERGY_REG) -> PhaseSolution:
        """The phase of ``sol`` re-solved for the energy J_e itself, warm-started from ``sol``: how
        low J_e can go with the phase's boundary states, duration and nodes. Not the thesis's
        criterion (it minimises squared torques, eq. (III.15)): a measurement (docs/gait.md), to be
        read with ``checks["energy_intervals"]``, as the motors may alternate between no torque and
        no rate at the nodes (the five-bar's small transfer: 0.0 J at the nodes, 3.1 J by the
        intervals' work). J_e
        in slack form (P_j >= |tau_j phi_j'|, min the trapezoidal integral of sum P_j) plus ``reg``
        times the penalised criterion; the penalised inequalities (joint ranges and speeds, the
        swing foot above the ground) become hard (their slacks 0), the closure |O5O5'| a bound of
        ENERGY_CLOSURE_TOL per component; the torque box, the unilateral root reaction and its
        cone stay. A local optimum, like every solve here."""
        ph, w = sol.phase, self.weights
        tree = self.model.tree(ph.kind)
        nlp = build_phase_nlp(tree, self.model, ph, w, sol.t, init=sol)
        n, m, N1, k = tree.n, tree.m, len(sol.t), tree.n_tau
        bQ, bV, _bA, bU, bS = nlp.blocks
        nx = nlp.x.shape[0]
        Q = ca.reshape(nlp.x[bQ : bQ + n * N1], n, N1)
        P = (ca.DM(tree.S_act) @ ca.reshape(nlp.x[bV : bV + n * N1], n, N1)) * nlp.U[:k, :]
        Pa = ca.MX.sym("P", k, N1)
        dt = np.diff(sol.t)
        wts = np.concatenate([dt, [0.0]]) / 2 + np.concatenate([[0.0], dt]) / 2
        g, lbg, ubg = [nlp.g, ca.vec(Pa - P), ca.vec(Pa + P)], [nlp.lbg], [nlp.ubg]
        lbg += [np.zeros(2 * k * N1)]
        ubg += [np.full(2 * k * N1, np.inf)]
        if tree.n_f:
            closure = ca.Function("closure", [tree.q_sym], [tree.point_expr[self.model.cut] - ca.DM(self.model.target)])
            g.append(ca.vec(closure.map(N1)(Q)))
            lbg.append(np.full(2 * N1, -ENERGY_CLOSURE_TOL))
            ubg.append(np.full(2 * N1, ENERGY_CLOSURE_TOL))
        ubx = nlp.ubx.copy()
        ubx[bS:] = 0.0
        x0 = np.clip(nlp.x0, nlp.lbx, ubx)
        p0 = np.abs(np.array(ca.Function("p", [nlp.x], [P])(x0))).T.ravel()
        solver = ca.nlpsol(
            "energy_" + ph.name,
            "ipopt",
            {"x": ca.vertcat(nlp.x, ca.vec(Pa)), "f": ca.sum1(Pa) @ ca.DM(wts) + reg * nlp.J, "g": ca.vertcat(*g)},
            ipopt_options(False, 3000, 1e-6),
        )
        res = solver(
            x0=np.concatenate([x0, p0]),
            lbx=np.concatenate([nlp.lbx, np.zeros(k * N1)]),
            ubx=np.concatenate([ubx, np.full(k * N1, np.inf)]),
            lbg=np.concatenate(lbg),
            ubg=np.concatenate(ubg),
        )
        st = solver.stats()
        q, v, a, u = nlp.unpack(np.array(res["x"]).ravel()[:nx], n, m)
        out = PhaseSolution(
            phase=ph,
            t=sol.t,
            q=q,
            v=v,
            a=a,
            u=u,
            cost=float(res["f"]),
            solve_time=0.0,
            iterations=int(st.get("iter_count", -1)),
            status=str(st.get("return_status")),
            success=bool(st.get("success")),
        )
        out.checks = self.check(out)
        return out

    def check(self, sol: PhaseSolution) -> dict:
        """Energy J_e, closure residual, the reaction at the root pivot (normal, tangential) and,
        for RABBIT, the trunk excursion and the swing foot's clearance."""
        ph = sol.phase
        tree = self.model.tree(ph.kind)
        power, energy = joint_power(tree, sol)
        F = contact_forces(tree, self.model, sol)
        cut = self.model.cut
        residual = (
            [np.linalg.norm(tree.point(cut, q) - np.array(self.model.target)) for q in sol.q] if tree.n_f else [0.0]
        )
        phi, tau = sol.q @ tree.S_act.T, sol.u[:, : tree.n_tau]
        out = {
            "energy": energy,
            # the same energy from each interval's work, sum |mean tau x joint increment|: a motion
            # whose motors alternate between no torque and no rate at the nodes (the least-energy
            # solves of `minimum_energy`) has a node power near 0 but not this work
            "energy_intervals": float(np.abs((tau[1:] + tau[:-1]) / 2 * np.diff(phi, axis=0)).sum()),
            "duration": ph.duration,
            "mean_power": energy / ph.duration,
            "cost": sol.cost,
            "success": sol.success,
            "status": sol.status,
            "iterations": sol.iterations,
            "max_abs_torque": np.abs(sol.u[:, : tree.n_tau]).max(axis=0).tolist(),
            "closure_residual_max": float(max(residual)),
            "root_normal_min": float(F[:, 0].min()),
            "root_normal_max": float(F[:, 0].max()),
            "root_normal_mean": float(np.trapezoid(F[:, 0], sol.t) / ph.duration),
            "root_tangential_max": float(np.abs(F[:, 1]).max()),
            "weight": self.model.total_mass * self.model.g,
        }
        sol.forces = {"root_normal": F[:, 0], "root_tangential": F[:, 1]}
        if tree.n_f:
            sol.forces.update({"cut_normal": sol.u[:, tree.n_tau], "cut_tangential": sol.u[:, tree.n_tau + 1]})
            out["cut_normal_min"] = float(sol.u[:, tree.n_tau].min())
        if self.robot == "rabbit":
            out["trunk_excursion_max"] = float(np.abs(sol.q[:, 4] - sol.q[0, 4]).max())
            out["root_friction_ratio_max"] = float(np.max(np.abs(F[:, 1]) / np.maximum(F[:, 0], 1e-9)))
            if not tree.n_f:
                out["swing_clearance_max"] = float(max(tree.point(cut, q)[1] for q in sol.q))
        else:
            load = np.array([tree.point("o3", q) for q in sol.q])
            chord = np.linspace(load[0], load[-1], len(load))
            out["load_path_deviation_max"] = float(np.linalg.norm(load - chord, axis=1).max())
        sol.power = power
        return out

    def gait_json(self, sols: list) -> dict:
        """GAIT.json (humanoid_model.formats.trajectory): the phases, the URDF's joint angles and
        root pose at every node, one phase after the other."""
        phases, t_all, joints, base = [], [], [], []
        t0 = 0.0
        for n, s in enumerate(sols):
            phases.append(phase_entry(self.model.tree(s.phase.kind), s, "direct", t0))
            model = ChainModel(self.robot, rear=s.phase.root_leg) if s.phase.root_leg != self.model.rear else self.model
            for k, q in enumerate(s.q):
                if n > 0 and k == 0:
                    continue  # the first node of a phase repeats the previous phase's last one
                t_all.append(t0 + s.t[k])
                joints.append([float(a) for a in model.urdf_angles(q)])
                base.append(model.base_pose(q, s.phase.origin_x))
            t0 += s.phase.duration
        return gait_document(
            robot=self.robot,
            params="urdf",
            method="direct",
            phases=phases,
            total_energy=float(sum(s.checks["energy"] for s in sols)),
            joint_names=[j.name for j in self.model.desc.movable_joints],
            trajectory=trajectory_samples(t_all, joints, base),
        )
