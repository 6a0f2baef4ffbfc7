"""One line on the terminal when a command starts compiling numba kernels.

The stack's kernels are numba ``@njit(cache=True)`` functions: each compiles on its first call in
an install and is loaded from numba's cache afterwards. The first compilation is long: the
simulator's kernels take about 75 s of CPU before HRP-2's first step (measured on a 2-core x86-64
machine with an empty cache, docs/simulator.md "First run"), during which a command would
otherwise print nothing. numba announces each compilation that its cache could not spare
(``numba:compile`` events, fired only on a cache miss); the first one prints `NOTICE` once. Only
at a terminal: a command's piped or captured output stays as documented.
"""

from __future__ import annotations

import sys

__all__ = ["NOTICE", "announce_compilation"]

NOTICE = (
    "humanoid-stack: compiling numba kernels on their first use in this install "
    "(once; cached afterwards; about a minute of CPU before the simulator's first step)"
)


def announce_compilation(stream=None, force: bool = False):
    """Print `NOTICE` to ``stream`` (stderr) at the first numba compilation from now on, once.
    Does nothing unless ``stream`` is a terminal or ``force``. Returns the registered listener
    (None when nothing was registered); `numba.core.event.unregister("numba:compile", it)` removes
    it."""
    stream = sys.stderr if stream is None else stream
    if not (force or stream.isatty()):
        return None
    from numba.core import event

    class _Notice(event.Listener):
        shown = False

        def on_start(self, ev) -> None:
            if not self.shown:
                self.shown = True
                print(NOTICE, file=stream, flush=True)

        def on_end(self, ev) -> None:
            pass

    listener = _Notice()
    event.register("numba:compile", listener)
    return listener
