"""Crocoddyl peer of the BIP cyclic step, run by ``benchmarks/gait.py --crocoddyl`` in its own virtual
environment, never in the project's: ``make venv-crocoddyl`` (crocoddyl 3.2.1 with pin 4.0.0, the
Pinocchio its binaries were built against; benchmarks/README.md, docs/gait.md "Peer: Crocoddyl").

    .venv-crocoddyl/bin/python benchmarks/peers/gait_crocoddyl.py SPEC.json RESULT.json

Only numpy, pinocchio and crocoddyl are imported; the project's venv (pin 4.1.0) writes SPEC.json and
reads RESULT.json.  The problem (SPEC, written by ``benchmarks/gait.py``):

* model: the BIP URDF with the YAML's locked joints fixed at their posture angles
  (``pin.buildReducedModel``), a planar base (prismatic x, prismatic z, revolute y) and the YAML
  armature; the six sagittal joints are actuated (`Builder`);
* one shooting problem, DS (left foot rear) then SS (right foot stance), Euler steps on the project's
  grids; contacts as Crocoddyl contact models, one per foot (crocoddyl 3.2.1 overwrites the external
  force of a joint that carries two contacts, so their derivatives are wrong: docs/gait.md): DS rear
  toe ``ContactModel2D`` (a pivot), front heel ``ContactModel2D`` until the toe lands, then the flat
  front foot ``ContactModel6D`` (the heel and toe forces are its force and pitch moment); SS the flat
  stance foot ``ContactModel6D``;
* cost: the thesis's criterion l_r (Chessé 2002, eq. (III.21)) term by term: 1/2 W_tau tau^2,
  1/2 W_F (FB1^2 + FB2^2 + FB12^2) of the front-foot forces in DS (`FootForces`, a residual of our
  own: crocoddyl's ``ResidualModelContactForce`` refuses contacts under 3-D), 1/2 r_a delta^2
  (front-foot flattening), 1/2 r_h (h+/s)^2 for the joint ranges, joint speeds and the feet above
  the ground; the closure penalty 1/2 r_d gamma10 |B1B1'|^2 is replaced by the heel contact;
* what the project imposes as constraints is a quadratic-barrier penalty here (FDDP has no
  inequality constraints): the boundary states at the DS end and the SS end, the landing of the toe
  flat and at rest, FB1 >= 0, 0 <= FB2 <= 6 N, NA2 >= 0, NB1 >= 1 N, NB2 >= 6 N and the friction
  cones |T| <= 0.25 N; the torque bounds are ``SolverBoxFDDP``'s box.

RESULT: the solver's numbers (cost, iterations, time, feasibility), the trajectory (states, torques,
contact forces per node in world components) and the residuals (boundary states, contact drift).
"""

from __future__ import annotations

import json
import sys
import time
import xml.etree.ElementTree as ET

import crocoddyl
import numpy as np
import pinocchio as pin

BIG = 1e10  # an unbounded side of a barrier activation


def planar_urdf_text(path):
    """The URDF with a planar base above its root link: prismatic x, prismatic z and revolute y joints
    through two massless links (three joints: Pinocchio 4.0.0 and 4.1.0's ABA derivatives are wrong
    for the RY part of a composite PX-PZ-RY root joint, 9 rad/s^2 off; docs/gait.md)."""
    root = ET.parse(path).getroot()
    children = {j.find("child").get("link") for j in root.findall("joint")}
    top = next(lk.get("name") for lk in root.findall("link") if lk.get("name") not in children)
    parent = "base_world"
    ET.SubElement(root, "link", name=parent)
    chain = [("base_x", "prismatic", "1 0 0"), ("base_z", "prismatic", "0 0 1"), ("base_pitch", "revolute", "0 1 0")]
    for k, (name, kind, axis) in enumerate(chain):
        child = top if k == len(chain) - 1 else name + "_link"
        if child != top:
            ET.SubElement(root, "link", name=child)
        j = ET.SubElement(root, "joint", name=name, type=kind)
        ET.SubElement(j, "parent", link=parent)
        ET.SubElement(j, "child", link=child)
        ET.SubElement(j, "axis", xyz=axis)
        ET.SubElement(j, "limit", lower="-100", upper="100", effort="0", velocity="100")
        parent = child
    return ET.tostring(root, encoding="unicode")


