"""Sweeps on Ray (docs/sweeps.md): the shipped sweep ``hrp2_standing`` (40 runs of HRP-2 standing
2 s on flat, `config/sweeps/hrp2_standing.yaml`) run serially in this process and as Ray tasks on
an embedded local Ray with every core, interleaved in each repetition. Prints the serial time, the
time Ray takes to start, the sweep's wall time on it (the workers' first imports included), the
cores, and the ratio wall / (serial / cores): 1 is a perfect split over the cores (target, chosen:
within 20 %, 0.8..1.2).

    .venv/bin/python benchmarks/sweep.py [--runs 40] [--duration 2] [--workers N] [--reps 2] [--json OUT.json]

The serial side runs after one short warm-up job (imports, numba's cached kernels), as a sweep of
many jobs amortises them; each Ray worker pays them on its first job, inside the wall time. Ray's
start (``ray.init``, 2-3 s) is printed apart ("with start": the ratio with it), and the same sweep
run again on the same workers, their imports done ("warm workers"): the split alone.
Wall-clock times on whatever machine runs it; a shared machine gives noisy ratios (the table says
how many cores the machine has, not how many were free).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from humanoid_execution.sweep.grid import read_sweep
from humanoid_execution.sweep.jobs import run_jobs
from humanoid_execution.sweep.tasks import cluster

TARGET = (0.8, 1.2)  # wall / (serial / cores): within 20 % of a perfect split (chosen)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40, help="jobs of the sweep (default 40, its whole grid)")
    ap.add_argument("--duration", type=float, default=None, help="simulated time per run [s] (default: the file's)")
    ap.add_argument("--workers", type=int, default=os.cpu_count(), help="Ray's CPUs (default: the cores)")
    ap.add_argument("--reps", type=int, default=2, help="repetitions, serial and Ray interleaved (default 2)")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    sweep = read_sweep("hrp2_standing")
    jobs = [dict(j, duration=a.duration or j["duration"]) for j in sweep.jobs[: a.runs]]
    run_jobs("simulate", [dict(jobs[0], duration=0.05)], serial=True, progress=False)  # warm-up
    rows = []
    for rep in range(a.reps):
        t0 = time.perf_counter()
        serial = run_jobs("simulate", jobs, serial=True, progress=False)
        t_serial = time.perf_counter() - t0
        t0 = time.perf_counter()
        with cluster(a.workers):
            t_start = time.perf_counter() - t0
            t1 = time.perf_counter()
            on_ray = run_jobs("simulate", jobs, progress=False)
            t_ray = time.perf_counter() - t1
            t1 = time.perf_counter()
            again = run_jobs("simulate", jobs, progress=False)  # the same workers, their imports done
            t_warm = time.perf_counter() - t1
        failed = sum(not o.ok for o in serial + on_ray + again)
        ratio = t_ray / (t_serial / a.workers)
        rows.append({"serial_s": t_serial, "start_s": t_start, "ray_s": t_ray, "warm_s": t_warm, "failed": failed})
        print(
            f"rep {rep}: serial {t_serial:.1f} s, Ray start {t_start:.1f} s, Ray sweep {t_ray:.1f} s "
            f"(again on the same workers {t_warm:.1f} s), ratio {ratio:.2f}, failed jobs {failed}",
            flush=True,
        )
    duration = jobs[0]["duration"]
    print(
        f"\n{len(jobs)} runs of HRP-2 standing {duration:g} s on flat; {a.workers} Ray CPUs on a "
        f"{os.cpu_count()}-core machine; medians of {a.reps} repetitions\n"
    )
    print(
        "| serial [s] | per run [s] | Ray start [s] | Ray wall [s] | cores | wall / (serial / cores) | with start "
        "| warm workers [s] | warm / (serial / cores) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    m = {k: statistics.median(r[k] for r in rows) for k in ("serial_s", "start_s", "ray_s", "warm_s")}
    share = m["serial_s"] / a.workers
    ratio = m["ray_s"] / share
    print(
        f"| {m['serial_s']:.1f} | {m['serial_s'] / len(jobs):.2f} | {m['start_s']:.1f} | {m['ray_s']:.1f} | "
        f"{a.workers} | {ratio:.2f} | {(m['ray_s'] + m['start_s']) / share:.2f} | {m['warm_s']:.1f} | "
        f"{m['warm_s'] / share:.2f} |"
    )
    verdict = "within" if TARGET[0] <= ratio <= TARGET[1] else "outside"
    print(f"\nwall / (serial / cores) {ratio:.2f}: {verdict} the target {TARGET[0]:g}..{TARGET[1]:g}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"runs": len(jobs), "workers": a.workers, "reps": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
