"""HRP-2 model (urdf/hrp2.urdf + urdf/hrp2.yaml): structure, mass, geometry, limits, postures,
contact locations and sensors, checked numerically against the public sources of
docs/references.md ([HRP2-*] keys) and the theses (urdf/README.md gives each value's source).
"""

import importlib.util
import math

import coal
import numpy as np
import pinocchio as pin
import pytest
from support import REPO

from humanoid_model import load_robot

DEG = math.pi / 180

SIDES = ("R", "L")
LEG = [f"{s}LEG_JOINT{i}" for s in SIDES for i in range(6)]
ARM = [f"{s}ARM_JOINT{i}" for s in SIDES for i in range(7)]
TRUNK = ["CHEST_JOINT0", "CHEST_JOINT1", "HEAD_JOINT0", "HEAD_JOINT1"]
STANDARD_JOINTS = set(LEG + ARM + TRUNK)
CONTACTS = {
    "r_sole": "sole",
    "l_sole": "sole",
    "r_hand": "hand",
    "l_hand": "hand",
    "r_hand_side": "hand_side",
    "l_hand_side": "hand_side",
    "r_knee": "knee",
    "l_knee": "knee",
    "r_thigh": "thigh",
    "l_thigh": "thigh",
    "r_forearm": "forearm",
    "l_forearm": "forearm",
}
G = 9.81  # [m/s^2], the value the hand mass of hrp2_generate.py was derived with (7.55 N / g)


@pytest.fixture(scope="session")
def robot():
    return load_robot("hrp2")


def _fk(robot, posture):
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, robot.q(posture))
    return data


def _frame(robot, data, name):
    return data.oMf[robot.model.getFrameId(name)]


def _point_in_convex_polygon_margin(p, poly):
    """Smallest signed distance of 2-D point p to the edges of convex polygon poly (> 0: inside)."""
    from scipy.spatial import ConvexHull

    hull = ConvexHull(poly)
    # hull.equations: n . x + d <= 0 inside, n unit
    return float(np.min(-(hull.equations[:, :2] @ p + hull.equations[:, 2])))


# ---------------------------------------------------------------------------- structure
def test_loads_with_free_flyer_and_30_standard_joints(robot):
    m = robot.model
    assert m.names[1] == "root_joint"
    assert m.joints[1].shortname() == "JointModelFreeFlyer"
    assert m.nq == 7 + 30 and m.nv == 6 + 30
    assert set(robot.joint_names) == STANDARD_JOINTS and len(robot.joint_names) == 30
    for name in robot.joint_names:  # all 1-DOF revolute
        j = m.joints[m.getJointId(name)]
        assert j.nq == 1 and j.nv == 1 and "JointModelR" in j.shortname(), (name, j.shortname())
    # standard link names, BODY is the root link (waist) on the free flyer
    assert m.frames[m.getFrameId("BODY")].parentJoint == 1
    for link in (
        ["CHEST_LINK0", "CHEST_LINK1", "HEAD_LINK0", "HEAD_LINK1"]
        + [f"{s}LEG_LINK{i}" for s in SIDES for i in range(6)]
        + [f"{s}ARM_LINK{i}" for s in SIDES for i in range(7)]
    ):
        assert m.existFrame(link), link


def test_dof_split_matches_no14(robot):
    """[HRP2-T1]: legs 2x6, chest 2, head 2, arms 2x6, grippers 2x1; chain depths."""
    m = robot.model

    def depth(joint):
        jid, n = m.getJointId(joint), 0
        while m.parents[jid] != 1:  # count joints up to the free flyer
            jid, n = m.parents[jid], n + 1
        return n

    for s in SIDES:
        assert [depth(f"{s}LEG_JOINT{i}") for i in range(6)] == list(range(6))
        assert [depth(f"{s}ARM_JOINT{i}") for i in range(7)] == list(range(2, 9))  # chest yaw+pitch first
    assert [depth(j) for j in TRUNK] == [0, 1, 2, 3]


