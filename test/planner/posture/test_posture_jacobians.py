"""Posture-generator constraints (humanoid_planner/posture, Escande 2008, §3.4): every
registered constraint's Jacobian against central finite differences on HRP-2, and analytic values.

Finite differences: c(q (+) h d) - c(q (-) h d) over 2h along unit tangent directions d, h = 1e-5
(chosen). Truncation error h^2 |c'''| / 6 ~ 2e-11 and round-off eps |c| / h ~ 2e-11 for rows of
order 1 (unit-vector dot products, metres on a 1.5 m robot), so a correct Jacobian agrees to
~1e-10; we require |FD - J d| <= 1e-6 |J d| + 1e-9 (chosen: a relative 1e-6, plus an absolute
floor 10x above the FD noise for rows whose directional derivative is ~0).
"""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import (
    CONSTRAINTS,
    EQUALITY,
    INEQUALITY,
    ComInPolygon,
    ComPosition,
    ComRegion,
    DeformableContact,
    EnvironmentCollision,
    EnvironmentFrame,
    ForceStability,
    FrameOrientation,
    FramePosition,
    Gaze,
    GeometrySelfCollision,
    HalfPlanes,
    JointLimitConstraint,
    KeepVertical,
    LightContact,
    Obstacle,
    PointRegion,
    PostureConstraint,
    PreContact,
    Relaxed,
    RobotContactFrame,
    SearchBox,
    SearchBoxContact,
    SelfCollision,
    StpEnvironmentCollision,
    StpSelfCollision,
    StrongContact,
    WithBand,
    support_polygon,
)
from humanoid_planner.posture import kinematics as kin
from humanoid_planner.posture.base import BAND
from humanoid_planner.posture.criteria.reference_posture import ReferencePosture

H = 1e-5  # FD step (module docstring)
REL, ABS = 1e-6, 1e-9  # tolerance (module docstring)


def _sole_frames(robot, q, floor):
    """Environment frames under both soles at ``q`` (on the floor, theta = 0)."""
    m, d = robot.model, robot.model.createData()
    kin.update(m, d, q)
    out = {}
    for name in ("r_sole", "l_sole"):
        loc = robot.contact_locations[name]
        p = d.oMf[m.getFrameId(loc.body)].act(loc.point)
        out[name] = EnvironmentFrame.on_surface(floor, x=p[0] - floor.centroid[0], y=p[1] - floor.centroid[1])
    return out


