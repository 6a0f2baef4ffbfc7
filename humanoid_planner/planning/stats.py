"""Posture-generator call statistics of a planning run, by outcome code as the thesis's Table 7.1
(Escande 2008, §7.5.2).

The planner logs every PG call into a `humanoid_planner.contact.feasibility.Stats` (count and
total time per (purpose, outcome)), motion generation into another one (purpose
"interpolation"). `entries(stats)` flattens one into (purpose, `Outcome`, count, total time [s])
and `histogram(entries)` sums them by outcome code; `format_histogram` prints the rows as the
thesis's table (code, meaning, count, share, mean, total) with a total row.
"""

from __future__ import annotations

from dataclasses import dataclass

from humanoid_planner.posture import Outcome

__all__ = ["MEANINGS", "OutcomeRow", "entries", "format_histogram", "histogram", "histogram_document"]

MEANINGS = {
    Outcome.SUCCESS: "success",
    Outcome.INFEASIBLE_INEQUALITIES: "inequalities not satisfiable (phase 1)",
    Outcome.MAX_ITERATIONS: "max iterations",
    Outcome.LINE_SEARCH_FAILURE: "line search failure",
    Outcome.SEARCH_DIRECTION_FAILED: "search direction construction failed",
    Outcome.NO_PROGRESS: "no progress (x^k and x^k+1 numerically equal)",
    Outcome.EQUALITIES_NOT_SATISFIED: "nonlinear equalities not satisfied",
}
"""The meaning of each code, in the words of Escande 2008, Table 7.1."""


@dataclass(frozen=True)
class OutcomeRow:
    """One line of the table: ``outcome``, ``count``, ``total`` time [s], ``share`` of the calls."""

    outcome: Outcome
    count: int
    total: float
    share: float

    @property
    def mean(self) -> float:
        """Mean time per call [s]."""
        return self.total / self.count if self.count else 0.0


def entries(stats) -> list[tuple[str, Outcome, int, float]]:
    """(purpose, outcome, count, total time [s]) of a `contact.feasibility.Stats`."""
    return [(p, Outcome[o], n, stats.times[(p, o)]) for (p, o), n in sorted(stats.calls.items())]


def histogram(items) -> list[OutcomeRow]:
    """Rows by increasing outcome code from ``items`` (purpose, outcome, count, total [s])."""
    counts, totals = {}, {}
    for _, outcome, n, total in items:
        o = Outcome(outcome)
        counts[o] = counts.get(o, 0) + int(n)
        totals[o] = totals.get(o, 0.0) + float(total)
    calls = sum(counts.values())
    return [OutcomeRow(o, counts[o], totals[o], counts[o] / calls) for o in sorted(counts)]


def format_histogram(rows: list[OutcomeRow], title: str = "") -> str:
    """The Table 7.1-style text: code, meaning, count, share [%], mean [s], total [s], and a total
    row (mean over all calls)."""
    lines = [title] if title else []
    lines += ["| code | meaning | count | share | mean [s] | total [s] |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {int(r.outcome)} | {MEANINGS[r.outcome]} | {r.count} | {100 * r.share:.1f} % | "
            f"{r.mean:.4f} | {r.total:.3f} |"
        )
    n = sum(r.count for r in rows)
    total = sum(r.total for r in rows)
    lines.append(f"| total | | {n} | 100 % | {total / n if n else 0.0:.4f} | {total:.3f} |")
    return "\n".join(lines)


def histogram_document(items) -> dict:
    """The histogram and the per-purpose counts as JSON-ready data (PLAN.json ``stats``)."""
    items = list(items)
    rows = histogram(items)
    return {
        "calls": sum(r.count for r in rows),
        "time": sum(r.total for r in rows),
        "by_outcome": [
            {
                "code": int(r.outcome),
                "name": r.outcome.name,
                "count": r.count,
                "mean_time": r.mean,
                "total_time": r.total,
            }
            for r in rows
        ],
        "by_purpose": [
            {"purpose": p, "code": int(o), "name": Outcome(o).name, "count": n, "mean_time": t / n if n else 0.0}
            for p, o, n, t in items
        ],
    }
