"""The command line's notice of numba compiling on first use (`humanoid_stack.compile_notice`): one
line at a terminal at the first compilation, nothing when the cache spares it or the output is not
a terminal."""

import io
import subprocess
import sys

import numpy as np
from numba import njit
from numba.core import event

from humanoid_stack.compile_notice import NOTICE, announce_compilation


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _fresh_kernel():
    @njit(cache=False)
    def kernel(x):  # a new function object: never compiled before this call
        return x * 2 + 1

    return kernel


def test_a_terminal_gets_one_line_at_the_first_compilation_and_no_more():
    out = _Terminal()
    listener = announce_compilation(out)
    try:
        assert listener is not None and out.getvalue() == ""  # nothing before a compilation
        kernel = _fresh_kernel()
        assert kernel(1) == 3 and kernel(np.ones(2))[0] == 3.0  # two signatures: two compilations
        _fresh_kernel()(2.0)
    finally:
        event.unregister("numba:compile", listener)
    assert out.getvalue() == NOTICE + "\n"


def test_output_that_is_not_a_terminal_gets_nothing():
    out = io.StringIO()
    assert announce_compilation(out) is None
    _fresh_kernel()(3)
    assert out.getvalue() == ""


def test_a_kernel_loaded_from_numbas_cache_prints_nothing(tmp_path):
    """The first process compiles a cached kernel and prints the notice; the second loads it from
    the same cache and prints nothing."""
    (tmp_path / "cached_kernel.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef kernel(x):\n    return x + 1\n"
    )
    code = (
        "import sys\n"
        "from humanoid_stack.compile_notice import announce_compilation\n"
        "announce_compilation(sys.stdout, force=True)\n"
        "import cached_kernel\n"
        "print(cached_kernel.kernel(1))\n"
    )
    env = {"PYTHONPATH": str(tmp_path), "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    runs = [
        subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr
    assert runs[0].stdout.splitlines() == [NOTICE, "2"]
    assert runs[1].stdout.splitlines() == ["2"]