def _all_constraints(robot, floor, q_ref):
    """One instance of every registered constraint, with targets away from the test configurations."""
    m = robot.model
    loc = robot.contact_locations
    tilted = EnvironmentFrame.make([0.4, -0.3, 0.8], [0.3, -0.2, 1.0], [1.0, 0.5, 0.0])
    feet = _sole_frames(robot, q_ref, floor)
    poly = support_polygon([(loc[n], feet[n], floor) for n in ("r_sole", "l_sole")])
    d = m.createData()
    kin.update(m, d, pin.integrate(m, q_ref, 0.3 * np.ones(m.nv)))
    R_target = d.oMf[m.getFrameId("RARM_LINK5")].rotation
    forces = ForceStability(m, [(loc["r_sole"], 0.5), (loc["l_hand"], 0.3)], (-robot.effort_max, robot.effort_max))
    forces.z = np.random.default_rng(12).normal(scale=0.1, size=forces.n_extra)  # evaluate() is at this z
    return [
        JointLimitConstraint(m),
        StrongContact(
            m, RobotContactFrame.from_location(loc["r_sole"]), EnvironmentFrame.on_surface(floor, 0.1, -0.2, 0.3)
        ),
        LightContact(m, RobotContactFrame.from_location(loc["l_hand"]), tilted),
        DeformableContact(m, RobotContactFrame.from_location(loc["r_thigh"]), tilted, max_angle=0.1),
        PreContact(m, RobotContactFrame.from_location(loc["r_knee"]), tilted, distance=0.05),
        ComInPolygon(m, poly, margin=0.01),
        ComPosition(m, [0.1, -0.05, 0.7], axes=(0, 1, 2)),
        forces,
        FramePosition(m, "RARM_LINK5", [0.5, -0.3, 1.0], point=[0.0, 0.0, -0.1075]),
        FrameOrientation(m, "RARM_LINK5", R_target),
        Gaze(m, "HEAD_LINK1", [2.0, 0.5, 0.8], axis=[1.0, 0.0, 0.0], origin=[0.035, 0.0, 0.045]),
        KeepVertical(m, "LARM_LINK5", axis=[0.0, 0.0, -1.0]),
        SearchBoxContact(
            m,
            RobotContactFrame.from_location(loc["l_sole"]),
            SearchBox.rectangle(floor, (0, 0.2), (0, 0.3), (-0.5, 1.0)),
        ),
        SearchBoxContact(
            m,
            RobotContactFrame.from_location(loc["l_thigh"]),
            SearchBox.rectangle(floor, (0, 0.2), (0, 0.3), (-0.5, 1.0)),
            name="deformable_search_box",
            max_angle=0.1,
        ),
        SelfCollision(m, robot.collision_model, q_ref),
        GeometrySelfCollision(m, robot.collision_model, q_ref),
        EnvironmentCollision(
            m,
            [
                Obstacle.box("shelf", [0.3, 0.6, 0.05], [0.35, 0.0, 0.9]),
                Obstacle.box("post", [0.2, 0.2, 0.8], [0, 0.5, 0.4]),
            ],
            robot.collision_model,
        ),
        StpSelfCollision(m, robot.collision_model, q_ref),
        StpEnvironmentCollision(
            m,
            [
                Obstacle.box("shelf", [0.3, 0.6, 0.05], [0.35, 0.0, 0.9]),
                Obstacle.box("post", [0.2, 0.2, 0.8], [0, 0.5, 0.4]),
            ],
            robot.collision_model,
        ),
        HalfPlanes(
            m,
            RobotContactFrame.from_location(loc["l_sole"]),
            SearchBox.rectangle(floor, (0, 0.2), (0, 0.3), (-0.5, 1.0)),
        ),
        ComRegion(m, (0.3, 0.5), (-0.1, 0.1), (0.5, np.inf)),
        PointRegion(m, "RARM_LINK5", [0.0, 0.0, -0.1075], (0.2, 0.6), (-0.5, 0.0), (0.8, 1.2)),
        Relaxed(
            StrongContact(
                m, RobotContactFrame.from_location(loc["l_sole"]), EnvironmentFrame.on_surface(floor, 0.1, 0.2, -0.3)
            )
        ),
        WithBand(LightContact(m, RobotContactFrame.from_location(loc["r_hand"]), tilted), band=2e-3),
    ]


@pytest.fixture(scope="module")
def all_constraints(robot, floor):
    """`_all_constraints` at half-sitting, built once (the STP-BV volumes take ~1 s)."""
    return _all_constraints(robot, floor, robot.q())


def _random_q(robot, rng):
    """Joints uniform within limits, base within 0.5 m of the origin, uniformly random orientation."""
    q = robot.q()
    q[7:] = rng.uniform(robot.q_lower, robot.q_upper)
    q[:3] = rng.uniform(-0.5, 0.5, 3) + [0.0, 0.0, 0.6]
    quat = rng.normal(size=4)
    q[3:7] = quat / np.linalg.norm(quat)
    return q


def _values(c, m, data, q):
    kin.update(m, data, q, com=c.needs_com)
    return c.evaluate(q, data)


