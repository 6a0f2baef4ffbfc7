"""Benchmark of the kinematic solvers: time per solver cycle on HRP-2 and on the thesis robots, and
the common IK problem's episodes and projections on HRP-2 beside pink (benchmarks/README.md, "The
common IK problem"; benchmarks/peers/ik_problem.py).

HRP-2 (urdf/kinematics/hrp2.kin.yaml): both soles welded to the ground (2 closures), the CoM x-y
held (level 1), both hands following position targets (level 2), the posture (level 3); a cycle
is one `solve` call: kinematics + Jacobians, rows, solve, limits, integrate.

  A. cycle time: 20 episodes x 50 cycles from half-sitting, the left hand (LARM_FT, the common
     problem's point) sent to a target 0.2 m away in seeded random directions
     (`ik_problem.directions`), the right hand held.
  C. projection: the common problem's 100 starts (`ik_problem.random_start`) to the canonical
     target (hand + 0.2 m x); success = its independent check (`ik_problem.Check`: hand, soles,
     CoM x-y within 1 mm, sole rotation within 1 mrad, joints within limits to 1e-4 rad) within 200
     cycles.

pink solves the same problem in the same run (benchmarks/peers/ik_pink.py, quadprog) with the
interpreter ``--pink-python`` (default: $PINK_PYTHON, else ``.venv-pink/bin/python`` when it
exists, else this one: the ``peers`` extra installs pink here); without pink its row says
"skipped" and how to install it.

Run:  .venv/bin/python benchmarks/kinematics.py [--episodes 20] [--starts 100] [--pink-python PY] [--json OUT.json]
      (quick: --episodes 4 --starts 10)
Timings are wall-clock on whatever machine runs it (not a test).
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # single-threaded, as the peers' runners

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pinocchio as pin  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import humanoid_control.kinematics  # noqa: E402, F401 - hrp2_rows's default package
from benchmarks.peers import ik_problem, run_peer  # noqa: E402
from humanoid_control.kinematics import (  # noqa: E402
    FrameTarget,
    load_structure,
    prioritized,
    svd,
)
from humanoid_model.paths import urdf_dir  # noqa: E402

TARGET_US = 100.0  # chosen target: <= 100 us per solver cycle on HRP-2 (pink + quadprog: about 173 us)


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
    for d in ik_problem.directions(episodes):
        target = hand0 + ik_problem.REACH * d
        hand.set_target(target)
        check = ik_problem.Check(s.model, q0, target)
        q, done = q0.copy(), False
        for i in range(ik_problem.STEPS):
            t0 = time.perf_counter()
            q, _ = solve(s, q, *tasks)
            times.append(time.perf_counter() - t0)
            if not done and check.ok(q):
                done, converged = True, converged + 1
                steps.append(i + 1)
    canon = ik_problem.canonical_target(s.model, q0)
    hand.set_target(canon)
    check = ik_problem.Check(s.model, q0, canon)
    ok, proj_ms, proj_steps = 0, [], []
    for trial in range(starts):
        q = ik_problem.random_start(s.model, q0, trial)
        t_acc = 0.0
        for i in range(ik_problem.MAX_STEPS):
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


def pink_row(episodes: int, starts: int, python) -> dict:
    """pink on the same parts A and C, run now by interpreter ``python``
    (benchmarks/peers/ik_pink.py); ``{"skipped" or "failed": why}`` when it cannot run."""
    result = run_peer.run("pink", "ik_pink.py", python, ["--episodes", episodes, "--starts", starts])
    if "rows" not in result:
        return result
    r = result["rows"][0]
    return dict(
        median=r["step_us"],
        p90=r["step_us_p90"],
        episodes=r["episodes"],
        steps=r["episode_steps"],
        proj=r["projections"],
        proj_ms=r["projection_ms"],
        proj_steps=r["projection_steps"],
    )


def pink_python() -> str:
    """The default interpreter for pink: $PINK_PYTHON, else ``.venv-pink/bin/python`` when it
    exists, else this one (the ``peers`` extra installs pink in the project's environment)."""
    return run_peer.interpreter("PINK_PYTHON", ".venv-pink") or sys.executable


def peer_note(result: dict) -> str:
    """The one-line reason of a peer row that has no numbers."""
    return f"skipped: {result['skipped']}" if "skipped" in result else f"failed: {result['failed']}"


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
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=ik_problem.EPISODES, help="part A: episodes of 50 cycles")
    ap.add_argument("--starts", type=int, default=ik_problem.STARTS, help="part C: projections from seeded starts")
    ap.add_argument(
        "--pink-python", default=pink_python(), help="pink's interpreter (default $PINK_PYTHON, .venv-pink, this)"
    )
    ap.add_argument("--json", default=None, help="also write the HRP-2 rows and the ratios to pink to this file")
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
    peer = pink_row(a.episodes, a.starts, a.pink_python)
    if "median" in peer:
        rows["pink + quadprog (same run)"] = peer
    for name, r in rows.items():
        print(
            f"| {name} | {r['median']:.0f} | {r['p90']:.0f} | {r['episodes']} | {r['steps']:.0f} | {r['proj']} | "
            f"{r['proj_ms']:.2f} | {r['proj_steps']:.0f} |"
        )
    if "median" not in peer:
        print(f"| pink | {peer_note(peer)} | | | | | | |")
    else:
        for name in ("prioritized", "svd (thesis)"):
            r = rows[name]
            print(
                f"\n{name} / pink, same run: median cycle {r['median'] / peer['median']:.2f}x, "
                f"p90 {r['p90'] / peer['p90']:.2f}x, projection time {r['proj_ms'] / peer['proj_ms']:.2f}x"
            )
    if a.json:
        doc = {
            "benchmark": "kinematics",
            "hrp2": {n: {k: r[k] for k in ("median", "p90", "proj_ms")} for n, r in rows.items()},
        }
        doc["ratios"] = {"prioritized/svd": rows["prioritized"]["median"] / rows["svd (thesis)"]["median"]}
        if "median" in peer:
            doc["ratios"]["prioritized/pink"] = rows["prioritized"]["median"] / peer["median"]
            doc["ratios"]["prioritized/pink projection"] = rows["prioritized"]["proj_ms"] / peer["proj_ms"]
        Path(a.json).write_text(json.dumps(doc, indent=1, default=float))
    verdict = "meets" if rows["prioritized"]["median"] <= TARGET_US else "misses"
    faster = (
        ""
        if "median" not in peer
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
