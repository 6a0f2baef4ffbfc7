"""Benchmarks of the posture generator, five sections (all by default):

--solvers     the full solve, SciPy SLSQP (`solver.solve`, the choice) against IPOPT (below);
--projection  the projection alone (`newton_projection.NewtonProjector`: feet, CoM, hand, no criterion) on the
              common IK problem (benchmarks/peers/ik_problem.py: its 100 seeded starts, its
              independent Pinocchio check; benchmarks/peers/projection_problem.py), beside HPP in the
              same run: benchmarks/peers/projection_hpp.py run by HPP's interpreter (``--hpp-python``,
              else $HPP_PYTHON, else ``.venv-hpp/bin/python`` when it exists); without HPP its row
              says "skipped" and how to install it (benchmarks/README.md);
--calls       the posture-generator call-time distribution by outcome code (Escande 2008, §7.5.2,
              Table 7.1; acceptance test 001 A24), every call of the contact planner's 0.8 m walk
              (benchmarks/contact_walk.py's problem, VBFP and BFP) recorded by
              `call_log.recording`, plus the standalone problems of --solvers;
--collision   the fridge reach (Escande 2008, §4.6; test/planner/posture/test_posture_collision.py) with
              capsules and with STP-BVs, direct and two-stage solves;
--slsqp       SLSQP's two paths (posture/solver/slsqp.py): SciPy's private routine driven directly (the
              fast path, when its import-time check passed) and scipy.optimize.minimize(method="SLSQP")
              (the public path), alternated in one run: the full solve of the --solvers problems, and
              every posture-generator call of the contact planner's 0.8 m walk (VBFP and BFP).

--solvers: SLSQP against IPOPT through casadi with the same numeric callbacks (values and
analytic Jacobians from `PostureProblem`, limited-memory Hessian), on HRP-2 standing on the flat
floor with both soles in strong contact, the CoM in the support polygon and the reference-posture
criterion (4.11) (the problems of test/planner/posture/test_posture_solver.py):

  hand      the right hand at (0.35, -0.3, 0.9) m
  foot      a strong contact moved (Escande 2008, §3.4.1): the right sole sent 5 cm forward, 2 cm out, turned 0.2 rad
  far hand  the right hand 3 m further: unsatisfiable

Both start from half-sitting (its inequalities hold: no phase 1). IPOPT's options (chosen):
tol 1e-8, constr_viol_tol 1e-6 (the solver's tolerance), max_iter 100 (posture/solver/two_phase.py), no output.

Run:  .venv/bin/python benchmarks/posture_solvers.py [--repeats 20] [--solvers] [--projection]
      [--calls] [--collision] [--slsqp] [--hpp-python .venv-hpp/bin/python] [--json OUT.json]
Timings are wall-clock on whatever machine runs it (not a test); OpenBLAS single-threaded.
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # single-threaded, as solve() runs itself

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import casadi as ca  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from benchmarks.peers import ik_problem, run_peer  # noqa: E402
from benchmarks.peers.projection_problem import CommonProblem  # noqa: E402
from humanoid_model import load_robot  # noqa: E402
from humanoid_model.scene import load_scene  # noqa: E402
from humanoid_planner.posture import EnvironmentFrame, FramePosition  # noqa: E402
from humanoid_planner.posture.criteria.reference_posture import ReferencePosture  # noqa: E402
from humanoid_planner.posture.problem import PostureProblem  # noqa: E402
from humanoid_planner.posture.solver.two_phase import PostureSolverSettings, solve  # noqa: E402
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
        "foot": ([("r_sole", moved, floor), standing[1]], []),
        "far hand": (standing, [FramePosition(m, "RARM_LINK5", [3.35, -0.3, 0.9], point=point, name="hand")]),
    }
    for name, (contacts, tasks) in cases.items():
        cons = stance_constraints(m, robot.contact_locations, contacts) + tasks
        yield name, lambda cons=cons: PostureProblem(m, cons, robot.q(), ReferencePosture(m))


def solvers_table(robot, floor, repeats):
    """Print the SLSQP/IPOPT table; return {problem: {solver: median time [ms]}}."""
    out = {}
    print(f"# posture solvers on HRP-2, {platform.processor() or platform.machine()}, {repeats} repeats, median")
    print("| problem | solver | outcome | iterations | evaluations | max violation | time [ms] |")
    print("|---|---|---|---|---|---|---|")
    s = PostureSolverSettings()
    for name, make in problems(robot, floor):
        times, last = [], None
        for _ in range(repeats):
            pb = make()
            t = time.perf_counter()
            last = solve(pb, s)
            times.append(time.perf_counter() - t)
        ev = pb.evaluations
        out[name] = {"SLSQP": 1e3 * float(np.median(times))}
        print(
            f"| {name} | SLSQP | {last.outcome.name} | {last.iterations} | {ev} | "
            f"{last.max_violation:.1e} | {out[name]['SLSQP']:.1f} |"
        )
        times = []
        for _ in range(repeats):
            pb = make()
            dt, status, it, viol, _keep = ipopt_solve(pb, s.max_iterations)
            times.append(dt)
        out[name]["IPOPT"] = 1e3 * float(np.median(times))
        print(f"| {name} | IPOPT | {status} | {it} | {pb.evaluations} | {viol:.1e} | {out[name]['IPOPT']:.1f} |")
        out[name]["SLSQP/IPOPT"] = out[name]["SLSQP"] / out[name]["IPOPT"]
    return out


def projection_table(robot, floor, hpp_python=None):
    """Our projection on the common IK problem, then HPP's, measured in the same run; HPP's
    interpreter ``hpp_python`` (None: $HPP_PYTHON, else ``.venv-hpp/bin/python`` if it exists).
    Returns the median times [ms] by row ("built once 1e-06", "per call 1e-06", ..., "HPP" when it ran)."""
    from humanoid_planner.posture import NewtonProjectionSettings, NewtonProjector, newton_project

    common = CommonProblem(robot, floor)
    m = robot.model
    out = {}
    print(f"\n# projection on the common IK problem (HRP-2, {ik_problem.STARTS} seeded starts, its independent check)")
    print("| solver | tolerance | success (check) | iterations median / max | time median [ms] | p90 [ms] |")
    print("|---|---|---|---|---|---|")
    for tol in (1e-6, 1e-4):
        for prebuilt in (True, False):
            settings = NewtonProjectionSettings(tolerance=tol)
            proj = NewtonProjector(m, common.constraints(), settings)
            proj.run(common.q0)  # warm-up
            times, its, ok = [], [], 0
            for trial in range(ik_problem.STARTS):
                q = ik_problem.random_start(m, common.q0, trial)
                t = time.perf_counter()
                res = proj.run(q) if prebuilt else newton_project(m, common.constraints(), q, settings)
                times.append(time.perf_counter() - t)
                its.append(res.iterations)
                ok += bool(res.success and common.check(res.q))
            label = "ours, NewtonProjector built once" if prebuilt else "ours, built per call"
            out[f"{'built once' if prebuilt else 'per call'} {tol:g}"] = 1e3 * float(np.median(times))
            print(
                f"| {label} | {tol:g} | {ok}/{ik_problem.STARTS} | {np.median(its):.0f} / {max(its)} | "
                f"{1e3 * np.median(times):.3f} | {1e3 * np.percentile(times, 90):.3f} |"
            )
    hpp_python = hpp_python or run_peer.interpreter("HPP_PYTHON", ".venv-hpp")
    peer = run_peer.run("hpp", "projection_hpp.py", hpp_python, ["--starts", ik_problem.STARTS])
    print(hpp_row(peer))
    if "rows" in peer:
        out["HPP"] = peer["rows"][0]["projection_ms"]
        out["built once 0.0001 / HPP"] = out["built once 0.0001"] / out["HPP"]
    out["built once 1e-06 / per call"] = out["built once 1e-06"] / out["per call 1e-06"]
    return out


def hpp_row(result: dict) -> str:
    """The projection table's HPP row from the runner's ``result`` (benchmarks/peers/run_peer.py)."""
    if "skipped" in result:
        return f"| HPP | skipped: {result['skipped']} | | | | |"
    if "failed" in result:
        return f"| HPP | failed: {result['failed']} | | | | |"
    r = result["rows"][0]
    return (
        f"| HPP {result['versions']['hpp-core']} (same run) | {r['threshold']:g} | {r['projections']} | "
        f"{r['iterations']:.0f} / {r['iterations_max']} | {r['projection_ms']:.3f} | {r['projection_ms_p90']:.3f} |"
    )


def calls_table(robot, floor):
    from contact_walk import run as walk

    from humanoid_planner.posture import CallLog, recording

    log = CallLog()
    with recording(log):
        for alg in ("vbfp", "bfp"):
            walk(robot, floor, 0.8, alg, 6)
        for _, make in problems(robot, floor):
            for _ in range(5):
                solve(make(), label="standalone")
    print("\n# posture-generator calls by outcome code (Table 7.1; 0.8 m walk VBFP + BFP, standalone problems)")
    print(
        "| code | outcome | calls | median wall [ms] | median CPU [ms] | mean wall [ms] | total wall [s] "
        "| iterations median |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for outcome, n, mean, total in log.histogram():
        med, cpu = 1e3 * np.median(log.times(outcome)), 1e3 * np.median(log.times(outcome, cpu=True))
        its = np.median([c.phase1_iterations + c.iterations for c in log.calls if c.outcome == outcome])
        print(
            f"| {int(outcome)} | {outcome.name} | {n} | {med:.1f} | {cpu:.1f} | {1e3 * mean:.1f} | {total:.2f} "
            f"| {its:.0f} |"
        )
    for label in ("planner", "standalone"):
        sel = [c for c in log.calls if c.outcome == 0 and (c.label == "standalone") == (label == "standalone")]
        print(
            f"{label} successes: {len(sel)}, median wall {1e3 * np.median([c.time for c in sel]):.1f} ms, "
            f"median CPU {1e3 * np.median([c.cpu_time for c in sel]):.1f} ms"
        )


def collision_table(robot, floor):
    import test_posture_collision as fridge  # the fridge scene of the tests (Escande 2008, §4.6)

    from humanoid_planner.posture import (
        EnvironmentCollision,
        PostureProblem,
        SelfCollision,
        StpEnvironmentCollision,
        StpSelfCollision,
        solve_avoiding,
    )

    m = robot.model
    standing = contacts_at(m, robot.contact_locations, robot.q(), ["r_sole", "l_sole"], floor)
    hand = FramePosition(m, "RARM_LINK5", fridge.TARGET, point=robot.contact_locations["r_hand"].point, name="hand")
    base = stance_constraints(m, robot.contact_locations, standing) + [hand]
    boxes = fridge._fridge()
    volumes = {
        "capsules": [
            SelfCollision(m, robot.collision_model, robot.q()),
            EnvironmentCollision(m, boxes, robot.collision_model),
        ],
        "STP-BV": [
            StpSelfCollision(m, robot.collision_model, robot.q()),
            StpEnvironmentCollision(m, boxes, robot.collision_model),
        ],
    }
    print("\n# fridge reach with capsules and STP-BVs")
    print("| volumes | solve | outcome | iterations (phase 1 + 2) | criterion | time [s] | geometry clearance [m] |")
    print("|---|---|---|---|---|---|---|")
    for name, coll in volumes.items():
        for how in ("two-stage", "direct (stall rule off, 200 it.)"):
            t = time.perf_counter()
            if how == "two-stage":
                res = solve_avoiding(m, base, coll, robot.q(), ReferencePosture(m))
            else:
                s = PostureSolverSettings(max_iterations=200, stall_iterations=1000)
                res = solve(PostureProblem(m, base + coll, robot.q(), ReferencePosture(m)), s)
            dt = time.perf_counter() - t
            dmin, _ = fridge._geometry_distances(robot, res.q, boxes)
            print(
                f"| {name} | {how} | {res.outcome.name} | {res.phase1_iterations} + {res.iterations} | "
                f"{res.criterion:.6f} | {dt:.2f} | {dmin:.4f} |"
            )


def slsqp_paths_table(robot, floor, repeats):
    """The fast and the public SLSQP path (posture/solver/slsqp.py), alternated per repeat: the
    full solve of each --solvers problem (median wall and CPU time), and the 0.8 m walk's
    posture-generator calls (median CPU time of a call over every repeat's calls, median of each
    walk's summed call CPU time; ``repeats // 4`` walks per path, at least 2, after one warm-up)."""
    from contextlib import nullcontext

    from contact_walk import run as walk

    from humanoid_planner.posture import CallLog, recording
    from humanoid_planner.posture.solver import slsqp

    paths = [slsqp.FAST, slsqp.PUBLIC] if slsqp.ROUTINE is not None else [slsqp.PUBLIC]

    def on(path):
        return slsqp.public_path() if path == slsqp.PUBLIC else nullcontext()

    print(f"\n# SLSQP paths, {platform.processor() or platform.machine()}, the import-time check chose: {slsqp.PATH}")
    print("| problem | path | outcome | iterations (phase 1 + 2) | runs | wall median [ms] | CPU median [ms] |")
    print("|---|---|---|---|---|---|---|")
    s = PostureSolverSettings()
    for name, make in problems(robot, floor):
        wall, cpu, last = {p: [] for p in paths}, {p: [] for p in paths}, {}
        for _ in range(repeats):
            for path in paths:
                pb = make()
                with on(path):
                    t = time.perf_counter()
                    last[path] = solve(pb, s)
                wall[path].append(time.perf_counter() - t)
                cpu[path].append(last[path].cpu_time)
        for path in paths:
            r = last[path]
            print(
                f"| {name} | {path} | {r.outcome.name} | {r.phase1_iterations} + {r.iterations} | {repeats} | "
                f"{1e3 * np.median(wall[path]):.2f} | {1e3 * np.median(cpu[path]):.2f} |"
            )
    walks = max(2, repeats // 4)
    print("\n| 0.8 m walk | path | plan found | walks | PG calls | call CPU median [ms] | walk's PG CPU median [s] |")
    print("|---|---|---|---|---|---|---|")
    for alg in ("vbfp", "bfp"):
        walk(robot, floor, 0.8, alg, 6)  # warm-up (numba's caches, the first createData)
        calls, totals, found, counts = {p: [] for p in paths}, {p: [] for p in paths}, {}, {}
        for _ in range(walks):
            for path in paths:
                log = CallLog()
                with on(path), recording(log):
                    found[path] = walk(robot, floor, 0.8, alg, 6).success
                calls[path] += [c.cpu_time for c in log.calls]
                totals[path].append(sum(c.cpu_time for c in log.calls))
                counts[path] = len(log.calls)
        for path in paths:
            print(
                f"| {alg} | {path} | {found[path]} | {walks} | {counts[path]} | {1e3 * np.median(calls[path]):.2f} | "
                f"{np.median(totals[path]):.3f} |"
            )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--solvers", action="store_true")
    ap.add_argument("--projection", action="store_true")
    ap.add_argument("--calls", action="store_true")
    ap.add_argument("--collision", action="store_true")
    ap.add_argument("--slsqp", action="store_true")
    ap.add_argument(
        "--hpp-python",
        help="HPP's interpreter for --projection (default: $HPP_PYTHON, else .venv-hpp/bin/python if it exists)",
    )
    ap.add_argument("--json", default=None, help="also write the --solvers and --projection medians [ms] to this file")
    args = ap.parse_args(argv)
    doc = {"benchmark": "posture_solvers"}
    every = not (args.solvers or args.projection or args.calls or args.collision or args.slsqp)
    robot = load_robot("hrp2")
    floor = load_scene("flat").surface("floor")
    if every or args.solvers:
        doc["solvers"] = solvers_table(robot, floor, args.repeats)
    if every or args.projection:
        doc["projection"] = projection_table(robot, floor, args.hpp_python)
    if every or args.calls:
        calls_table(robot, floor)
    if every or args.collision:
        sys.path.insert(0, str(ROOT / "test"))
        collision_table(robot, floor)
    if every or args.slsqp:
        slsqp_paths_table(robot, floor, args.repeats)
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
