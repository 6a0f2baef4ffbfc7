"""HPP, LAAS's Humanoid Path Planner, projecting onto the common IK problem of `ik_problem`.

The problem: HRP-2 at half-sitting, both soles fixed in 6-D, the CoM's x-y fixed, the left hand's
point at a target 0.2 m ahead; part C, 100 projections from seeded starts, success by one
Pinocchio check (`ik_problem.Check`). HPP is hpp-core and hpp-constraints through hpp-python.

HPP projects with hard constraints and no cost: ``Problem.applyConstraints`` runs its
configuration projector (Newton steps with line search, joint bounds saturated) until the error
is below ``--threshold`` (HPP's default 1e-4) or ``MAX_ITERATIONS`` (40) are spent. The soles and
the hand are HPP transformation constraints (the hand's mask keeps its position only); the CoM
x-y is a constraint written here in Python (`ComXY`, Pinocchio's whole-body CoM), because HPP
9.0.2's own CoM constraint with Pinocchio 4.1.0 leaves a subtree out (72 mm off on HRP-2). A
projection succeeds when HPP reports success and the common check passes; its wall time is the
``applyConstraints`` call. Newton iterations per start are counted afterwards, untimed, as the
smallest iteration limit with which HPP succeeds.

Run (in HPP's own virtual environment; benchmarks/README.md):

    .venv-hpp/bin/python benchmarks/peers/projection_hpp.py [--starts 100] [--threshold 1e-4]

HPP's Python bindings carry no run path to its libraries: the script starts itself again with
``LD_LIBRARY_PATH`` naming them. Prints one JSON line on stdout: ``{"library": "hpp", "versions":
..., "rows": [ROW]}``, ROW with the projections that succeed, their time (median, p90) [ms] and
Newton iterations (median, max); ``{"library": "hpp", "skipped": ...}`` when HPP is not installed.
``benchmarks/posture_solvers.py --projection`` runs it beside our projection.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # single-threaded, as our benchmarks
CMEEL_LIB = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "lib"  # where HPP's wheels put libhpp-*.so
if CMEEL_LIB.is_dir() and str(CMEEL_LIB) not in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep):
    os.environ["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(CMEEL_LIB), os.environ.get("LD_LIBRARY_PATH")]))
    os.execv(sys.executable, [sys.executable, *sys.argv])

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from importlib.metadata import version  # noqa: E402

import ik_problem as P  # noqa: E402 - this folder's modules (the script's own directory is on sys.path)
import numpy as np  # noqa: E402
import pinocchio as pin  # noqa: E402
import run_peer  # noqa: E402

MAX_ITERATIONS = 40


def comxy_function(hc, model, q0):
    """An HPP differentiable function: the whole-body CoM's x-y at q minus its value at ``q0``
    (Pinocchio on ``model``), with its Jacobian."""

    class ComXY(hc.DifferentiableFunction):
        def __init__(self):
            super().__init__(model.nq, model.nv, 2, "com-xy")
            self.data = model.createData()
            self.reference = pin.centerOfMass(model, self.data, q0)[:2].copy()

        def impl_compute(self, result, q):
            result.v = pin.centerOfMass(model, self.data, np.ravel(q), False)[:2] - self.reference

        def impl_jacobian(self, jacobian, q):
            return pin.jacobianCenterOfMass(model, self.data, np.ravel(q), False)[:2]

    return ComXY()


class HppProjection:
    """HPP's projection onto the common problem's constraints for one hand ``target``."""

    def __init__(self, target, threshold: float):
        import pyhpp.constraints as hc
        from pyhpp.pinocchio import Device, urdf

        self.hc = hc
        self.model, self.q0 = P.load_model()
        self.device = Device("hrp2")
        urdf.loadModel(self.device, 0, "hrp2", "freeflyer", str(P.URDF), "", pin.SE3.Identity())
        names = [n.split("/", 1)[-1] for n in self.device.model().names[1:]]
        if names != list(self.model.names[1:]):
            raise RuntimeError("HPP's model of the URDF orders its joints differently from Pinocchio's")
        self.target, self.threshold = target, threshold
        self.com = comxy_function(hc, self.model, self.q0)  # kept alive: HPP holds a reference only
        self.problems: dict[int, object] = {}

    def problem(self, max_iterations: int = MAX_ITERATIONS):
        """HPP's ``Problem`` with the constraints, its projector limited to ``max_iterations``."""
        if max_iterations in self.problems:
            return self.problems[max_iterations]
        from pyhpp.core import Problem

        hc, m = self.hc, self.model
        data = m.createData()
        pin.framesForwardKinematics(m, data, self.q0)
        p = Problem(self.device)
        p.errorThreshold = self.threshold  # read when the projector is created, below
        p.maxIterProjection = max_iterations
        constraints = []
        for frame in P.SOLE_FRAMES:
            fid = m.getFrameId(frame)
            joint = "hrp2/" + m.names[m.frames[fid].parentJoint]
            constraints.append(
                p.createTransformationConstraint(frame, "", joint, data.oMf[fid], m.frames[fid].placement, [True] * 6)
            )
        hand = m.frames[m.getFrameId(P.HAND_FRAME)]
        goal = pin.SE3(pin.SE3.Identity().rotation, self.target)
        constraints.append(
            p.createTransformationConstraint(
                "hand", "", "hrp2/" + m.names[hand.parentJoint], goal, hand.placement, [True] * 3 + [False] * 3
            )
        )
        comparison = hc.ComparisonTypes()
        comparison.extend([hc.ComparisonType.EqualToZero] * 2)
        mask = pin.StdVec_Bool()
        mask.extend([True, True])
        constraints.append(hc.Implicit(self.com, comparison, mask))
        p.addNumericalConstraintsToConfigProjector("common-problem", constraints, [0] * len(constraints))
        self.problems[max_iterations] = p
        return p

    def project(self, q, max_iterations: int = MAX_ITERATIONS):
        """(success by HPP, projected q, wall time [s]) from ``q``."""
        p = self.problem(max_iterations)
        t = time.perf_counter()
        ok, q_out, _ = p.applyConstraints(q)
        return bool(ok), q_out, time.perf_counter() - t

    def iterations(self, q) -> int | None:
        """The fewest Newton iterations with which HPP succeeds from ``q`` (None: not within the limit)."""
        for k in range(1, MAX_ITERATIONS + 1):
            if self.project(q, k)[0]:
                return k
        return None


