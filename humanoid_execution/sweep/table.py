"""A sweep's results: one row per job (its number, its axis values, its status, its measured
outputs, its error) written as CSV or Parquet, and a plot of the kind's main outputs per job
(PNG) beside it (docs/sweeps.md).

CSV: a header line, then one line per job; booleans ``True``/``False``, a missing value (the
outputs of a failed job, a CoM without a robot) empty, a list as JSON. Parquet (an output named
``*.parquet``) needs pyarrow, which the stack does not install.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from humanoid_execution.sweep.jobs import KINDS
from humanoid_model.exceptions import ConfigError
from humanoid_model.files import check_output, write_bytes, write_text

__all__ = ["columns", "rows", "write_table", "write_plot", "check_table_output", "FORMATS"]

FORMATS = (".csv", ".parquet")


def columns(sweep) -> list[str]:
    """The table's columns: job, the axes, status, the kind's outputs, wall_s, error."""
    return ["job", *sweep.axes, "status", *KINDS[sweep.kind].outputs, "wall_s", "error"]


def rows(sweep, outcomes) -> list[dict]:
    """One row per job of ``sweep`` from its `TaskOutcome` (a failed job: its error, no outputs)."""
    out = []
    for i, (point, outcome) in enumerate(zip(sweep.points, outcomes, strict=True)):
        row = {"job": i, **point, "status": "ok" if outcome.ok else "failed"}
        row.update(outcome.value or {})
        row.update(wall_s=outcome.wall, error=outcome.error)
        out.append(row)
    return out


def check_table_output(path) -> Path:
    """``path`` when a table can be written there: ``.csv`` or ``.parquet`` (with pyarrow), its
    folder existing; `ConfigError` in one line otherwise."""
    path = Path(path)
    if path.suffix not in FORMATS:
        raise ConfigError(f"sweep: option '--output' must end in {' or '.join(FORMATS)}; value '{path}'")
    if path.suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ConfigError(
                f"sweep: option '--output': a Parquet table needs pyarrow (pip install pyarrow), or write "
                f"a .csv; value '{path}'"
            ) from None
    return check_output(path, "results table", ConfigError)


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value)
    return value


def write_table(path, table: list[dict], names: list[str]) -> Path:
    """``table`` (rows of `rows`) with the columns ``names`` to ``path`` (.csv or .parquet), atomically."""
    path = Path(path)
    if path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        data = {n: [None if r.get(n) is None else _cell(r.get(n)) for r in table] for n in names}
        buffer = io.BytesIO()
        pq.write_table(pa.table(data), buffer)
        return write_bytes(path, buffer.getvalue(), "results table", ConfigError)
    import csv

    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(names)
    for r in table:
        writer.writerow([_cell(r.get(n)) for n in names])
    return write_text(path, text.getvalue(), "results table", ConfigError)


def _label(point: dict) -> str:
    return ", ".join(f"{v}" for v in point.values())


def write_plot(path, sweep, table: list[dict]) -> Path:
    """The kind's plotted outputs (`JobKind.plotted`), one panel each, per job; a failed job is a
    red cross on the axis. PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = KINDS[sweep.kind].plotted
    fig, panels = plt.subplots(len(names), 1, figsize=(max(6.0, 0.25 * len(table) + 2), 2.2 * len(names)), sharex=True)
    x = [r["job"] for r in table]
    failed = [r["job"] for r in table if r["status"] != "ok"]
    for ax, name in zip(panels, names, strict=True):
        ok = [(r["job"], float(r[name])) for r in table if r["status"] == "ok" and r.get(name) is not None]
        if ok:
            ax.plot(*zip(*ok, strict=True), "o", color="tab:blue")
        if failed:
            ax.plot(
                failed, [0.03] * len(failed), "x", color="tab:red", label="failed", transform=ax.get_xaxis_transform()
            )
            ax.legend(loc="best", fontsize=7)
        ax.set_ylabel(name, fontsize=8)
        ax.grid(alpha=0.3)
    last = panels[-1]
    if len(table) <= 40:
        last.set_xticks(x, [_label(p) for p in sweep.points], rotation=60, ha="right", fontsize=6)
    last.set_xlabel("job (" + ", ".join(sweep.axes) + ")" if sweep.axes else "job")
    fig.suptitle(f"{sweep.kind} sweep {Path(sweep.source).name}: {len(table)} jobs", fontsize=9)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return write_bytes(path, buffer.getvalue(), "sweep plot", ConfigError)
