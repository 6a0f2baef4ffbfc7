"""The posture generator's solver (humanoid_planner/posture/solver/two_phase.py) on HRP-2 standing on the
flat floor (config/scenes/flat.yaml) with both soles in strong contact, the CoM in their support
polygon and the reference-posture criterion (4.11): a moved strong contact (Escande 2008,
§3.4.1), a hand target, an unreachable one (an outcome code, quickly, nothing raised) and a
phase-1 failure.

"Quickly" is asserted as an iteration count, never as wall-clock (DEVELOPERS.md);
docs/posture_generator.md has the measured times.
"""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import (
    ComInPolygon,
    EnvironmentFrame,
    FramePosition,
    PreContact,
    RobotContactFrame,
    SearchBox,
    SearchBoxContact,
)
from humanoid_planner.posture import kinematics as kin
from humanoid_planner.posture.base import BAND
from humanoid_planner.posture.criteria.reference_posture import ReferencePosture
from humanoid_planner.posture.problem import PostureProblem
from humanoid_planner.posture.solver.outcome import Outcome, from_slsqp
from humanoid_planner.posture.solver.two_phase import PostureSolverSettings, solve
from humanoid_planner.posture.stance import contacts_at, stance_constraints

TOL = PostureSolverSettings().tolerance  # 1e-6, solver/two_phase.py docstring
ALIGN_TOL = 1e-4  # rad, chosen: the frame alignment of acceptance test 001 A9
HAND_TARGET = [0.35, -0.3, 0.9]  # [m], chosen: in front of the right shoulder, reachable standing


def _hand(robot, target):
    return FramePosition(robot.model, "RARM_LINK5", target, point=robot.contact_locations["r_hand"].point, name="hand")


def _problem(robot, floor, contacts, tasks=()):
    m = robot.model
    cons = stance_constraints(m, robot.contact_locations, contacts) + list(tasks)
    return PostureProblem(m, cons, robot.q(), ReferencePosture(m))


def _alignment_angle(robot, q, name, env):
    """Angle [rad] between the contact frame (d_P, b_P, n_P) in the world and (d_E, b_E, n_E)."""
    m, d = robot.model, robot.model.createData()
    kin.update(m, d, q)
    rf = RobotContactFrame.from_location(robot.contact_locations[name])
    R = d.oMf[m.getFrameId(rf.body)].rotation @ rf.rotation
    return float(np.linalg.norm(pin.log3(env.rotation.T @ R)))


def _check_solution(robot, res, contacts):
    assert res.outcome == Outcome.SUCCESS, res.message
    assert res.feasible and res.max_violation <= TOL
    q = res.q
    assert np.all(q[7:] >= robot.q_lower - 1e-9) and np.all(q[7:] <= robot.q_upper + 1e-9)
    for name, env, _ in contacts:
        assert res.violations[name] <= TOL
        assert _alignment_angle(robot, q, name, env) <= ALIGN_TOL


@pytest.fixture(scope="module")
def standing(robot, floor):
    return contacts_at(robot.model, robot.contact_locations, robot.q(), ["r_sole", "l_sole"], floor)


def test_hand_target_with_both_feet_fixed(robot, floor, standing):
    res = solve(_problem(robot, floor, standing, [_hand(robot, HAND_TARGET)]))
    _check_solution(robot, res, standing)
    m, d = robot.model, robot.model.createData()
    kin.update(m, d, res.q, com=True)
    p = d.oMf[m.getFrameId("RARM_LINK5")].act(robot.contact_locations["r_hand"].point)
    assert np.linalg.norm(p - HAND_TARGET) <= TOL
    # the start's hand is > 0.2 m away: the solve did move it
    kin.update(m, d, robot.q())
    assert (
        np.linalg.norm(d.oMf[m.getFrameId("RARM_LINK5")].act(robot.contact_locations["r_hand"].point) - HAND_TARGET)
        > 0.2
    )


