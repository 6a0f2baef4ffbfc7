"""`make bench-check`: the speed and scaling claims of the docs checked against recorded bands.

Each claim is a ratio measured within one run (two of our paths, ours against a peer, a time
against the budget it must meet, or a time against the same-run yardstick of
benchmarks/reference_work.py), so that a shared or another machine moves it little. The tool runs
the benchmarks the bands name, briefly (the arguments in the bands file), each with ``--json``,
reads each check's value from that document, prints one Markdown table and exits 1 when a value
lies outside its band, a benchmark fails, or a value it must give is missing. A check on a peer
that is not installed is reported as skipped (`make bench-check` installs the ``peers`` extra;
HPP and TSID have their own set-up, benchmarks/README.md).

    .venv/bin/python tools/bench_check.py [--only RUN ...] [--bands FILE] [--json OUT.json] [--list]

The bands (benchmarks/bands.yaml) say where each number comes from: the thesis's acceptance bound
where it gives one, else the value recorded in the docs with a margin for a shared machine. Not
part of `make test`: timings on shared machines are noisy, and a test never asserts a time.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from humanoid_model.exceptions import ConfigError  # noqa: E402
from humanoid_model.validation import message  # noqa: E402
from humanoid_model.yaml_file import read_yaml  # noqa: E402

BANDS = ROOT / "benchmarks" / "bands.yaml"


@dataclass(frozen=True)
class Check:
    """One claim: ``value`` (a key path in the run's JSON document), divided by ``over`` when given
    (another key path, or a number: a budget), must lie in [``low``, ``high``] (None: unbounded on
    that side)."""

    name: str
    run: str
    value: tuple
    over: tuple | float | None
    low: float | None
    high: float | None
    claim: str
    peer: str | None  #: the peer the value needs: missing means "skipped", not a failure


@dataclass(frozen=True)
class Run:
    name: str
    script: Path
    args: tuple


def _field(doc: dict, key: str, where: str, kind=None):
    if key not in doc:
        raise ConfigError(f"{where}: field '{key}' is missing")
    value = doc[key]
    if kind is not None and not isinstance(value, kind):
        raise ConfigError(message(where, key, f"a {kind.__name__}", value))
    return value


def load_bands(path: Path) -> tuple[dict[str, Run], list[Check]]:
    """The runs and checks of a bands file; a malformed file raises `ConfigError` in one line."""
    doc = read_yaml(path, "bands file", ConfigError)
    if not isinstance(doc, dict):
        raise ConfigError(f"{path}: must hold a mapping with 'runs' and 'checks'")
    runs = {}
    for name, spec in _field(doc, "runs", str(path), dict).items():
        where = f"{path}: run '{name}'"
        script = Path(_field(spec, "script", where, str))
        args = _field(spec, "args", where, list) if "args" in spec else []
        runs[name] = Run(name, script if script.is_absolute() else ROOT / script, tuple(str(a) for a in args))
    checks = []
    for i, spec in enumerate(_field(doc, "checks", str(path), list)):
        where = f"{path}: check {i + 1}"
        band = _field(spec, "band", where, list)
        if len(band) != 2 or not all(b is None or isinstance(b, (int, float)) for b in band):
            raise ConfigError(message(where, "band", "[low, high] (numbers or null)", band))
        run = _field(spec, "run", where, str)
        if run not in runs:
            raise ConfigError(message(where, "run", f"one of {sorted(runs)}", run))
        over = spec.get("over")
        if not (over is None or isinstance(over, list) or isinstance(over, (int, float)) and over > 0):
            raise ConfigError(message(where, "over", "a key path or a positive number", over))
        checks.append(
            Check(
                name=_field(spec, "name", where, str),
                run=run,
                value=tuple(_field(spec, "value", where, list)),
                over=tuple(over) if isinstance(over, list) else over,
                low=band[0],
                high=band[1],
                claim=_field(spec, "claim", where, str),
                peer=spec.get("peer"),
            )
        )
    return runs, checks


def _lookup(doc, path: tuple):
    for key in path:
        if isinstance(doc, dict) and key in doc:
            doc = doc[key]
        else:
            return None
    return doc if isinstance(doc, (int, float)) and not isinstance(doc, bool) else None


def measure(run: Run, progress=sys.stderr) -> tuple[dict | None, str]:
    """Run one benchmark with ``--json``; (its document, "") or (None, the reason it failed)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        cmd = [sys.executable, str(run.script), *run.args, "--json", str(out)]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        print(f"  {run.name}: {time.perf_counter() - t0:.0f} s", file=progress, flush=True)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            return None, f"exit {proc.returncode}: {tail[0]}"
        if not out.is_file():
            return None, "wrote no --json document"
        return json.loads(out.read_text()), ""


def evaluate(check: Check, doc: dict | None, failure: str) -> tuple[float | None, str]:
    """(value, verdict): verdict is "ok", "OUTSIDE", "skipped: ..." or "ERROR: ..."."""
    if doc is None:
        return None, f"ERROR: {failure}"
    value = _lookup(doc, check.value)
    if value is not None and check.over is not None:
        den = _lookup(doc, check.over) if isinstance(check.over, tuple) else check.over
        value = None if den in (None, 0) else value / den
    if value is None or not math.isfinite(value):
        if check.peer:
            return None, f"skipped: {check.peer} not installed"
        return None, "ERROR: no value at " + " / ".join(map(str, check.value))
    inside = (check.low is None or value >= check.low) and (check.high is None or value <= check.high)
    return value, "ok" if inside else "OUTSIDE"


def _band(c: Check) -> str:
    lo = "" if c.low is None else f"{c.low:g} ≤ "
    hi = "" if c.high is None else f" ≤ {c.high:g}"
    return f"{lo}x{hi}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bands", type=Path, default=BANDS, help="the bands file (default benchmarks/bands.yaml)")
    ap.add_argument("--only", nargs="+", metavar="RUN", help="only the checks of these runs")
    ap.add_argument("--list", action="store_true", help="list the runs and checks, run nothing")
    ap.add_argument("--json", type=Path, help="also write the table to this file")
    a = ap.parse_args(argv)
    try:
        runs, checks = load_bands(a.bands)
    except ConfigError as e:
        print(f"bench-check: {e}", file=sys.stderr)
        return 2
    if a.only:
        unknown = sorted(set(a.only) - set(runs))
        if unknown:
            print(f"bench-check: --only: unknown runs {unknown}; known {sorted(runs)}", file=sys.stderr)
            return 2
        checks = [c for c in checks if c.run in a.only]
    needed = [r for r in runs if any(c.run == r for c in checks)]
    if a.list:
        for r in needed:
            print(f"{r}: {runs[r].script.relative_to(ROOT) if runs[r].script.is_relative_to(ROOT) else runs[r].script}")
            for c in checks:
                if c.run == r:
                    print(f"  {c.name}: {_band(c)}")
        return 0
    print(f"bench-check: {len(checks)} checks, {len(needed)} benchmarks", file=sys.stderr)
    docs = {r: measure(runs[r]) for r in needed}
    rows, bad = [], 0
    print("| check | measured | band | verdict | claim |")
    print("|---|---|---|---|---|")
    for c in checks:
        value, verdict = evaluate(c, *docs[c.run])
        bad += verdict == "OUTSIDE" or verdict.startswith("ERROR")
        shown = "" if value is None else f"{value:.3g}"
        print(f"| {c.name} | {shown} | {_band(c)} | {verdict} | {c.claim} |")
        rows.append({"check": c.name, "value": value, "low": c.low, "high": c.high, "verdict": verdict})
    print(f"\n{len(checks) - bad} of {len(checks)} checks within their bands (skipped ones count as within)")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
