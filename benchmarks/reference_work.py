"""A fixed yardstick of work for the benchmarks whose claim is a time, not a ratio of two of our
own paths (planning times, posture-generator calls): timed in the same run, it turns those times
into same-run ratios that a faster or slower machine changes little (`make bench-check`,
tools/bench_check.py).

The work is of the kind the planners do, so that the ratio follows the machine's speed for it:
Python calls into Pinocchio on HRP-2 (forward kinematics, joint Jacobians, CRBA at a seeded
random configuration) and a small dense solve in NumPy, 1000 times per round; the yardstick is the
median round time divided by 1000 [ms]. Single-threaded BLAS, as the kinematics benchmarks.

    .venv/bin/python benchmarks/reference_work.py [--rounds 7]
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pinocchio as pin  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from humanoid_model.robot import load_robot  # noqa: E402

ITERATIONS = 1000  #: calls per round (chosen: about 20 ms a round on a 2-core x86_64 machine)


def reference_ms(rounds: int = 7) -> float:
    """Median time of one unit of the yardstick's work [ms] over ``rounds`` rounds (module docstring)."""
    robot = load_robot("hrp2")
    model, data = robot.model, robot.model.createData()
    rng = np.random.default_rng(0)
    q = pin.randomConfiguration(model, model.lowerPositionLimit.clip(-3, 3), model.upperPositionLimit.clip(-3, 3))
    rhs = rng.standard_normal(model.nv)
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(ITERATIONS):
            pin.forwardKinematics(model, data, q)
            pin.computeJointJacobians(model, data, q)
            m = pin.crba(model, data, q)
            np.linalg.solve(m + m.T, rhs)
        times.append((time.perf_counter() - t0) / ITERATIONS)
    return 1e3 * float(np.median(times))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    print(f"reference work: {reference_ms(a.rounds):.4f} ms per unit (median of {a.rounds} rounds)")


if __name__ == "__main__":
    main()