def measure(starts: int, threshold: float) -> dict:
    """Part C with HPP (module docstring)."""
    model, q0 = P.load_model()
    target = P.canonical_target(model, q0)
    hpp = HppProjection(target, threshold)
    check = P.Check(model, q0, target)
    for _ in range(5):  # warm-up
        hpp.project(q0)
    times, iterations, flagged = [], [], 0
    for trial in range(starts):
        q = P.random_start(model, q0, trial)
        ok, q_out, dt = hpp.project(q)
        flagged += ok
        if ok and check.ok(np.asarray(q_out)):
            times.append(1e3 * dt)
            iterations.append(hpp.iterations(q))
    done = [k for k in iterations if k is not None]
    return {
        "threshold": threshold,
        "projections": f"{len(times)}/{starts}",
        "hpp_success": flagged,
        "projection_ms": P.percentile(times),
        "projection_ms_p90": P.percentile(times, 90),
        "iterations": P.percentile(done),
        "iterations_max": max(done) if done else None,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=100, help="part C: projections from the seeded starts")
    ap.add_argument("--threshold", type=float, default=1e-4, help="HPP's error threshold (its default 1e-4)")
    a = ap.parse_args(argv)
    try:
        import pyhpp.core  # noqa: F401
    except ImportError as exc:
        print(json.dumps(run_peer.skipped("hpp", f"HPP not importable ({exc})")))
        return 0
    row = measure(a.starts, a.threshold)
    versions = {k: version(k) for k in ("hpp-core", "hpp-constraints", "hpp-python", "pin")}
    print(json.dumps({"library": "hpp", "versions": versions, "rows": [row]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
