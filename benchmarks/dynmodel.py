"""Benchmark of the dynamic-model generator (Canovas; acceptance test 004 T22).

Prints Markdown tables (and writes JSON with --json FILE):

1. generation time against DOF (URDF parsing + Newton-Euler program, then printing Python, C, LaTeX);
2. evaluation time of one inverse-dynamics call: generated Python, generated C (through ctypes, and
   natively in a C loop, compiled with the system cc -O2), and ``pinocchio.rnea`` called from Python
   (armature 0, same URDF) for 2R, BIP and HRP-2 (fixed and free-floating base) and the 36-DoF human;
3. symbolic Lagrange (SymPy) time against DOF on spatial nR chains (axes z, y, x, z, ...), to compare
   with the report's anchor "more than 4 s for a 4-joint structure" (Canovas, §2.1).

Run:  .venv/bin/python benchmarks/dynmodel.py [--lagrange-max 5] [--json out.json]
Timings are wall-clock medians of repeated runs on whatever machine runs it (not a test).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from humanoid_model import dynmodel  # noqa: E402
from humanoid_model.dynmodel.check import PinocchioReference  # noqa: E402
from humanoid_model.dynmodel.lagrange import lagrange  # noqa: E402

DATA = ROOT / "humanoid_model" / "dynmodel" / "data"
ROBOTS = [  # (label, urdf, floating base, gravity)
    ("2R", DATA / "robot_2R.urdf", False, (0.0, -9.81, 0.0)),
    ("BIP", ROOT / "urdf" / "bip.urdf", False, (0.0, 0.0, -9.81)),
    ("BIP floating", ROOT / "urdf" / "bip.urdf", True, (0.0, 0.0, -9.81)),
    ("HRP-2", ROOT / "urdf" / "hrp2.urdf", False, (0.0, 0.0, -9.81)),
    ("HRP-2 floating", ROOT / "urdf" / "hrp2.urdf", True, (0.0, 0.0, -9.81)),
    ("human 3P33R", DATA / "human36.urdf", False, (0.0, 0.0, -9.81)),
]


def chain_urdf(n):
    """Spatial nR chain: axes z, y, x, z, ...; 0.5 m links, COM mid-link, diagonal inertias."""
    axes = ["0 0 1", "0 1 0", "1 0 0"]
    out = [f'<robot name="chain{n}">', '<link name="base"/>']
    for i in range(n):
        out.append(
            f'<link name="l{i + 1}"><inertial><origin xyz="0.25 0 0"/><mass value="{2.0 - 0.3 * i:.1f}"/>'
            f'<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.05"/></inertial></link>'
        )
        out.append(
            f'<joint name="j{i + 1}" type="continuous"><parent link="{"base" if i == 0 else f"l{i}"}"/>'
            f'<child link="l{i + 1}"/><origin xyz="{0.5 if i else 0} 0 0"/><axis xyz="{axes[i % 3]}"/></joint>'
        )
    out.append("</robot>")
    return "\n".join(out)


def best(fn, repeat=3):
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def per_call(fn, target_s=0.2):
    n = 1
    while True:
        t = timeit.timeit(fn, number=n)
        if t > target_s or n > 1e6:
            return t / n
        n *= 4


C_LOOP = r"""#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <time.h>
#include "%(pre)s_dynmodel.h"
int main(void) {
    double q[%(PRE)s_NV], qd[%(PRE)s_NV], qdd[%(PRE)s_NV], tau[%(PRE)s_NV], sink = 0.0;
    for (int i = 0; i < %(PRE)s_NV; ++i) { q[i] = 0.1 * i; qd[i] = 0.2 - 0.05 * i; qdd[i] = 0.3; }
    struct timespec a, b;
    long n = %(n)d;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long k = 0; k < n; ++k) { q[0] += 1e-9; %(pre)s_inverse_dynamics(q, qd, qdd, NULL, tau); sink += tau[0]; }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%%.6e %%g\n", ((b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec)) / n, sink);
    return 0;
}
"""


def bench_robot(label, urdf, floating, gravity, tmp, cc):
    row = {"robot": label, "urdf": str(urdf.relative_to(ROOT))}
    t_parse, tree = best(lambda: dynmodel.parse_urdf(urdf, floating_base=floating))
    t_build, P = best(lambda: dynmodel.build_program(tree, gravity), repeat=1)
    t_py, src = best(lambda: dynmodel.to_python(P), repeat=1)
    t_c, (h, c) = best(lambda: dynmodel.to_c(P), repeat=1)
    t_tex, _tex = best(lambda: dynmodel.to_latex(P), repeat=1)
    row.update(
        dof=tree.nv,
        statements=sum(s.symbol is not None for s in P.pruned(False).stmts),
        t_parse_build_s=t_parse + t_build,
        t_print_python_s=t_py,
        t_print_c_s=t_c,
        t_print_latex_s=t_tex,
        python_lines=len(src.splitlines()),
    )
    mod = dynmodel.load_python(src)
    ref = PinocchioReference(urdf, gravity, floating, tree=tree)
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.uniform(-1, 1, (3, tree.nv))
    row["eval_python_us"] = 1e6 * per_call(lambda: mod.inverse_dynamics(q, qd, qdd))
    import pinocchio as pin

    qp, vp, ap = ref.state(q, qd, qdd)
    row["eval_pin_rnea_us"] = 1e6 * per_call(lambda: pin.rnea(ref.model, ref.data, qp, vp, ap))
    row["max_abs_diff_vs_pin"] = float(np.abs(mod.inverse_dynamics(q, qd, qdd) - ref.rnea(q, qd, qdd)).max())
    if cc:
        pre = dynmodel.c_prefix(P)
        (tmp / f"{pre}_dynmodel.h").write_text(h)
        (tmp / f"{pre}_dynmodel.c").write_text(c)
        lib = tmp / f"lib{pre}.so"
        t0 = time.perf_counter()
        subprocess.run(
            [cc, "-std=c99", "-O2", "-shared", "-fPIC", "-o", str(lib), str(tmp / f"{pre}_dynmodel.c"), "-lm"],
            check=True,
        )
        row["t_compile_c_O2_s"] = time.perf_counter() - t0
        fn = getattr(ctypes.CDLL(str(lib)), f"{pre}_inverse_dynamics")
        dp = ctypes.POINTER(ctypes.c_double)
        out = np.zeros(tree.nv)
        args = [np.ascontiguousarray(x).ctypes.data_as(dp) for x in (q, qd, qdd)] + [None, out.ctypes.data_as(dp)]
        row["eval_c_ctypes_us"] = 1e6 * per_call(lambda: fn(*args))
        (tmp / f"{pre}_loop.c").write_text(C_LOOP % {"pre": pre, "PRE": pre.upper(), "n": 200000})
        exe = tmp / f"{pre}_loop"
        subprocess.run(
            [cc, "-std=c99", "-O2", "-o", str(exe), str(tmp / f"{pre}_loop.c"), str(tmp / f"{pre}_dynmodel.c"), "-lm"],
            check=True,
        )
        row["eval_c_native_us"] = 1e6 * float(
            subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()[0]
        )
    return row


def bench_lagrange(max_dof):
    rows = []
    for n in range(1, max_dof + 1):
        tree = dynmodel.parse_urdf(chain_urdf(n))
        import sympy as sp

        poly = lagrange(tree, (0.0, 0.0, -9.81), trigsimp_ops=0)  # canonical polynomial form only
        lm = lagrange(tree, (0.0, 0.0, -9.81))  # + trigsimp of small entries
        rows.append(
            {
                "dof": n,
                "lagrange_poly_s": poly.seconds,
                "lagrange_s": lm.seconds,
                "ops_tau": int(sum(sp.count_ops(e) for e in lm.tau)),
            }
        )
        print(f"  lagrange {n} DoF: {poly.seconds:.2f} s / {lm.seconds:.2f} s", file=sys.stderr, flush=True)
    return rows


def markdown(rows, cols, headers):
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for r in rows:
        cells = []
        for c in cols:
            v = r.get(c, "")
            cells.append(f"{v:.3g}" if isinstance(v, float) else str(v))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lagrange-max", type=int, default=5, help="largest chain for symbolic Lagrange (default 5)")
    ap.add_argument("--json", default=None, help="also write the results as JSON to this file")
    args = ap.parse_args(argv)
    cc = shutil.which("cc") or shutil.which("gcc")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, urdf, floating, gravity in ROBOTS:
            if not urdf.is_file():
                print(f"  skipping {label}: {urdf} missing", file=sys.stderr)
                continue
            rows.append(bench_robot(label, urdf, floating, gravity, Path(tmp), cc))
            print(f"  {label}: done", file=sys.stderr, flush=True)
    lag = bench_lagrange(args.lagrange_max)
    info = {
        "python": platform.python_version(),
        "machine": platform.processor() or platform.machine(),
        "cc": cc,
        "numpy": np.__version__,
    }
    print(f"## Dynamic-model generator benchmark ({info['machine']}, Python {info['python']})\n")
    print("### Generation time against DOF\n")
    print(
        markdown(
            rows,
            [
                "robot",
                "dof",
                "statements",
                "t_parse_build_s",
                "t_print_python_s",
                "t_print_c_s",
                "t_print_latex_s",
                "t_compile_c_O2_s",
                "python_lines",
            ],
            [
                "robot",
                "DOF",
                "NE statements",
                "parse+build [s]",
                "print Python [s]",
                "print C [s]",
                "print LaTeX [s]",
                "cc -O2 [s]",
                "Python lines",
            ],
        )
    )
    print("\n### Evaluation time of one inverse-dynamics call [µs]\n")
    print(
        markdown(
            rows,
            [
                "robot",
                "dof",
                "eval_python_us",
                "eval_c_ctypes_us",
                "eval_c_native_us",
                "eval_pin_rnea_us",
                "max_abs_diff_vs_pin",
            ],
            [
                "robot",
                "DOF",
                "generated Python",
                "generated C (ctypes)",
                "generated C (native loop)",
                "pinocchio.rnea (Python call)",
                "max abs(τ − τ_pin) [N m]",
            ],
        )
    )
    print("\n### Symbolic Lagrange (SymPy) time against DOF (spatial nR chain)\n")
    print(
        markdown(
            lag,
            ["dof", "lagrange_poly_s", "lagrange_s", "ops_tau"],
            ["DOF", "M, C qd, g, canonical form [s]", "+ trigsimp of small entries [s]", "operations in τ"],
        )
    )
    print("\nReport's anchor (Canovas, §2.1): symbolic Lagrange > 4 s for 4 joints (CAS/hardware unstated).")
    if args.json:
        Path(args.json).write_text(json.dumps({"info": info, "generation_evaluation": rows, "lagrange": lag}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
