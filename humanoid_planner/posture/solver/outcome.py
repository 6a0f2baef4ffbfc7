"""Outcome codes of a posture-generator call, numbered as FSQP's in the thesis's Table 7.1
(Escande 2008, §7.5.2), and the result record.

Mapping of SciPy SLSQP exit modes (our choice): 0 -> SUCCESS when the final point also meets
the tolerance, else EQUALITIES_NOT_SATISFIED; 9 (iteration limit) -> MAX_ITERATIONS;
8 (positive directional derivative in the line search) -> LINE_SEARCH_FAILURE; 2-7 (the QP
subproblem could not be built or solved: incompatible linearised constraints, singular or
rank-deficient matrices) -> SEARCH_DIRECTION_FAILED. Phase 1 failing (the inequalities alone
cannot be met) -> INFEASIBLE_INEQUALITIES, before any equality is looked at. NO_PROGRESS (8 in
Table 7.1) is kept for solvers that report it; SLSQP never does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

__all__ = ["Outcome", "PostureResult", "from_slsqp"]


class Outcome(IntEnum):
    """Table 7.1 codes (Escande 2008, §7.5.2)."""

    SUCCESS = 0
    INFEASIBLE_INEQUALITIES = 2  #: phase 1: the inequalities cannot all be met
    MAX_ITERATIONS = 3
    LINE_SEARCH_FAILURE = 4
    SEARCH_DIRECTION_FAILED = 5
    NO_PROGRESS = 8  #: x^k and x^(k+1) numerically equal
    EQUALITIES_NOT_SATISFIED = 9


@dataclass
class PostureResult:
    """A posture-generator call: ``outcome``, the last configuration ``q`` (nq,), ``max_violation``
    (largest |equality| or positive inequality [m or -]), ``feasible`` (max_violation <= the
    tolerance, whatever the outcome), the ``criterion`` value, iteration counts of both phases,
    wall time [s] and the solver's own message."""

    outcome: Outcome
    q: np.ndarray
    max_violation: float
    feasible: bool
    criterion: float = 0.0
    phase1_iterations: int = 0
    iterations: int = 0
    time: float = 0.0
    message: str = ""
    violations: dict = field(default_factory=dict)  #: constraint name -> its largest violation
    extra: dict = field(default_factory=dict)  #: extended constraint name -> its variables z at the end
    cpu_time: float = 0.0  #: [s] the process's CPU time of the call (wall ``time`` minus waiting on a loaded machine)

    @property
    def success(self) -> bool:
        return self.outcome == Outcome.SUCCESS


_SLSQP = {0: Outcome.SUCCESS, 8: Outcome.LINE_SEARCH_FAILURE, 9: Outcome.MAX_ITERATIONS}


def from_slsqp(status: int, feasible: bool) -> Outcome:
    """The outcome of an SLSQP exit ``status`` (scipy's ``res.status``), given whether the final
    point meets the tolerance (module docstring)."""
    out = _SLSQP.get(int(status), Outcome.SEARCH_DIRECTION_FAILED)
    if out == Outcome.SUCCESS and not feasible:
        return Outcome.EQUALITIES_NOT_SATISFIED
    return out