def build_model(spec):
    """The planar BIP model of the SPEC (module docstring); q = (x, z, pitch, joints)."""
    full = pin.buildModelFromXML(planar_urdf_text(spec["urdf"]))
    q = pin.neutral(full)
    for name, angle in spec["locked"].items():
        q[full.joints[full.getJointId(name)].idx_q] = angle
    model = pin.buildReducedModel(full, [full.getJointId(n) for n in spec["locked"]], q)
    model.gravity = pin.Motion(np.array([0.0, 0.0, -spec["g"]]), np.zeros(3))
    for name, arm in spec["armature"].items():
        model.armature[model.joints[model.getJointId(name)].idx_v] = arm
    return model


def pitch_of(R):
    """Rotation angle about y of a rotation about y [rad]."""
    return float(np.arctan2(R[0, 2], R[0, 0]))


class FootForces(crocoddyl.ResidualModelAbstract):
    """r = A phi: phi = (N_heel, N_toe, T) of each listed contact in world components [N] (the thesis's
    FB1, FB2, FB12 / NB1, NB2, T / NA2, 0, TA2), from the contact's multipliers (force on the robot):
    a ``2d`` contact gives its point's normal and tangential force (N_toe = 0); a ``6d`` contact at the
    heel of a flat foot gives N_toe = -m_y / l (the toe l ahead on the sole), N_heel = f_z - N_toe."""

    def __init__(self, state, nu, contacts, A, foot_length):
        super().__init__(state, A.shape[0], nu, True, True, True)
        self.contacts, self.A, self.l = list(contacts), np.asarray(A, float), foot_length
        self.model = state.pinocchio

    def _phi(self, data, with_diff):
        pd = data.shared.pinocchio
        phi, dphi_dx, dphi_du = [], [], []
        for name, fid, kind in self.contacts:
            c = data.shared.contacts.contacts[name]
            pin.updateFramePlacement(self.model, pd, fid)
            th = pitch_of(pd.oMf[fid].rotation)
            cs, sn = np.cos(th), np.sin(th)
            fx, fz = c.f.linear[0], c.f.linear[2]  # local frame (the foot's)
            T, N = cs * fx + sn * fz, -sn * fx + cs * fz  # world components of the local force
            Nt = -c.f.angular[1] / self.l if kind == "6d" else 0.0
            phi += [N - Nt, Nt, T]
            if with_diff:
                J = pin.getFrameJacobian(self.model, pd, fid, pin.LOCAL_WORLD_ALIGNED)
                dth = np.r_[J[4], np.zeros(self.model.nv)]  # d pitch / dx (tangent space)
                rows_x = c.df_dx if kind == "6d" else np.vstack([c.df_dx[0], np.zeros(c.df_dx.shape[1]), c.df_dx[1]])
                rows_u = c.df_du if kind == "6d" else np.vstack([c.df_du[0], np.zeros(c.df_du.shape[1]), c.df_du[1]])
                for rows, out, is_x in ((rows_x, dphi_dx, True), (rows_u, dphi_du, False)):
                    dT = cs * rows[0] + sn * rows[2]
                    dN = -sn * rows[0] + cs * rows[2]
                    if is_x:
                        dT = dT + (-sn * fx + cs * fz) * dth
                        dN = dN + (-cs * fx - sn * fz) * dth
                    dNt = -rows[4] / self.l if kind == "6d" else np.zeros_like(dN)
                    out += [dN - dNt, dNt, dT]
        return np.array(phi), dphi_dx, dphi_du

    def calc(self, data, x, u):
        data.r[:] = self.A @ self._phi(data, False)[0]

    def calcDiff(self, data, x, u):
        _, dx, du = self._phi(data, True)
        data.Rx[:, :] = self.A @ np.vstack(dx)
        data.Ru[:, :] = self.A @ np.vstack(du)


