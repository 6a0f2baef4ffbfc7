"""Solving with collision constraints in two stages: first without the collision rows, then with
them from that solution (docs/posture_generator.md "Collision").

Why: from a start far from the target (the fridge-like problem of test_posture_collision.py,
after Escande 2008, §4.6: the hand 0.6 m away, inside a box), SLSQP's first steps with the
collision rows cross deep penetrations and near-parallel capsule pairs, where the signed
distances of capsules and boxes are not C^1 (neither is strictly convex: Escande 2008, §4.3.2,
Theorem 4.3.3), and it creeps (measured on that problem: 98 iterations, 0.8-1.4 s, and
NO_PROGRESS at 37 under the default stall rule). Without
those rows the problem is smooth and solved in ~12 iterations; from its solution phase 1 pushes
the bodies out of the obstacles and SLSQP ends in ~13 more (0.14 s, the same criterion value).
The thesis warm-starts each call from a nearby posture in the same spirit (the contact planner
starts each posture-generator call from the father's witness posture, Escande 2008, §5.3.2.2).
"""

from __future__ import annotations

from ..problem import PostureProblem
from .outcome import PostureResult
from .two_phase import PostureSolverSettings, solve

__all__ = ["solve_avoiding"]


def solve_avoiding(
    model, constraints, collisions, q0, criterion=None, settings: PostureSolverSettings | None = None
) -> PostureResult:
    """Solve ``constraints`` + ``collisions`` (constraint lists) from ``q0``: first ``constraints``
    alone from ``q0``, then all of them from that solution when it succeeded (else from ``q0``).
    The result is the second solve's, its ``time`` the two solves' sum and its ``message`` naming
    the first stage's outcome."""
    first = solve(PostureProblem(model, constraints, q0, criterion), settings)
    start = first.q if first.success else q0
    out = solve(PostureProblem(model, list(constraints) + list(collisions), start, criterion), settings)
    out.time += first.time
    out.message = f"stage 1 {first.outcome.name} in {first.iterations} iterations; stage 2: {out.message}"
    return out
