"""Planar biped models for the gait generator built from any biped URDF through the generated
CasADi dynamics.

:func:`generated_tree` returns a :class:`GeneratedPlanarTree`, a drop-in
:class:`~humanoid_planner.gait.model.PlanarTree` (same coordinates, controls, points and CasADi
functions, so :func:`~humanoid_planner.gait.direct.solve_direct` takes either) whose dynamics come
from the dynamic-model generator instead of the hand-written formulas of ``model.py``:

1. The URDF is reduced in memory to its sagittal model: the robot YAML's ``planar.locked_joints``
   become fixed joints at the default posture's angles, and a planar base joint (x, z, pitch
   about y) carries the root link. The remaining moving joints must be the YAML's
   ``planar.sagittal_joints`` (hip, knee, ankle of each leg), all about the y axis.
2. `humanoid_model.dynmodel` prints that tree's mass matrix M(x), nonlinear effects h(x, xd)
   (gravity and the YAML armature included) and link frames as CasADi modules
   (``--lang casadi``), which are loaded in memory (no file).
3. The gait coordinates q are the thesis's absolute segment angles
   (Chessé 2002, §I.3.3 and §III.3.2.1, Fig. III-23), angle(X0, X_i) with X0 forward (URDF x)
   and Y0 up (URDF z); a segment's axis X_i points from its proximal point to its distal point:
   DS (rooted at the rear toe, a passive pivot at the origin): rear foot toe->ankle, rear shank
   ankle->knee, rear thigh knee->hip, front thigh hip->knee, front shank knee->ankle, front foot
   ankle->heel, trunk = the root link's +z axis (our choice: the URDF's upright trunk axis, as
   ``params.urdf_params``); SS (stance foot flat, heel at the origin): stance shank, stance thigh,
   swing thigh, swing shank, swing foot ankle->toe, trunk. The heel and toe are the YAML's
   contacts of kind ``heel`` and ``toe`` on each foot.
4. The map x(q) to the generator's coordinates is exact (link pitch = constant - q_i, joint
   angles = differences of link pitches, base position from the pinned contact point by the
   generated link frames), so the reduced dynamics are M_q = J^T M J and
   c_q = J^T (M Jdot qd + h(x, J qd)) with J = dx/dq (a constrained system in minimal
   coordinates), and the controls enter as in ``model.py``: joint torques through the relative
   angles of the gait tree (torque +C on the child), contact forces through the point Jacobians.

For BIP, test/planner/gait/test_gait_generated_model.py checks it against the hand-written model
(``params.urdf_params`` with the URDF's armature and ankle-cardan inertia) to 1e-9.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import casadi as ca
import numpy as np

from humanoid_model.exceptions import ModelError, UnknownRobotError
from humanoid_model.paths import resolve, shipped_files, urdf_dir
from humanoid_model.urdf_description import read_sidecar
from humanoid_model.urdf_xml import UrdfTree
from humanoid_model.yaml_file import read_yaml

from .model import DS_FORCES, DS_TORQUES, SS_TORQUES, PlanarBody, PlanarTree
from .params import G, SagittalSegment

__all__ = ["GeneratedPlanarTree", "generated_tree", "planar_urdf", "sagittal_legs", "sagittal_roles"]

HEAD_DISTANCE = 0.66  # [m] display point on the trunk axis, the 'head' of model.py (chosen there)
BASE = "gait_base"  # name of the planar base joint added above the root link
_DS_JOINTS = [(-1, 0, "rear_toe"), (0, 1, "rear_ankle"), (1, 2, "rear_knee"), (2, 6, "rear_hip")]
_DS_JOINTS += [(6, 3, "front_hip"), (3, 4, "front_knee"), (4, 5, "front_ankle")]
_SS_JOINTS = [(-1, 0, "stance_ankle"), (0, 1, "stance_knee"), (1, 5, "stance_hip"), (5, 2, "swing_hip")]
_SS_JOINTS += [(2, 3, "swing_knee"), (3, 4, "swing_ankle")]


# ------------------------------------------------------------------------------ URDF reduction
def _rot(axis, angle):
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def planar_urdf(path) -> tuple[str, dict]:
    """The URDF text of the sagittal model of `path` and its YAML document.

    Locked joints (``planar.locked_joints``) become fixed at the default posture's angle (the
    rotation is folded into the joint origin); a ``planar`` base joint about y named `BASE`
    carries the root link. The URDF is edited through `humanoid_model.urdf_xml.UrdfTree`."""
    from humanoid_model.dynmodel.urdf import rpy_matrix

    sidecar = read_sidecar(path)
    if sidecar is None or not sidecar.planar_locked_joints:
        raise ModelError(f"{path.with_suffix('.yaml')}: no 'planar: {{locked_joints: ...}}' for a planar gait model")
    doc = read_yaml(sidecar.path, "robot sidecar YAML file", ModelError)
    posture = (sidecar.postures.get(sidecar.default_posture) or {}).get("joints", {}) or {}
    tree = UrdfTree.from_file(path)
    for name in sidecar.planar_locked_joints:
        if name not in tree.joints:
            raise ModelError(f"{sidecar.path}: planar.locked_joints: unknown joint '{name}'")
        j = tree.joints[name]
        angle = float(posture.get(name, 0.0))
        if angle:
            import pinocchio as pin

            j.rpy = pin.rpy.matrixToRpy(rpy_matrix(j.rpy) @ _rot(j.axis, angle))
        j.type = "fixed"
    roots = tree.root_links
    tree.add_link(BASE + "_world")
    tree.add_joint(BASE, "planar", BASE + "_world", roots[0], axis=(0, 1, 0))
    return tree.to_text(), doc


def _fixed_chain(urdf_text: str) -> dict:
    """child link -> (parent link, origin xyz, origin rotation) of every fixed joint."""
    from humanoid_model.dynmodel.urdf import rpy_matrix

    tree = UrdfTree.from_text(urdf_text)
    return {j.child: (j.parent, j.xyz, rpy_matrix(j.rpy)) for j in tree.joints.values() if j.type == "fixed"}


@dataclass(frozen=True)
class _Leg:
    hip: object  # dynmodel Joint
    knee: object
    ankle: object
    heel: np.ndarray  # (x, z) in the foot body frame [m]
    toe: np.ndarray


class _Sagittal:
    """A robot's sagittal tree (`planar_urdf` parsed by the generator) and its legs."""

    def __init__(self, path):
        from humanoid_model import dynmodel

        text, doc = planar_urdf(path)
        self.tree = dynmodel.parse_urdf(text)
        self.tree.source = str(path)
        planar = doc.get("planar") or {}
        sag = list(planar.get("sagittal_joints") or [])
        moving = [j.name for j in self.tree.joints if not j.name.startswith(BASE)]
        if sorted(moving) != sorted(sag) or len(sag) != 6:
            raise ModelError(
                f"{path.with_suffix('.yaml')}: planar.sagittal_joints must be the 6 joints left moving "
                f"(hip, knee, ankle of each leg); value {sag}, moving {moving}"
            )
        byname = {j.name: j for j in self.tree.joints}
        for name in sag:
            j = byname[name]
            if abs(abs(j.axis[1]) - 1.0) > 1e-12 or abs(j.origin_rot[1, 1] - 1.0) > 1e-12:
                raise ModelError(
                    f"{path}: joint '{name}' is not a rotation about y (axis {j.axis}); not a planar biped"
                )
        self.sagittal = sag
        self.index = {j.name: k for k, j in enumerate(self.tree.joints)}
        self.byname = byname
        self.legs = self._legs(path, sag, read_sidecar(path).contacts, _fixed_chain(text))

    def _legs(self, path, sag, contacts, fixed):
        joints = [self.byname[n] for n in sag]
        child = {j.parent: j for j in joints}
        hips = [j for j in joints if j.parent == self.tree.root or j.parent not in {k.child for k in joints}]
        legs = {}
        for hip in hips:
            knee = child.get(hip.child)
            ankle = child.get(knee.child) if knee is not None else None
            if ankle is None:
                raise ModelError(
                    f"{path.with_suffix('.yaml')}: planar.sagittal_joints: no hip-knee-ankle chain from {hip.name}"
                )
            pts, sole = {}, {}
            for c in contacts.values():
                body, p = str(c.get("body")), np.asarray(c.get("point", (0, 0, 0)), float)
                hull = np.asarray(c.get("hull", [c.get("point", (0, 0, 0))]), float).reshape(-1, 3)
                while body in fixed and body not in self.tree.bodies:
                    parent, xyz, R = fixed[body]
                    body, p, hull = parent, xyz + R @ p, xyz + hull @ R.T
                if body == ankle.child and c.get("kind") in ("heel", "toe"):
                    pts[c.get("kind")] = p[[0, 2]]
                if body == ankle.child and c.get("kind") == "sole":
                    # without heel/toe contacts: the rear and front edges of the sole's hull, at the
                    # sole's height (as BIP's heel and toe contacts are, urdf/bip.yaml)
                    sole = {"heel": np.array([hull[:, 0].min(), p[2]]), "toe": np.array([hull[:, 0].max(), p[2]])}
            pts = {**sole, **pts}
            if set(pts) != {"heel", "toe"}:
                raise ModelError(
                    f"{path.with_suffix('.yaml')}: contacts: the foot after '{ankle.name}' needs heel and toe "
                    "(or sole) contacts"
                )
            legs[hip.name] = _Leg(hip, knee, ankle, pts["heel"], pts["toe"])
        return legs


