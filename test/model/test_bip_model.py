"""The shipped BIP / BIP2000 model (urdf/bip.urdf + urdf/bip.yaml).

Expected values come from Chessé 2002 and the public HuMAnS model, cited by the keys of
docs/references.md ([BIP-H], [BIP-SI]); actual values are computed from the loaded Pinocchio models.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
import yaml
from scipy.spatial import ConvexHull

from humanoid_model import load_robot

SAGITTAL = ["r_hip_pitch", "l_hip_pitch", "r_knee", "l_knee", "r_ankle_pitch", "l_ankle_pitch"]
LATERAL = [
    "r_hip_roll",
    "r_hip_yaw",
    "r_ankle_roll",
    "l_hip_roll",
    "l_hip_yaw",
    "l_ankle_roll",
    "trunk_yaw",
    "trunk_roll",
    "trunk_pitch",
]
SIDES = ("r", "l")
Z0 = np.array([0.0, -1.0, 0.0])  # thesis Z0 (out of the sagittal plane) in URDF axes, Chessé 2002, §III.3.2.1

# Table III-3 of Chessé 2002, §III.3.2.2 (r_i, m_i, a_i, b_i; S7 has no r).
TABLE_III_3 = {
    "S1": dict(r=0.188, m=2.34, a=0.143, b=0.042),  # rear foot, O1 = toe, X1 toe->ankle
    "S2": dict(r=0.410, m=6.11, a=0.258, b=0.028),  # rear shank, O2 = ankle, X2 ankle->knee
    "S3": dict(r=0.410, m=10.9, a=0.250, b=0.005),  # rear thigh, O3 = knee, X3 knee->hip
    "S4": dict(r=0.410, m=10.9, a=0.160, b=-0.005),  # front thigh, O4 = hip, X4 hip->knee
    "S5": dict(r=0.410, m=6.11, a=0.152, b=-0.028),  # front shank, O5 = knee, X5 knee->ankle
    "S6": dict(r=0.29, m=2.34, a=0.045, b=-0.042),  # front foot, O6 = ankle, X6 ankle->toe
    "S7": dict(r=None, m=66.11, a=0.391, b=0.029),  # pelvis + trunk, O7 = hip, X7 up
}
# Tolerances: the table prints masses to 0.01 kg and a, b, r to 1 mm, hence half a unit.
MASS_TOL = 0.005
LEN_TOL = 0.0005
# Foot only: the public HuMAnS foot COM differs from Table III-3 by up to 3.2 mm (derived from [BIP-H]:
# a1, b1 = 0.146, 0.045 vs 0.143, 0.042; a6 = 0.043 vs 0.045).
FOOT_COM_TOL = 0.0035
# r1: Chessé prints 0.188 m; the public geometry gives the ankle-toe distance 0.189 m (derived from
# [BIP-H]).
R1_TOL = 0.0015


@pytest.fixture(scope="module")
def bip():
    return load_robot("bip")


@pytest.fixture(scope="module")
def bip2d():
    return load_robot("bip", planar=True)


@pytest.fixture(scope="module")
def spec(bip):
    with open(bip.urdf_path.with_suffix(".yaml")) as f:
        return yaml.safe_load(f)


def _link_inertia(robot, joint):
    """Inertia carried by joint ``joint`` (one URDF link per joint in the full model)."""
    return robot.model.inertias[robot.model.getJointId(joint)]


def _fk(robot, q):
    data = robot.model.createData()
    pin.framesForwardKinematics(robot.model, data, q)
    return data


# ---------------------------------------------------------------------------------- structure
def test_loads_with_15_actuated_revolute_joints(bip):
    # 15 actuated joints: Chessé 2002, §III.3.2; [BIP-H]
    assert len(bip.joint_names) == 15
    assert set(bip.joint_names) == set(SAGITTAL + LATERAL)
    assert bip.model.nq == 7 + 15 and bip.model.nv == 6 + 15
    assert bip.model.names[1] == "root_joint"
    for j in bip.joint_names:
        assert bip.model.joints[bip.model.getJointId(j)].nv == 1
    assert bip.default_posture == "standing"
    assert {"standing", "zero"} <= set(bip.postures)
    assert {"r_sole", "l_sole"} <= set(bip.contact_locations)


def _joint_axes_world(robot, q):
    """World rotation axis of every actuated joint at q (angular part of its Jacobian column)."""
    model, data = robot.model, robot.model.createData()
    J = pin.computeJointJacobians(model, data, q)
    return {j: J[3:, model.joints[model.getJointId(j)].idx_v] for j in robot.joint_names}


def _point_after(robot, joint, angle, frame):
    q = robot.q("zero")
    q[robot.joint_index_q(joint)] = angle
    return _fk(robot, q).oMf[robot.frame_id(frame)]


@pytest.mark.parametrize(
    "joint, frame, check",
    [
        # positive directions of [BIP-H] (HuMAnS signs, urdf/README.md)
        ("r_hip_pitch", "r_shank", lambda p0, p1: p1.translation[0] < p0.translation[0]),  # extension: knee back
        ("l_hip_pitch", "l_shank", lambda p0, p1: p1.translation[0] < p0.translation[0]),
        ("r_knee", "r_ankle_cardan", lambda p0, p1: p1.translation[0] < p0.translation[0]),  # flexion: ankle back
        ("r_ankle_pitch", "r_toe", lambda p0, p1: p1.translation[2] < p0.translation[2]),  # plantar-flexion: toe down
        ("r_hip_roll", "r_shank", lambda p0, p1: p1.translation[1] < p0.translation[1]),  # abduction: right knee to -y
        ("l_hip_roll", "l_shank", lambda p0, p1: p1.translation[1] > p0.translation[1]),  # abduction: left knee to +y
        ("r_hip_yaw", "r_toe", lambda p0, p1: p1.translation[1] < p0.translation[1]),  # toes outward
        ("l_hip_yaw", "l_toe", lambda p0, p1: p1.translation[1] > p0.translation[1]),
        ("r_ankle_roll", "r_foot", lambda p0, p1: (p1.rotation @ [0, -1, 0])[2] > 0),  # lateral edge up
        ("l_ankle_roll", "l_foot", lambda p0, p1: (p1.rotation @ [0, 1, 0])[2] > 0),
        ("trunk_yaw", "trunk", lambda p0, p1: (p1.rotation @ [1, 0, 0])[1] > 0),  # turns left
        ("trunk_roll", "trunk", lambda p0, p1: (p1.rotation @ [0, 0, 1])[1] < 0),  # leans right
        ("trunk_pitch", "trunk", lambda p0, p1: (p1.rotation @ [0, 0, 1])[0] < 0),  # leans back
    ],
)
def test_joints_turn_in_the_documented_sense(bip, joint, frame, check):
    p0 = _point_after(bip, joint, 0.0, frame)
    p1 = _point_after(bip, joint, 0.1, frame)
    assert check(p0, p1)


def test_locked_joints_are_the_lateral_ones_plus_trunk_pitch(bip, spec):
    # Chessé's sagittal model keeps hips, knees and ankles (Chessé 2002, §III.3.2); his S7 is pelvis and
    # trunk as one rigid body (§III.3.2.1, Table III-3), so trunk pitch (a sagittal axis) is locked too.
    axes = _joint_axes_world(bip, bip.q("zero"))
    sagittal_axis = {j for j in bip.joint_names if np.allclose(np.abs(axes[j]), [0, 1, 0], atol=1e-12)}
    assert sagittal_axis == set(SAGITTAL) | {"trunk_pitch"}
    assert spec["planar"]["sagittal_joints"] == SAGITTAL  # thesis order: hips, knees, ankles
    assert set(spec["planar"]["locked_joints"]) == set(bip.joint_names) - set(SAGITTAL)
    assert set(spec["planar"]["locked_joints"]) - {"trunk_pitch"} == set(bip.joint_names) - sagittal_axis


# ---------------------------------------------------------------------------------- masses
def test_total_mass_is_104_81_kg(bip):
    # 104.81 kg: the sum of Chessé 2002, Table III-3 (acceptance test 003 A1); [BIP-H]
    assert bip.mass == pytest.approx(104.81, abs=1e-9)


@pytest.mark.parametrize("side", SIDES)
def test_leg_mass_is_19_35_kg(bip, side):
    # thigh + shank + ankle cardan + foot (hip bracket excluded) = 19.35 kg:
    # Chessé 2002, Table III-3, S1 + S2 + S3 (acceptance test 003 A1); [BIP-H]
    leg = sum(_link_inertia(bip, f"{side}_{j}").mass for j in ("hip_pitch", "knee", "ankle_pitch", "ankle_roll"))
    assert leg == pytest.approx(19.35, abs=1e-9)


def test_pelvis_and_trunk_group_masses(bip):
    # [BIP-H]: pelvis group 17.65 kg and trunk group 48.46 kg
    pelvis = (
        _link_inertia(bip, "root_joint").mass
        + _link_inertia(bip, "trunk_yaw").mass
        + sum(_link_inertia(bip, f"{s}_{j}").mass for s in SIDES for j in ("hip_roll", "hip_yaw"))
    )
    trunk = _link_inertia(bip, "trunk_roll").mass + _link_inertia(bip, "trunk_pitch").mass
    assert pelvis == pytest.approx(17.65, abs=1e-9)
    assert trunk == pytest.approx(48.46, abs=1e-9)


def test_zero_posture_com_and_joint_heights_match_the_data(bip):
    q = bip.q("zero")
    data = _fk(bip, q)
    com = pin.centerOfMass(bip.model, data, q)
    # whole-robot COM (-0.022, -0.004, 1.011) m, derived from [BIP-H] to 1 mm
    np.testing.assert_allclose(com, [-0.022, -0.004, 1.011], atol=LEN_TOL)
    # joint heights 0.083, 0.493, 0.903, 1.031 and cabinet top 1.691 m: [BIP-H]
    z = {j: data.oMi[bip.model.getJointId(j)].translation[2] for j in bip.joint_names}
    assert z["r_ankle_pitch"] == pytest.approx(0.083, abs=1e-12)
    assert z["r_knee"] == pytest.approx(0.493, abs=1e-12)
    assert z["r_hip_pitch"] == pytest.approx(0.903, abs=1e-12)
    assert z["trunk_yaw"] == pytest.approx(1.031, abs=1e-12)
    assert bip.height("zero") == pytest.approx(1.691, abs=1e-12)


# ---------------------------------------------------------------------------------- inertias, limits
def test_inertias_positive_definite_and_triangle_inequality(bip):
    checked = 0
    for jid in range(1, bip.model.njoints):
        inertia = bip.model.inertias[jid]
        assert inertia.mass > 0, bip.model.names[jid]
        eig = np.sort(np.linalg.eigvalsh(inertia.inertia))
        assert eig[0] > 0, (bip.model.names[jid], eig)
        # principal moments: I1 + I2 >= I3 (relative 1e-12 for round-off)
        assert eig[0] + eig[1] >= eig[2] * (1 - 1e-12), (bip.model.names[jid], eig)
        checked += 1
    assert checked == 16  # base + 15 joints, one URDF link each


def test_limits_finite_and_ordered(bip, spec):
    for arr in (bip.q_lower, bip.q_upper, bip.v_max, bip.effort_max):
        assert arr.shape == (15,) and np.all(np.isfinite(arr))
    assert np.all(bip.q_lower < bip.q_upper)
    assert np.all(bip.v_max > 0) and np.all(bip.effort_max > 0)
    for name, q in bip.postures.items():
        joints = q[7:]
        assert np.all(joints >= bip.q_lower) and np.all(joints <= bip.q_upper), name
    # the simulation stops (soft limits) lie inside the mechanical ranges
    idx = {j: i for i, j in enumerate(bip.joint_names)}
    assert set(spec["soft_limits"]) == set(bip.joint_names)
    for j, (lo, hi) in spec["soft_limits"].items():
        assert bip.q_lower[idx[j]] <= lo < hi <= bip.q_upper[idx[j]], j
    assert set(spec["armature"]) == set(bip.joint_names)
    assert all(v > 0 for v in spec["armature"].values())


def test_armature_from_the_yaml_is_in_the_pinocchio_model(bip, spec):
    """bip.yaml `armature:` (derived from [BIP-H], urdf/README.md) reaches model.armature, per joint."""
    for joint, value in spec["armature"].items():
        assert bip.armature[bip.joint_names.index(joint)] == value
        assert bip.model.armature[bip.joint_index_v(joint)] == value
    assert np.all(bip.model.armature[:6] == 0)  # the free-flyer root has no rotor


# ---------------------------------------------------------------------------------- postures, contacts
@pytest.mark.parametrize("posture", ["standing", "zero", "start_stop"])
def test_posture_soles_flat_and_com_over_support(bip, posture):
    q = bip.q(posture)
    data = _fk(bip, q)
    support = []
    for side in SIDES:
        sole = data.oMf[bip.frame_id(f"{side}_sole")]
        assert sole.translation[2] == pytest.approx(0.0, abs=1e-9)
        np.testing.assert_allclose(sole.rotation, np.eye(3), atol=1e-12)
        c = bip.contact_locations[f"{side}_sole"]
        body = data.oMf[bip.frame_id(c.body)]
        hull_w = (body.rotation @ c.hull.T).T + body.translation
        np.testing.assert_allclose(hull_w[:, 2], 0.0, atol=1e-9)
        support.append(hull_w[:, :2])
    com = pin.centerOfMass(bip.model, bip.model.createData(), q)
    hull = ConvexHull(np.vstack(support))
    # every facet: n . x + d <= 0 inside; require the CoM strictly inside (margin > 1 cm)
    margins = -(hull.equations[:, :2] @ com[:2] + hull.equations[:, 2])
    assert margins.min() > 0.01, margins


def test_sole_hull_is_bottom_face_of_sole_collision_box(bip):
    for side in SIDES:
        c = bip.contact_locations[f"{side}_sole"]
        assert c.kind == "sole" and c.body == f"{side}_foot"
        np.testing.assert_allclose(c.normal, [0, 0, 1])
        foot_joint = bip.model.getJointId(f"{side}_ankle_roll")
        boxes = [
            g
            for g in bip.collision_model.geometryObjects
            if g.parentJoint == foot_joint and hasattr(g.geometry, "halfSide")
        ]
        assert len(boxes) == 1
        g = boxes[0]
        h = np.asarray(g.geometry.halfSide)
        corners = np.array([[sx * h[0], sy * h[1], -h[2]] for sx in (-1, 1) for sy in (-1, 1)])
        corners = (g.placement.rotation @ corners.T).T + g.placement.translation
        # hull (in the foot body frame, which coincides with the joint frame) == box bottom corners
        frame = bip.model.frames[bip.frame_id(c.body)]
        hull_joint = (frame.placement.rotation @ c.hull.T).T + frame.placement.translation
        key = lambda p: (round(p[0], 9), round(p[1], 9))  # noqa: E731
        np.testing.assert_allclose(
            sorted(map(tuple, hull_joint), key=key), sorted(map(tuple, corners), key=key), atol=1e-12
        )
        np.testing.assert_allclose(c.point, hull_joint.mean(axis=0) - frame.placement.translation, atol=1e-12)
        # foot length 0.29 m heel to toe; ankle->toe 0.189 m and ankle->heel 0.146 m measured from the
        # ankle centre: [BIP-H] foot points
        assert 2 * h[0] == pytest.approx(0.290, abs=1e-12)
        data = _fk(bip, bip.q("zero"))
        ankle = data.oMi[foot_joint].translation
        toe = data.oMf[bip.frame_id(f"{side}_toe")].translation
        heel = data.oMf[bip.frame_id(f"{side}_heel")].translation
        assert np.linalg.norm(toe - heel) == pytest.approx(0.290, abs=1e-12)
        assert np.linalg.norm(toe - ankle) == pytest.approx(0.189, abs=LEN_TOL)
        assert np.linalg.norm(heel - ankle) == pytest.approx(0.146, abs=LEN_TOL)


def test_no_self_collision_in_shipped_postures(bip):
    geom = bip.collision_model.copy()
    geom.addAllCollisionPairs()
    gdata = pin.GeometryData(geom)
    for name in bip.postures:
        pin.computeDistances(bip.model, bip.model.createData(), geom, gdata, bip.q(name))
        dmin = min(r.min_distance for r in gdata.distanceResults)
        assert dmin > 0.005, name


# ---------------------------------------------------------------------------------- planar model
def test_planar_model_has_the_six_sagittal_joints(bip2d, spec):
    assert bip2d.planar
    assert set(bip2d.joint_names) == set(spec["planar"]["sagittal_joints"])
    assert len(bip2d.joint_names) == 6
    assert bip2d.model.nq == 7 + 6 and bip2d.model.nv == 6 + 6
    assert bip2d.mass == pytest.approx(104.81, abs=1e-9)
    assert {"r_sole", "l_sole"} <= set(bip2d.contact_locations)
    data = _fk(bip2d, bip2d.q("standing"))
    for side in SIDES:
        assert data.oMf[bip2d.frame_id(f"{side}_sole")].translation[2] == pytest.approx(0.0, abs=1e-9)


def _thesis_bodies(bip2d, bip, side_rear, side_front, posture="standing"):
    """The seven Table III-3 bodies computed from the reduced (planar) model.

    Lumping: S7 = everything on the free-flyer root once the lateral joints are locked (pelvis, hip
    brackets and levers, lumbar lever, trunk cardan and cabinet); thigh = body of the hip-pitch joint;
    shank = body of the knee joint; foot = body of the ankle-pitch joint (cardan + foot) minus the
    ankle cardan, whose mass Chessé counts with the shank but whose COM shift he ignores
    (as Table III-3's values show, compared with [BIP-H]), so the thesis shank has mass shank + cardan and the COM of the
    shank alone. Returns {body: (origin O, unit X, length r or None, mass, COM)} in the world frame.
    """
    model = bip2d.model
    q = bip2d.q(posture)
    data = _fk(bip2d, q)
    world = lambda jid: data.oMi[jid].act(model.inertias[jid])  # noqa: E731
    jid = lambda name: model.getJointId(name)  # noqa: E731
    pos = lambda name: data.oMi[jid(name)].translation  # noqa: E731
    frame = lambda name: data.oMf[bip2d.frame_id(name)].translation  # noqa: E731

    def leg(side):
        cardan_local = _link_inertia(bip, f"{side}_ankle_pitch")  # alone on its joint in the full model
        cardan = data.oMi[jid(f"{side}_ankle_pitch")].act(cardan_local)
        ankle_body = world(jid(f"{side}_ankle_pitch"))
        foot_mass = ankle_body.mass - cardan.mass
        foot_com = (ankle_body.mass * ankle_body.lever - cardan.mass * cardan.lever) / foot_mass
        shank = world(jid(f"{side}_knee"))
        thigh = world(jid(f"{side}_hip_pitch"))
        return dict(
            hip=pos(f"{side}_hip_pitch"),
            knee=pos(f"{side}_knee"),
            ankle=pos(f"{side}_ankle_pitch"),
            toe=frame(f"{side}_toe"),
            heel=frame(f"{side}_heel"),
            foot=(foot_mass, foot_com),
            shank=(shank.mass + cardan.mass, shank.lever),
            thigh=(thigh.mass, thigh.lever),
        )

    def unit(v):
        return v / np.linalg.norm(v)

    R, F = leg(side_rear), leg(side_front)
    trunk = world(jid("root_joint"))
    up = data.oMi[jid("root_joint")].rotation[:, 2]  # q7 = pi/2: upright pelvis/trunk (Chessé's absolute angle)
    return {
        "S1": (R["toe"], unit(R["ankle"] - R["toe"]), np.linalg.norm(R["ankle"] - R["toe"]), *R["foot"]),
        "S2": (R["ankle"], unit(R["knee"] - R["ankle"]), np.linalg.norm(R["knee"] - R["ankle"]), *R["shank"]),
        "S3": (R["knee"], unit(R["hip"] - R["knee"]), np.linalg.norm(R["hip"] - R["knee"]), *R["thigh"]),
        "S4": (F["hip"], unit(F["knee"] - F["hip"]), np.linalg.norm(F["knee"] - F["hip"]), *F["thigh"]),
        "S5": (F["knee"], unit(F["ankle"] - F["knee"]), np.linalg.norm(F["ankle"] - F["knee"]), *F["shank"]),
        # X6 along ankle->toe (the reading under which a1 + a6 = r1, urdf/README.md); r6 = heel-toe length
        # ([BIP-H]: 0.29 m)
        "S6": (F["ankle"], unit(F["toe"] - F["ankle"]), np.linalg.norm(F["toe"] - F["heel"]), *F["foot"]),
        "S7": (F["hip"], up, None, trunk.mass, trunk.lever),
    }


@pytest.fixture(scope="module", params=[("r", "l"), ("l", "r")], ids=["rear_r", "rear_l"])
def thesis_bodies(request, bip2d, bip):
    return _thesis_bodies(bip2d, bip, *request.param)


@pytest.mark.parametrize("body", list(TABLE_III_3))
def test_planar_reduction_reproduces_table_III_3(thesis_bodies, body):
    expected = TABLE_III_3[body]
    origin, X, r, mass, com = thesis_bodies[body]
    Y = np.cross(Z0, X)  # Y_i = Z0 x X_i (Chessé 2002, §III.3.2.1)
    a, b = (com - origin) @ X, (com - origin) @ Y
    com_tol = FOOT_COM_TOL if body in ("S1", "S6") else LEN_TOL
    assert mass == pytest.approx(expected["m"], abs=MASS_TOL)
    assert a == pytest.approx(expected["a"], abs=com_tol)
    assert b == pytest.approx(expected["b"], abs=com_tol)
    if expected["r"] is not None:
        assert r == pytest.approx(expected["r"], abs=R1_TOL if body == "S1" else LEN_TOL)


def test_planar_leg_and_total_mass_from_table_III_3(thesis_bodies):
    # one leg = S1 + S2 + S3 = 19.35 kg and the whole robot = 104.81 kg (sums of Chessé 2002, Table III-3)
    masses = {k: v[3] for k, v in thesis_bodies.items()}
    assert masses["S1"] + masses["S2"] + masses["S3"] == pytest.approx(19.35, abs=1e-9)
    assert sum(masses.values()) == pytest.approx(104.81, abs=1e-9)
