"""`humanoid-stack sweep`: a grid of simulate, plan or execute jobs run as Ray tasks, gathered in
one table with a plot (docs/sweeps.md)."""

from __future__ import annotations

HELP = "run a grid of simulate, plan or execute jobs as Ray tasks and gather the results in one table"
DESCRIPTION = """\
Run every job of a sweep file (SWEEP.yaml: the job kind, the base arguments, the axes whose
cartesian product is the job list; docs/sweeps.md) as Ray tasks, one CPU each: on an embedded
local Ray (nothing to start; --workers CPUs, default the machine's cores) or on an existing Ray
cluster (--address HOST:PORT). --serial runs the jobs one after another in this process, without
Ray. A progress bar counts the jobs on stderr.

The results table (--output: CSV, or Parquet for FILE.parquet with pyarrow installed) has one row
per job: its number, its axis values, its status (ok, failed), the kind's measured outputs, its
wall time and the error of a failed job; a plot of the kind's main outputs per job is written
beside it (FILE.png). A failed job (a scene override its scene refuses, say) is reported with its
error, and the others run on.

Exit status: 0 every job ran, 1 some failed (each named on stderr; the table has them all),
2 bad input (the sweep file or the options: one line, before any job runs), 130 Ctrl-C.

examples:
  humanoid-stack sweep config/sweeps/hrp2_standing.yaml --output standing.csv
  humanoid-stack sweep config/sweeps/hrp2_standing.yaml --workers 8 --output standing.parquet
  humanoid-stack sweep SWEEP.yaml --address head-node:6379     # a cluster started with 'ray start'
  humanoid-stack sweep SWEEP.yaml --serial                      # no Ray: one job after another
"""


def add_arguments(parser):
    parser.add_argument("sweep", metavar="SWEEP.yaml", help="sweep file (docs/sweeps.md)")
    parser.add_argument(
        "--output", "-o", default=None, metavar="FILE", help="results table, .csv or .parquet (default: SWEEP.csv)"
    )
    parser.add_argument(
        "--workers", type=int, default=None, metavar="N", help="CPUs of the embedded local Ray (default: the cores)"
    )
    parser.add_argument("--address", default=None, metavar="HOST:PORT", help="join this Ray cluster instead")
    parser.add_argument("--serial", action="store_true", help="run the jobs one after another here, without Ray")
    parser.add_argument("--no-plot", action="store_true", help="no plot beside the table")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _check(args):
    """The options checked before the sweep file is read; returns the table's path."""
    import os
    from pathlib import Path

    from humanoid_execution.sweep.table import check_table_output
    from humanoid_model.exceptions import ConfigError
    from humanoid_model.validation import integer, message

    source = "command line"
    if args.workers is not None:
        integer(args.workers, source, "--workers", minimum=1, maximum=4096)
    if args.address is not None and not args.address.strip():
        raise ConfigError(message(source, "--address", "HOST:PORT of a Ray cluster (or 'auto')", args.address))
    given = [name for name, on in (("--serial", args.serial), ("--address", args.address is not None)) if on]
    if len(given) > 1 or (args.serial and args.workers is not None):
        both = given + (["--workers"] if args.workers is not None else [])
        raise ConfigError(f"{source}: options {' and '.join(both[:2])} exclude each other")
    output = args.output or f"{Path(args.sweep).stem}.csv"
    check_table_output(output)
    return Path(os.fspath(output))


def run(args) -> int:
    import sys

    from humanoid_execution.sweep.grid import read_sweep
    from humanoid_execution.sweep.jobs import run_jobs
    from humanoid_execution.sweep.table import columns, rows, write_plot, write_table

    output = _check(args)
    sweep = read_sweep(args.sweep)
    where = "serially" if args.serial else f"on the Ray cluster at {args.address}" if args.address else "on local Ray"
    print(f"sweep {args.sweep}: {len(sweep.jobs)} {sweep.kind} jobs {where}", flush=True)
    outcomes = run_jobs(
        sweep.kind,
        sweep.jobs,
        workers=args.workers,
        address=args.address,
        serial=args.serial,
        progress=not args.quiet,
        desc=f"sweep {sweep.kind}",
    )
    table = rows(sweep, outcomes)
    path = write_table(output, table, columns(sweep))
    plot = None if args.no_plot else write_plot(output.with_suffix(".png"), sweep, table)
    failed = [r for r in table if r["status"] != "ok"]
    for r in failed:
        point = ", ".join(f"{k}={r[k]}" for k in sweep.axes)
        print(f"humanoid-stack sweep: job {r['job']} ({point}) failed: {r['error']}", file=sys.stderr)
    print(
        f"wrote {path}: {len(table)} jobs, {len(table) - len(failed)} ok, {len(failed)} failed"
        + (f"; plot {plot}" if plot is not None else "")
    )
    return 1 if failed else 0
