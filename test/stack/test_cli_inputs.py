"""Every command reads its input files through `humanoid_model.files` (a regular file only, within a
bound, checked without blocking) and writes its output files only as regular files: a device, a
FIFO or a directory given as an input or an output is one line and exit 2, at once.

Each case runs the command in a subprocess whose address space is capped (`MEMORY`), so that a
reader that does not refuse fails here instead of exhausting the machine (``view --replay
/dev/zero`` grew to 24 GB), and under a time limit (`TIMEOUT`: a read that blocks on a FIFO never
returns). No case writes to a real device: the outputs are FIFOs made in the test's folder.
"""

import os
import resource
import subprocess
import sys

import pytest
from support import REPO

MEMORY = 3 << 30  # [bytes] (chosen) above what these commands need to fail (~1 GB), far below a machine's
TIMEOUT = 120  # [s] (chosen) the imports on a loaded 2-core machine take ~5 s; a blocked read never ends


def _cap_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(*argv):
    return subprocess.run(
        [sys.executable, "-m", "humanoid_stack", *argv],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_cap_memory,
        cwd=REPO,
    )


@pytest.fixture
def fifo(tmp_path):
    def make(name):
        path = tmp_path / name
        os.mkfifo(path)
        return str(path)

    return make


def one_line_exit_2(r, *words):
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr[-2000:]
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize(
    "argv, words",
    [
        (["view", "--replay", "/dev/zero", "--duration", "1"], ["/dev/zero: a character device, not a regular file"]),
        (["view", "--replay", "{fifo:run.jsonl}", "--duration", "1"], ["a FIFO (named pipe), not a regular file"]),
        (["plan", "{fifo:scene.yaml}"], ["scene.yaml: not a regular file"]),
        (["simulate", "{fifo:scene.yaml}", "--output", "{tmp}/run.jsonl"], ["scene.yaml: not a regular file"]),
        (["info", "/dev/zero"], ["/dev/zero: not a regular file"]),
        (["up", "{fifo:nodes.yaml}"], ["nodes.yaml: not a regular file"]),
    ],
    ids=[
        "view-replay-dev-zero",
        "view-replay-fifo",
        "plan-scene-fifo",
        "simulate-scene-fifo",
        "info-dev-zero",
        "up-fifo",
    ],
)
def test_an_input_that_is_not_a_regular_file_is_refused_at_once(argv, words, fifo, tmp_path):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    argv = [fifo(a[6:-1]) if a.startswith("{fifo:") else a for a in argv]
    one_line_exit_2(run(*argv), *words)


@pytest.mark.parametrize("command", ["plan", "gait", "walk"])
def test_an_output_that_is_not_a_regular_file_is_refused_before_computing(command, fifo, tmp_path):
    """The atomic writer renames a new file over the output: over a device it would replace the
    device node. A FIFO (standing in for /dev/null, which a test must not risk) and a directory
    are refused before the computation, in one line."""
    argv = [command] + (["flat"] if command == "plan" else [])
    pipe = fifo("out.json")
    one_line_exit_2(run(*argv, "--output", pipe), "a FIFO (named pipe), not a regular file: not written")
    assert os.path.exists(pipe) and not os.path.isfile(pipe)  # the FIFO is still a FIFO
    one_line_exit_2(run(*argv, "--output", str(tmp_path)), "is a directory")