@functools.lru_cache(maxsize=4)
def _sagittal(path) -> _Sagittal:
    return _Sagittal(path)


class _Generated:
    """The generated CasADi functions (M, h, link frames) of a robot's sagittal model."""

    def __init__(self, path, armature, g):
        from humanoid_model import dynmodel
        from humanoid_model.dynmodel.joint_terms import JointTerms

        sag = _sagittal(path)
        self.tree, self.index, self.byname, self.legs = sag.tree, sag.index, sag.byname, sag.legs
        arm = {n: float(v) for n, v in (armature or {}).items()}
        unknown = set(arm) - set(sag.sagittal)
        if unknown:
            raise ModelError(f"planar gait model of {path}: armature for unknown joints {sorted(unknown)}")
        terms = JointTerms(armature={n: v for n, v in arm.items() if v})
        gravity = (0.0, 0.0, -g)
        self.mod_M = dynmodel.load_python(dynmodel.generate(self.tree, "casadi", model="mass_matrix", terms=terms))
        self.mod_h = dynmodel.load_python(dynmodel.generate(self.tree, "casadi", gravity=gravity, model="nle"))
        self.mod_id = dynmodel.load_python(dynmodel.generate(self.tree, "casadi", gravity=gravity, terms=terms))
        self.armature = arm


