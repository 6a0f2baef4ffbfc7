"""Criteria of the posture generator (humanoid_planner/posture, Escande 2008, §3.3): the path
distance (3.27), the potential hook (the planner potential as criterion, §6.2.2) and the weighted
sum: interface, gradients against central differences, analytic values, and solves that minimise
them.
"""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import (
    CRITERIA,
    ConfigurationDistance,
    CriterionSum,
    FramePosition,
    PathDistance,
    PostureCriterion,
    PostureProblem,
    PotentialCriterion,
    ReferencePosture,
    contacts_at,
    solve,
    stance_constraints,
)
from humanoid_planner.posture import kinematics as kin

H = 1e-6  # FD step (test_posture_jacobians.py's error budget, on values of order 1)


def _hand_potential(robot, target):
    """U = |p_hand - target|^2 [m^2] with its analytic gradient (point Jacobian)."""
    m = robot.model
    d = m.createData()
    fid = m.getFrameId("RARM_LINK5")
    point = robot.contact_locations["r_hand"].point

    def fn(q):
        kin.update(m, d, q)
        p, J = kin.point_jacobian(m, d, fid, point)
        e = p - target
        return float(e @ e), 2.0 * e @ J

    return fn


def _arm_path(robot):
    """Half-sitting, then the right shoulder pitch -1.0 rad, then also the elbow -1.2 rad (rad)."""
    q0 = robot.q()
    q1, q2 = q0.copy(), q0.copy()
    i, k = 7 + robot.joint_names.index("RARM_JOINT0"), 7 + robot.joint_names.index("RARM_JOINT3")
    q1[i] = q2[i] = -1.0
    q2[k] = -1.2
    return np.array([q0, q1, q2]), i, k


def _criteria(robot):
    m = robot.model
    path, _, _ = _arm_path(robot)
    hand = PotentialCriterion(_hand_potential(robot, np.array([0.4, -0.3, 0.9])), name="hand")
    return [
        ReferencePosture(m),
        PathDistance(m, path),
        ConfigurationDistance(m, path[1]),
        hand,
        CriterionSum([(0.5, hand), (2.0, ReferencePosture(m))]),
    ]


def _random_q(robot, rng):
    q = robot.q()
    q[7:] = rng.uniform(robot.q_lower, robot.q_upper)
    q[:3] += rng.uniform(-0.2, 0.2, 3)
    quat = rng.normal(size=4)
    q[3:7] = quat / np.linalg.norm(quat)
    return q


def test_every_registered_criterion_has_an_fd_exact_gradient(robot):
    m = robot.model
    crits = _criteria(robot)
    assert {type(c) for c in crits} == set(CRITERIA.values())
    rng = np.random.default_rng(5)
    for _ in range(5):
        q = _random_q(robot, rng)
        v = rng.normal(size=m.nv)
        v /= np.linalg.norm(v)
        for c in crits:
            assert isinstance(c, PostureCriterion) and c.name and c.equations
            f, g = c.evaluate(q)
            assert np.isfinite(f) and g.shape == (m.nv,)
            fd = (c.evaluate(pin.integrate(m, q, H * v))[0] - c.evaluate(pin.integrate(m, q, -H * v))[0]) / (2 * H)
            assert abs(fd - g @ v) <= 1e-6 * max(1.0, abs(g @ v)), (c.name, fd, g @ v)
            assert abs(fd + g @ v) > 1e-3 * max(1.0, abs(g @ v)) or abs(g @ v) < 1e-9  # a sign flip would fail


def test_path_distance_values(robot):
    """(3.27): zero on the path; a joint 0.2 rad off a segment that does not move it costs 0.04; a
    5 cm base offset 0.0025; a base yaw theta 2 (1 - cos theta); the nearest of the segments."""
    m = robot.model
    path, i, k = _arm_path(robot)
    crit = PathDistance(m, path)
    mid = path[0].copy()
    mid[i] = -0.3  # on the first segment
    assert crit.evaluate(mid)[0] == pytest.approx(0.0, abs=1e-20)
    off = mid.copy()
    off[7 + robot.joint_names.index("LARM_JOINT0")] += 0.2
    assert crit.evaluate(off)[0] == pytest.approx(0.04, rel=1e-12)
    moved = mid.copy()
    moved[1] += 0.05
    assert crit.evaluate(moved)[0] == pytest.approx(0.0025, rel=1e-12)
    th = 0.3
    turned = mid.copy()
    turned[3:7] = (pin.Quaternion(mid[6], *mid[3:6]) * pin.Quaternion(np.cos(th / 2), 0, 0, np.sin(th / 2))).coeffs()
    assert crit.evaluate(turned)[0] == pytest.approx(2 * (1 - np.cos(th)), rel=1e-9)
    # beyond the last waypoint along the elbow: the distance to the path's end
    end = path[2].copy()
    end[k] -= 0.1
    assert crit.evaluate(end)[0] == pytest.approx(0.01, rel=1e-9)
    # a single waypoint: the squared distance to it
    assert PathDistance(m, path[:1]).evaluate(off)[0] == pytest.approx((-0.3 - path[0][i]) ** 2 + 0.04, rel=1e-12)
    with pytest.raises(PlanningError, match="waypoints"):
        PathDistance(m, np.zeros((2, 5)))


@pytest.fixture(scope="module")
def standing(robot, floor):
    return stance_constraints(
        robot.model,
        robot.contact_locations,
        contacts_at(robot.model, robot.contact_locations, robot.q(), ["r_sole", "l_sole"], floor),
    )


def test_solve_with_the_path_distance_reaches_the_path(robot, standing):
    """Both feet fixed, the path moves only the right arm (every point of it is feasible): from a
    start with the left arm and the right elbow moved, the solve ends on the path (criterion 0 to
    the solver's accuracy), the left arm back at half-sitting."""
    m = robot.model
    path, _, k = _arm_path(robot)
    q = robot.q()
    q[7 + robot.joint_names.index("LARM_JOINT0")] = -0.5
    q[k] = -0.6
    res = solve(PostureProblem(m, standing, q, PathDistance(m, path)))
    assert res.success and res.criterion <= 1e-10, (res.outcome, res.criterion)
    j = 7 + robot.joint_names.index("LARM_JOINT0")
    assert res.q[j] == pytest.approx(robot.q()[j], abs=1e-5)


def test_potential_criterion_is_minimised_like_the_equivalent_task(robot, standing):
    """The hand's squared distance to a reachable point as the criterion (the hook a planner uses
    for its potential): the optimum puts the hand on the point, as the FramePosition task does."""
    m = robot.model
    target = np.array([0.35, -0.3, 0.9])
    crit = PotentialCriterion(_hand_potential(robot, target))
    res = solve(PostureProblem(m, standing, robot.q(), crit))
    assert res.success and res.criterion <= 1e-10
    task = solve(
        PostureProblem(
            m,
            standing + [FramePosition(m, "RARM_LINK5", target, point=robot.contact_locations["r_hand"].point)],
            robot.q(),
        )
    )
    d = m.createData()
    kin.update(m, d, res.q)
    p = d.oMf[m.getFrameId("RARM_LINK5")].act(robot.contact_locations["r_hand"].point)
    assert task.success and np.linalg.norm(p - target) <= 1e-5