def _fd_error(c, m, data, q, direction, jac=None):
    """max_i (|FD_i - (J d)_i| - REL |(J d)_i|): <= ABS for a correct Jacobian."""
    J = _values(c, m, data, q)[1] if jac is None else jac
    fd = (
        _values(c, m, data, pin.integrate(m, q, H * direction))[0]
        - _values(c, m, data, pin.integrate(m, q, -H * direction))[0]
    ) / (2 * H)
    Jd = J @ direction
    return float(np.max(np.abs(fd - Jd) - REL * np.abs(Jd))), Jd


def test_every_registered_constraint_satisfies_the_interface(robot, floor, all_constraints):
    cons = all_constraints
    assert {type(c) for c in cons} == set(CONSTRAINTS.values())
    m, d = robot.model, robot.model.createData()
    q = robot.q()
    for c in cons:
        assert isinstance(c, PostureConstraint) and c.name and c.equations
        kinds = {EQUALITY, INEQUALITY, BAND} if isinstance(c, WithBand) else {EQUALITY, INEQUALITY}
        assert len(c.kinds) == c.dim and set(c.kinds) <= kinds
        v, J = _values(c, m, d, q)
        assert v.shape == (c.dim,) and J.shape == (c.dim, m.nv)
        assert np.all(np.isfinite(v)) and np.all(np.isfinite(J))


def test_every_jacobian_matches_central_differences_at_random_configurations(robot, floor, all_constraints):
    rng = np.random.default_rng(9)
    m, d = robot.model, robot.model.createData()
    cons = all_constraints
    worst = {}
    for _ in range(6):
        q = _random_q(robot, rng)
        for _ in range(3):
            direction = rng.normal(size=m.nv)
            direction /= np.linalg.norm(direction)
            for c in cons:
                err, _ = _fd_error(c, m, d, q, direction)
                worst[c.name] = max(worst.get(c.name, -np.inf), err)
    assert all(e <= ABS for e in worst.values()), {k: e for k, e in worst.items() if e > ABS}


def test_extended_variables_jacobian_matches_central_differences(robot, floor, all_constraints):
    """dc/dz of every extended constraint (the contact forces and torques of `ForceStability`)
    along random directions of z, at random configurations and forces."""
    rng = np.random.default_rng(13)
    m, d = robot.model, robot.model.createData()
    cons = [c for c in all_constraints if c.n_extra]
    assert cons
    for _ in range(4):
        q = _random_q(robot, rng)
        kin.update(m, d, q, com=True)
        for c in cons:
            z = rng.normal(scale=0.2, size=c.n_extra)
            w = rng.normal(size=c.n_extra)
            w /= np.linalg.norm(w)
            Jz = c.evaluate_extended(q, d, z)[2]
            fd = (c.evaluate_extended(q, d, z + H * w)[0] - c.evaluate_extended(q, d, z - H * w)[0]) / (2 * H)
            assert np.all(np.abs(fd - Jz @ w) <= REL * np.abs(Jz @ w) + ABS), c.name
            assert np.abs(fd + Jz @ w).max() > 1e3 * ABS  # a sign flip fails


def test_a_wrong_jacobian_fails_the_same_check(robot, floor, all_constraints):
    """Sign flip of each constraint's Jacobian, and a realistic bug (the point Jacobian without the
    lever arm w x R p), are both caught by the tolerance above."""
    rng = np.random.default_rng(10)
    m, d = robot.model, robot.model.createData()
    q = _random_q(robot, rng)
    direction = rng.normal(size=m.nv)
    direction /= np.linalg.norm(direction)
    for c in all_constraints:
        J = _values(c, m, d, q)[1]
        err, Jd = _fd_error(c, m, d, q, direction, jac=-J)
        assert err > 1e3 * ABS, (c.name, err)

    class NoLeverArm(StrongContact):
        def evaluate(self, q, data):
            c, J = super().evaluate(q, data)
            J[:3] = pin.getFrameJacobian(self.model, data, self.fid, pin.LOCAL_WORLD_ALIGNED)[:3]
            return c, J

    loc = robot.contact_locations["r_sole"]
    bad = NoLeverArm(m, RobotContactFrame.from_location(loc), EnvironmentFrame.on_surface(floor))
    assert _fd_error(bad, m, d, q, direction)[0] > 1e3 * ABS


