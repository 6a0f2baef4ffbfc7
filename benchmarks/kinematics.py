"""Benchmark of the kinematic solvers: time per solver cycle on HRP-2 and on the thesis robots, and
the common peer problem's projection set on HRP-2 (benchmarks/README.md, "The common IK problem").

HRP-2 (urdf/kinematics/hrp2.kin.yaml): both soles welded to the ground (2 closures), the CoM x-y
held (level 1), both hands following position targets (level 2), the posture (level 3); a cycle
is one `solve` call: kinematics + Jacobians, rows, solve, limits, integrate.

  A. cycle time: 20 episodes x 50 cycles from half-sitting, the left hand (LARM_FT, the common
     problem's point) sent to a target 0.2 m away in seeded random directions (`random_directions`,
     seed 7), the right hand held.
  C. projection: the common problem's 100 starts (half-sitting + noise, `random_start`, seed 1234)
     to the canonical target (hand + 0.2 m x); success = its independent check (hand, soles, CoM
     x-y within 1 mm, sole rotation within 1 mrad, joints within limits to 1e-4 rad) within 200
     cycles. `random_directions` and `random_start` draw in the same order as the pink script, so
     that both sides solve the same targets and starts.

pink runs the same problem side by side when ``import pink`` works and the pink script
`bench_pink.py` (PinkIK with quadprog) is on the peer path (benchmarks/README.md); otherwise the
table says "pink not installed". pink + quadprog takes about 173 us per step on HRP-2 on a
2-core x86_64 machine (benchmarks/README.md).

Run:  .venv/bin/python benchmarks/kinematics.py [--episodes 20] [--starts 100]
Timings are wall-clock on whatever machine runs it (not a test).
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # single-threaded, as the peer scripts

import argparse  # noqa: E402
import contextlib  # noqa: E402
import io  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pinocchio as pin  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import humanoid_control.kinematics  # noqa: E402, F401 - hrp2_rows's default package
from humanoid_control.kinematics import (  # noqa: E402
    FrameTarget,
    load_structure,
    prioritized,
    svd,
)
from humanoid_model.paths import urdf_dir  # noqa: E402

PEERS = ROOT.parent / "shared" / "peers" / "ik"
TARGET_US = 100.0  # chosen target: <= 100 us per solver cycle on HRP-2 (pink + quadprog: about 173 us)


def random_directions(n, seed=7):  # the common problem's hand directions, drawn as the pink script draws them
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        d = rng.normal(size=3)
        d[0] = abs(d[0])
        out.append(d / np.linalg.norm(d))
    return out


def random_start(model, q0, trial, seed=1234):  # the common problem's starts, drawn as the pink script draws them
    rng = np.random.default_rng(seed + trial)
    dj = rng.uniform(-0.15, 0.15, model.nq - 7)
    dp = rng.uniform(-0.02, 0.02, 3)
    drpy = rng.uniform(-0.05, 0.05, 3)
    q = q0.copy()
    q[7:] = np.clip(q0[7:] + dj, model.lowerPositionLimit[7:], model.upperPositionLimit[7:])
    q[:3] += dp
    R = pin.Quaternion(q0[3:7]).matrix() @ pin.rpy.rpyToMatrix(drpy)
    q[3:7] = pin.Quaternion(R).coeffs()
    return q


class Check:
    """The common problem's independent check (as the pink script's `Checker`), on its frames."""

    def __init__(self, model, q0, hand_target):
        self.model, self.data = model, model.createData()
        self.fl, self.fr, self.fh = (model.getFrameId(n) for n in ("LLEG_SOLE", "RLEG_SOLE", "LARM_FT"))
        pin.framesForwardKinematics(model, self.data, q0)
        self.Ml, self.Mr = self.data.oMf[self.fl].copy(), self.data.oMf[self.fr].copy()
        self.com = pin.centerOfMass(model, self.data, q0)[:2].copy()
        self.target = np.asarray(hand_target)

    def ok(self, q):
        m, d = self.model, self.data
        pin.framesForwardKinematics(m, d, q)
        com = pin.centerOfMass(m, d, q, False)
        el = pin.log6(self.Ml.actInv(d.oMf[self.fl])).vector
        er = pin.log6(self.Mr.actInv(d.oMf[self.fr])).vector
        feet = max(
            np.linalg.norm(d.oMf[f].translation - M.translation) for f, M in ((self.fl, self.Ml), (self.fr, self.Mr))
        )
        lim = max(0.0, np.max(m.lowerPositionLimit[7:] - q[7:]), np.max(q[7:] - m.upperPositionLimit[7:]))
        return (
            np.linalg.norm(d.oMf[self.fh].translation - self.target) <= 1e-3
            and feet <= 1e-3
            and max(np.linalg.norm(el[3:]), np.linalg.norm(er[3:])) <= 1e-3
            and np.linalg.norm(com[:2] - self.com) <= 1e-3
            and lim <= 1e-4
        )


def hrp2_rows(solve, episodes: int, starts: int, package=None) -> dict:
    """Parts A and C for ``solve``; ``package``: the kinematics package whose structure and task
    classes it takes (default this tree's; benchmarks/kinematics_compare.py passes an older one)."""
    K = package or sys.modules["humanoid_control.kinematics"]
    s = K.load_structure("hrp2")
    q0 = s.q0.copy()
    hand = K.FrameTarget(s, "LARM_FT", mode="position")
    other = K.FrameTarget(s, "r_hand", mode="position")
    com, posture = K.ComTask(s), K.PostureTask(s)
    tasks = (hand, other, com, posture) if solve is K.prioritized.solve else (hand, other, com)
    hand0 = hand.target.translation.copy()
    for _ in range(20):  # warm-up
        solve(s, q0, *tasks)
    times, converged, steps = [], 0, []
    for d in random_directions(episodes):
        target = hand0 + 0.2 * d
        hand.set_target(target)
        check = Check(s.model, q0, target)
        q, done = q0.copy(), False
        for i in range(50):
            t0 = time.perf_counter()
            q, _ = solve(s, q, *tasks)
            times.append(time.perf_counter() - t0)
            if not done and check.ok(q):
                done, converged = True, converged + 1
                steps.append(i + 1)
    canon = hand0 + np.array([0.2, 0.0, 0.0])
    hand.set_target(canon)
    check = Check(s.model, q0, canon)
    ok, proj_ms, proj_steps = 0, [], []
    for trial in range(starts):
        q = random_start(s.model, q0, trial)
        t_acc = 0.0
        for i in range(200):
            t0 = time.perf_counter()
            q, _ = solve(s, q, *tasks)
            t_acc += time.perf_counter() - t0
            if check.ok(q):
                ok += 1
                proj_ms.append(t_acc * 1e3)
                proj_steps.append(i + 1)
                break
    us = np.array(times) * 1e6
    return dict(
        median=float(np.median(us)),
        p90=float(np.percentile(us, 90)),
        episodes=f"{converged}/{episodes}",
        steps=float(np.median(steps)) if steps else float("nan"),
        proj=f"{ok}/{starts}",
        proj_ms=float(np.median(proj_ms)) if proj_ms else float("nan"),
        proj_steps=float(np.median(proj_steps)) if proj_steps else float("nan"),
    )


def pink_row(episodes: int, starts: int) -> dict | None:
    """pink on the same problem in this process (the pink script `bench_pink.py`, quadprog), or
    None when pink is not installed (`pip install -e .[peers]`). bench_pink runs its own 20
    episodes x 50 steps and the projection set; its own printout is swallowed."""
    try:
        import pink  # noqa: F401
    except ImportError:
        return None
    os.environ.setdefault("HRP2_URDF", str(urdf_dir() / "hrp2.urdf"))  # read when bench_pink is imported
    sys.path.insert(0, str(PEERS))
    import bench_pink  # noqa: E402

    with contextlib.redirect_stdout(io.StringIO()):
        rows = bench_pink.run_robot("hrp2", ["quadprog"], 1.0, "", starts, 200)
    r = rows[0]
    return dict(
        median=r["step_us_median"],
        p90=r["step_us_p90"],
        episodes=r["episodes_converged"],
        steps=r["steps_to_1mm_median"],
        proj=r["proj_success"],
        proj_ms=r["proj_ms_median"],
        proj_steps=r["proj_steps_median"],
    )


def thesis_rows(repeat: int = 2000) -> list[tuple]:
    out = []
    for name in ("hybrid_planar", "macdac", "cross_delta", "redundant_6r"):
        s = load_structure(urdf_dir() / "kinematics" / f"{name}.kin.yaml")
        targets = [FrameTarget(s, f) for f in s.sources]
        for solver, solve in (("prioritized", prioritized.solve), ("svd", svd.solve)):
            q = s.q0.copy()
            for _ in range(5):
                q, _ = solve(s, q, *targets)
            t0 = time.perf_counter()
            for _ in range(repeat):
                solve(s, q, *targets)
            us = (time.perf_counter() - t0) / repeat * 1e6
            rows = sum(c.dim for c in s.closures.values()) + sum(t.dim for t in targets)
            out.append((name, solver, f"{rows}x{s.model.nv}", us))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--starts", type=int, default=100)
    a = ap.parse_args()
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, pinocchio {pin.__version__}, "
        f"{platform.machine()}, {os.cpu_count()} cores; single-threaded BLAS"
    )
    print("\nHRP-2: 2 foot welds + CoM x-y (level 1), 2 hand targets (level 2), posture (level 3 in prioritized)")
    head = "| solver | us per cycle, median | p90 | episodes to 1 mm | cycles | projection success | ms | cycles |"
    print(head)
    print("|---|---|---|---|---|---|---|---|")
    rows = {
        "prioritized": hrp2_rows(prioritized.solve, a.episodes, a.starts),
        "svd (thesis)": hrp2_rows(svd.solve, a.episodes, a.starts),
    }
    peer = pink_row(a.episodes, a.starts)
    if peer is not None:
        rows["pink + quadprog (same run)"] = peer
    for name, r in rows.items():
        print(
            f"| {name} | {r['median']:.0f} | {r['p90']:.0f} | {r['episodes']} | {r['steps']:.0f} | {r['proj']} | "
            f"{r['proj_ms']:.2f} | {r['proj_steps']:.0f} |"
        )
    if peer is None:
        print("| pink | pink not installed (pip install -e .[peers]) | | | | | | |")
    else:
        for name in ("prioritized", "svd (thesis)"):
            r = rows[name]
            print(
                f"\n{name} / pink, same run: median cycle {r['median'] / peer['median']:.2f}x, "
                f"p90 {r['p90'] / peer['p90']:.2f}x, projection time {r['proj_ms'] / peer['proj_ms']:.2f}x"
            )
    verdict = "meets" if rows["prioritized"]["median"] <= TARGET_US else "misses"
    faster = (
        ""
        if peer is None
        else (" and is " + ("faster" if rows["prioritized"]["median"] < peer["median"] else "slower") + " than pink")
    )
    print(f"\nprioritized {verdict} the {TARGET_US:.0f} us target on this machine{faster}")
    print("\nThesis robots (one cycle: loops + the frames with sources, at the closed initial pose)")
    print("| robot | solver | J_aug | us per cycle |")
    print("|---|---|---|---|")
    for name, solver, shape, us in thesis_rows():
        print(f"| {name} | {solver} | {shape} | {us:.0f} |")


if __name__ == "__main__":
    main()