@functools.lru_cache(maxsize=8)
def _generated(path, armature_items, g) -> _Generated:
    return _Generated(path, dict(armature_items) if armature_items is not None else None, g)


# ------------------------------------------------------------------------------ the gait tree
def _xz(v):
    return np.array([v[0], v[2]], float)


def _psi0(d):
    return math.atan2(d[1], d[0])


class GeneratedPlanarTree(PlanarTree):
    """A `PlanarTree` whose dynamics are the generated ones (module docstring). Attributes and
    numeric helpers as `PlanarTree`; ``generated`` holds the tree and CasADi modules."""

    def __init__(self, gen: _Generated, kind: str, root_leg: str, g: float, name: str):
        legs = list(gen.legs.values())
        rear = next((lg for lg in legs if lg.hip.name.lower().startswith(root_leg.lower())), None)
        if rear is None:
            raise ModelError(f"planar gait model: no leg whose hip joint starts with '{root_leg}'")
        front = next(lg for lg in legs if lg is not rear)
        self.generated, self.kind = gen, kind
        root = gen.byname[BASE + "_rot"].child
        hip_point = _xz(rear.hip.origin_xyz)  # trunk proximal point: the hip, in the root body frame
        zero = np.zeros(2)

        def seg(body, prox, dist):
            return (body, np.asarray(prox, float), np.asarray(dist, float) - np.asarray(prox, float))

        A_r, K_r = _xz(rear.ankle.origin_xyz), _xz(rear.knee.origin_xyz)
        A_f, K_f = _xz(front.ankle.origin_xyz), _xz(front.knee.origin_xyz)
        trunk = seg(root, hip_point, hip_point + np.array([0.0, 1.0]))
        if kind == "ds":
            segs = [
                seg(rear.ankle.child, rear.toe, zero),
                seg(rear.knee.child, A_r, zero),
                seg(rear.hip.child, K_r, zero),
                seg(front.hip.child, zero, K_f),
                seg(front.knee.child, zero, A_f),
                seg(front.ankle.child, zero, front.heel),
                trunk,
            ]
            names = ["S1_rear_foot", "S2_rear_shank", "S3_rear_thigh", "S4_front_thigh"]
            names += ["S5_front_shank", "S6_front_foot", "S7_trunk"]
            topo, controls = _DS_JOINTS, DS_TORQUES + DS_FORCES
            pinned = (rear.ankle.child, rear.toe)
            fixed_pitch = {}
        elif kind == "ss":
            segs = [
                seg(rear.knee.child, A_r, zero),
                seg(rear.hip.child, K_r, zero),
                seg(front.hip.child, zero, K_f),
                seg(front.knee.child, zero, A_f),
                seg(front.ankle.child, zero, front.toe),
                trunk,
            ]
            names = ["stance_shank", "stance_thigh", "swing_thigh", "swing_shank", "swing_foot", "trunk"]
            topo, controls = _SS_JOINTS, SS_TORQUES
            pinned = (rear.ankle.child, rear.heel)
            fixed_pitch = {rear.ankle.child: _psi0(rear.toe - rear.heel)}  # stance foot flat: heel->toe along X0
        else:
            raise ModelError(f"planar gait model: kind must be 'ds' or 'ss'; value {kind!r}")
        n = len(segs)
        q, v = ca.SX.sym("q", n), ca.SX.sym("v", n)
        # link pitches (URDF, about +y) from the absolute segment angles: theta = psi0 - q_i
        pitch = dict(fixed_pitch)
        for i, (body, _p, d) in enumerate(segs):
            pitch[body] = _psi0(d) - q[i]
        nx = gen.tree.nv
        x0 = [ca.SX(0)] * nx
        x0[gen.index[BASE + "_rot"]] = pitch[root]
        for leg in (rear, front):
            for j in (leg.hip, leg.knee, leg.ankle):
                s = float(np.sign(j.axis[1]))
                beta = math.atan2(j.origin_rot[0, 2], j.origin_rot[0, 0])
                x0[gen.index[j.name]] = s * (pitch[j.child] - pitch[j.parent] - beta)
        x0 = ca.vertcat(*x0)
        frames = gen.mod_id.link_frames(q=x0)

        def world(body, r, base):
            """World (x, z) of the point r (x, z) of `body` [m]."""
            key = _ident(body)
            O, R = frames[f"O_{key}"], frames[f"R_{key}"]
            p = O + R @ ca.vertcat(r[0], 0.0, r[1])
            return ca.vertcat(p[0], p[2]) + base

        target = ca.DM.zeros(2)  # DS: rear toe at the origin; SS: stance heel at the origin
        base = target - world(pinned[0], pinned[1], ca.DM.zeros(2))
        x = ca.vertcat(x0)
        x[gen.index[BASE + "_t2"]] = base[0]  # planar joint: t1 along z, t2 along x (dynmodel.urdf)
        x[gen.index[BASE + "_t1"]] = base[1]
        J = ca.jacobian(x, q)
        xd = J @ v
        Jd_v = ca.jacobian(xd, q) @ v
        Mx = gen.mod_M.mass_matrix(x)
        M = J.T @ Mx @ J
        bias = J.T @ (Mx @ Jd_v + gen.mod_h.nonlinear_effects(x, xd))
        grav = J.T @ gen.mod_h.nonlinear_effects(x, ca.DM.zeros(nx))
        # gait-tree topology: relative angles phi = S q, torque +C on the child
        S = np.zeros((len(topo), n))
        for k, (p_, ch, _nm) in enumerate(topo):
            S[k, ch] = 1.0
            if p_ >= 0:
                S[k, p_] = -1.0
        act = [k for k, (p_, _c, _nm) in enumerate(topo) if p_ >= 0 or kind == "ss"]
        located = self._points(kind, rear, front, world, base, K_r, A_r, K_f, A_f, hip_point, root)
        pts = {k: ca.cse(e) for k, (_i, e) in located.items()}  # cse: one node per repeated term
        Jf = []
        if kind == "ds":
            for pname, dvec in (("heel", (0.0, 1.0)), ("toe", (0.0, 1.0)), ("heel", (1.0, 0.0))):
                Jf.append(ca.jacobian(pts[pname], q).T @ ca.DM(dvec))
        Bmat = ca.horzcat(ca.DM(S[act, :].T), *Jf)
        coms = [ca.cse(world(b, _xz(gen.tree.bodies[b].com), base)) for b, _p, _d in segs]
        masses = [float(gen.tree.bodies[b].mass) for b, _p, _d in segs]
        V = sum(m * g * c[1] for m, c in zip(masses, coms))
        # PlanarTree's attributes (model.py), built from the generated expressions
        self.name, self.g = name, g
        self.n, self.n_tau, self.n_f = n, len(act), len(Jf)
        self.m = self.n_tau + self.n_f
        self.S, self.S_act = S, S[act, :]
        self._q, self._v, self.q_sym, self.v_sym = q, v, q, v
        a, u = ca.SX.sym("a", n), ca.SX.sym("u", self.m)
        self.f_M = ca.Function("M", [q], [M])
        self.f_V = ca.Function("V", [q], [V])
        self.f_gq = ca.Function("dVdq", [q], [grav])
        self.f_bias = ca.Function("bias", [q, v], [bias])
        self.f_B = ca.Function("B", [q], [Bmat])
        # the residual the direct method imposes, by the generated Newton-Euler inverse dynamics
        # (O(n), a smaller graph than M a + bias): J^T tau(x, J v, J a + Jdot v) - B u
        tau = gen.mod_id.inverse_dynamics(q=x, qd=xd, qdd=J @ a + Jd_v)["tau"]
        self.f_id = ca.Function("inv_dyn_residual", [q, v, a, u], [ca.cse(J.T @ tau - Bmat @ u)])
        self.f_fd = ca.Function("fwd_dyn", [q, v, u], [ca.solve(M, Bmat @ u - bias)])
        T = 0.5 * v.T @ M @ v
        self.f_half_vdMv = ca.Function("half_vdMdq_v", [q, v], [ca.gradient(T, q)])
        self.point_expr = pts
        self.f_points = {k: ca.Function(f"p_{k}", [q], [p]) for k, p in pts.items()}
        self.f_points_vel = {k: ca.Function(f"v_{k}", [q, v], [ca.jacobian(p, q) @ v]) for k, p in pts.items()}
        origins = [world(b, p, base) for b, p, _d in segs]
        self.f_origins = ca.Function("origins", [q], [ca.horzcat(*origins)])
        self.f_coms = ca.Function("coms", [q], [ca.horzcat(*coms)])
        self.total_mass = float(sum(masses))
        self.f_com = ca.Function("com", [q], [sum(m * c for m, c in zip(masses, coms)) / self.total_mass])
        self.coordinate_names, self.control_names = names, controls
        self.force_points = [("heel", (0.0, 1.0)), ("toe", (0.0, 1.0)), ("heel", (1.0, 0.0))] if kind == "ds" else []
        self._describe(gen, segs, names, topo, rear, located)
        self.stance_foot = None
        if kind == "ss":
            # the static stance foot (heel at the origin, flat) for the contact forces of direct.py:
            # mass [kg], COM x [m], ankle (x, z) [m], heel-toe length [m]
            fb = gen.tree.bodies[rear.ankle.child]
            th = fixed_pitch[rear.ankle.child]
            c, s_ = math.cos(th), math.sin(th)

            def flat(r):
                return np.array([c * r[0] + s_ * r[1], -s_ * r[0] + c * r[1]]) - flat0

            flat0 = np.zeros(2)
            flat0 = flat(rear.heel)
            self.stance_foot = {
                "mass": float(fb.mass),
                "com_x": float(flat(_xz(fb.com))[0]),
                "ankle": tuple(float(x) for x in flat(np.zeros(2))),
                "length": float(np.linalg.norm(rear.toe - rear.heel)),
            }

    def _points(self, kind, rear, front, world, base, K_r, A_r, K_f, A_f, hip_point, root):
        """name -> (segment index, world (x, z) expression): model.py's points."""
        zero = np.zeros(2)
        head = world(root, hip_point + np.array([0.0, HEAD_DISTANCE]), base)
        if kind == "ds":
            return {
                "rear_toe": (0, world(rear.ankle.child, rear.toe, base)),
                "rear_ankle": (0, world(rear.ankle.child, zero, base)),
                "rear_knee": (1, world(rear.knee.child, zero, base)),
                "hip": (2, world(rear.hip.child, zero, base)),
                "front_knee": (3, world(front.knee.child, zero, base)),
                "front_ankle": (4, world(front.ankle.child, zero, base)),
                "heel": (5, world(front.ankle.child, front.heel, base)),
                "toe": (5, world(front.ankle.child, front.toe, base)),
                "head": (6, head),
                "rear_heel": (0, world(rear.ankle.child, rear.heel, base)),
            }
        return {
            "stance_ankle": (0, world(rear.ankle.child, zero, base)),
            "stance_knee": (0, world(rear.knee.child, zero, base)),
            "hip": (1, world(rear.hip.child, zero, base)),
            "swing_knee": (2, world(front.knee.child, zero, base)),
            "swing_ankle": (3, world(front.ankle.child, zero, base)),
            "swing_toe": (4, world(front.ankle.child, front.toe, base)),
            "swing_heel": (4, world(front.ankle.child, front.heel, base)),
            "head": (5, head),
        }

    def _describe(self, gen, segs, names, topo, rear, located):
        """``bodies``, ``joints`` and ``points`` in model.py's form (segment frames: X along the
        segment, Y = Z0 x X; mass, COM (a, b), inertia about the proximal point), from the URDF."""
        self.bodies = []
        frames = []
        for (body, prox, d), nm in zip(segs, names):
            X = d / np.linalg.norm(d)
            Y = np.array([-X[1], X[0]])
            b = gen.tree.bodies[body]
            c = _xz(b.com) - prox
            seg = SagittalSegment(float(b.mass), float(c @ X), float(c @ Y), float(b.inertia[1, 1] + b.mass * (c @ c)))
            frames.append((prox, X, Y))
            self.bodies.append(PlanarBody(nm, -1, (0.0, 0.0), seg))
        q0 = np.zeros(self.n)
        O = np.array(self.f_origins(q0))
        for p_, ch, _nm in topo:
            bch = self.bodies[ch]
            if p_ >= 0:
                rel = O[:, ch] - O[:, p_]  # at q = 0 every segment frame is the world frame
                self.bodies[ch] = PlanarBody(bch.name, p_, (float(rel[0]), float(rel[1])), bch.seg)
            else:
                self.bodies[ch] = PlanarBody(bch.name, -1, tuple(float(x) for x in O[:, ch]), bch.seg)
        arm = {"hip": rear.hip.name, "knee": rear.knee.name, "ankle": rear.ankle.name}
        self.joints = []
        for p_, ch, nm in topo:
            role = nm.split("_")[-1]
            self.joints.append((p_, ch, nm, p_ >= 0 or self.kind == "ss", gen.armature.get(arm.get(role, ""), 0.0)))
        # points in their segment frame: at q = 0 every segment frame is parallel to the world's
        self.points = {}
        for pname, (i, _e) in located.items():
            off = np.array(self.f_points[pname](q0)).ravel() - O[:, i]
            self.points[pname] = (i, (float(off[0]), float(off[1])))