class Builder:
    """Crocoddyl action models of the SPEC (module docstring)."""

    def __init__(self, spec):
        self.spec, self.w, self.f = spec, spec["weights"], spec["frames"]
        self.model = build_model(spec)
        self.data = self.model.createData()
        self.state = crocoddyl.StateMultibody(self.model)
        self.actuation = crocoddyl.ActuationModelFull(self.state)  # base rows held at 0 by the box
        self.nu = self.state.nv
        self.fid = {n: self.model.getFrameId(n) for n in self.f.values()}
        tau = self.w["tau_max"]
        self.u_lb = np.r_[np.zeros(3), np.full(self.nu - 3, -tau)]
        self.u_ub = np.r_[np.zeros(3), np.full(self.nu - 3, tau)]

    # ---- states -----------------------------------------------------------------------------
    def state_vector(self, s):
        """x from joint angles/rates by name, the base pitch and its rate, and an anchor frame at rest
        at a given world (x, z): the base translation and its rate follow."""
        m, d = self.model, self.data
        q, v = np.zeros(m.nq), np.zeros(m.nv)
        for name, (a, r) in s["joints"].items():
            j = m.joints[m.getJointId(name)]
            q[j.idx_q], v[j.idx_v] = a, r
        q[2], v[2] = s["pitch"], s["pitch_rate"]
        fid = m.getFrameId(s["anchor"])
        pin.framesForwardKinematics(m, d, q)
        p = d.oMf[fid].translation.copy()
        q[0], q[1] = s["anchor_xz"][0] - p[0], s["anchor_xz"][1] - p[2]
        pin.computeJointJacobians(m, d, q)
        pin.updateFramePlacements(m, d)
        vf = pin.getFrameJacobian(m, d, fid, pin.LOCAL_WORLD_ALIGNED) @ v
        v[0], v[1] = -vf[0], -vf[2]
        return np.r_[q, v]

    def frame_xz(self, x, name):
        """World (x, z) [m] and pitch [rad] of frame `name` at state x."""
        p = self.placement(x, name)
        return p.translation[[0, 2]].copy(), pitch_of(p.rotation)

    def placement(self, x, name):
        pin.framesForwardKinematics(self.model, self.data, x[: self.model.nq])
        return self.data.oMf[self.fid[name]].copy()

    # ---- costs --------------------------------------------------------------------------------
    def _barrier(self, lb, ub):
        """1/2 |r - clip(r, lb, ub)|^2 (no per-row weights: crocoddyl 3.2.1's weighted barrier returns
        1/2 |w r|^2 with the gradient w^2 r and the Hessian w, inconsistent; docs/gait.md)."""
        b = crocoddyl.ActivationBounds(np.asarray(lb, float), np.asarray(ub, float))
        return crocoddyl.ActivationModelQuadraticBarrier(b)

    def _costs(self, kind, contacts, touchdown):
        st, nu, w, f = self.state, self.nu, self.w, self.f
        costs = crocoddyl.CostModelSum(st, nu)
        wt = np.r_[np.zeros(3), np.full(nu - 3, w["W_tau"])]
        act = crocoddyl.ActivationModelWeightedQuad(wt)
        costs.addCost("torque", crocoddyl.CostModelResidual(st, act, crocoddyl.ResidualModelControl(st, nu)), 1.0)
        for part, offset, weight in (("angle", 0, w["W_angle"]), ("speed", st.nv, w["W_vel"])):
            lb, ub = np.full(st.ndx, -BIG), np.full(st.ndx, BIG)
            for name, (lo, hi) in w["limits"].items():
                i = offset + self.model.joints[self.model.getJointId(name)].idx_v
                lb[i], ub[i] = (lo, hi) if part == "angle" else (-w["vel_limits"][name], w["vel_limits"][name])
            res = crocoddyl.ResidualModelState(st, np.zeros(st.nx), nu)
            costs.addCost(f"limits_{part}", crocoddyl.CostModelResidual(st, self._barrier(lb, ub), res), weight)
        above = [f["rear_heel"], f["front_toe"]] if kind == "ds" else [f["rear_heel"], f["rear_toe"]]
        for frame in above:
            if kind == "ds" and frame == f["front_toe"] and touchdown:
                continue  # in contact
            res = crocoddyl.ResidualModelFrameTranslation(st, self.fid[frame], np.zeros(3), nu)
            act = self._barrier([-BIG, -BIG, 0.0], [BIG, BIG, BIG])
            costs.addCost(f"above_{frame}", crocoddyl.CostModelResidual(st, act, res), w["W_dist"])
        lf = self.spec["foot_length"]
        if kind == "ds":
            front = [c for c in contacts if c[0] == f["front_heel"]]
            res = FootForces(st, nu, front, np.eye(3), lf)
            costs.addCost("front_forces", crocoddyl.CostModelResidual(st, res), w["W_F"])
            rot = crocoddyl.ResidualModelFrameRotation(st, self.fid[f["front_heel"]], np.eye(3), nu)
            act = crocoddyl.ActivationModelWeightedQuad(np.array([0.0, 1.0, 0.0]))
            costs.addCost("flattening", crocoddyl.CostModelResidual(st, act, rot), w["r_a"])
        # contact constraints of the project as barrier penalties: rows of phi (FootForces)
        mu = w["friction"]
        rows, lo, hi = [], [], []
        for k, (frame, _fid, _kind) in enumerate(contacts):
            e = np.zeros((3, 3 * len(contacts)))
            e[:, 3 * k : 3 * k + 3] = np.eye(3)
            Nh, Nt, T = e
            if kind == "ss":
                rows += [Nh, Nt]
                lo += [w["ss_heel_min"], w["ss_toe_min"]]
            else:
                rows += [Nh, Nt]
                lo += [0.0, 0.0]
            hi += [BIG, w["toe_force_max"] if (kind == "ds" and frame == f["front_heel"]) else BIG]
            rows += [mu * (Nh + Nt) - T, mu * (Nh + Nt) + T]
            lo += [0.0, 0.0]
            hi += [BIG, BIG]
        res = FootForces(st, nu, contacts, np.array(rows), lf)
        costs.addCost("contact_bounds", crocoddyl.CostModelResidual(st, self._barrier(lo, hi), res), w["W_barrier"])
        return costs

    def _contacts(self, kind, touchdown):
        """[(name = frame, frame id, "2d" | "6d")] and the ContactModelMultiple."""
        st, nu, f = self.state, self.nu, self.f
        gains = np.asarray(self.w["contact_gains"], float)
        if kind == "ds":
            spec = [(f["rear_toe"], "2d"), (f["front_heel"], "6d" if touchdown else "2d")]
        else:
            spec = [(f["front_heel"], "6d")]
        cm = crocoddyl.ContactModelMultiple(st, nu)
        out = []
        for frame, k in spec:
            fid = self.fid[frame]
            ref = self.refs[frame]  # where the point is on the ground (flat foot: identity rotation)
            if k == "2d":
                c = crocoddyl.ContactModel2D(st, fid, ref[[0, 2]], nu, gains)
            else:
                c = crocoddyl.ContactModel6D(st, fid, pin.SE3(np.eye(3), ref), pin.LOCAL, nu, gains)
            cm.addContact(frame, c)
            out.append((frame, fid, k))
        return out, cm

    def action(self, kind, dt, touchdown=False, extra=()):
        """A running (dt > 0) or terminal (dt = 0) model of phase `kind`; `extra`: (name, cost, weight)."""
        contacts, cm = self._contacts(kind, touchdown)
        costs = self._costs(kind, contacts, touchdown) if dt > 0 else crocoddyl.CostModelSum(self.state, self.nu)
        for name, cost, weight in extra:
            costs.addCost(name, cost, weight)
        dam = crocoddyl.DifferentialActionModelContactFwdDynamics(
            self.state, self.actuation, cm, costs, self.w["damping"], True
        )
        m = crocoddyl.IntegratedActionModelEuler(dam, dt)
        m.u_lb, m.u_ub = self.u_lb, self.u_ub
        m.contacts = contacts
        return m

    def state_cost(self, xref, w_q, w_v):
        st = self.state
        wts = np.r_[np.full(st.nv, w_q), np.full(st.nv, w_v)]
        res = crocoddyl.ResidualModelState(st, np.asarray(xref, float), self.nu)
        return crocoddyl.CostModelResidual(st, crocoddyl.ActivationModelWeightedQuad(wts), res)

    def landing_cost(self, frame):
        """Pitch and pitch rate of `frame` (the foot flat and at rest when its toe lands)."""
        st = self.state
        rot = crocoddyl.ResidualModelFrameRotation(st, self.fid[frame], np.eye(3), self.nu)
        vel = crocoddyl.ResidualModelFrameVelocity(st, self.fid[frame], pin.Motion.Zero(), pin.LOCAL, self.nu)
        a_rot = crocoddyl.ActivationModelWeightedQuad(np.array([0.0, 1.0, 0.0]))
        a_vel = crocoddyl.ActivationModelWeightedQuad(np.array([1.0, 0.0, 1.0, 0.0, 1.0, 0.0]))
        return [crocoddyl.CostModelResidual(st, a_rot, rot), crocoddyl.CostModelResidual(st, a_vel, vel)]


