"""Run a block with single-threaded OpenBLAS (what ``threadpoolctl`` does, which is not a
dependency here).

A posture-generator call is a sequence of tiny dense problems (SLSQP's QP on ~36 variables):
OpenBLAS's threads cost more to wake than they save. Measured on the 2-core development machine
under load (docs/posture_generator.md "Speed"): the 3 m hand target of test_posture_solver.py takes 0.1 s with one
thread and 1.0 s with OpenBLAS's default two. The planner runs one call per core.
`single_threaded` finds the OpenBLAS libraries numpy and scipy loaded (the process's memory
map), sets their thread count to 1 and restores it afterwards; without them it does nothing.
"""

from __future__ import annotations

import ctypes
import threading
from contextlib import contextmanager

__all__ = ["single_threaded"]

_NAMES = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads", "openblas_set_num_threads")
_lock = threading.Lock()
_depth = 0
_saved: list = []
_found: list = []  #: the libraries, looked up until some are found


def _libraries():
    """``(get, set)`` pairs of every OpenBLAS in the process (Linux memory map; empty elsewhere)."""
    try:
        with open("/proc/self/maps") as f:
            paths = sorted(
                {line.split()[-1] for line in f if "openblas" in line.lower() and line.rstrip().endswith(".so")}
            )
    except OSError:
        return []
    out = []
    for p in paths:
        try:
            lib = ctypes.CDLL(p)
        except OSError:
            continue
        for name in _NAMES:
            setter = getattr(lib, name, None)
            getter = getattr(lib, name.replace("set_", "get_"), None)
            if setter is not None and getter is not None:
                out.append((getter, setter))
                break
    return out


@contextmanager
def single_threaded():
    """OpenBLAS on one thread inside the block (re-entrant, thread-safe: the outermost restores)."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            if not _found:
                _found.extend(_libraries())
            _saved = [(s, g()) for g, s in _found]
            for s, _ in _saved:
                s(1)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                for s, n in _saved:
                    s(n)
