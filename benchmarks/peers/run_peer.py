"""Running a peer's runner from our benchmarks: a runner is a script of this folder run by the
peer's own interpreter (its virtual environment), and its last stdout line is one JSON object.

A runner whose library is not installed prints ``{"library": NAME, "skipped": REASON}``; `run`
returns the same when the interpreter itself is missing, so that a benchmark prints a one-line
"skipped: install with ..." row instead of failing. `INSTALL` holds each peer's install line
(benchmarks/README.md, "Peers and how to install them"). Standard library only: the runners import
it in their own environments.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

INSTALL = {
    "pink": ".venv/bin/pip install -e '.[peers]', or python3 -m venv .venv-pink && .venv-pink/bin/pip install "
    "pin==4.1.0 pin-pink==4.4.0 'qpsolvers[quadprog]==4.13.0' pyyaml, then --pink-python .venv-pink/bin/python",
    "hpp": "python3 -m venv .venv-hpp && .venv-hpp/bin/pip install pin==4.1.0 hpp-python==9.0.2 "
    "hpp-constraints==9.0.2 hpp-core==9.0.2 example-robot-data==6.0.0 pyyaml, then --hpp-python .venv-hpp/bin/python",
}


def interpreter(variable: str, venv: str) -> str | None:
    """A peer's interpreter: the environment variable ``variable``, else ``venv``'s python in the
    repository (``.venv-hpp``, ``.venv-pink``) when it exists, else None."""
    if os.environ.get(variable):
        return os.environ[variable]
    python = ROOT / venv / "bin" / "python"
    return str(python) if python.exists() else None


def skipped(library: str, why: str = "") -> dict:
    """The result of a peer that cannot run: ``why`` (default: not installed) and its install line."""
    return {"library": library, "skipped": f"{why or library + ' not installed'}; install with: {INSTALL[library]}"}


def run(library: str, runner: str, python, args=(), timeout: float = 1800.0) -> dict:
    """Run ``runner`` (a file of this folder) with interpreter ``python`` and ``args``; its JSON
    result, `skipped` when ``python`` is None or missing, or ``{"library", "failed": message}``
    when the runner fails."""
    if not python or not Path(python).exists():
        return skipped(library, f"no interpreter {python}" if python else "")
    cmd = [str(python), str(HERE / runner), *map(str, args)]
    try:
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"library": library, "failed": f"no result within {timeout:.0f} s"}
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        return {"library": library, "failed": f"exit code {out.returncode}: {tail}"}
    return json.loads(lines[-1])
