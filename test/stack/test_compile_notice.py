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


def _at_a_terminal(argv: list[str]) -> str:
    """Run ``humanoid-stack ARGV`` in a subprocess whose stderr says it is a terminal: its exit
    status, whether numba was imported, and whether the notice listens to numba's compilations."""
    code = (
        "import sys\n"
        "sys.stderr.isatty = lambda: True\n"
        "from humanoid_stack.cli import main\n"
        f"rc = main({argv!r})\n"
        "imported = 'numba' in sys.modules\n"
        "from numba.core import event\n"
        "listening = any(type(it).__name__ == '_Notice' for it in event._registered['numba:compile'])\n"
        "print(rc, imported, listening)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    return run.stdout.splitlines()[-1]


def test_a_command_that_runs_no_kernel_does_not_import_numba_for_the_notice():
    """`info` says COMPILES = False: at a terminal it stays free of numba's 0.5 s import, while a
    command that runs kernels (`simulate`, refused here before any step) registers the notice."""
    assert _at_a_terminal(["info", "hrp2"]) == "0 False False"
    assert _at_a_terminal(["simulate", "no_such_scene", "--output", "/nonexistent/x.mcap"]) == "2 True True"
