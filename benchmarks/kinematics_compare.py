"""Before/after of the kinematic solver on HRP-2, interleaved in one process, pink in the same run
(the speed target, chosen: <= 100 us per solver cycle and faster than pink).

The kinematics package of git revision REV is extracted into a folder (the package renamed
``humanoid_control_before``; its numba cache kept there between runs) and imported beside this
tree's. Then, ``--rounds`` times: this tree's prioritized solver, REV's, and pink (with quadprog,
benchmarks/peers/ik_pink.py run by ``--pink-python``; skipped when pink is not installed there:
benchmarks/README.md) each run the benchmark's parts A and C
(benchmarks/kinematics.py: 20 episodes x 50 cycles, the 100-start projection set with its
independent check), the order rotating every round so that the machine's load falls on all
three alike. The table has one row per solver and round and the medians over the rounds; the
ratio line compares the two solvers' cycle times round by round.

Run:  .venv/bin/python benchmarks/kinematics_compare.py --before REV [--rounds 3] [--starts 100]
          [--pink-python PY]
It needs a revision, so `make bench` leaves it out (``NEEDS_ARGUMENTS``, Makefile).
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # single-threaded, as the peer scripts

import argparse  # noqa: E402
import importlib  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import kinematics as bench  # noqa: E402 - benchmarks/kinematics.py

BEFORE = "humanoid_control_before"
NEEDS_ARGUMENTS = "--before REV"  # read by `make bench`, which runs only the benchmarks that need none


def extract(rev: str) -> Path:
    """REV's humanoid_control as the package ``humanoid_control_before`` in a folder kept per
    revision (so that its numba cache survives between runs); returns that folder."""
    sha = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    folder = Path(tempfile.gettempdir()) / f"kinematics_compare_{sha[:12]}"
    pkg = folder / BEFORE
    if not pkg.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", sha, "humanoid_control"], cwd=ROOT, check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
        (folder / "humanoid_control").rename(pkg)
        for f in pkg.rglob("*.py"):
            f.write_text(re.sub(r"\bhumanoid_control\b", BEFORE, f.read_text()))
    return folder


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="git revision to compare this tree with")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--starts", type=int, default=100)
    ap.add_argument(
        "--pink-python", default=bench.pink_python(), help="pink's interpreter (default $PINK_PYTHON, .venv-pink, this)"
    )
    a = ap.parse_args()
    sys.path.insert(0, str(extract(a.before)))
    before = importlib.import_module(f"{BEFORE}.kinematics")
    after = sys.modules["humanoid_control.kinematics"]
    runs = {
        "after (this tree)": lambda: bench.hrp2_rows(after.prioritized.solve, a.episodes, a.starts, after),
        f"before ({a.before})": lambda: bench.hrp2_rows(before.prioritized.solve, a.episodes, a.starts, before),
        "pink + quadprog": lambda: bench.pink_row(a.episodes, a.starts, a.pink_python),
    }
    names = list(runs)
    rows: dict[str, list] = {n: [] for n in names}
    print("HRP-2: 2 foot welds + CoM x-y (level 1), 2 hand targets (level 2), posture (level 3)")
    print("| round | solver | us per cycle, median | p90 | episodes to 1 mm | projection success | ms |")
    print("|---|---|---|---|---|---|---|")
    for k in range(a.rounds):
        for name in names[k % 3 :] + names[: k % 3]:
            r = runs[name]()
            if "median" not in r:
                print(f"| {k + 1} | {name} | {bench.peer_note(r)} | | | | |", flush=True)
                continue
            rows[name].append(r)
            print(
                f"| {k + 1} | {name} | {r['median']:.0f} | {r['p90']:.0f} | {r['episodes']} | {r['proj']} | "
                f"{r['proj_ms']:.2f} |",
                flush=True,
            )
    for name in names:
        if rows[name]:
            med = np.median([r["median"] for r in rows[name]])
            p90 = np.median([r["p90"] for r in rows[name]])
            print(f"| median of {len(rows[name])} | {name} | {med:.0f} | {p90:.0f} | | | |")
    new, old = rows[names[0]], rows[names[1]]
    ratio = [x["median"] / y["median"] for x, y in zip(new, old)]
    print(f"\nafter / before, cycle median per round: {', '.join(f'{x:.2f}' for x in ratio)}")
    if rows[names[2]]:
        ratio = [x["median"] / y["median"] for x, y in zip(new, rows[names[2]])]
        print(f"after / pink, cycle median per round: {', '.join(f'{x:.2f}' for x in ratio)}")
    target = [x["median"] <= bench.TARGET_US for x in new]
    print(f"after meets the {bench.TARGET_US:.0f} us target in {sum(target)} of {len(target)} rounds on this machine")


if __name__ == "__main__":
    main()