def _ident(name):
    from humanoid_model.dynmodel.urdf import identifier

    return identifier(name)


def generated_tree(
    robot="bip", kind: str = "ds", root_leg: str = "l", armature: dict | None = None, g: float = G
) -> GeneratedPlanarTree:
    """The gait model (``kind`` "ds" or "ss") of a planar biped URDF from the generated dynamics.

    `robot`: a shipped name or a URDF path with a YAML sidecar (``planar``, heel/toe contacts);
    `root_leg`: prefix of the hip joint of the rear (DS) / stance (SS) leg; `armature`: rotor
    inertia per sagittal joint [kg m^2] (default: the robot YAML's ``armature:``); `g` [m/s^2]
    (default the thesis's 9.81, Chessé 2002, §I.3.3)."""
    path = resolve(
        str(robot), shipped_files(urdf_dir(), ".urdf"), "robot", (".urdf",), UnknownRobotError, file_kind="URDF file"
    )
    if armature is None:
        sag = set(_sagittal(path).sagittal)
        armature = {k: float(v) for k, v in read_sidecar(path).armature.items() if k in sag}
    unknown = set(armature) - set(_sagittal(path).sagittal)
    if unknown:
        raise ModelError(f"planar gait model of {path}: armature for unknown joints {sorted(unknown)}")
    # zero entries dropped: the same model (and one generation) with or without them
    gen = _generated(path, tuple(sorted((k, float(v)) for k, v in armature.items() if float(v))), float(g))
    return GeneratedPlanarTree(gen, kind, root_leg, float(g), f"{path.stem}_{kind}_generated")


def sagittal_legs(robot="bip") -> dict:
    """``{hip joint name: leg}`` of the robot's sagittal model: each leg's ``hip``, ``knee``, ``ankle``
    (dynmodel joints: ``name``, ``origin_xyz`` in the parent body [m]) and ``heel``, ``toe`` ((x, z) in
    the foot body [m])."""
    path = resolve(
        str(robot), shipped_files(urdf_dir(), ".urdf"), "robot", (".urdf",), UnknownRobotError, file_kind="URDF file"
    )
    return dict(_sagittal(path).legs)


def sagittal_roles(robot="bip") -> dict:
    """``{joint name: "hip" | "knee" | "ankle"}`` of the robot's sagittal joints (both legs)."""
    path = resolve(
        str(robot), shipped_files(urdf_dir(), ".urdf"), "robot", (".urdf",), UnknownRobotError, file_kind="URDF file"
    )
    legs = _sagittal(path).legs
    return {
        j.name: role
        for leg in legs.values()
        for role, j in zip(("hip", "knee", "ankle"), (leg.hip, leg.knee, leg.ankle))
    }