def build_problems(b, spec, boundary, scale):
    """[(problem, phase labels)]: one shooting problem over DS + SS, or (``spec["split"]``) one per
    phase from its exact initial state, the thesis's phase-by-phase structure (Chessé 2002, §III.3.2.8);
    the boundary and contact-bound penalty weights are times `scale` (a continuation in these
    weights, as the thesis's in its penalty factors, Chessé 2002, §II.4.7)."""
    g, f = spec["grid"], spec["frames"]
    x_ds0, x_ds1, x_ss1 = boundary
    b.w = dict(spec["weights"])
    for k in ("W_barrier", "W_boundary", "W_boundary_v"):
        b.w[k] *= scale
    wb, wv = b.w["W_boundary"], b.w["W_boundary_v"]
    k_td = g["k_touchdown"]
    ds = []
    for k in range(g["N_ds"]):
        # the first node of the flat-foot contact: the foot arrives flat and at rest
        extra = [(f"landing_{i}", c, wb) for i, c in enumerate(b.landing_cost(f["front_heel"]))] if k == k_td else []
        ds.append(b.action("ds", g["T_ds"] / g["N_ds"], touchdown=k >= k_td, extra=extra))
    ss = [b.action("ss", g["T_ss"] / g["N_ss"]) for _ in range(g["N_ss"])]
    ss_end = b.action("ss", 0.0, extra=[("ss_end", b.state_cost(x_ss1, wb, wv), 1.0)])
    if spec.get("split"):
        ds_end = b.action("ds", 0.0, touchdown=True, extra=[("ds_end", b.state_cost(x_ds1, wb, wv), 1.0)])
        return [
            (crocoddyl.ShootingProblem(x_ds0, ds, ds_end), ["ds"] * len(ds)),
            (crocoddyl.ShootingProblem(x_ds1, ss, ss_end), ["ss"] * len(ss)),
        ]
    ss[0] = b.action("ss", g["T_ss"] / g["N_ss"], extra=[("ds_end", b.state_cost(x_ds1, wb, wv), 1.0)])
    return [(crocoddyl.ShootingProblem(x_ds0, ds + ss, ss_end), ["ds"] * len(ds) + ["ss"] * len(ss))]


