"""Children are independent posture-generator calls (their parallel evaluation is ours; the thesis
evaluates them one after the other): `JobRunner` runs a batch of them serially or over a pool of
worker processes. A job is a module-level function ``fn(feas, *args)`` of a
`feasibility.Feasibility` (the planner's PG calls) and plain data. ``run([(fn, args), ...])``
returns the results in the order of the jobs, whatever process ran them, so the search merges them
in a fixed order. Each PG call is a function of its inputs alone, in any process and after any
history, so the plan is the same, bit for bit, for any number of workers. That needs coal imported
through `humanoid_model.coal_import`: coal's box support keeps a constant set by the process's first
box query; imported otherwise, the workers' first queries (a capsule against a box) set it
differently from the parent's, their children come back 8.8e-9 rad off and the searches diverge on
the harder scenes (under the table: 186 nodes with 2 workers, 171 serially; through `coal_import`,
171 and the same nodes). The PG statistics a worker logs come back with each result and are added to
the planner's (`feasibility.Stats.merge`).

Workers (``workers`` > 1; 0 means one per core, ``os.cpu_count()``) are started with the
"spawn" method (no fork of a process that may run threads, such as a ROS node planning off its
executor) and each unpickles one copy of the planner's `Feasibility` once (robot model, surfaces,
criterion, tasks, obstacles). OpenBLAS runs single-threaded in every job
(`posture.solver.blas_threads.single_threaded`: the PG's problems are tiny; a thread per core is the
parallelism). ``workers`` = 1 runs the jobs in the calling process, without a pool.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from concurrent.futures import ProcessPoolExecutor

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture.solver.blas_threads import single_threaded

from .feasibility import Stats

__all__ = ["JobRunner", "worker_count"]

_FEAS = None  #: the worker process's `Feasibility`


def worker_count(workers: int) -> int:
    """``workers`` >= 1, or one per core for 0."""
    if workers < 0:
        raise PlanningError(f"planner settings: field 'workers' must be >= 0 (0: one per core); value {workers}")
    return workers or os.cpu_count() or 1


def _init(payload: bytes):
    global _FEAS
    _FEAS = pickle.loads(payload)


def _work(fn, args):
    _FEAS.stats = Stats()
    with single_threaded():
        out = fn(_FEAS, *args)
    return out, _FEAS.stats


class JobRunner:
    """Runs jobs for ``feas`` on ``workers`` processes (module docstring); a context manager that
    shuts its pool down."""

    def __init__(self, feas, workers: int = 1):
        self.feas = feas
        self.workers = worker_count(workers)
        self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def run(self, jobs) -> list:
        """The results of ``jobs`` [(fn, args), ...], in order."""
        jobs = list(jobs)
        if self.workers == 1 or len(jobs) < 2:
            with single_threaded():
                return [fn(self.feas, *args) for fn, args in jobs]
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init,
                initargs=(pickle.dumps(self.feas),),
            )
        futures = [self._pool.submit(_work, fn, args) for fn, args in jobs]
        out = []
        for f in futures:
            result, stats = f.result()
            self.feas.stats.merge(stats)
            out.append(result)
        return out