def test_generated_files_are_up_to_date():
    """hrp2.urdf/hrp2.yaml are outputs of hrp2_generate.py: editing one without the other is caught."""
    spec = importlib.util.spec_from_file_location("hrp2_generate", REPO / "urdf" / "hrp2_generate.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert (REPO / "urdf" / "hrp2.urdf").read_text() == gen.urdf_text()
    assert (REPO / "urdf" / "hrp2.yaml").read_text() == gen.yaml_text()


# ---------------------------------------------------------------------------- mass and inertia
def test_total_mass_is_58_kg_within_3_kg_and_matches_the_mass_budget(robot):
    # 58 kg quoted ([HRP2-N1], [HRP2-N2]); tolerance (chosen): +-3 kg.
    assert abs(robot.mass - 58.0) <= 3.0
    # mass budget of the parts chosen in urdf/README.md: ~56.4 kg (derived)
    assert robot.mass == pytest.approx(56.4, abs=0.1)


def test_link_masses_match_their_sources(robot):
    m = robot.model

    def mass(link):
        return m.inertias[m.frames[m.getFrameId(link)].parentJoint].mass

    # No.14 head, [HRP2-R1]: 1.368 kg
    assert mass("HEAD_LINK0") + mass("HEAD_LINK1") == pytest.approx(1.368, abs=1e-3)
    # one leg LINK0-5, [HRP2-J1]: 8.090 kg; both legs equal (mirror)
    for s in SIDES:
        assert sum(mass(f"{s}LEG_LINK{i}") for i in range(6)) == pytest.approx(8.090, abs=1e-3)
    # hand below the wrist F/T sensor, Chardonnet 2009, §5.1.2.5: 0.770 kg
    for s in SIDES:
        assert mass(f"{s}ARM_LINK5") + mass(f"{s}ARM_LINK6") == pytest.approx(0.770, abs=2e-3)


def test_inertias_positive_definite_and_triangle_inequality(robot):
    m = robot.model
    for jid in range(1, m.njoints):
        inertia = m.inertias[jid]
        assert inertia.mass > 0, m.names[jid]
        eig = np.linalg.eigvalsh(inertia.inertia)  # about the COM
        assert eig.min() > 0, (m.names[jid], eig)
        a, b, c = eig
        # principal moments of a physical body: each <= sum of the other two (strictly, for a 3-D body)
        assert a + b > c and a + c > b and b + c > a, (m.names[jid], eig)


def test_left_side_mirrors_right(robot):
    """Left inertias/limits are the mirror images of the right (the sources' mirror convention)."""
    m = robot.model
    S = np.diag([1.0, -1.0, 1.0])
    for prefix, n in (("LEG", 6), ("ARM", 7)):
        for i in range(n):
            jr, jl = m.getJointId(f"R{prefix}_JOINT{i}"), m.getJointId(f"L{prefix}_JOINT{i}")
            ir, il = m.inertias[jr], m.inertias[jl]
            assert il.mass == pytest.approx(ir.mass)
            np.testing.assert_allclose(il.lever, S @ ir.lever, atol=1e-12)
            np.testing.assert_allclose(il.inertia, S @ ir.inertia @ S, atol=1e-12)
            np.testing.assert_allclose(
                m.jointPlacements[jl].translation, S @ m.jointPlacements[jr].translation, atol=1e-12
            )
            kr, kl = robot.joint_names.index(f"R{prefix}_JOINT{i}"), robot.joint_names.index(f"L{prefix}_JOINT{i}")
            assert robot.v_max[kl] == robot.v_max[kr] and robot.effort_max[kl] == robot.effort_max[kr]
            rng_r = (robot.q_lower[kr], robot.q_upper[kr])
            rng_l = (robot.q_lower[kl], robot.q_upper[kl])
            if rng_r[0] != -rng_r[1]:  # asymmetric ranges: pitch keeps them, roll/yaw swap sign and order
                axis = m.joints[jr].shortname()[-1]
                expected = rng_r if axis == "Y" else (-rng_r[1], -rng_r[0])
                np.testing.assert_allclose(rng_l, expected, atol=1e-12)


# ---------------------------------------------------------------------------- limits
def test_limits_finite_and_ordered(robot):
    for arr in (robot.q_lower, robot.q_upper, robot.v_max, robot.effort_max):
        assert arr.shape == (30,) and np.all(np.isfinite(arr))
    assert np.all(robot.q_lower < robot.q_upper)
    assert np.all(robot.v_max > 0) and np.all(robot.effort_max > 0)


def test_limits_match_fact_sheet(robot):
    """Sample of No.14 ranges ([HRP2-T1]) and [HRP2-J1] velocity/effort."""
    expected = {  # joint: (lower deg, upper deg, velocity rad/s, effort N m)
        "RLEG_JOINT0": (-45, 30, 3.54108, 86.2),
        "LLEG_JOINT0": (-30, 45, 3.54108, 86.2),
        "RLEG_JOINT3": (-2, 150, 3.98010, 168.3),
        "LLEG_JOINT4": (-75, 42, 5.07937, 131.6),
        "LLEG_JOINT5": (-35, 20, 9.14286, 73.1),
        "CHEST_JOINT0": (-45, 45, 4.40217, 151.1),
        "CHEST_JOINT1": (-5, 60, 2.39630, 278.9),
        "HEAD_JOINT1": (-30, 45, 6.87679, 9.6),
        "RARM_JOINT0": (-180, 60, 4.17044, 160.3),
        "LARM_JOINT1": (-10, 95, 2.41920, 100.4),
        "RARM_JOINT3": (-137, 2, 2.23776, 108.5),
        "RARM_JOINT5": (-92, 92, 2.77088, 16.02),
        "LARM_JOINT6": (-1 / DEG, 1 / DEG, 4.72794, 13.9),
    }
    for joint, (lo, hi, vel, eff) in expected.items():
        k = robot.joint_names.index(joint)
        assert robot.q_lower[k] == pytest.approx(lo * DEG, abs=1e-8), joint
        assert robot.q_upper[k] == pytest.approx(hi * DEG, abs=1e-8), joint
        assert robot.v_max[k] == pytest.approx(vel) and robot.effort_max[k] == pytest.approx(eff), joint


@pytest.mark.parametrize("posture", ["half-sitting", "zero"])
def test_postures_within_limits(robot, posture):
    q = robot.q(posture)
    qa = np.array([q[robot.joint_index_q(j)] for j in robot.joint_names])
    assert np.all(qa >= robot.q_lower) and np.all(qa <= robot.q_upper)


def test_half_sitting_posture_has_the_documented_angles(robot):
    """[HRP2-S1], [HRP2-W1], [HRP2-W2]: legs 0/0/-26/50/-24/0 deg, arms 15/-+10/0/-30/0/0,
    gripper 10 deg; base z 0.648702 ([HRP2-S1])."""
    q = robot.q("half-sitting")
    expected = {"CHEST_JOINT0": 0, "CHEST_JOINT1": 0, "HEAD_JOINT0": 0, "HEAD_JOINT1": 0}
    for s, sgn in (("R", 1), ("L", -1)):
        expected.update({f"{s}LEG_JOINT{i}": v for i, v in enumerate([0, 0, -26, 50, -24, 0])})
        expected.update({f"{s}ARM_JOINT{i}": v for i, v in enumerate([15, -10 * sgn, 0, -30, 0, 0, 10])})
    for joint, deg in expected.items():
        assert q[robot.joint_index_q(joint)] == pytest.approx(deg * DEG, abs=1e-8), joint
    np.testing.assert_allclose(q[:7], [0, 0, 0.648702, 0, 0, 0, 1])
    assert robot.default_posture == "half-sitting"


# ---------------------------------------------------------------------------- geometry
@pytest.mark.parametrize("posture", ["half-sitting", "zero"])
def test_soles_flat_on_ground(robot, posture):
    data = _fk(robot, posture)
    for name in ("r_sole", "l_sole"):
        c = robot.contact_locations[name]
        M = _frame(robot, data, c.body)
        world = (M.rotation @ c.hull.T).T + M.translation
        assert np.all(np.abs(world[:, 2]) <= 1e-3), (posture, name, world[:, 2])
        np.testing.assert_allclose(M.rotation @ c.normal, [0, 0, 1], atol=1e-9)  # flat
    # nothing of the collision geometry is below the ground
    lo = min(_world_points(robot, data, g)[:, 2].min() for g in robot.collision_model.geometryObjects)
    assert abs(lo) <= 1e-3


def _world_points(robot, data, geom):
    from humanoid_model.collision_geometry import extent_points

    pts = extent_points(geom)
    M = data.oMi[geom.parentJoint]
    return (M.rotation @ pts.T).T + M.translation


def test_height_is_1_54_m_standing_and_lower_at_half_sitting(robot):
    """Head top from the collision geometry, soles on z = 0.

    1.54 m ([HRP2-N1], [HRP2-N2]; Escande 2008, §5.4.1) is the standing height: at the zero posture
    (straight legs). At half-sitting the waist is 0.705 - 0.648702 = 0.0563 m lower ([HRP2-S1]),
    so the head top is at ~1.483 m there.
    """
    h_zero = robot.height("zero")
    assert h_zero == pytest.approx(1.54, abs=0.01)
    h_half = robot.height("half-sitting")
    assert h_half == pytest.approx(h_zero - (0.705 - 0.648702), abs=1e-3)


def test_width_is_0_62_m(robot):
    """Overall width 0.62 m ([HRP2-N1]) at the zero posture, +-1 cm."""
    data = _fk(robot, "zero")
    y = np.concatenate([_world_points(robot, data, g)[:, 1] for g in robot.collision_model.geometryObjects])
    assert y.max() - y.min() == pytest.approx(0.62, abs=0.01)


def test_half_sitting_com_is_inside_the_support_polygon(robot):
    data = robot.model.createData()
    q = robot.q("half-sitting")
    com = pin.centerOfMass(robot.model, data, q)
    pin.framesForwardKinematics(robot.model, data, q)
    # strictly inside the support polygon of both soles
    pts = []
    for name in ("r_sole", "l_sole"):
        c = robot.contact_locations[name]
        M = _frame(robot, data, c.body)
        pts.append((M.rotation @ c.hull.T).T + M.translation)
    margin = _point_in_convex_polygon_margin(com[:2], np.vstack(pts)[:, :2])
    assert margin > 0.05  # [m]; the polygon is ~0.23 x 0.34 m around a CoM near its centre
    # [HRP2-W1] reference CoM of the HRP-2 model at half-sitting: (0.01355, 0.0015, 0.8077) m;
    # tolerance 5 mm in x, y and 1 cm in z (chosen: [HRP2-J1]'s inertias alone put it 9 mm low).
    np.testing.assert_allclose(com[:2], [0.01355, 0.0015], atol=5e-3)
    assert com[2] == pytest.approx(0.8077, abs=0.01)


def _adjacent(m, j1, j2):
    return m.parents[j1] == j2 or m.parents[j2] == j1


# Extra postures the planners need (Escande 2008, §7.3 and §7.4: sitting on a chair, forearms on a
# table): joint angles [deg] set on top of the zero posture; chest pitch 60 deg is its upper limit
# ([HRP2-T1]).
EXTRA_POSTURES = {
    "sitting": {"RLEG_JOINT2": -90, "LLEG_JOINT2": -90, "RLEG_JOINT3": 90, "LLEG_JOINT3": 90},
    "forearms-on-table": {
        "RLEG_JOINT2": -90,
        "LLEG_JOINT2": -90,
        "RLEG_JOINT3": 90,
        "LLEG_JOINT3": 90,
        "RARM_JOINT0": -20,
        "LARM_JOINT0": -20,
        "RARM_JOINT3": -90,
        "LARM_JOINT3": -90,
    },
    "bow": {"CHEST_JOINT1": 60},
    "arms-up": {"RARM_JOINT0": -180, "LARM_JOINT0": -180},
}


def _posture(robot, name):
    if name in robot.postures:
        return robot.q(name)
    q = robot.q("zero")
    for joint, deg in EXTRA_POSTURES[name].items():
        q[robot.joint_index_q(joint)] = deg * DEG
    return q


@pytest.mark.parametrize("posture", ["half-sitting", "zero", *EXTRA_POSTURES])
def test_no_self_collision_between_non_adjacent_links(robot, posture):
    m = robot.model
    cm = robot.collision_model.copy()
    cm.addAllCollisionPairs()
    gd = pin.GeometryData(cm)
    data = m.createData()
    pin.updateGeometryPlacements(m, data, cm, gd, _posture(robot, posture))
    pin.computeCollisions(cm, gd, False)
    hits = []
    for k, cp in enumerate(cm.collisionPairs):
        g1, g2 = cm.geometryObjects[cp.first], cm.geometryObjects[cp.second]
        if g1.parentJoint == g2.parentJoint or _adjacent(m, g1.parentJoint, g2.parentJoint):
            continue
        if gd.collisionResults[k].isCollision():
            hits.append((g1.name, g2.name))
    assert not hits


def test_the_thighs_clear_the_waist_by_the_planner_margin_over_the_whole_hip_flexion(robot):
    """The hip pitch flexes to -125 deg ([HRP2-T1]'s limit, also [HRP2-J1]'s): the waist's boxes stay >= 1 cm (the planner's
    self-collision margin, docs/contact_planner.md) from the thighs' at every hip angle 0..-125 deg, the
    other joints at zero. A single waist box reaching below the front of the chest joint met the
    thighs' near corners within 1 cm from -95 deg on and overlapped them from -100 deg (rising
    from a seat, a deep crouch)."""
    m = robot.model
    cm = robot.collision_model
    data, gd = m.createData(), pin.GeometryData(cm)
    waist = [g for g, o in enumerate(cm.geometryObjects) if o.name.startswith("BODY")]
    thighs = [g for g, o in enumerate(cm.geometryObjects) if o.name.startswith(("RLEG_LINK2", "LLEG_LINK2"))]
    assert len(waist) == 2 and len(thighs) == 2
    worst = np.inf
    for deg in np.linspace(0.0, -125.0, 126):
        q = robot.q("zero")
        for j in ("RLEG_JOINT2", "LLEG_JOINT2"):
            q[robot.joint_index_q(j)] = deg * DEG
        pin.updateGeometryPlacements(m, data, cm, gd, q)
        for a in waist:
            for b in thighs:
                ga, gb = cm.geometryObjects[a], cm.geometryObjects[b]
                res = coal.DistanceResult()
                coal.distance(ga.geometry, gd.oMg[a], gb.geometry, gd.oMg[b], coal.DistanceRequest(), res)
                worst = min(worst, res.min_distance)
    assert worst >= 0.01


# ---------------------------------------------------------------------------- contact locations
def test_contact_locations_have_unit_frames_and_hulls_around_their_point(robot):
    assert {k: c.kind for k, c in robot.contact_locations.items()} == CONTACTS
    for name, c in robot.contact_locations.items():
        assert robot.model.existFrame(c.body)
        assert np.linalg.norm(c.normal) == pytest.approx(1.0, abs=1e-12)
        assert np.linalg.norm(c.tangent) == pytest.approx(1.0, abs=1e-12)
        assert abs(c.normal @ c.tangent) < 1e-12
        assert c.hull.shape[0] >= 3
        # hull points on the contact plane (normal offset zero)
        np.testing.assert_allclose((c.hull - c.point) @ c.normal, 0.0, atol=1e-12)
        # point strictly inside the hull, in plane coordinates (tangent, normal x tangent)
        b = np.cross(c.normal, c.tangent)
        uv = np.c_[(c.hull - c.point) @ c.tangent, (c.hull - c.point) @ b]
        assert _point_in_convex_polygon_margin(np.zeros(2), uv) > 0.01, name


def _inside_box(geom, p_joint, tol=0.0):
    inv = geom.placement.inverse()
    local = inv.rotation @ p_joint + inv.translation
    return bool(np.all(np.abs(local) <= np.asarray(geom.geometry.halfSide) + tol))


def test_contact_surfaces_lie_on_the_collision_geometry(robot):
    """Each hull lies on a face of the body's collision box and the normal points into the body."""
    m = robot.model
    eps = 1e-3
    for name, c in robot.contact_locations.items():
        frame = m.frames[m.getFrameId(c.body)]
        boxes = [
            g
            for g in robot.collision_model.geometryObjects
            if g.parentJoint == frame.parentJoint and hasattr(g.geometry, "halfSide")
        ]
        to_joint = frame.placement  # body frame -> joint frame
        pj = lambda p, X=to_joint: X.rotation @ p + X.translation  # noqa: E731
        nj = to_joint.rotation @ c.normal
        for p in np.vstack([c.hull, c.point]):
            assert any(_inside_box(g, pj(p), tol=1e-9) for g in boxes), (name, p)
        # a step along the inward normal enters the body; a step against it leaves the whole link
        assert any(_inside_box(g, pj(c.point) + eps * nj) for g in boxes), name
        outside = pj(c.point) - eps * nj
        assert not any(_inside_box(g, outside) for g in boxes), name


# ---------------------------------------------------------------------------- sensors
def test_sensor_frames_are_on_their_bodies_at_the_documented_places(robot):
    m = robot.model
    ft = robot.sensors["force_torque"]
    assert set(ft) == {"r_ankle", "l_ankle", "r_wrist", "l_wrist"}
    for spec in ft.values():
        fr = m.frames[m.getFrameId(spec["frame"])]
        body = m.frames[m.getFrameId(spec["body"])]
        assert fr.parentJoint == body.parentJoint, spec
    imu = m.frames[m.getFrameId(robot.sensors["imu"]["frame"])]
    assert m.names[imu.parentJoint] == "CHEST_JOINT1"
    # IMU at (-0.13, 0, 0.118) in CHEST_LINK1 ([HRP2-S2], [HRP2-J5])
    np.testing.assert_allclose(imu.placement.translation, [-0.13, 0, 0.118], atol=1e-12)
    # ankle F/T frames at sole level, 0.105 below the ankle axes ([HRP2-S2], [HRP2-J2])
    data = _fk(robot, "half-sitting")
    for name in ("RLEG_FT", "LLEG_FT"):
        assert abs(_frame(robot, data, name).translation[2]) <= 1e-3


def test_wrist_sensor_reads_hand_weight(robot):
    """Model data, not the sensor acceptance test: the static rnea wrench below each wrist joint is the
    weight of the 0.770 kg hand, 7.55 N (+-3 %; the thesis's reading, Chardonnet 2009, §5.1.2.5). The
    hand mass is set from that datum, so this checks the model file and the sensor frame convention
    only; the simulated `Sensors` reading against an independent sub-tree sum, both postures
    (acceptance test 000 C4), is in test_sensors.py."""
    m = robot.model
    model = m.copy()
    model.gravity.linear = np.array([0, 0, -G])
    data = model.createData()
    q = robot.q("zero")
    pin.rnea(model, data, q, np.zeros(m.nv), np.zeros(m.nv))
    pin.framesForwardKinematics(model, data, q)
    for key in ("r_wrist", "l_wrist"):
        spec = robot.sensors["force_torque"][key]
        jid = m.frames[m.getFrameId(spec["body"])].parentJoint
        f_joint = data.f[jid]  # force of the parent on the subtree, in the joint frame
        fid = m.getFrameId(spec["frame"])
        f_sensor = m.frames[fid].placement.actInv(f_joint)  # frame placement is relative to the joint
        # the parent holds the hand up: the force on the subtree is +z in the world, 7.55 N
        f_world = data.oMf[fid].rotation @ f_sensor.linear
        assert f_world[2] == pytest.approx(7.55, rel=0.03)
        assert np.linalg.norm(f_world[:2]) < 1e-9