def solve(spec):
    b = Builder(spec)
    g = spec["grid"]
    x_ds0, x_ds1, x_ss1 = (b.state_vector(spec["states"][k]) for k in ("ds0", "ds1", "ss1"))
    f = spec["frames"]
    b.refs = {f[n]: b.placement(x_ds0, f[n]).translation for n in ("rear_toe", "front_heel")}
    checks = {
        k: {f: b.frame_xz(x, f)[0].tolist() for f in spec["frames"].values()}
        for k, x in (("ds0", x_ds0), ("ds1", x_ds1), ("ss1", x_ss1))
    }
    stages = spec.get("stages", [1.0])
    problems = build_problems(b, spec, (x_ds0, x_ds1, x_ss1), stages[0])
    n_ds, n_ss = g["N_ds"], g["N_ss"]
    if spec.get("init"):
        xs = [b.state_vector(s) for s in spec["init"]["states"]]
        us = [np.r_[np.zeros(3), [u[n] for n in b.model.names[4:]]] for u in spec["init"]["torques"]]
    else:  # the boundary states interpolated in time, quasi-static torques
        xs = [x_ds0 + (x_ds1 - x_ds0) * k / n_ds for k in range(n_ds + 1)]
        xs += [x_ds1 + (x_ss1 - x_ds1) * k / n_ss for k in range(1, n_ss + 1)]
        us = []
        for pr, _ in problems:
            k0 = len(us)
            us += [np.clip(u, b.u_lb, b.u_ub) for u in pr.quasiStatic(xs[k0 : k0 + pr.T])]
    iterations, wall, log = 0, 0.0, []
    for stage, scale in enumerate(stages):
        if stage:
            problems = build_problems(b, spec, (x_ds0, x_ds1, x_ss1), scale)
        new_xs, new_us, k0 = [], [], 0
        converged, cost, stop, ds_end = True, 0.0, 0.0, None
        for pr, _ in problems:
            solver = crocoddyl.SolverBoxFDDP(pr)
            solver.th_stop = spec.get("th_stop", 1e-9)
            x_init = [pr.x0] + xs[k0 + 1 : k0 + pr.T + 1]
            t0 = time.perf_counter()
            ok = solver.solve(x_init, us[k0 : k0 + pr.T], spec.get("max_iter", 500), False)
            wall += time.perf_counter() - t0
            converged &= bool(ok)
            iterations += solver.iter
            log.append(
                {"scale": scale, "T": pr.T, "converged": bool(ok), "iterations": int(solver.iter), "cost": solver.cost}
            )
            cost, stop = cost + solver.cost, max(stop, solver.stop)
            if k0 + pr.T < len(us):  # the DS problem of a split: its end state is the SS's x0's target
                new_xs += list(solver.xs)[: pr.T]
                ds_end = np.array(solver.xs[-1])
            else:
                new_xs += list(solver.xs)
            new_us += list(solver.us)
            k0 += pr.T
        xs, us = new_xs, new_us
    sol_x = xs
    models = [(m, d) for pr, _ in problems for m, d in zip(pr.runningModels, pr.runningDatas)]
    phase = [ph for _, labels in problems for ph in labels]
    # ---- the solution, node by node ------------------------------------------------------------
    nodes = []
    for k, (m, d) in enumerate(models):
        x, u = np.array(sol_x[k]), np.array(us[k])
        m.calc(d, x, u)
        dd = d.differential
        forces = {}
        for name, fid, kind in m.contacts:
            r = FootForces(b.state, b.nu, [(name, fid, kind)], np.eye(3), spec["foot_length"])
            rd = r.createData(dd.multibody)
            r.calc(rd, x, u)
            forces[name] = rd.r.tolist()
        weights = {n: c.weight for n, c in m.differential.costs.costs.todict().items()}
        costs = {n: weights[n] * float(c.cost) for n, c in dd.costs.costs.todict().items()}  # l [1/s]
        nodes.append(
            {
                "phase": phase[k],
                "dt": float(m.dt),
                "x": x.tolist(),
                "u": u.tolist(),
                "forces": forces,
                "costs": costs,
                "frames": {f: b.frame_xz(x, f)[0].tolist() for f in spec["frames"].values()},
                "pitch": {f: b.frame_xz(x, f)[1] for f in spec["frames"].values()},
            }
        )
    x_end = np.array(sol_x[-1])
    x_mid = ds_end if ds_end is not None else np.array(sol_x[n_ds])
    return {
        "converged": bool(converged),
        "iterations": int(iterations),
        "stages": log,
        "cost": float(cost),
        "wall_s": wall,
        "stop": float(stop),
        "joint_names": list(b.model.names[4:]),
        "nodes": nodes,
        "x_end": x_end.tolist(),
        "x_ds_end": x_mid.tolist(),
        "x_ds1": x_ds1.tolist(),
        "x_ss1": x_ss1.tolist(),
        "x_ds0": x_ds0.tolist(),
        "checks": checks,
        "n_ds": g["N_ds"],
    }


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0]) as fh:
        spec = json.load(fh)
    out = solve(spec)
    with open(argv[1], "w") as fh:
        json.dump(out, fh)
    print(
        f"crocoddyl: converged {out['converged']}, {out['iterations']} iterations, cost {out['cost']:.6g}, "
        f"{out['wall_s']:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
