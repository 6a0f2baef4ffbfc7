"""Independent tasks run on Ray, or one after another in this process: the engine under
`humanoid-stack sweep` and the benchmarks' sweeps (docs/sweeps.md).

    outcomes = run_tasks(drop_peak, [(E, nu) for E in ... for nu in ...], workers=4)
    [o.result() for o in outcomes]  # values in the order of the arguments; SweepError for a failed task

Each task is ``fn(*args)`` in a Ray task of one CPU; an exception inside it (or its worker's crash)
makes that task's `TaskOutcome` failed with its one-line error text, and the other tasks go on.
``address`` joins an existing Ray cluster (``ray start --head`` on one machine, ``ray start
--address HEAD:6379`` on the others, each with this package installed); without it an embedded
local Ray is started for the call, on ``workers`` CPUs (default: the machine's cores), whose
workers import what this process imports (its ``sys.path``), and shut down at its end. Ray
already running in this process (`cluster`, or a test's fixture) is used as it is. ``serial`` runs
the tasks one after another in this process, without Ray: for debugging, and as the serial
baseline of `benchmarks/sweep.py`.

Ray is imported inside the functions only: importing this module costs nothing.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from humanoid_execution.exceptions import SweepError
from humanoid_model.exceptions import HumanoidStackError

__all__ = ["TaskOutcome", "run_tasks", "cluster", "error_text"]


@dataclass
class TaskOutcome:
    """A task's ``value`` (None when it failed), its ``error`` text ("" when it did not) and the
    ``wall`` time [s] it ran, measured inside the task."""

    value: object = None
    error: str = ""
    wall: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.error

    def result(self):
        """The value, or `SweepError` with the task's error."""
        if self.error:
            raise SweepError(f"task failed: {self.error}")
        return self.value


def error_text(exc: BaseException) -> str:
    """An exception as one line: a `HumanoidStackError`'s message as it is (it names its source),
    any other with its class name."""
    text = str(exc) if isinstance(exc, HumanoidStackError) else f"{type(exc).__name__}: {exc}"
    return " ".join(text.split())


def call(fn: Callable, args: Sequence) -> TaskOutcome:
    """``fn(*args)`` as a `TaskOutcome`: any exception caught (the task's own, not the sweep's)."""
    start = time.perf_counter()
    try:
        value = fn(*args)
    except Exception as exc:  # a job's failure is its row's, never the sweep's
        return TaskOutcome(None, error_text(exc), time.perf_counter() - start)
    return TaskOutcome(value, "", time.perf_counter() - start)


@contextmanager
def cluster(workers: int | None = None, address: str | None = None):
    """Ray for the block: joined at ``address``, or an embedded local Ray on ``workers`` CPUs
    (default: the cores); shut down at the block's end unless it was running before."""
    import ray

    if ray.is_initialized():
        yield ray
        return
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report, no prompt
    options = {"include_dashboard": False, "logging_level": "ERROR", "log_to_driver": False}
    try:
        if address is not None:
            ray.init(address=address, **options)
        else:
            # the workers import what this process imports (a script's folder, a test's): Ray's
            # processes inherit the environment at their start (a runtime_env would start its own
            # workers, seconds later)
            before = os.environ.get("PYTHONPATH")
            os.environ["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
            try:
                ray.init(num_cpus=workers or os.cpu_count() or 1, **options)
            finally:
                if before is None:
                    del os.environ["PYTHONPATH"]
                else:
                    os.environ["PYTHONPATH"] = before
    except Exception as exc:  # Ray's own errors (ConnectionError, RuntimeError, ...)
        where = f"the cluster at {address!r}" if address is not None else "a local Ray"
        raise SweepError(f"sweep: cannot start {where}: {error_text(exc)}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def _bar(total: int, desc: str, progress: bool):
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="job", desc=desc, file=sys.stderr, mininterval=0.5)


def run_tasks(
    fn: Callable,
    arguments: Sequence[Sequence],
    workers: int | None = None,
    address: str | None = None,
    serial: bool = False,
    progress: bool = True,
    desc: str = "sweep",
    on_result: Callable[[int, TaskOutcome], None] | None = None,
) -> list[TaskOutcome]:
    """``fn(*args)`` for each of ``arguments`` (module docstring): the outcomes in the arguments'
    order. ``progress``: a tqdm bar on stderr; ``on_result(index, outcome)`` as each task ends
    (in the order they end)."""
    outcomes: list[TaskOutcome | None] = [None] * len(arguments)
    bar = _bar(len(arguments), desc, progress)

    def done(i: int, outcome: TaskOutcome):
        outcomes[i] = outcome
        if bar is not None:
            bar.update(1)
        if on_result is not None:
            on_result(i, outcome)

    try:
        if serial:
            for i, args in enumerate(arguments):
                done(i, call(fn, args))
        elif arguments:
            _on_ray(fn, arguments, workers, address, done)
    finally:
        if bar is not None:
            bar.close()
    return outcomes


def _on_ray(fn, arguments, workers, address, done) -> None:
    """The tasks on Ray (one CPU each, never retried: a job that crashed its worker is failed)."""
    with cluster(workers, address) as ray:
        remote = ray.remote(num_cpus=1, max_retries=0)(call)
        fn_ref = ray.put(fn)
        pending = {remote.remote(fn_ref, args): i for i, args in enumerate(arguments)}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                i = pending.pop(ref)
                try:
                    outcome = ray.get(ref)
                except Exception as exc:  # the worker died (a crash, killed for memory)
                    text = re.sub(r"\x1b\[[0-9;]*m", "", error_text(exc))  # Ray's colours
                    outcome = TaskOutcome(None, text.split(" Traceback")[0][:500])
                done(i, outcome)