@pytest.mark.spec("001", "A9")
def test_moved_and_turned_foot(robot, floor, standing):
    """The right sole sent to a new frame (5 cm forward, 2 cm out, turned 0.2 rad): the 6
    equalities within the tolerance, the 2 inequalities hold, axes aligned within 1e-4 rad."""
    e1, e2, _ = floor.rotation.T
    _, env, _ = standing[0]
    rel = env.point - floor.centroid
    moved = EnvironmentFrame.on_surface(floor, rel @ e1 + 0.05, rel @ e2 - 0.02, 0.2)
    contacts = [("r_sole", moved, floor), standing[1]]
    assert _alignment_angle(robot, robot.q(), "r_sole", moved) == pytest.approx(0.2, abs=1e-6)
    res = solve(_problem(robot, floor, contacts))
    _check_solution(robot, res, contacts)


def test_unreachable_hand_target_returns_its_code_quickly(robot, floor, standing):
    """A hand target 3 m away returns an outcome code, raises nothing, and stops on the
    stall rule (solver/two_phase.py) well before the 100-iteration limit."""
    target = np.array(HAND_TARGET) + [3.0, 0.0, 0.0]
    res = solve(_problem(robot, floor, standing, [_hand(robot, target)]))
    assert res.outcome == Outcome.NO_PROGRESS, (res.outcome, res.message)
    assert not res.feasible and res.violations["hand"] > 2.0
    assert res.iterations <= 30


def test_phase1_failure_is_infeasible_inequalities(robot, floor, standing):
    """A pre-contact (3.40) of the right hand within 5 cm of a wall 3 m ahead: the inequalities
    cannot hold, phase 1 says so and phase 2 never runs (Escande 2008, §3.2.1)."""
    wall = EnvironmentFrame.make([3.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0])
    pre = PreContact(robot.model, RobotContactFrame.from_location(robot.contact_locations["r_hand"]), wall, 0.05)
    res = solve(_problem(robot, floor, standing, [pre]))
    assert res.outcome == Outcome.INFEASIBLE_INEQUALITIES, res.message
    assert res.iterations == 0 and 0 < res.phase1_iterations <= PostureSolverSettings().phase1_iterations
    # phase 1 ignores the equalities (the feet), but the CoM row keeps the body over the
    # support polygon: the hand stays far from the 5 cm band
    assert res.violations["pre_contact"] > 0.5


def test_phase1_recovers_a_violated_start(robot, floor, standing):
    """The support polygon moved 12 cm forward (chosen) so that the half-sitting CoM is behind its
    rear edge: phase 1 finds a point meeting every inequality, phase 2 then succeeds."""
    m = robot.model
    cons = stance_constraints(m, robot.contact_locations, standing, margin=0.0)
    com = cons[-1]
    d = m.createData()
    kin.update(m, d, robot.q(), com=True)
    violated = com.value(robot.q(), d)

    shifted = ComInPolygon(m, com.vertices + [0.12, 0.0], name="com_forward")
    assert shifted.value(robot.q(), d).max() > 0 and violated.max() < 0
    pb = PostureProblem(m, cons[:-1] + [shifted], robot.q(), ReferencePosture(m))
    res = solve(pb)
    assert res.phase1_iterations > 0
    _check_solution(robot, res, standing)


def test_iteration_limit_is_max_iterations(robot, floor, standing):
    """Table 7.1 code 3: the hand problem (12 SLSQP iterations to converge) cut at 3."""
    res = solve(_problem(robot, floor, standing, [_hand(robot, HAND_TARGET)]), PostureSolverSettings(max_iterations=3))
    assert res.outcome == Outcome.MAX_ITERATIONS and int(res.outcome) == 3
    assert not res.feasible


def test_problem_refuses_a_start_outside_the_joint_limits(robot, floor, standing):
    q = robot.q()
    q[7] = robot.q_upper[0] + 0.1
    with pytest.raises(PlanningError, match=robot.joint_names[0]):
        PostureProblem(robot.model, stance_constraints(robot.model, robot.contact_locations, standing), q)


