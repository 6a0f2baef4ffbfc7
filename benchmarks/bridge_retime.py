"""Benchmark of the robot bridge's retiming policies and approach profiles.

Retiming: BIP's cyclic double-support phase as `humanoid-stack gait --robot bip --phase ds` writes
it (35 samples over 0.17 s, positions only), against BIP's URDF speed limits and the default
acceleration limit (10 rad/s²), BIP standing at its first point: the duration after the uniform
stretch (``retime``) and after the time-optimal retiming (``topp``, TOPP-RA, commands every 10 ms),
the time of the whole `validate` call (median of repetitions) and of TOPP-RA's own computation,
and whether the result passes the bridge's checks (it is sent only then).

Approach: HRP-2's 30 joints, from the default posture to a posture 0.5 rad away on the joint
that moves most (the others in proportion), at the default approach_speed (0.2 rad/s), a_max
(10 rad/s²) and approach_jerk (100 rad/s³): the duration of the cubic and of the jerk-limited
(Ruckig) approach, with and without velocities in the trajectory.

Run:  .venv/bin/python benchmarks/bridge_retime.py [--repeat 20]
Timings are wall-clock on whatever machine runs it (not a test).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from humanoid_control.bridge import BridgeSettings, JointLimits, Trajectory, load_plan, validate  # noqa: E402
from humanoid_control.bridge.topp import time_optimal  # noqa: E402
from humanoid_control.bridge.validate import fill_joints  # noqa: E402
from humanoid_model import load_robot  # noqa: E402
from humanoid_stack.cli import main as cli  # noqa: E402


def timed(fn, repeat: int):
    out = fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return out, float(np.median(times)) * 1e3


def retiming(repeat: int) -> list[tuple]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "GAIT.json"
        with contextlib.redirect_stdout(io.StringIO()):  # the gait command's own report
            assert cli(["gait", "--robot", "bip", "--phase", "ds", "--output", str(path)]) == 0
        bip = load_robot("bip")
        traj, _ = load_plan(path, bip)
    lim = JointLimits.from_robot(bip)
    cur = dict(zip(lim.names, bip.joint_positions(bip.q()).values()))
    cur.update(zip(traj.joint_names, traj.positions[0]))
    rows = []
    for policy in ("retime", "topp"):
        rep, ms = timed(lambda policy=policy: validate(traj, lim, cur, BridgeSettings(policy=policy)), repeat)
        assert rep.ok, rep.summary()
        solve = "-"
        if policy == "topp":
            full = fill_joints(traj, lim, cur)
            solve = f"{np.median([time_optimal(full, lim, 0.01).solve_s for _ in range(repeat)]) * 1e3:.1f}"
        rows.append((policy, traj.duration, rep.trajectory.duration, rep.trajectory.n_points, ms, solve, rep.ok))
    return rows


def approaches(repeat: int) -> list[tuple]:
    hrp2 = load_robot("hrp2")
    lim = JointLimits.from_robot(hrp2)
    names = lim.names
    q0 = np.array([hrp2.joint_positions(hrp2.q())[n] for n in names])
    room = np.minimum(hrp2.q_upper - q0, q0 - hrp2.q_lower) - 0.02
    step = np.clip(room, 0.0, 0.5) * np.where(np.arange(len(names)) % 2, 1.0, -1.0)
    step *= 0.5 / np.abs(step).max()
    goal = q0 + step
    rows = []
    for cubic in (True, False):
        P = np.vstack([goal, goal])
        tr = Trajectory(names, [0.0, 1.0], P, np.zeros_like(P) if cubic else None)
        for profile in ("cubic", "jerk_limited"):
            settings = BridgeSettings(approach=True, approach_profile=profile)
            rep, ms = timed(lambda s=settings, tr=tr: validate(tr, lim, dict(zip(names, q0)), s), repeat)
            assert rep.ok, rep.summary()
            T = rep.trajectory.duration - 1.0
            rows.append(("with velocities" if cubic else "positions only", profile, T, rep.trajectory.n_points, ms))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args(argv)
    print(f"{platform.machine()}, {platform.python_version()}, median of {args.repeat}")
    print()
    print("| policy | duration given [s] | duration sent [s] | points sent | validate [ms] | TOPP-RA [ms] | checks |")
    print("|---|---|---|---|---|---|---|")
    for policy, given, sent, n, ms, solve, ok in retiming(args.repeat):
        print(f"| {policy} | {given:.3f} | {sent:.3f} | {n} | {ms:.1f} | {solve} | {'pass' if ok else 'refused'} |")
    print()
    print("| trajectory | approach | duration [s] | points sent | validate [ms] |")
    print("|---|---|---|---|---|")
    for kind, profile, T, n, ms in approaches(args.repeat):
        print(f"| {kind} | {profile} | {T:.3f} | {n} | {ms:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
