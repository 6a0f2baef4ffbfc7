"""The dynamic box lift's preliminary motion (docs/lifting.md; Chardonnet 2009, §5.2.1; acceptance
test 000 F1, its planning part): HRP-2's symmetric sagittal model, the 4.5 kg box, the impact that
leaves the feet still and the cam-profile path to it, at the defaults and with one choice changed at
a time. Prints a Markdown table: the impact's speed, the motion's duration, the largest joint torque
and speed over the URDF's limits, the ZMP of robot and box against the feet-and-box support, the
least hold reserve (`hold_reserve`: ≥ 0 when some hand force keeps (5.19)–(5.24)), and the planning
time; then, for three swing durations after the impact, the ZMP against the feet and the box's
height gain.

    .venv/bin/python benchmarks/box_lift.py [--reps 3]

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
from humanoid_planner.exceptions import PlanningError  # noqa: E402
from humanoid_planner.lifting.box_lift import BoxLiftSettings, hold_reserve, plan_box_lift  # noqa: E402
from humanoid_planner.lifting.box_swing import carrying_chain, plan_box_swing  # noqa: E402
from humanoid_planner.lifting.sagittal import SagittalChain  # noqa: E402

CASES = [
    ("defaults", {}),
    ("cam ramp 1/4 (mostly linear)", {"ramp": 0.25}),
    ("cam ramp 1/8 (mostly linear)", {"ramp": 0.125}),
    ("elbow -0.3 rad (straighter)", {"elbow": -0.3}),
    ("lean 8 deg", {"lean": np.radians(8.0)}),
    ("lean 12 deg", {"lean": np.radians(12.0)}),
    ("path 0.08 m", {"path": 0.08}),
    ("path 0.16 m", {"path": 0.16}),
]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    chain = SagittalChain(load_robot("hrp2"))
    print(
        "| case | impact speed [m/s] | duration [s] | torque / max | speed / max | ZMP [m] (support) "
        "| least hold reserve [N] | planning [ms] |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, change in CASES:
        settings = BoxLiftSettings(**change)
        times = []
        try:
            for _ in range(args.reps):
                start = time.perf_counter()
                motion = plan_box_lift(chain, settings)
                times.append(time.perf_counter() - start)
        except PlanningError as exc:
            print(f"| {name} | {exc} | | | | | | |")
            continue
        tau = np.array([chain.tau(*x) for x in zip(motion.theta, motion.theta_d, motion.theta_dd)])
        torque = float(np.max(np.abs(tau) / np.array(chain.sides) / chain.effort))
        speed = float(np.max(np.abs(motion.theta_d) / chain.velocity))
        reserve, _ = hold_reserve(chain, motion)
        zmp, (lo, hi) = motion.support_zmp, motion.support
        print(
            f"| {name} | {motion.design.robot_velocity:.2f} | {motion.t[-1]:.3f} | {torque:.2f} | {speed:.2f} "
            f"| {zmp.min():.3f} to {zmp.max():.3f} ({lo:.2f} to {hi:.2f}) | {reserve.min():.1f} "
            f"| {1e3 * statistics.median(times):.0f} |"
        )
    motion = plan_box_lift(chain)
    carrying = carrying_chain(chain, motion)
    heel, toe = chain.foot_x
    feet = f"feet: {heel:.2f} to {toe:.2f}"
    print(f"\n| swing [s] | ZMP after the impact [m] ({feet}) | at the impact | box's height gain |")
    print("|---|---|---|---|")
    for duration in (1.0, 0.5, 0.3):
        swing = plan_box_swing(chain, motion, duration, carrying=carrying)
        gain = carrying.point("grasp", swing.theta[-1])[1] - motion.grasp[1]
        print(
            f"| {duration} | {swing.zmp.min():.3f} to {swing.zmp.max():.3f} | {swing.zmp[0]:.3f} "
            f"(foot centre {motion.design.pivot[0]:.3f}) | {100 * gain:.1f} cm |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