def test_search_box_contact_finds_a_step_and_converts_to_strong(robot, floor, standing):
    """Candidate generation (Escande 2008, §6.1.2.2, Algorithm 5): the left sole fixed with the CoM
    over it (stability of the smaller stance), the right sole a light contact in a box 5-15 cm
    ahead, 0-5 cm outward, theta in [-0.3, 0.3] rad (chosen). Phase 1 moves the CoM over the left
    foot; the solution's (x, y, theta) lie in the box and the strong contact made there by
    `to_strong` (updateContact) holds at the solution."""
    m = robot.model
    _, env, _ = standing[0]
    e1, e2, _ = floor.rotation.T
    x0, y0 = (env.point - floor.centroid) @ e1, (env.point - floor.centroid) @ e2
    box = SearchBox.rectangle(floor, (x0 + 0.05, x0 + 0.15), (y0 - 0.05, y0), (-0.3, 0.3))
    slide = SearchBoxContact(m, RobotContactFrame.from_location(robot.contact_locations["r_sole"]), box, name="step")
    cons = stance_constraints(m, robot.contact_locations, [standing[1]]) + [slide]
    pb = PostureProblem(m, cons, robot.q(), ReferencePosture(m))
    res = solve(pb)
    assert res.phase1_iterations > 0
    assert res.outcome == Outcome.SUCCESS, res.message
    d = m.createData()
    kin.update(m, d, res.q)
    x, y, th = slide.parameters(res.q, d)
    assert x0 + 0.05 - TOL <= x <= x0 + 0.15 + TOL and y0 - 0.05 - TOL <= y <= y0 + TOL and abs(th) <= 0.3 + TOL
    strong = slide.to_strong(res.q, d)
    assert np.abs(strong.value(res.q, d)[:6]).max() <= TOL and strong.value(res.q, d)[6:].max() < 0
    assert _alignment_angle(robot, res.q, "r_sole", strong.env_frame) <= ALIGN_TOL


def test_slsqp_exit_modes_map_to_table_7_1_codes():
    """solver/outcome.py's mapping of scipy's SLSQP modes (scipy/optimize/_slsqp_py.py exit_modes)."""
    assert from_slsqp(0, True) == Outcome.SUCCESS
    assert from_slsqp(0, False) == Outcome.EQUALITIES_NOT_SATISFIED == 9
    assert from_slsqp(9, False) == Outcome.MAX_ITERATIONS == 3
    assert from_slsqp(8, False) == Outcome.LINE_SEARCH_FAILURE == 4
    for mode in range(2, 8):  # incompatible / singular / rank-deficient QP subproblem
        assert from_slsqp(mode, False) == Outcome.SEARCH_DIRECTION_FAILED == 5


@pytest.mark.spec("001", "A1")
def test_space_count_matches_the_thesis_and_an_enumeration():
    """Escande 2008, §2.3.4.2, (2.10): sum_{i=1..4} C(12, i) 3^i = 46,665 (the sum the thesis's count
    uses; (2.10) prints C_n^k p^k), and the formula counts what it says: an enumeration of the
    stances (distinct locations, one surface each)."""
    from itertools import combinations, product

    from humanoid_planner.posture.stance import stance_space_count

    assert stance_space_count(12, 3, 4) == 46_665
    for n, p, k in ((12, 3, 4), (5, 2, 3), (4, 4, 4)):
        count = sum(1 for i in range(1, k + 1) for _ in combinations(range(n), i) for _ in product(range(p), repeat=i))
        assert count == stance_space_count(n, p, k)


def test_dependent_equality_rows_are_solved_on_an_independent_subset(robot, floor, standing):
    """The same hand target given twice (consistent, linearly dependent rows): SLSQP alone stops at
    its first QP with "Singular matrix C" (mode 6, SEARCH_DIRECTION_FAILED); the solver then runs
    on an independent subset of the equalities (solver/two_phase.py, "Rank-deficient equalities") and meets
    every row, the duplicates included, at the solution of the single target."""
    twice = [
        _hand(robot, HAND_TARGET),
        FramePosition(
            robot.model, "RARM_LINK5", HAND_TARGET, point=robot.contact_locations["r_hand"].point, name="again"
        ),
    ]
    res = solve(_problem(robot, floor, standing, twice))
    _check_solution(robot, res, standing)
    assert res.violations["again"] <= TOL and "dependent equality rows left out" in res.message
    once = solve(_problem(robot, floor, standing, twice[:1]))
    np.testing.assert_allclose(res.q, once.q, atol=1e-5)


