"""One planning run: the contact plan of a `PlanningProblem`, then the motion through its witness
postures (`humanoid_planner.motion`), with the statistics of both.

    result = run(problem_for(load_scene("flat"), load_robot("hrp2")), progress=print)
    result.success, result.plan.nodes, result.motion.t, result.reason

A search that finds no plan (list empty, time limit, node limit) is not an error: ``success`` is
false and ``reason`` says why; so is a motion whose projection fails (``reason`` names the
segment). The time limit bounds the search only; motion generation follows it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from humanoid_planner.contact.feasibility import Stats
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.motion import Motion, MotionSettings, SegmentCheck, generate_motion

from .problem import PlanningProblem
from .stats import entries

__all__ = ["PlanningResult", "run"]


@dataclass
class PlanningResult:
    """``problem``, the `ContactPlanner` used, its `Plan`, the `Motion` (None without a plan or
    when it failed), ``reason`` of a failure, the wall ``time`` [s] of the whole run and the
    projections' ``motion_stats`` (kept when the motion failed)."""

    problem: PlanningProblem
    planner: object
    plan: object
    motion: Motion | None
    reason: str
    time: float
    motion_stats: Stats

    @property
    def success(self) -> bool:
        return bool(self.plan.success) and self.motion is not None

    def stat_entries(self, which: str = "all") -> list:
        """(purpose, outcome, count, total [s]) of the PG calls of the ``search``, the ``motion`` or ``all``."""
        out = entries(self.plan.stats) if which in ("search", "all") else []
        if which in ("motion", "all"):
            out += entries(self.motion_stats)
        return out


def run(problem: PlanningProblem, motion: MotionSettings | None = None, progress=None, notes=None) -> PlanningResult:
    """Plan ``problem`` (``progress``: called with the search's `contact.Progress` after each
    expansion), then generate the motion with ``motion`` settings. With the motion's collision
    rows on (the default), the search checks the motion of each plan it finds and cuts the
    transitions without a clear one (`motion.path_check`; ``notes``: called with its lines, a
    path planned or a transition cut); the motion keeps the knots it found."""
    start = time.perf_counter()
    planner = problem.planner
    motion = motion or MotionSettings()
    check = None
    if motion.collision and motion.steps > 1:
        check = SegmentCheck.of(planner, motion, notes)
    plan = planner.plan(problem.start, problem.start_q, progress=progress, path_check=check)
    result, reason = None, plan.reason
    stats = check.stats if check is not None else Stats()
    if plan.success:
        try:
            known = check.for_motion() if check is not None else None
            result = generate_motion(
                planner.feas, plan.nodes, plan.goal_q, motion, stats, start_q=problem.start_q, known=known
            )
        except PlanningError as exc:
            reason = str(exc)
    return PlanningResult(problem, planner, plan, result, reason, time.perf_counter() - start, stats)
