"""Benchmark of the posture generator's full solve (issue 9): SciPy SLSQP (`solver.solve`, the
choice) against IPOPT through casadi with the same numeric callbacks (values and analytic
Jacobians from `PostureProblem`, limited-memory Hessian), on HRP-2 standing on the flat floor
with both soles in strong contact, the CoM in the support polygon and the reference-posture
criterion (4.11) (the problems of test/test_posture_solver.py):

  hand      the right hand at (0.35, -0.3, 0.9) m
  foot      A9: the right sole sent 5 cm forward, 2 cm out, turned 0.2 rad
  far hand  the right hand 3 m further: unsatisfiable

Both start from half-sitting (its inequalities hold: no phase 1). IPOPT's options (chosen):
tol 1e-8, constr_viol_tol 1e-6 (the solver's tolerance), max_iter 100 (solver.py), no output.

Run:  .venv/bin/python benchmarks/posture_solvers.py [--repeats 20]
Timings are wall-clock on whatever machine runs it (not a test); OpenBLAS single-threaded.
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # single-threaded, as solve() runs itself

import argparse  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import casadi as ca  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from humanoid_model import load_robot  # noqa: E402
from humanoid_model.scene import load_scene  # noqa: E402
from humanoid_planner.posture import EnvironmentFrame, FramePosition  # noqa: E402
from humanoid_planner.posture.criterion import ReferencePosture  # noqa: E402
from humanoid_planner.posture.problem import PostureProblem  # noqa: E402
from humanoid_planner.posture.solver import SolverSettings, solve  # noqa: E402
from humanoid_planner.posture.stance import contacts_at, stance_constraints  # noqa: E402


class _Numeric(ca.Callback):
    """A casadi function x (n,) -> fn(x) (m,) with the Jacobian callback jac(x) (m, n)."""

    def __init__(self, name, n, m, fn, jac=None):
        ca.Callback.__init__(self)
        self.n, self.m, self.fn, self.jac = n, m, fn, jac
        self._refs = []
        self.construct(name, {})

    def get_n_in(self):
        return 1 if self.jac is not None else 2

    def get_n_out(self):
        return 1

    def get_sparsity_in(self, i):
        return ca.Sparsity.dense(self.n if i == 0 else self.m, 1)

    def get_sparsity_out(self, i):
        return ca.Sparsity.dense(self.m, 1) if self.jac is not None else ca.Sparsity.dense(self.m, self.n)

    def eval(self, arg):
        return [self.fn(np.asarray(arg[0]).ravel())]

    def has_jacobian(self):
        return self.jac is not None

    def get_jacobian(self, name, inames, onames, opts):
        J = _Numeric(name, self.n, self.m, self.jac)
        self._refs.append(J)
        return J


def ipopt_solve(pb: PostureProblem, max_iter=100):
    n, eq = pb.model.nv, pb.equality
    f = _Numeric("f", n, 1, lambda x: pb.at(x).f, lambda x: pb.at(x).g[None])
    g = _Numeric("g", n, pb.dim, lambda x: pb.at(x).c, lambda x: pb.at(x).J)
    X = ca.MX.sym("x", n)
    opts = {
        "ipopt.print_level": 0,
        "print_time": False,
        "ipopt.hessian_approximation": "limited-memory",
        "ipopt.tol": 1e-8,
        "ipopt.constr_viol_tol": 1e-6,
        "ipopt.max_iter": max_iter,
    }
    solver = ca.nlpsol("pg", "ipopt", {"x": X, "f": f(X), "g": g(X)}, opts)
    big = 1e19
    lbx = np.where(np.isfinite(pb.lower), pb.lower, -big)
    ubx = np.where(np.isfinite(pb.upper), pb.upper, big)
    t = time.perf_counter()
    sol = solver(x0=np.zeros(n), lbx=lbx, ubx=ubx, lbg=np.where(eq, 0.0, -big), ubg=np.zeros(pb.dim))
    dt = time.perf_counter() - t
    x = np.asarray(sol["x"]).ravel()
    st = solver.stats()
    viol = float(pb.violations(pb.at(x).c).max())
    return dt, st["return_status"], st["iter_count"], viol, (f, g, solver)


def problems(robot, floor):
    m = robot.model
    standing = contacts_at(m, robot.contact_locations, robot.q(), ["r_sole", "l_sole"], floor)
    point = robot.contact_locations["r_hand"].point
    e1, e2, _ = floor.rotation.T
    rel = standing[0][1].point - floor.centroid
    moved = EnvironmentFrame.on_surface(floor, rel @ e1 + 0.05, rel @ e2 - 0.02, 0.2)
    cases = {
        "hand": (standing, [FramePosition(m, "RARM_LINK5", [0.35, -0.3, 0.9], point=point, name="hand")]),
        "foot (A9)": ([("r_sole", moved, floor), standing[1]], []),
        "far hand": (standing, [FramePosition(m, "RARM_LINK5", [3.35, -0.3, 0.9], point=point, name="hand")]),
    }
    for name, (contacts, tasks) in cases.items():
        cons = stance_constraints(m, robot.contact_locations, contacts) + tasks
        yield name, lambda cons=cons: PostureProblem(m, cons, robot.q(), ReferencePosture(m))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args(argv)
    robot = load_robot("hrp2")
    floor = load_scene("flat").surface("floor")
    print(f"# posture solvers on HRP-2, {platform.processor() or platform.machine()}, {args.repeats} repeats, median")
    print("| problem | solver | outcome | iterations | evaluations | max violation | time [ms] |")
    print("|---|---|---|---|---|---|---|")
    s = SolverSettings()
    for name, make in problems(robot, floor):
        times, last = [], None
        for _ in range(args.repeats):
            pb = make()
            t = time.perf_counter()
            last = solve(pb, s)
            times.append(time.perf_counter() - t)
        ev = pb.evaluations
        print(
            f"| {name} | SLSQP | {last.outcome.name} | {last.iterations} | {ev} | "
            f"{last.max_violation:.1e} | {1e3 * np.median(times):.1f} |"
        )
        times = []
        for _ in range(args.repeats):
            pb = make()
            dt, status, it, viol, _keep = ipopt_solve(pb, s.max_iterations)
            times.append(dt)
        print(f"| {name} | IPOPT | {status} | {it} | {pb.evaluations} | {viol:.1e} | {1e3 * np.median(times):.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