def test_band_rows_are_the_inner_rows_then_both_sides_of_each_equality(robot, floor, standing):
    """`WithBand`'s rows against its inner constraint's own evaluation, at a configuration off the
    stance: the inner rows unchanged, then c_i - band and -c_i - band for each equality row i, with
    the Jacobian rows J_i and -J_i."""
    from humanoid_planner.posture import WithBand

    m = robot.model
    q = pin.integrate(m, robot.q(), np.random.default_rng(2).normal(scale=0.05, size=m.nv))
    d = m.createData()
    kin.update(m, d, q, com=True)
    for inner in stance_constraints(m, robot.contact_locations, standing):
        band = WithBand(inner, band=2e-3)
        c, J = band.evaluate(q, d)
        ci, Ji = inner.evaluate(q, d)
        e = inner.equality_mask
        assert c.shape == (inner.dim + 2 * e.sum(),)
        np.testing.assert_array_equal(c, np.concatenate([ci, ci[e] - 2e-3, -ci[e] - 2e-3]))
        np.testing.assert_array_equal(J, np.vstack([Ji, Ji[e], -Ji[e]]))
        assert band.kinds[: inner.dim] == inner.kinds and set(band.kinds[inner.dim :]) <= {BAND}


def test_band_rows_are_seen_by_phase_1_and_left_out_of_phase_2(robot, floor, standing, monkeypatch):
    """`base.BAND` rows (the planner's fast-fail bands, `posture.WithBand`): phase 1 gets
    them with the other inequalities, phase 2 only the equality rows they are implied by (solver
    docstring, "Band rows"); the solution still meets them."""
    import humanoid_planner.posture.solver.two_phase as solver_module
    from humanoid_planner.posture import WithBand

    m = robot.model
    cons = [WithBand(c) for c in stance_constraints(m, robot.contact_locations, standing)]
    problem = PostureProblem(m, cons + [_hand(robot, HAND_TARGET)], robot.q(), ReferencePosture(m))
    n_band = int(problem.band.sum())
    assert n_band == 2 * sum(int(c.inner.equality_mask.sum()) for c in cons if isinstance(c, WithBand)) > 0
    assert not (problem.band & problem.equality).any()
    seen = []
    real = solver_module.minimize_slsqp

    def spy(f, g, c_eq, J_eq, c_ineq, J_ineq, x0, *args):
        seen.append({k: len(c(x0)) for k, c in (("eq", c_eq), ("ineq", c_ineq)) if c is not None})
        return real(f, g, c_eq, J_eq, c_ineq, J_ineq, x0, *args)

    monkeypatch.setattr(solver_module, "minimize_slsqp", spy)
    res = solve(problem, x0=np.r_[0.05, np.zeros(m.nv - 1)])  # the soles 5 cm off: phase 1 runs
    phase1, phase2 = seen
    n_ineq = int((~problem.equality).sum())
    assert phase1 == {"ineq": n_ineq}
    assert phase2 == {"eq": int(problem.equality.sum()), "ineq": n_ineq - n_band}
    assert res.outcome == Outcome.SUCCESS and res.max_violation <= TOL


def test_problems_sharing_a_thread_s_kinematics_data_evaluate_as_alone(robot, floor, standing):
    """The problems of one thread share one `pin.Data` per model (`problem._shared_data`): two
    problems evaluated in turns (a lazily computed criterion included) give what each gives alone,
    bit for bit, since every evaluation fills the whole kinematics pass from its q."""
    m = robot.model
    rng = np.random.default_rng(8)
    xs = [rng.normal(scale=0.05, size=m.nv) for _ in range(3)]

    def fresh(tasks):
        return _problem(robot, floor, standing, tasks)

    def alone(tasks, x):
        pb = fresh(tasks)
        pb.data = m.createData()  # a data of its own
        ev = pb.at(x)
        return ev.c.copy(), ev.J.copy(), ev.f, ev.g.copy()

    a, b = fresh([_hand(robot, HAND_TARGET)]), fresh([])
    assert a.data is b.data
    for x in xs:
        ev_a = a.at(x)
        ev_b = b.at(-x)
        got_b = (ev_b.c.copy(), ev_b.J.copy(), ev_b.f, ev_b.g.copy())
        got_a = (ev_a.c, ev_a.J, ev_a.f, ev_a.g)  # a's criterion computed after b's evaluation
        for got, ref in ((got_a, alone([_hand(robot, HAND_TARGET)], x)), (got_b, alone([], -x))):
            for u, v in zip(got, ref):
                assert np.array_equal(u, v)
