"""The overhead lift of an 8.4 kg object (docs/lifting.md; Chardonnet 2009, §5.2.2; acceptance test
000 F2): HRP-2's symmetric sagittal model, the thesis's end postures, the B-spline lift optimised with
IPOPT for the actuators' energy, and the same path played quasi-statically in 10 s. Prints a Markdown
table beside the thesis's numbers (1.68 s transition, t_m = 3 s, the quasi-static variant about 10 s
with torques above nominal).

    .venv/bin/python benchmarks/overhead_lift.py [--reps 3] [--mass 8.4]

Timings are wall-clock on whatever machine runs it (not a test): the median of ``--reps`` runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from humanoid_model import load_robot  # noqa: E402
from humanoid_planner.lifting.overhead import (  # noqa: E402
    LiftSettings,
    check_lift,
    lift_energy,
    optimise_lift,
    static_torques,
    thesis_postures,
)
from humanoid_planner.lifting.sagittal import CarriedObject, SagittalChain  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--mass", type=float, default=8.4, help="the object's mass [kg] (thesis: 8.4, also 23.4)")
    args = ap.parse_args(argv)
    chain = SagittalChain(load_robot("hrp2"), CarriedObject(args.mass, 0.15, 0.3))
    postures = thesis_postures(chain)
    times, res = [], None
    for _ in range(args.reps):
        t0 = time.perf_counter()
        res = optimise_lift(chain, postures)
        times.append(time.perf_counter() - t0)
    check = check_lift(chain, res)
    slow = res.retimed(10.0)
    nominal = LiftSettings().nominal * chain.effort
    static = (np.abs(static_torques(chain, slow.theta)) / nominal).max(0)
    print(f"HRP-2, {args.mass} kg object, {res.iterations} IPOPT iterations ({res.status})\n")
    print("| quantity | thesis (§5.2.2.3) | ours |")
    print("|---|---|---|")
    print(f"| transition t_f [s] | 1.68 (t_m = 3) | {res.t_f:.2f} |")
    print(f"| optimisation [s], median of {args.reps} | not given | {statistics.median(times):.1f} |")
    print(f"| E_r (5.29) [J] | not given | {lift_energy(chain, res):.1f} |")
    print(f"| max (5.25) ratio, max (5.26) ratio | < 1 | {check.motor:.3f}, {check.torque:.3f} |")
    print(f"| smallest ZMP margin in the feet [mm] | inside | {1000 * check.zmp_margin:.0f} |")
    print(
        "| wrist loads / limits (along, across, moment) | within 200 N, 100 N, 5 N m | "
        + ", ".join(f"{v:.2f}" for v in check.hand)
        + " |"
    )
    print(f"| quasi-static variant: duration [s] | about 10 (> t_m) | {slow.t_f:.0f} |")
    print(
        "| quasi-static: max static torque / nominal per joint | above nominal | "
        + ", ".join(f"{v:.2f}" for v in static)
        + " |"
    )
    print(
        "| end postures: distance to the thesis's points [mm] | 0 | "
        + ", ".join(f"{1000 * max(r['hip'], r['shoulder'], r['object']):.1f}" for r in postures.residual.values())
        + " |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
