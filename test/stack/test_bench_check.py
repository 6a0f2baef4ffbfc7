"""`make bench-check` (tools/bench_check.py): it runs the benchmarks a bands file names with
``--json``, takes each check's value (a key path, divided by another one or by a number), and
fails outside a band, on a benchmark that fails, or on a value that is missing unless a peer
explains it; the shipped bands name benchmarks that exist and write ``--json``. The timings
themselves are never run here (the suite asserts no time)."""

import json
import runpy
import textwrap

import pytest
from support import REPO

TOOL = runpy.run_path(str(REPO / "tools" / "bench_check.py"))
main, load_bands = TOOL["main"], TOOL["load_bands"]

FAKE = """
import json, sys
out = sys.argv[sys.argv.index("--json") + 1]
if "--fail" in sys.argv:
    print("the benchmark broke", file=sys.stderr)
    raise SystemExit(3)
json.dump({"case": {"a": 2.0, "b": 8.0, "flag": True}, "n": 250.0}, open(out, "w"))
"""


def _bands(tmp_path, checks: str, args="[]"):
    script = tmp_path / "fake_bench.py"
    script.write_text(FAKE)
    bands = tmp_path / "bands.yaml"
    bands.write_text(
        f"runs:\n  fake: {{script: {script}, args: {args}}}\nchecks:\n" + textwrap.indent(textwrap.dedent(checks), "  ")
    )
    return bands


def _run(tmp_path, bands, capsys):
    out = tmp_path / "table.json"
    code = main(["--bands", str(bands), "--json", str(out)])
    return code, json.loads(out.read_text()) if out.exists() else None, capsys.readouterr()


def test_a_ratio_inside_its_band_passes_and_one_outside_fails(tmp_path, capsys):
    bands = _bands(
        tmp_path,
        """
        - {name: a over b, run: fake, value: [case, a], over: [case, b], band: [0.2, 0.3], claim: x}
        - {name: n over budget, run: fake, value: [n], over: 1000, band: [null, 0.2], claim: y}
        """,
    )
    code, rows, _ = _run(tmp_path, bands, capsys)
    assert code == 1
    assert rows[0]["value"] == pytest.approx(0.25) and rows[0]["verdict"] == "ok"
    assert rows[1]["value"] == pytest.approx(0.25) and rows[1]["verdict"] == "OUTSIDE"


def test_every_check_inside_exits_zero(tmp_path, capsys):
    bands = _bands(tmp_path, "- {name: a, run: fake, value: [case, a], band: [2.0, 2.0], claim: x}\n")
    code, rows, out = _run(tmp_path, bands, capsys)
    assert code == 0 and rows[0]["verdict"] == "ok"
    assert "| a | 2 | 2 ≤ x ≤ 2 | ok | x |" in out.out


def test_a_missing_value_fails_unless_a_peer_explains_it(tmp_path, capsys):
    bands = _bands(
        tmp_path,
        """
        - {name: peer row, run: fake, value: [case, mujoco], band: [1, 2], claim: x, peer: MuJoCo}
        - {name: not a number, run: fake, value: [case, flag], band: [0, 2], claim: x, peer: MuJoCo}
        """,
    )
    code, rows, _ = _run(tmp_path, bands, capsys)
    assert code == 0
    assert [r["verdict"] for r in rows] == ["skipped: MuJoCo not installed"] * 2
    bands = _bands(tmp_path, "- {name: ours, run: fake, value: [case, c], band: [1, 2], claim: x}\n")
    code, rows, _ = _run(tmp_path, bands, capsys)
    assert code == 1 and rows[0]["verdict"] == "ERROR: no value at case / c"


def test_a_failing_benchmark_is_an_error_with_its_last_line(tmp_path, capsys):
    bands = _bands(tmp_path, "- {name: a, run: fake, value: [case, a], band: [0, 9], claim: x}\n", args="[--fail]")
    code, rows, _ = _run(tmp_path, bands, capsys)
    assert code == 1
    assert rows[0]["verdict"] == "ERROR: exit 3: the benchmark broke"


@pytest.mark.parametrize(
    "checks, message",
    [
        ("- {name: a, run: other, value: [a], band: [0, 1], claim: x}\n", "field 'run' must be one of ['fake']"),
        ("- {name: a, run: fake, value: [a], band: [0], claim: x}\n", "field 'band' must be [low, high]"),
        ("- {name: a, run: fake, value: [a], over: -1, band: [0, 1], claim: x}\n", "field 'over' must be"),
        ("- {name: a, run: fake, value: [a], band: [0, 1]}\n", "field 'claim' is missing"),
    ],
)
def test_a_malformed_bands_file_is_refused_in_one_line(tmp_path, capsys, checks, message):
    code = main(["--bands", str(_bands(tmp_path, checks))])
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err and len(err.splitlines()) == 1


def test_the_shipped_bands_name_benchmarks_that_write_json():
    runs, checks = load_bands(REPO / "benchmarks" / "bands.yaml")
    assert {c.run for c in checks} == set(runs)
    for run in runs.values():
        assert run.script.is_file(), run.script
        assert '"--json"' in run.script.read_text(), f"{run.script.name} has no --json option"
    for c in checks:
        assert c.low is None or c.high is None or c.low < c.high, c.name
