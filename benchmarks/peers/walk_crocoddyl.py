"""The Crocoddyl peer of ``benchmarks/dynamic_walk.py --crocoddyl``: the same walk (HRP-2's URDF, the
plan's footsteps, the same phase durations and swing paths) solved as whole-body optimal control by
Crocoddyl's FDDP, run in ``.venv-crocoddyl`` (``make venv-crocoddyl``) as a subprocess:

    .venv-crocoddyl/bin/python benchmarks/peers/walk_crocoddyl.py SPEC.json RESULT.json

SPEC (written by ``benchmarks/peers/walk_problem.py``): the URDF, the start's joint angles by name and
base pose, the knot step, and per knot the soles held (link frame and its placement) and the soles
swinging (their placement on our swing path), our planned centre of mass, the floor's friction, the
cost weights and the iteration limit. The problem follows Crocoddyl's own biped walking example
(``SimpleBipedGaitProblem``): 6-D contacts for the held soles with Baumgarte gains, a linearised
friction cone as a quadratic barrier, swing-foot placement and centre-of-mass tracking, state and
control regularisation, forward Euler, FDDP from the standing state (cold start, quasi-static
controls). RESULT: the solve's time, iterations, stop criterion and cost, the centre of mass at the
knots, the largest swing-foot and held-foot placement errors, the largest torque over the URDF's
effort limit and the largest friction-cone violation.
"""

from __future__ import annotations

import json
import sys
import time

import crocoddyl
import numpy as np
import pinocchio as pin


def _se3(m) -> pin.SE3:
    m = np.asarray(m, float)
    return pin.SE3(m[:3, :3], m[:3, 3])


def _model(spec):
    model = pin.buildModelFromUrdf(spec["urdf"], pin.JointModelFreeFlyer())
    q = pin.neutral(model)
    base = np.asarray(spec["base"], float)  # x y z qx qy qz qw
    q[:7] = base
    for name, value in spec["joints"].items():
        j = model.joints[model.getJointId(name)]
        q[j.idx_q] = value
    return model, q


