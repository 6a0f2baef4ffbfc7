"""Sweeps (docs/sweeps.md): a grid of `simulate`, `plan` or `execute` jobs run as Ray tasks, their
results gathered in one table.

- `grid`: the sweep file (SWEEP.yaml): the kind, the base arguments, the axes; `read_sweep`;
- `jobs`: the job kinds (`KINDS`: the library call, the arguments, the outputs), `run_jobs`;
- `tasks`: the engine: `run_tasks` (Ray tasks, an embedded local Ray or a cluster, or serial), `cluster`;
- `table`: the results table (CSV, Parquet) and its plot.
"""
