"""The projection (humanoid_planner/posture/solver/newton_projection.py) on the common IK problem
that the benchmarks' peers solve too (both soles 6-D, CoM x-y, a hand point 0.2 m ahead;
benchmarks/peers/ik_problem.py; in the posture generator's terms,
benchmarks/peers/projection_problem.py), judged by the peers' own library-independent Pinocchio
check, plus joint-bound saturation, an unsatisfiable request and the call log (the per-call
record of the Table 7.1 histogram, Escande 2008, §7.5.2).

Iteration counts, never wall-clock (DEVELOPERS.md); the times are in docs/posture_generator.md and
`benchmarks/posture_solvers.py --projection`.
"""

import numpy as np
import pinocchio as pin
import pytest

from benchmarks.peers.ik_problem import random_start
from benchmarks.peers.projection_problem import CommonProblem
from humanoid_planner.posture import (
    CallLog,
    FramePosition,
    NewtonProjectionSettings,
    NewtonProjector,
    Outcome,
    newton_project,
    recording,
)
from humanoid_planner.posture.joint_bounds import bounded_joints

TOL = NewtonProjectionSettings().tolerance


@pytest.fixture(scope="module")
def common(robot, floor):
    return CommonProblem(robot, floor)


def test_common_problem_projects_from_the_peers_random_starts(robot, common):
    """20 of the comparison's 100 starts (HPP: 100 % at 9 Newton iterations, median): every
    projection succeeds by our tolerance and passes the comparison's check, in <= 6 iterations; the
    errors are 10^3 below the check's 1 mm (our tolerance is 1e-6)."""
    proj = NewtonProjector(robot.model, common.constraints())
    its = []
    for trial in range(0, 100, 5):
        q = random_start(robot.model, common.q0, trial)
        assert not common.check(q)  # the start is off the constraints
        res = proj.run(q)
        assert res.outcome == Outcome.SUCCESS and res.max_violation <= TOL, (trial, res.message)
        assert common.check(res.q), common.errors(res.q)
        e = common.errors(res.q)
        assert max(e["hand"], e["feet_pos"], e["com_xy"], e["feet_rot"]) <= 1e-5 and e["limits"] == 0.0
        its.append(res.iterations)
    assert max(its) <= 6, its


def test_projection_is_close_to_the_nearest_point(robot, common):
    """The minimum-norm Newton steps stay near argmin |q (-) q_start| (7.2) (Escande 2008, §7.1.2):
    the tangent distance to the start is within 5 % of the nearest point found by SLSQP with that
    distance as criterion, and far below a projection that moves every joint (the start's distance
    to half-sitting, which also satisfies the soles and CoM)."""
    from humanoid_planner.posture import PostureProblem, solve

    m = robot.model

    class Distance:
        def __init__(self, q_start):
            self.q_start = q_start

        def evaluate(self, q):
            e = pin.difference(m, self.q_start, q)
            J = pin.dDifference(m, self.q_start, q, pin.ARG1)
            return float(e @ e), 2.0 * J.T @ e

    for trial in (3, 17):
        qs = random_start(m, common.q0, trial)
        res = newton_project(m, common.constraints(), qs)
        nearest = solve(PostureProblem(m, common.constraints(), qs, Distance(qs)))
        assert nearest.success
        d_proj = np.linalg.norm(pin.difference(m, qs, res.q))
        d_best = np.linalg.norm(pin.difference(m, qs, nearest.q))
        assert d_best <= d_proj <= 1.05 * d_best, (d_proj, d_best)


def test_joint_bounds_are_saturated_not_crossed(robot, floor, common):
    """A hand target far to the robot's left and low (chosen so that the minimum-norm step drives
    joints past their limits): the result is within the limits and some joints sit on a bound, and
    it still satisfies the constraints; clipping the step without recomputing it for the free
    joints (no saturation pass) stalls there (NO_PROGRESS at 0.195 measured)."""
    m = robot.model
    cons = common.constraints()[:-1] + [FramePosition(m, "LARM_FT", common.target + [-0.1, 0.25, -0.25], name="hand")]
    res = newton_project(m, cons, common.q0)
    assert res.outcome == Outcome.SUCCESS, res.message
    idx_q, _, lo, hi = bounded_joints(m)
    x = res.q[idx_q]
    assert np.all(x >= lo) and np.all(x <= hi)
    assert np.any((x == lo) | (x == hi))
    clipped = newton_project(m, cons, common.q0, NewtonProjectionSettings(saturation_passes=0))
    assert clipped.outcome == Outcome.NO_PROGRESS and clipped.max_violation > 0.1


def test_unsatisfiable_projection_returns_its_code_quickly(robot, common):
    """The hand 3 m away: an outcome code within the 40-iteration limit, nothing raised."""
    m = robot.model
    cons = common.constraints()[:-1] + [FramePosition(m, "LARM_FT", common.target + [3.0, 0, 0], name="hand")]
    res = newton_project(m, cons, common.q0)
    assert res.outcome in (Outcome.NO_PROGRESS, Outcome.MAX_ITERATIONS)
    assert not res.feasible and res.max_violation > 1.0  # the least-squares merit spreads the 3 m over all rows
    assert res.iterations <= NewtonProjectionSettings().max_iterations


def test_every_call_is_logged_with_its_outcome_and_label(robot, common):
    m = robot.model
    mine = CallLog()
    with recording(CallLog()) as everything:
        newton_project(m, common.constraints(), common.q0, log=mine, label="interpolation")
        far = common.constraints()[:-1] + [FramePosition(m, "LARM_FT", common.target + [3.0, 0, 0], name="hand")]
        newton_project(m, far, common.q0)
    newton_project(m, common.constraints(), common.q0)  # outside the block: not in `everything`
    assert [c.label for c in mine.calls] == ["interpolation"]
    assert [c.outcome for c in everything.calls][0] == Outcome.SUCCESS and len(everything) == 2
    rows = everything.histogram()
    assert [r[1] for r in rows] == [1, 1] and rows[0][0] == Outcome.SUCCESS
    assert everything.times(Outcome.SUCCESS).shape == (1,) and all(c.time > 0 for c in everything.calls)