def _standing(robot):
    """Half-sitting with the right sole's point exactly on z = 0."""
    m, d = robot.model, robot.model.createData()
    q = robot.q()
    kin.update(m, d, q)
    loc = robot.contact_locations["r_sole"]
    q[2] -= d.oMf[m.getFrameId(loc.body)].act(loc.point)[2]
    return q


def test_strong_contact_values_on_and_above_the_floor(robot, floor):
    m, d = robot.model, robot.model.createData()
    q = _standing(robot)
    loc = robot.contact_locations["r_sole"]
    rf = RobotContactFrame.from_location(loc)
    env = _sole_frames(robot, q, floor)["r_sole"]
    c = _values(StrongContact(m, rf, env), m, d, q)[0]
    # the half-sitting soles are flat ([HRP2-S1] half-sitting: ankle pitch -24 = -(-26 + 50) deg)
    np.testing.assert_allclose(c[:6], 0.0, atol=1e-12)
    np.testing.assert_allclose(c[6:], -1.0, atol=1e-12)  # d_P = d_E, b_P = b_E
    q_up = q.copy()
    q_up[2] += 0.01
    c = _values(StrongContact(m, rf, env), m, d, q_up)[0]
    np.testing.assert_allclose(c, [0, 0, 0.01, 0, 0, 0, -1, -1], atol=1e-12)
    np.testing.assert_allclose(_values(LightContact(m, rf, env), m, d, q_up)[0], [0.01, 0, 0, -1], atol=1e-12)
    np.testing.assert_allclose(
        _values(PreContact(m, rf, env, distance=0.02), m, d, q_up)[0], [-0.01, 0, 0, -1], atol=1e-12
    )
    # environment frame turned by theta about the normal: b_P.d_E = sin(theta), d_P.d_E = b_P.b_E = cos(theta)
    th = 0.3
    turned = EnvironmentFrame.make(env.point, env.n, [np.cos(th), np.sin(th), 0.0])
    c = _values(StrongContact(m, rf, turned), m, d, q)[0]
    np.testing.assert_allclose(c[3:], [np.sin(th), 0, 0, -np.cos(th), -np.cos(th)], atol=1e-12)
    # upside down (n_P = -n_E, equalities all satisfied): only the "same sense" rows can see it
    flipped = EnvironmentFrame.make(env.point, -env.n, env.d)
    c = _values(StrongContact(m, rf, flipped), m, d, q)[0]
    np.testing.assert_allclose(c[:6], 0.0, atol=1e-12)
    assert c[6] == pytest.approx(-1.0) and c[7] == pytest.approx(1.0)


def test_deformable_contact_allows_the_body_to_tilt_and_turn_up_to_its_angle(robot, floor):
    """Escande 2008, §3.4.1 (quasi-colinearity on deformable surfaces): a placed sole gives 0 on the
    point rows and cos(a) - 1 on the normal and tangent rows; the environment frame turned by 0.05
    rad about the normal or tilted by 0.05 rad keeps the rows <= 0 with a = 0.1 rad and breaks them
    with a = 0.04 rad, where the strong contact's equalities see both turns."""
    m, d = robot.model, robot.model.createData()
    q = _standing(robot)
    rf = RobotContactFrame.from_location(robot.contact_locations["r_sole"])
    env = _sole_frames(robot, q, floor)["r_sole"]
    c = _values(DeformableContact(m, rf, env, max_angle=0.1), m, d, q)[0]
    np.testing.assert_allclose(c, [0, 0, 0, np.cos(0.1) - 1, np.cos(0.1) - 1, -1], atol=1e-12)
    th = 0.05
    turned = EnvironmentFrame.make(env.point, env.n, [np.cos(th), np.sin(th), 0.0])
    tilted = EnvironmentFrame.make(env.point, [np.sin(th), 0.0, np.cos(th)], [np.cos(th), 0.0, -np.sin(th)])
    for frame in (turned, tilted):
        assert np.max(_values(StrongContact(m, rf, frame), m, d, q)[0][3:6] ** 2) > 1e-3
        assert np.max(_values(DeformableContact(m, rf, frame, max_angle=0.1), m, d, q)[0][3:]) <= 0
        assert np.max(_values(DeformableContact(m, rf, frame, max_angle=0.04), m, d, q)[0][3:]) > 0
    with pytest.raises(PlanningError, match="max_angle"):
        DeformableContact(m, rf, env, max_angle=0.0)


