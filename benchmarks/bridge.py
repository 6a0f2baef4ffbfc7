"""Benchmark of the robot bridge's validation (target, chosen: validation <= 20 ms, so that it
never delays a motion noticeably).

A 10 s trajectory of HRP-2's 30 joints at 100 Hz (1001 points): every joint follows
q0 + A (1 - cos(2 pi f t)) from the default posture, inside its limits, at rest at both ends. Rows:
positions only (linear interpolation) and positions + velocities (cubic), under the ``refuse``
policy (f = 0.1 Hz: passes every check) and the ``retime`` policy (f = 2 Hz: too fast for
a_max = 10 rad/s², stretched, then checked again); a last row adds the optional self-collision
check. Median and max over repetitions of the whole `validate` call, robot model and limits built
once outside the timing.

Run:  .venv/bin/python benchmarks/bridge.py [--repeat 30]
Timings are wall-clock on whatever machine runs it (not a test).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from humanoid_control.bridge import BridgeSettings, JointLimits, Trajectory, validate  # noqa: E402
from humanoid_model import load_robot  # noqa: E402

DURATION, RATE = 10.0, 100.0  # [s], [Hz] (chosen: a long, dense trajectory)
TARGET_MS = 20.0


def motion(robot, freq: float, cubic: bool) -> Trajectory:
    t = np.arange(int(DURATION * RATE) + 1) / RATE
    names = robot.joint_names
    q0 = np.array([robot.joint_positions(robot.q())[n] for n in names])
    room = np.minimum(robot.q_upper - q0, q0 - robot.q_lower) - 0.02
    amp = np.clip(0.25 * room, 0.0, 0.15) * np.where(np.arange(len(names)) % 2, 1.0, -1.0)
    w = 2 * np.pi * freq  # a whole number of periods in DURATION: at rest at both ends
    P = q0 + amp * (1 - np.cos(w * t[:, None]))
    V = amp * w * np.sin(w * t[:, None]) if cubic else None
    return Trajectory(names, t, P, V)


def timed(fn, repeat: int) -> tuple[float, float]:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) * 1e3, float(np.max(times)) * 1e3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args(argv)
    robot = load_robot("hrp2")
    lim = JointLimits.from_robot(robot)
    rows = []
    for cubic in (False, True):
        interp = "cubic (velocities)" if cubic else "linear (positions)"
        for policy, freq in (("refuse", 0.1), ("retime", 2.0)):
            tr = motion(robot, freq, cubic)
            cur = dict(zip(tr.joint_names, tr.positions[0]))
            settings = BridgeSettings(policy=policy)
            rep = validate(tr, lim, cur, settings)
            assert rep.ok, rep.summary()
            med, worst = timed(lambda tr=tr, cur=cur, s=settings: validate(tr, lim, cur, s), args.repeat)
            rows.append((policy, interp, f"x{rep.stretch:.3f}", med, worst))
    tr = motion(robot, 0.1, True)
    cur = dict(zip(tr.joint_names, tr.positions[0]))
    settings = BridgeSettings(self_collision=True)
    rep = validate(tr, lim, cur, settings, robot=robot)
    med, worst = timed(lambda: validate(tr, lim, cur, settings, robot=robot), max(3, args.repeat // 10))
    rows.append(("refuse + self_collision", "cubic (velocities)", "x1.000" if rep.ok else "refused", med, worst))

    print(f"Bridge validation: HRP-2, {len(robot.joint_names)} joints, {DURATION:g} s at {RATE:g} Hz ")
    print(f"({tr.n_points} points), median of {args.repeat} runs; {platform.processor() or platform.machine()}, ")
    print(f"Python {platform.python_version()}, NumPy {np.__version__}\n")
    print("| policy | interpolation | stretch | median [ms] | max [ms] |")
    print("|---|---|---|---|---|")
    for policy, interp, stretch, med, worst in rows:
        print(f"| {policy} | {interp} | {stretch} | {med:.2f} | {worst:.2f} |")
    worst_core = max(r[3] for r in rows[:4])
    print(f"\ntarget <= {TARGET_MS:g} ms (refuse and retime): {'met' if worst_core <= TARGET_MS else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
