"""Full simulator step on HRP-2 standing (issue 3 benchmarks; spec ../shared/spec/000_chardonnet.md
§6.2 E2/E3): median step time, stage split, solver swap, and a peer loop without collision.

    .venv/bin/python benchmarks/sim_step.py [--steps 1000] [--reps 5] [--json OUT.json]

Cases (scene 'flat', HRP-2 half-sitting held by the World's PD, dt = 1 ms, default collision
pair set, the robot settled for 300 steps first):
  8 points   the 4 sole corners per foot (coal contact patches);
  16 points  + 4 perimeter points per sole (`World(patch_points=8)`, the thesis's 16-point
             standing set, spec :668).
Solvers: nsgs_newton (default), nsgs, pinocchio_admm, pinocchio_pgs (the same pipeline with only
the solver swapped). Peer: "pin loop" = a plain Python loop on Pinocchio calls without collision
detection, the shape of ../shared/peers/w1_standing.py (crba, nonLinearEffects, Cholesky, fixed
sole-corner Jacobians, dense G = J M⁻¹ Jᵀ, pin.ADMMConstraintSolver / PGSConstraintSolver,
integrate), with the same robot, gains and implicit PD damping, 8 points.
All configurations run interleaved in every repetition (the machine is noisy); the table gives
the median over repetitions of each repetition's median step time, and ratios to the pin-loop
ADMM step measured in the same repetition. Stage times are per-step medians [µs] (they need
not add up to the median step).
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pinocchio as pin  # noqa: E402

from humanoid_sim.world import STAGES, World  # noqa: E402

DT = 1e-3


def make_world(points, solver):
    w = World.from_scene("flat", solver=solver, dt=DT, patch_points=points)
    w.step(300)
    return w


def run_world(w, steps):
    w.stage_time = dict.fromkeys(STAGES, 0.0)
    w.steps, w.step_times, w.stats_iterations = 0, [], []
    w.stage_samples = []
    w.step(steps)
    s = w.stats()
    med = np.median(np.array(w.stage_samples), axis=0)
    return {"median_us": 1e6 * s["median_step_time"],
            "stages_us": {k: 1e6 * float(v) for k, v in zip(STAGES, med)},
            "iterations": s["iterations_total"] / steps, "contacts": int(w.last["batch"].m)}


class PinLoop:
    """Peer: Pinocchio-only loop, 8 fixed sole corners, no collision detection."""

    def __init__(self, world, solver):
        m = pin.Model(world.model)
        self.model, self.data = m, m.createData()
        act = world.actuator
        self.kp = np.zeros(m.nv)
        self.kd = np.zeros(m.nv)
        self.kp[6:], self.kd[6:] = act.kp, act.kv
        m.armature = world.arm0 + DT * self.kd
        self.qref = world.q0.copy()
        self.q0 = world.q0.copy()
        rob = world.robot
        self.feet, corners = [], []
        for name in ("r_sole", "l_sole"):
            loc = rob.contact_locations[name]
            fr = m.frames[m.getFrameId(loc.body)]
            self.feet.append(fr.parentJoint)
            corners.append(np.array([fr.placement.act(p) for p in loc.hull]))
        self.corners = corners
        self.A = [np.vstack([np.hstack([np.eye(3), -pin.skew(c)]) for c in cs]) for cs in corners]
        self.cms = pin.StdVec_ConstraintModel()
        for jid in self.feet:
            for c in range(4):
                cm = pin.PointContactConstraintModel(m, 0, pin.SE3.Identity(), jid, pin.SE3.Identity())
                cm.setFriction(0.4)
                self.cms.append(cm)
        self.cds = pin.StdVec_ConstraintData()
        for cm in self.cms:
            self.cds.append(cm.createData())
        n = 3 * len(self.cms)
        if solver == "admm":
            self.solver, self.settings, self.result = (pin.ADMMConstraintSolver(n), pin.ADMMSolverSettings(),
                                                       pin.ADMMSolverResult())
        else:
            self.solver, self.settings, self.result = (pin.PGSConstraintSolver(n), pin.PGSSolverSettings(),
                                                       pin.PGSSolverResult())

    def run(self, steps):
        m, d = self.model, self.data
        q, v = self.q0.copy(), np.zeros(m.nv)
        lam = np.zeros(3 * len(self.cms))
        times = []
        for _ in range(steps):
            t0 = time.perf_counter()
            tau = self.kp * pin.difference(m, q, self.qref) - self.kd * v
            tau[:6] = 0.0
            pin.computeJointJacobians(m, d, q)
            pin.crba(m, d, q)
            b = pin.nonLinearEffects(m, d, q, v)
            pin.cholesky.decompose(m, d)
            vf = v + DT * pin.cholesky.solve(m, d, tau - b)
            blocks, gaps = [], []
            for j, A, cs in zip(self.feet, self.A, self.corners):
                R = d.oMi[j].rotation
                local = (A @ pin.getJointJacobian(m, d, j, pin.LOCAL)).reshape(4, 3, -1)
                blocks.append(R @ local)
                gaps.append(d.oMi[j].translation[2] + cs @ R[2])
            J = np.concatenate(blocks).reshape(-1, m.nv)
            gaps = np.concatenate(gaps)
            MinvJt = pin.cholesky.computeMinv(m, d) @ J.T
            G = J @ MinvJt
            g = J @ vf
            g[2::3] += np.where(gaps > 0, gaps, 0.2 * gaps) / DT
            self.result.setConstraintImpulseGuess(lam)
            self.solver.solve(pin.DelassusOperatorDense(G), g, self.cms, self.cds, self.settings, self.result)
            lam = self.result.retrieveConstraintImpulses()
            v = vf + MinvJt @ lam
            q = pin.integrate(m, q, v * DT)
            times.append(time.perf_counter() - t0)
        return {"median_us": 1e6 * statistics.median(times)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    configs = {}
    for pts, label in ((0, "8 points"), (8, "16 points")):
        for solver in ("nsgs_newton", "nsgs", "pinocchio_admm", "pinocchio_pgs"):
            configs[f"{label}, {solver}"] = make_world(pts, solver)
    base_world = configs["8 points, nsgs_newton"]
    peers = {"pin loop (no collision), ADMM, 8 points": PinLoop(base_world, "admm"),
             "pin loop (no collision), PGS, 8 points": PinLoop(base_world, "pgs")}
    rows = {k: [] for k in list(configs) + list(peers)}
    for rep in range(args.reps):
        for k, w in configs.items():
            rows[k].append(run_world(w, args.steps))
        for k, p in peers.items():
            p.run(50)
            rows[k].append(p.run(args.steps))
        print(f"repetition {rep + 1}/{args.reps} done", file=sys.stderr)
    ref = "pin loop (no collision), ADMM, 8 points"
    out = {}
    for k, rs in rows.items():
        med = statistics.median(r["median_us"] for r in rs)
        ratio = statistics.median(r["median_us"] / rr["median_us"] for r, rr in zip(rs, rows[ref]))
        o = {"median_us": med, "ratio_to_pin_admm_loop": ratio}
        if "stages_us" in rs[0]:
            o["stages_us"] = {s: statistics.median(r["stages_us"][s] for r in rs) for s in STAGES}
            o["iterations_per_step"] = statistics.median(r["iterations"] for r in rs)
            o["contacts"] = rs[0]["contacts"]
        out[k] = o
    print("| configuration | contacts | median step [µs] | / pin-loop ADMM | "
          + " | ".join(STAGES) + " | solver iterations/step |")
    print("|---|---|---|---|" + "---|" * len(STAGES) + "---|")
    for k, o in out.items():
        st = o.get("stages_us")
        cells = [f"{st[s]:.1f}" for s in STAGES] if st else ["-"] * len(STAGES)
        print(f"| {k} | {o.get('contacts', 8)} | {o['median_us']:.1f} | {o['ratio_to_pin_admm_loop']:.2f} | "
              + " | ".join(cells) + f" | {o.get('iterations_per_step', float('nan')):.1f} |")
    try:
        import mujoco  # noqa: F401
        print("MuJoCo is installed but not wired into this benchmark yet.")
    except ImportError:
        print("MuJoCo not installed: no MuJoCo row (optional extra).")
    doc = {"benchmark": "sim_step", "steps": args.steps, "reps": args.reps, "results": out}
    print(json.dumps(doc))
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
