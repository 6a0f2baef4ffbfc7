"""The lower bounds of the body-obstacle distances (`EnvironmentCollision.lower_bounds`) and the
collision checks that measure with coal only the pairs a bound cannot rule out
(`contact.collision_pairs`: the planner's activation, its validity check and the motion's path
planner).

References: coal's own signed distances on every pair, at random postures of HRP-2 among obstacles
of each shape kind the scenes give (rotated boxes, spheres, cylinders, capsules).
"""

import coal
import numpy as np
import pinocchio as pin
import pytest

from humanoid_model import load_robot
from humanoid_model.scene import load_scene
from humanoid_planner.contact import scene_planning
from humanoid_planner.posture import EnvironmentCollision, Obstacle
from humanoid_planner.posture import kinematics as kin

POSTURES = 300  # random postures per check (chosen: a few seconds)


def _rotation(rng):
    return pin.exp3(rng.normal(size=3))


@pytest.fixture(scope="module")
def crowd():
    """HRP-2's capsules against a ring of obstacles of every kind around its half-sitting posture,
    close enough that random postures meet some of them."""
    robot = load_robot("hrp2")
    rng = np.random.default_rng(3)
    shapes = [coal.Box(0.3, 0.1, 0.5), coal.Sphere(0.12), coal.Cylinder(0.08, 0.6), coal.Capsule(0.05, 0.4)] * 3
    obstacles = []
    for k, shape in enumerate(shapes):
        angle = 2 * np.pi * k / len(shapes)
        centre = [0.35 * np.cos(angle), 0.35 * np.sin(angle), 0.2 + 0.1 * k]
        obstacles.append(Obstacle(f"o{k}", shape, _rotation(rng), np.array(centre)))
    env = EnvironmentCollision(robot.model, obstacles, robot.collision_model)
    return robot, env


def _postures(robot, rng, spread):
    m, q0 = robot.model, robot.q()
    for _ in range(POSTURES):
        yield pin.integrate(m, q0, rng.normal(0.0, spread, m.nv))


def test_the_bounds_never_exceed_coal_distances_and_are_at_most_zero_where_the_shapes_meet(crowd):
    robot, env = crowd
    data = robot.model.createData()
    rng = np.random.default_rng(11)
    apart, met, far = np.inf, -np.inf, 0
    for q in _postures(robot, rng, 0.4):
        kin.update(robot.model, data, q)
        d = env.distances(data)[0]
        bound = env.lower_bounds(data)
        assert np.all(np.isfinite(bound))
        if np.any(d > 0):
            apart = min(apart, float(np.min((d - bound)[d > 0])))
        if np.any(d <= 0):
            met = max(met, float(np.max(bound[d <= 0])))
        far += int(np.sum(bound > 0.05))
    assert apart >= -1e-10  # coal's GJK tolerance (1e-10 m)
    assert met <= 1e-12
    assert met > -np.inf  # some postures did meet an obstacle
    assert far > 0.5 * POSTURES * env.dim  # the bounds rule most pairs out at 5 cm


def test_rows_measured_on_demand_are_coal_distances_of_those_rows(crowd):
    robot, env = crowd
    data = robot.model.createData()
    kin.update(robot.model, data, robot.q())
    rows = np.array([3, 0, env.dim - 1])
    full = env.distances(data)
    part = env.distances(data, rows)
    for a, b in zip(part, full):
        np.testing.assert_array_equal(a, b[rows])
    sub = env.subset(exclude=env.pair_names[:5])  # a subset maps its rows onto the full evaluation
    np.testing.assert_array_equal(sub.distances(data, [0, 2])[0], full[0][[5, 7]])
    np.testing.assert_array_equal(sub.lower_bounds(data), env.lower_bounds(data)[5:])


@pytest.mark.parametrize("within", [-0.01, 0.0, 0.005, 0.01, 0.04])
def test_the_planner_finds_the_same_close_pairs_as_when_it_measured_every_pair(within):
    """The glass scene's obstacles around HRP-2's stance beside the chair, the pairs its stance
    implies left out, one seated thigh's lowered margin: the pairs whose gap is below ``within``
    are those coal's full evaluation gives."""
    sp = scene_planning(load_scene("glass"), None)
    feas = sp.planner.feas
    touching = [("l_sole", "floor"), ("r_sole", "floor"), ("r_thigh", "seat")]
    skip, over = feas._skipped(touching), feas._lowered_margins(touching)
    assert over  # the seated thigh's overshoot is part of the comparison
    full = feas._environment(frozenset(skip), feas.collision_margin)
    rng = np.random.default_rng(5)
    m = feas.model
    found = 0
    for q in _postures(sp.robot, rng, 0.3):
        q[:3] = sp.start_q[:3]
        fast = feas._below(feas._env_gaps(q, skip, over, within), within)
        kin.update(m, feas._data, q)
        d = full.distances(feas._data)[0]
        every = {p for p, di in zip(full.pair_names, d) if float(di) + over.get(p, 0.0) < within}
        assert fast == every
        found += len(every)
    assert found > 0