class Walk:
    def __init__(self, spec):
        self.spec = spec
        self.model, self.q0 = _model(spec)
        self.state = crocoddyl.StateMultibody(self.model)
        self.actuation = crocoddyl.ActuationModelFloatingBase(self.state)
        self.nu = self.actuation.nu
        self.x0 = np.concatenate([self.q0, np.zeros(self.model.nv)])
        self.w = spec["weights"]
        self.fid = {f: self.model.getFrameId(f) for f in spec["frames"]}
        self.cones = {}  # (knot, frame) -> the friction cone's upper bounds (its rows A f <= ub)

    def _state_cost(self):
        nv = self.model.nv
        w = np.concatenate([np.zeros(3), np.full(3, 500.0), np.full(nv - 6, 0.01), np.full(nv, 10.0)])
        res = crocoddyl.ResidualModelState(self.state, self.x0, self.nu)
        return crocoddyl.CostModelResidual(self.state, crocoddyl.ActivationModelWeightedQuad(w**2), res)

    def knot(self, k, terminal=False):
        st, nu, w = self.state, self.nu, self.w
        knot = self.spec["knots"][k]
        contacts = crocoddyl.ContactModelMultiple(st, nu)
        costs = crocoddyl.CostModelSum(st, nu)
        for c in knot["held"]:
            fid = self.fid[c["frame"]]
            placement = _se3(c["placement"])
            gains = np.asarray(self.spec["contact_gains"], float)
            contacts.addContact(
                c["frame"], crocoddyl.ContactModel6D(st, fid, placement, pin.LOCAL_WORLD_ALIGNED, nu, gains)
            )
            cone = crocoddyl.FrictionCone(placement.rotation, self.spec["friction"], 4, True)
            self.cones[(k, c["frame"])] = np.array(cone.ub)
            res = crocoddyl.ResidualModelContactFrictionCone(st, fid, cone, nu)
            act = crocoddyl.ActivationModelQuadraticBarrier(crocoddyl.ActivationBounds(cone.lb, cone.ub))
            costs.addCost(f"cone_{c['frame']}", crocoddyl.CostModelResidual(st, act, res), w["cone"])
        for s in knot["swing"]:
            res = crocoddyl.ResidualModelFramePlacement(st, self.fid[s["frame"]], _se3(s["placement"]), nu)
            costs.addCost(f"swing_{s['frame']}", crocoddyl.CostModelResidual(st, res), w["swing"])
        com = crocoddyl.ResidualModelCoMPosition(st, np.asarray(knot["com"], float), nu)
        costs.addCost("com", crocoddyl.CostModelResidual(st, com), w["com"])
        costs.addCost("state", self._state_cost(), w["state"])
        if not terminal:
            control = crocoddyl.ResidualModelControl(st, nu)
            costs.addCost("control", crocoddyl.CostModelResidual(st, control), w["control"])
        for s in knot.get("touchdown", []):  # the sole lands at this knot: at rest (Crocoddyl's pseudo-impulse)
            res = crocoddyl.ResidualModelFrameVelocity(st, self.fid[s], pin.Motion.Zero(), pin.LOCAL_WORLD_ALIGNED, nu)
            costs.addCost(f"touchdown_{s}", crocoddyl.CostModelResidual(st, res), w["touchdown"])
        dam = crocoddyl.DifferentialActionModelContactFwdDynamics(st, self.actuation, contacts, costs, 0.0, True)
        effort = self.model.effortLimit[6:]
        dam.u_lb, dam.u_ub = -effort, effort  # the URDF's efforts: BoxFDDP keeps the torques inside
        return crocoddyl.IntegratedActionModelEuler(dam, 0.0 if terminal else self.spec["dt"])

    def solve(self):
        n = len(self.spec["knots"])
        running = [self.knot(k) for k in range(n - 1)]
        problem = crocoddyl.ShootingProblem(self.x0, running, self.knot(n - 1, terminal=True))
        solver = crocoddyl.SolverBoxFDDP(problem)
        xs = [self.x0] * (n)
        us = problem.quasiStatic([self.x0] * (n - 1))
        start = time.perf_counter()
        solver.solve(xs, us, int(self.spec["max_iter"]), False)
        seconds = time.perf_counter() - start
        return solver, seconds

    def measure(self, solver, seconds):
        model, data = self.model, self.model.createData()
        com, swing_err, held_err, cone = [], 0.0, 0.0, 0.0
        for k, x in enumerate(solver.xs):
            q = x[: model.nq]
            com.append(pin.centerOfMass(model, data, q).tolist())
            pin.framesForwardKinematics(model, data, q)
            knot = self.spec["knots"][k]
            for c in knot["held"]:
                err = np.linalg.norm(data.oMf[self.fid[c["frame"]]].translation - _se3(c["placement"]).translation)
                held_err = max(held_err, float(err))
            for s in knot["swing"]:
                err = np.linalg.norm(data.oMf[self.fid[s["frame"]]].translation - _se3(s["placement"]).translation)
                swing_err = max(swing_err, float(err))
        effort = model.effortLimit[6:]
        torque = max(float(np.max(np.abs(u) / effort)) for u in solver.us)
        for k, d in enumerate(solver.problem.runningDatas):
            for name, cost in d.differential.costs.costs.todict().items():
                if name.startswith("cone_"):
                    over = np.asarray(cost.residual.r) - self.cones[(k, name[len("cone_") :])]
                    cone = max(cone, float(np.max(over, initial=0.0)))
        return {
            "seconds": seconds,
            "iterations": int(solver.iter),
            "stop": float(solver.stop),
            "cost": float(solver.cost),
            "feasible": bool(solver.isFeasible),
            "com": com,
            "swing_error": swing_err,
            "held_error": held_err,
            "torque_ratio": torque,
            "cone_residual": cone,
        }


def main(argv) -> int:
    with open(argv[1]) as fh:
        spec = json.load(fh)
    walk = Walk(spec)
    solver, seconds = walk.solve()
    with open(argv[2], "w") as fh:
        json.dump(walk.measure(solver, seconds), fh)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