def test_search_box_contact_values_and_conversion(robot, floor):
    """(6.1)-(6.6) at a sole placed on the floor at (x0, y0, theta = 0), and `to_strong`
    (updateContact) giving the strong contact at the same parameters (its rows all zero / -1)."""
    m, d = robot.model, robot.model.createData()
    q = _standing(robot)
    rf = RobotContactFrame.from_location(robot.contact_locations["r_sole"])
    env = _sole_frames(robot, q, floor)["r_sole"]
    x0, y0 = env.point[:2] - floor.centroid[:2]
    box = SearchBox.rectangle(floor, (x0 - 0.1, x0 + 0.05), (y0 - 0.02, y0 + 0.03), (-0.2, 0.5))
    con = SearchBoxContact(m, rf, box)
    assert con.dim == 4 + 4 + 2
    v = _values(con, m, d, q)[0]
    # x <= x0+0.05, -x <= -(x0-0.1), y <= y0+0.03, -y <= -(y0-0.02); theta - 0.5, -0.2 - theta
    np.testing.assert_allclose(v, [0, 0, 0, -1, -0.05, -0.1, -0.03, -0.02, -0.5, -0.2], atol=1e-12)
    assert con.parameters(q, d) == pytest.approx((x0, y0, 0.0), abs=1e-12)
    strong = con.to_strong(q, d)
    np.testing.assert_allclose(_values(strong, m, d, q)[0], [0] * 6 + [-1, -1], atol=1e-12)
    # the whole floor polygon (edges y = -3, x = 3, y = 3, x = -3 in order), any angle: no theta rows
    whole = SearchBoxContact(m, rf, SearchBox.from_surface(floor))
    assert whole.dim == 8
    np.testing.assert_allclose(_values(whole, m, d, q)[0][4:], [-y0 - 3, x0 - 3, y0 - 3, -x0 - 3], atol=1e-12)


def test_support_polygon_and_com_rows_of_both_feet(robot, floor):
    m, d = robot.model, robot.model.createData()
    q = _standing(robot)
    loc = robot.contact_locations
    feet = _sole_frames(robot, q, floor)
    poly = support_polygon([(loc[n], feet[n], floor) for n in ("r_sole", "l_sole")])
    # urdf/hrp2.yaml hulls: x in [-0.1, 0.13] around P_x = 0.015 -> +-0.115; y spans the two soles
    x0, yr, yl = feet["r_sole"].point[0], feet["r_sole"].point[1], feet["l_sole"].point[1]
    p_y = 0.01  # |P_y| of r_sole / l_sole in their body frames (urdf/hrp2.yaml)
    lo_y, hi_y = yr + (-0.075 + p_y), yl + (0.075 - p_y)
    expected = np.array([[x0 - 0.115, lo_y], [x0 + 0.115, lo_y], [x0 + 0.115, hi_y], [x0 - 0.115, hi_y]])
    assert len(poly) == 4
    np.testing.assert_allclose(poly[np.lexsort((poly[:, 0], poly[:, 1]))], expected[[0, 1, 3, 2]], atol=1e-12)
    c = ComInPolygon(m, poly)
    v = _values(c, m, d, q)[0]
    g = d.com[0]
    # rows: signed distances outside each edge, in the polygon's counter-clockwise order
    dist = {"-y": lo_y - g[1], "+x": g[0] - (x0 + 0.115), "+y": g[1] - hi_y, "-x": (x0 - 0.115) - g[0]}
    assert sorted(v) == pytest.approx(sorted(dist.values()), abs=1e-12)
    assert np.all(v < 0)  # half-sitting is statically stable
    # a polygon clipped by the surface: a 10 cm-wide surface strip under the right foot
    strip = type(floor)(
        "strip",
        np.array([[x0 - 1, yr - 0.05, 0], [x0 + 1, yr - 0.05, 0], [x0 + 1, yr + 0.05, 0], [x0 - 1, yr + 0.05, 0]]),
        floor.normal,
        floor.d0,
        0.2,
    )
    one = support_polygon([(loc["r_sole"], feet["r_sole"], strip)])
    assert np.ptp(one[:, 1]) == pytest.approx(0.1) and np.ptp(one[:, 0]) == pytest.approx(0.23)
    with pytest.raises(PlanningError, match="counter-clockwise"):
        ComInPolygon(m, poly[::-1])


