"""The simulator's physics report for /diagnostics, ROS-free (the node wraps it in a
``diagnostic_msgs/DiagnosticStatus``).

    report = physics_report(world.step_stats.drain(), world, wall_elapsed=1.0, sim_elapsed=1.0)
    report.level, report.message, report.values      # OK / WARN / ERROR, text, key -> string

    monitor = PhysicsMonitor(period=1.0, max_iterations=500)   # one report per period of wall clock
    if monitor.due(time.monotonic()):
        report = monitor.report(world, time.monotonic(), paused=False)

Each report covers the steps since the previous one (a drained `humanoid_sim.step_stats`
summary): step time, solver iterations and residuals, unconverged solves (WARN: the steps used
the best iterate), the deepest penetration, and the real-time factor reached. `PhysicsMonitor`
keeps what spans reports: the wall-clock and simulated time of the last one, and the unconverged
solves since the world was built.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["PhysicsReport", "PhysicsMonitor", "physics_report", "OK", "WARN", "ERROR", "REPORTED_RESIDUALS"]

OK, WARN, ERROR = 0, 1, 2  # the levels of diagnostic_msgs/DiagnosticStatus
REPORTED_RESIDUALS = ("complementarity", "penetration", "cone", "natural_map")


@dataclass(frozen=True)
class PhysicsReport:
    """level (`OK`, `WARN` or `ERROR`), message, values (key -> text, in report order)."""

    level: int
    message: str
    values: dict


def physics_report(
    summary,
    world,
    wall_elapsed: float,
    sim_elapsed: float,
    *,
    max_iterations: int,
    unconverged_total: int,
    paused: bool = False,
    error: str = "",
    real_time_factor_target: float = 1.0,
    controller: str = "",
    rejected_commands: int = 0,
    last_rejection: str = "",
    accepted_commands: int = 0,
    last_command_time: float | None = None,
) -> PhysicsReport:
    """The report of ``summary`` (a `StepSummary`, the steps since the last report) of ``world``
    over ``wall_elapsed`` [s] of wall clock and ``sim_elapsed`` [s] of simulated time.
    max_iterations: the solver's sweep budget (quoted in a WARN); unconverged_total: unconverged
    solves since the world was built; error: a step failure (ERROR); last_command_time [s]: the
    simulated time of the last accepted command (None: none yet); the other arguments are the
    node's state, reported as given."""
    s = summary
    if error:
        level, message = ERROR, error
    elif s.unconverged_solves:
        level = WARN
        message = (
            f"{s.unconverged_solves} contact solves in {s.steps} steps did not converge within "
            f"{max_iterations} iterations (or their time budget); the steps used the best iterate"
        )
    else:
        level, message = OK, "paused" if paused else "running"
    values = {
        "sim_time_s": f"{world.t:.6f}",
        "steps": str(s.steps),
        "paused": str(paused).lower(),
        "step_time_median_ms": f"{s.median_step_time * 1e3:.4f}",
        "step_time_max_ms": f"{s.max_step_time * 1e3:.4f}",
        "real_time_factor": f"{sim_elapsed / max(wall_elapsed, 1e-9):.3f}",
        "real_time_factor_target": f"{real_time_factor_target:g}",
        "solver": world.solver.name,
        "solver_iterations_mean": f"{s.iterations_total / max(s.steps, 1):.2f}",
        "solver_iterations_max": str(s.iterations_max),
        "unconverged_solves": str(s.unconverged_solves),
        "unconverged_solves_total": str(unconverged_total),
        "penetration_max_m": f"{max(0.0, -s.min_gap):.3e}",
        "contacts": str(world.last.batch.m if world.last is not None else 0),
        "controller": controller,
        "rejected_commands": str(rejected_commands),
        "last_rejection": last_rejection,
        "accepted_commands": str(accepted_commands),
        "last_command_time_s": "" if last_command_time is None else f"{last_command_time:.6f}",
    }
    for key in REPORTED_RESIDUALS:
        values[f"residual_{key}"] = f"{s.max_residuals.get(key, 0.0):.3e}"
    return PhysicsReport(level, message, values)


class PhysicsMonitor:
    """Periodic physics reports of one world (module docstring).

    period [s]: wall-clock time between reports; max_iterations: the solver's sweep budget (quoted
    in a WARN). `restart` (a new world) sets the anchor to ``now`` and simulated time 0 and the
    unconverged total to 0; each `report` drains the world's step statistics and moves the anchor.
    Times ``now`` [s] are read from a monotonic clock (``time.monotonic()`` when None).
    """

    def __init__(self, period: float, max_iterations: int, now: float | None = None):
        self.period = float(period)
        self.max_iterations = int(max_iterations)
        self.restart(now)

    def restart(self, now: float | None = None, t: float = 0.0):
        """Start afresh: the next report covers from ``now`` [s] (wall) and ``t`` [s] (simulated)."""
        self.anchor = (time.monotonic() if now is None else float(now), float(t))
        self.unconverged_total = 0

    def due(self, now: float) -> bool:
        """Whether a period has passed at ``now`` [s] since the last report (or the restart)."""
        return now - self.anchor[0] >= self.period

    def report(self, world, now: float, **context) -> PhysicsReport:
        """The `physics_report` of the steps of ``world`` since the last report, at ``now`` [s];
        ``context``: its keyword arguments paused, error, real_time_factor_target, controller,
        rejected_commands, last_rejection, accepted_commands, last_command_time."""
        wall0, t0 = self.anchor
        summary = world.step_stats.drain()  # the steps since the last report; bounded memory
        self.unconverged_total += summary.unconverged_solves
        report = physics_report(
            summary,
            world,
            now - wall0,
            world.t - t0,
            max_iterations=self.max_iterations,
            unconverged_total=self.unconverged_total,
            **context,
        )
        self.anchor = (now, world.t)
        return report