def test_task_values(robot):
    m, d = robot.model, robot.model.createData()
    q = robot.q()
    kin.update(m, d, q)
    M = d.oMf[m.getFrameId("RARM_LINK5")]
    assert np.allclose(_values(FramePosition(m, "RARM_LINK5", M.translation + [0, 0, 0.1]), m, d, q)[0], [0, 0, -0.1])
    Rz = pin.utils.rpyToMatrix(0.0, 0.0, 0.2)
    v = _values(FrameOrientation(m, "RARM_LINK5", M.rotation @ Rz), m, d, q)[0]
    np.testing.assert_allclose(v, [0, 0, -0.2], atol=1e-12)
    # gaze at a point straight along the head's x axis: collinear rows 0, same-sense row -1
    head = d.oMf[m.getFrameId("HEAD_LINK1")]
    v = _values(Gaze(m, "HEAD_LINK1", head.act(np.array([2.0, 0, 0])), min_distance=0.5), m, d, q)[0]
    np.testing.assert_allclose(v, [0, 0, -1, 0.5 - 2.0], atol=1e-12)
    # keep-vertical: the world-z axis of the free flyer at half-sitting is vertical, up
    np.testing.assert_allclose(_values(KeepVertical(m, "BODY"), m, d, q)[0], [0, 0, -1], atol=1e-12)
    # CoM task: the half-sitting CoM (Pinocchio's centerOfMass, independent of data.com) 0.1 m off in x
    com = pin.centerOfMass(m, m.createData(), q)
    v = _values(ComPosition(m, com + [0.1, 0, 0], axes=(0, 1, 2)), m, d, q)[0]
    np.testing.assert_allclose(v, [-0.1, 0, 0], atol=1e-12)
    lim = JointLimitConstraint(m)
    v = _values(lim, m, d, q)[0]
    k = lim.dim // 2
    np.testing.assert_allclose(v[:k], q[7:] - robot.q_upper)
    np.testing.assert_allclose(v[k:], robot.q_lower - q[7:])


def test_reference_posture_criterion_4_11(robot):
    """(4.11): f = sum (q_i - (q_i^- + q_i^+)/4)^2; gradient matches central differences."""
    m = robot.model
    crit = ReferencePosture(m)
    q = robot.q()
    f, g = crit.evaluate(q)
    assert f == pytest.approx(np.sum((q[7:] - (robot.q_lower + robot.q_upper) / 4) ** 2), rel=1e-14)
    direction = np.random.default_rng(3).normal(size=m.nv)
    fd = (
        crit.evaluate(pin.integrate(m, q, H * direction))[0] - crit.evaluate(pin.integrate(m, q, -H * direction))[0]
    ) / (2 * H)
    assert fd == pytest.approx(g @ direction, rel=1e-8)
