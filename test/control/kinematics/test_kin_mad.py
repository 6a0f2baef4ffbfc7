"""MAD importer: KK frames, the thesis's four robots against their numbers, errors.

Flückiger 1998: the MAD format (ch. 4), the hybrid robot's file (Fig. 4-9), macdac.mad, cross.mad
and redont.mad (Appendix B). The thesis prints the robots' parameters but no poses: the poses,
gaps and singular values checked are derived from its files (docs/kinematics_mad.md). Positions in
mm, the thesis's unit.
"""

import math
import subprocess
import sys

import numpy as np
import pinocchio as pin
import pytest
import yaml
from support import REPO

from humanoid_control.exceptions import KinematicsError, MadError
from humanoid_control.kinematics.mad import (
    convert,
    euler_xyz,
    kk_joint_origin,
    kk_transform,
    matrix_to_rpy,
    sidecar_text,
    write_converted,
)
from humanoid_control.kinematics.mad_parser import parse_mad
from humanoid_model.exceptions import HumanoidStackError

KIN = REPO / "urdf" / "kinematics"
EXAMPLES = ["hybrid_planar", "macdac", "cross_delta", "redundant_6r"]


# -- elementary transforms, written independently of the module ------------------------------
def Rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def Rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def Tx(d):
    T = np.eye(4)
    T[0, 3] = d
    return T


def Tz(d):
    T = np.eye(4)
    T[2, 3] = d
    return T


def rad(deg):
    return math.radians(deg)


@pytest.mark.spec("002", "A2")
def test_kk_closed_form_equals_the_product_and_the_corrected_sign():
    """Rz(γ)Tz(ε)Rx(α)Tx(d)Rz(θ)Tz(r) to 1e-12 (Flückiger 1998, §3.2.2.3); y = d·sinγ − r·cosγ·sinα,
    where the thesis's eq. (3.9) prints a sign typo (+)."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        g, a, t = rng.uniform(-180, 180, 3)
        e, d, r = rng.uniform(-500, 500, 3)
        T = kk_transform(g, e, a, d, t, r)
        P = Rz(rad(g)) @ Tz(e) @ Rx(rad(a)) @ Tx(d) @ Rz(rad(t)) @ Tz(r)
        np.testing.assert_allclose(T, P, atol=1e-12 * max(1.0, abs(d), abs(r), abs(e)))
        y = d * math.sin(rad(g)) - r * math.cos(rad(g)) * math.sin(rad(a))
        assert T[1, 3] == pytest.approx(y, abs=1e-9)
        if abs(r * math.cos(rad(g)) * math.sin(rad(a))) > 1.0:  # the extracted "+" would be wrong
            assert abs(T[1, 3] - (d * math.sin(rad(g)) + r * math.cos(rad(g)) * math.sin(rad(a)))) > 1.0


def test_kk_hand_computed_transforms():
    """Two parameter sets worked out by hand (non-zero alpha and r; branching gamma and epsilon)."""
    c30, s30 = math.cos(rad(30)), math.sin(rad(30))
    # alpha 90, d 100, theta 30, r 50: p = Rx(90)·(d, 0, r) = (100, -50, 0); R = Rx(90)·Rz(30)
    T = kk_transform(alpha=90, d=100, theta=30, r=50)
    np.testing.assert_allclose(T[:3, 3], [100, -50, 0], atol=1e-12)
    np.testing.assert_allclose(T[:3, :3], [[c30, -s30, 0], [0, 0, -1], [s30, c30, 0]], atol=1e-15)
    # gamma 90, epsilon 10, d 20, r 5: p = Rz(90)·(20, 0, 15) = (0, 20, 15); R = Rz(90)
    T = kk_transform(gamma=90, epsilon=10, d=20, r=5)
    np.testing.assert_allclose(T[:3, 3], [0, 20, 15], atol=1e-12)
    np.testing.assert_allclose(T[:3, :3], [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)
    # the URDF origin leaves the joint variable out (Rz(θ) and Tz(r) commute)
    F, q0 = kk_joint_origin({"theta": 30, "r": 50, "alpha": 90, "d": 100}, 2)
    np.testing.assert_allclose(F @ Rz(rad(30)), kk_transform(alpha=90, d=100, theta=30, r=50), atol=1e-12)
    assert q0 == 30
    F, q0 = kk_joint_origin({"theta": 30, "r": 50, "alpha": 90, "d": 100}, 1)
    np.testing.assert_allclose(F @ Tz(50), kk_transform(alpha=90, d=100, theta=30, r=50), atol=1e-12)
    assert q0 == 50


def test_matrix_to_rpy_round_trip():
    rng = np.random.default_rng(5)
    for a, b, c in [*rng.uniform(-180, 180, (50, 3)), (0, 90, 30), (0, -90, -40), (180, 0, 0), (-90, 0, 0)]:
        R = euler_xyz((a, b, c))
        np.testing.assert_allclose(
            R, Rx(rad(a))[:3, :3] @ pin.utils.rotate("y", rad(b)) @ Rz(rad(c))[:3, :3], atol=1e-14
        )
        np.testing.assert_allclose(pin.rpy.rpyToMatrix(*matrix_to_rpy(R)), R, atol=1e-12)


def one_link(params, type_, extra=""):
    return f"RAFF t\nrobot r {{\n base {{ }}\n link 1 {{ parameters {{ {params} }} type {type_} pred 0 {extra} }}\n}}\n"


@pytest.mark.parametrize("type_", [1, 2])
def test_one_link_in_pinocchio_matches_hand_transform(tmp_path, type_):
    """The converted URDF joint, at q0 and q0 + 0.2, equals Rx(α)Tx(d)Rz(θ)Tz(r) computed by hand
    (mm -> m): revolute moves θ, prismatic moves r (Flückiger 1998, §4.1.2.3)."""
    path = tmp_path / "one.mad"
    path.write_text(one_link("theta 30 r 50 alpha 90 d 100", type_, "limits { -1000 1000 }"))
    urdf, side = convert(path)
    model = pin.buildModelFromXML(urdf)
    assert model.nq == 1 and model.names[1] == "joint1"
    q0 = side["initial"]["joint1"]
    assert q0 == pytest.approx(rad(30) if type_ == 2 else 0.050, abs=1e-12)
    data = model.createData()
    for dq in (0.0, 0.2):
        pin.forwardKinematics(model, data, np.array([q0 + dq]))
        theta, r = (30 + math.degrees(dq), 50) if type_ == 2 else (30, 50 + 1000 * dq)
        H = Rx(rad(90)) @ Tx(100) @ Rz(rad(theta)) @ Tz(r)
        np.testing.assert_allclose(data.oMi[1].rotation, H[:3, :3], atol=1e-11)
        np.testing.assert_allclose(data.oMi[1].translation * 1000, H[:3, 3], atol=1e-8)
    # hand values: revolute at θ = 30°: p = (100, -50, 0) mm; prismatic at r = 250 mm: (100, -250, 0)
    np.testing.assert_allclose(
        data.oMi[1].translation * 1000, [100, -50, 0] if type_ == 2 else [100, -250, 0], atol=1e-8
    )


# -- the four examples ---------------------------------------------------------------------------
def load(name):
    urdf = KIN / f"{name}.urdf"
    side = yaml.safe_load((KIN / f"{name}.kin.yaml").read_text())
    model = pin.buildModelFromUrdf(str(urdf))
    q = pin.neutral(model)
    for joint, value in side["initial"].items():
        q[model.joints[model.getJointId(joint)].idx_q] = value
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    return model, data, q, side


def pose(model, data, frame):
    return data.oMf[model.getFrameId(frame)]


def mm(model, data, frame):
    return pose(model, data, frame).translation * 1000.0


@pytest.mark.parametrize("name", EXAMPLES)
def test_checked_in_files_equal_a_fresh_conversion(name, tmp_path):
    urdf_text, side = convert(KIN / f"{name}.mad")
    assert (KIN / f"{name}.urdf").read_text() == urdf_text, f"{name}.urdf is stale: humanoid-stack mad2urdf"
    assert (KIN / f"{name}.kin.yaml").read_text() == sidecar_text(side, f"{name}.mad")
    u, s = write_converted(KIN / f"{name}.mad", tmp_path)
    assert u.read_text() == urdf_text and s.read_text() == (KIN / f"{name}.kin.yaml").read_text()


@pytest.mark.parametrize(
    "name, revolute, prismatic, frames",
    [
        pytest.param("hybrid_planar", 7, 0, 2, marks=pytest.mark.spec("002", "A1")),
        ("macdac", 5, 0, 1),
        pytest.param("cross_delta", 12, 3, 8, marks=pytest.mark.spec("002", "A9")),
        ("redundant_6r", 6, 0, 1),
    ],
)
def test_examples_load_in_pinocchio(name, revolute, prismatic, frames):
    """Joint counts (Flückiger 1998): hybrid 7R (§4.2.1), MacDac 5R (§6.3.1), Cross-Delta 3P+12R
    (§6.3.3, Appendix B), 6R (§6.3.5)."""
    model, _, _, side = load(name)
    kinds = [j.shortname() for j in model.joints[1:]]
    assert kinds.count("JointModelRZ") == revolute and kinds.count("JointModelPZ") == prismatic
    assert model.nq == model.nv == revolute + prismatic
    fixed = [f for f in model.frames if f.type == pin.FrameType.FIXED_JOINT and f.name != "universe"]
    assert len(fixed) == frames
    assert set(side) == {"urdf", "floating", "frames", "closures", "sources", "limits", "initial"}
    assert side["urdf"] == f"{name}.urdf" and side["floating"] is False
    assert len(side["initial"]) == model.nq


@pytest.mark.spec("002", "A1", "A3", "A4")
def test_hybrid_structure_and_initial_pose():
    """The hybrid robot of Flückiger 1998, §4.2 (file of Fig. 4-9): 7 R joints, frames 8 and 9,
    loop {link 7, frame 8}, tracker {frame 9: [0, 1]}; KK table (Table 4-4); initial poses and the
    initial gap 2.914 ± 0.01 mm derived from the file; frame 8 `ori {0 0 60}` gives zero
    orientation error with Rx·Ry·Rz (the thesis does not state the Euler convention)."""
    model, data, q, side = load("hybrid_planar")
    assert side["closures"] == [{"name": "loop1", "type": "weld", "frame_a": "link7", "frame_b": "frame8"}]
    assert side["sources"] == {"frame9": ["none", "mouse"]}
    theta = [0, 51, -120, 60, -51, 120, -60]  # Flückiger 1998, Table 4-4
    assert [side["initial"][f"joint{i}"] for i in range(1, 8)] == pytest.approx([rad(t) for t in theta], abs=1e-12)
    np.testing.assert_allclose(mm(model, data, "link7")[:2], [928.501, -145.585], atol=1e-3)
    np.testing.assert_allclose(mm(model, data, "frame8")[:2], [928.045, -148.463], atol=1e-3)
    np.testing.assert_allclose(mm(model, data, "frame9")[:2], [1164.29, -280.58], atol=5e-3)
    for f in ("link7", "frame8", "frame9"):
        R = pose(model, data, f).rotation
        np.testing.assert_allclose(R, pin.utils.rotate("z", rad(-9)), atol=1e-11)  # all at −9° (from the file)
        assert abs(mm(model, data, f)[2]) < 1e-9  # planar
    gap = np.linalg.norm(mm(model, data, "frame8") - mm(model, data, "link7"))
    assert gap == pytest.approx(2.914, abs=0.01)
    R_err = pose(model, data, "link7").rotation.T @ pose(model, data, "frame8").rotation
    assert np.linalg.norm(pin.log3(R_err)) <= 1e-9
    # the other Euler reading: a z-first reading R = Rz(a)·Ry(b)·Rx(c) of ori {0 0 60} is Rx(60): >= 1 rad off
    R_zfirst = pose(model, data, "link3").rotation @ pin.utils.rotate("x", rad(60))
    assert np.linalg.norm(pin.log3(pose(model, data, "link7").rotation.T @ R_zfirst)) >= 1.0
    # loop block (6x7) has rank 3: mobility 7 - 3 = 4 (Flückiger 1998, §4.2.1: 4 DOF)
    pin.computeJointJacobians(model, data, q)
    J = np.vstack(
        [
            pin.getFrameJacobian(model, data, model.getFrameId("link7"), pin.LOCAL_WORLD_ALIGNED)
            - pin.getFrameJacobian(model, data, model.getFrameId("frame8"), pin.LOCAL_WORLD_ALIGNED)
        ]
    )
    assert np.linalg.matrix_rank(J, tol=1e-9) == 3


@pytest.mark.spec("002", "A17")
def test_relative_and_absolute_limits():
    """Relative `range` and absolute `limits` (Flückiger 1998, §4.1.2.3): the hybrid robot's ranges
    (Table 4-4) become absolute limits about the initial values; MacDac's `limits` (macdac.mad,
    Appendix B), joints 3 and 4 starting exactly at a limit."""
    model, _, q, side = load("hybrid_planar")
    absolute = {
        1: (-160, 160),
        2: (-69, 171),
        3: (-170, -10),
        4: (-60, 180),
        5: (-171, 69),
        6: (10, 170),
        7: (-210, 90),
    }
    for i, (lo, hi) in absolute.items():
        j = model.joints[model.getJointId(f"joint{i}")].idx_q
        assert (model.lowerPositionLimit[j], model.upperPositionLimit[j]) == pytest.approx(
            (rad(lo), rad(hi)), abs=1e-11
        )
    ranges = {
        1: (-160, 160),
        2: (-120, 120),
        3: (-50, 110),
        4: (-120, 120),
        5: (-120, 120),
        6: (-110, 50),
        7: (-150, 150),
    }
    for i, (lo, hi) in ranges.items():
        assert side["limits"]["relative"][f"joint{i}"] == pytest.approx([rad(lo), rad(hi)], abs=1e-11)
    model, _, q, side = load("macdac")
    limits = {1: (-60, 60), 2: (-90, 150), 3: (-165, 10), 4: (0, 255), 5: (90, 270)}
    for i, (lo, hi) in limits.items():
        j = model.joints[model.getJointId(f"joint{i}")].idx_q
        assert (model.lowerPositionLimit[j], model.upperPositionLimit[j]) == pytest.approx(
            (rad(lo), rad(hi)), abs=1e-11
        )
    assert side["limits"]["relative"] == {}
    assert q[model.joints[model.getJointId("joint3")].idx_q] == model.lowerPositionLimit[2]
    assert q[model.joints[model.getJointId("joint4")].idx_q] == model.upperPositionLimit[3]


@pytest.mark.spec("002", "A8")
def test_macdac_initial_tool_pose():
    """MacDac (Flückiger 1998, §6.3.1; macdac.mad, Appendix B), derived from its file: tool frame 6
    at (112.80, −73.00, 428.20) ± 0.01 mm, rotation [[0.5, 0, −0.866], [0, 1, 0], [0.866, 0, 0.5]]
    and J singular values {484.3, 322.5, 228.6, 0.781, 0.255} in mm/rad."""
    model, data, q, side = load("macdac")
    np.testing.assert_allclose(mm(model, data, "frame6"), [112.80, -73.00, 428.20], atol=0.01)
    np.testing.assert_allclose(
        pose(model, data, "frame6").rotation, [[0.5, 0, -0.866], [0, 1, 0], [0.866, 0, 0.5]], atol=5e-4
    )
    assert side["sources"] == {"frame6": ["none", "mouse"]} and side["closures"] == []
    pin.computeJointJacobians(model, data, q)
    J = pin.getFrameJacobian(model, data, model.getFrameId("frame6"), pin.LOCAL_WORLD_ALIGNED)
    J[:3] *= 1000.0
    sv = np.linalg.svd(J, compute_uv=False)  # to half a unit of the printed last digit
    assert np.all(np.abs(sv - [484.3, 322.5, 228.6, 0.781, 0.255]) <= [0.05, 0.05, 0.05, 5e-4, 5e-4]), sv


@pytest.mark.spec("002", "A3", "A9")
def test_cross_delta_structure_and_initial_gaps():
    """The Cross-Delta (Flückiger 1998, §6.3.3; cross.mad, Appendix B, for its KK table): 15 joints
    (3 P, 12 R), loop block 12x15 of rank 12 (3 DOF); derived from the file: initial gaps
    45.09 ± 0.05 mm per loop, (−8.88, ∓29.82, 32.63) and 0 rad; frames 16/17 `ori {±90 0 0}`
    close in orientation with Rx·Ry·Rz."""
    model, data, q, side = load("cross_delta")
    assert [c["frame_b"] for c in side["closures"]] == ["frame16", "frame17"]
    assert {c["frame_a"] for c in side["closures"]} == {"link5"} and {c["type"] for c in side["closures"]} == {"weld"}
    assert side["sources"] == {"link5": ["none", "mouse"]}
    init = side["initial"]
    assert [init["joint1"], init["joint6"], init["joint11"]] == pytest.approx([-1.78565, -0.99443, -0.99443], abs=1e-12)
    assert init["joint2"] == pytest.approx(rad(116.3878), abs=1e-12) and init["joint7"] == pytest.approx(
        rad(131.81), abs=1e-12
    )
    for frame, sign in (("frame16", -1), ("frame17", 1)):
        gap = mm(model, data, frame) - mm(model, data, "link5")
        np.testing.assert_allclose(gap, [-8.88, sign * 29.82, 32.63], atol=0.005)
        assert np.linalg.norm(gap) == pytest.approx(45.09, abs=0.05)
        R_err = pose(model, data, "link5").rotation.T @ pose(model, data, frame).rotation
        assert np.linalg.norm(pin.log3(R_err)) <= 1e-9
    pin.computeJointJacobians(model, data, q)

    def J(f):
        return pin.getFrameJacobian(model, data, model.getFrameId(f), pin.LOCAL_WORLD_ALIGNED)

    loops = np.vstack([J("link5") - J("frame16"), J("link5") - J("frame17")])
    loops = loops * np.r_[[1000.0] * 3, [1.0] * 3, [1000.0] * 3, [1.0] * 3][:, None]  # mm, rad
    assert loops.shape == (12, 15) and np.linalg.matrix_rank(loops, tol=1e-6) == 12


def test_redundant_6r_hand_computed_pose():
    """The thesis gives no pose for redont.mad (Flückiger 1998, §6.3.5, Appendix B): frame 7
    computed by hand. Link 1 turns 90° about z, link 2 (α 90°, θ 60°) tilts the arm plane to x = 0,
    axes 2-6 are parallel (+x, "5 parallel axes", §6.3.5); in that plane, angles from +y: 60, 30,
    0, −30, −60 for the segments d3..d6 = 2000, 1500, 1000, 800 and frame 7's 800 (the file's KK
    parameters)."""
    model, data, q, side = load("redundant_6r")
    angles, lengths = [60, 30, 0, -30, -60], [2000, 1500, 1000, 800, 800]
    y = sum(L * math.cos(rad(a)) for a, L in zip(angles, lengths))
    z = sum(L * math.sin(rad(a)) for a, L in zip(angles, lengths))
    np.testing.assert_allclose(mm(model, data, "frame7"), [0, y, z], atol=1e-6)
    assert (y, z) == pytest.approx((4391.858, 1389.230), abs=1e-3)
    axes = [data.oMi[model.getJointId(f"joint{i}")].rotation[:, 2] for i in range(2, 7)]
    for a in axes:
        np.testing.assert_allclose(a, [1, 0, 0], atol=1e-12)
    assert side["sources"] == {"frame7": ["none", "mouse"], "link4": ["none", "panel"]}  # sensors 1 and 2 of redont.mad


@pytest.mark.parametrize(
    "name, closures, gap_mm",
    [("hybrid_planar", 1, 2.914), ("macdac", 0, None), ("cross_delta", 2, 45.09), ("redundant_6r", 0, None)],
)
def test_examples_load_as_kinematic_structures(name, closures, gap_mm):
    """Each converted example loads through the sidecar loader (the structure's closures are the
    MAD loops; their initial position error is the gap derived from the file, as above)."""
    structure = pytest.importorskip("humanoid_control.kinematics.structure")
    s = structure.load_structure(KIN / f"{name}.kin.yaml")
    _, _, q, side = load(name)
    np.testing.assert_allclose(s.q0, q, atol=1e-12)
    assert len(s.closures) == closures and s.sources == side["sources"]
    assert sorted(s.closures) == sorted(c["name"] for c in side["closures"])
    for c in side["closures"]:
        assert type(s.closures[c["name"]]).__name__ == "Weld"
        a, b = s.placement(s.q0, c["frame_a"]), s.placement(s.q0, c["frame_b"])
        gap = np.linalg.norm(a.translation - b.translation) * 1000
        assert gap == pytest.approx(gap_mm, abs=0.01 if name == "hybrid_planar" else 0.05)
        assert np.linalg.norm(pin.log3(a.rotation.T @ b.rotation)) < 1e-9


# -- the format: tolerance and errors -----------------------------------------------------------
def test_glued_tokens_comments_version_and_balljoint():
    text = """/* header
    comment */ RAFF v1.1 scene // the version is optional
    sensor 0 { } sensor 3 { port "x" type panel translation 3 rotation 3 }
    robot link2 {
      base { pos { 0 0 100 } ori { 0 0 90 } filename ( auto "b.nff" ) }
      link 1 { parameters { theta90.0 r 0 alpha-90.0 d 10 gamma 0 epsil 0 } type 2 pred 0 limits { 0 180 } }
      link 2 { parameters { d 5 alpha 0 r 20 theta 0 } type 1 pred 7 range { -10 10 } }
      frame 7 { pos { 1 2 3 } ori { 0 0 0 } pred 1 }
      frame 8 { pos { 0 0 0 } ori { 0 0 0 } pred 2 }
      balljoint { frame 8 link 1 }
      constraint { link 2 sensor ( 0 3 ) }
    }"""
    mad = parse_mad(text, "t.mad")
    assert mad.version == "v1.1" and mad.scene == "scene" and mad.sensors[3].type == "panel"
    assert mad.robots[0].name == "link2"  # a name is not split like `theta90.0`
    link = mad.robots[0].links[1]
    assert link.params == {"theta": 90.0, "r": 0.0, "alpha": -90.0, "d": 10.0, "gamma": 0.0, "epsil": 0.0}
    import humanoid_control.kinematics.mad as mad_module

    urdf, side = mad_module.convert_mad(mad, "t.urdf")
    assert side["closures"] == [{"name": "loop1", "type": "ball", "frame_a": "frame8", "frame_b": "link1"}]
    assert side["sources"] == {"link2": ["none", "panel"]}
    assert side["initial"]["joint2"] == pytest.approx(0.020) and side["limits"]["relative"]["joint2"] == pytest.approx(
        [-0.01, 0.01]
    )
    model = pin.buildModelFromXML(urdf)
    data = model.createData()
    pin.framesForwardKinematics(model, data, np.array([rad(90), 0.020]))
    # base placed at (0, 0, 100) mm and turned 90° about z; link 1 at the base origin (d = r = 0 ... d 10)
    np.testing.assert_allclose(data.oMf[model.getFrameId("base")].translation, [0, 0, 0.1], atol=1e-12)
    np.testing.assert_allclose(data.oMi[1].translation, [0, 0.010, 0.1], atol=1e-12)
    assert [j.shortname() for j in model.joints[1:]] == ["JointModelRZ", "JointModelPZ"]


def test_revolute_without_limits_is_continuous(tmp_path):
    p = tmp_path / "c.mad"
    p.write_text(one_link("theta 10 r 0 alpha 0 d 0", 2))
    urdf, side = convert(p)
    assert 'type="continuous"' in urdf and side["initial"]["joint1"] == pytest.approx(rad(10))


BAD = [
    # (name, text, line, token, words in the message)
    ("missing pred", one_link("theta 0 r 0 alpha 0 d 1", 2).replace("pred 0 ", ""), 4, "}", "missing 'pred'"),
    ("missing d", one_link("theta 0 r 0 alpha 0", 2), 4, "}", "missing d"),
    ("bad number", one_link("theta 0 r abc alpha 0 d 1", 2), 4, "abc", "expected a number"),
    ("unknown keyword", one_link("theta 0 r 0 alpah 0 d 1", 2), 4, "alpah", "did you mean 'alpha'"),
    ("unknown robot keyword", "RAFF t\nrobot r {\n base { }\n lnk 1 { }\n}\n", 4, "lnk", "did you mean 'link'"),
    ("bad type", one_link("theta 0 r 0 alpha 0 d 1", 3), 4, "3", "must be 1 (prismatic) or 2 (revolute)"),
    (
        "wrong arc reference",
        one_link("theta 0 r 0 alpha 0 d 1", 2).replace("}\n}\n", "}\n\n constraint { link 1 frame 8 }\n}\n"),
        6,
        "frame 8",
        "does not exist",
    ),
    (
        "arc to an undeclared sensor",
        one_link("theta 0 r 0 alpha 0 d 1", 2).replace("}\n}\n", "}\n constraint { link 1\n sensor ( 0 4 ) }\n}\n"),
        6,
        "4",
        "sensor 4 is not declared",
    ),
    ("pred not found", one_link("theta 0 r 0 alpha 0 d 1", 2).replace("pred 0", "pred\n 9"), 5, "9", "pred 9 is not"),
    ("range outside", one_link("theta 50 r 0 alpha 0 d 1", 2, "limits { -10 10 }"), 4, "50", "outside its limits"),
    (
        "duplicate id",
        "RAFF t robot r { base { }\n frame 1 { pos {0 0 0} ori {0 0 0} pred 0 }\n"
        + "link 1 { parameters { theta 0 r 0 alpha 0 d 0 } type 2 pred 0 }\n}",
        3,
        "link 1",
        "already used",
    ),
    ("missing brace", "RAFF t\nrobot r {\n base { }\n", 3, "<end of file>", "missing '}'"),
    ("no header", "robot r { base { } }", 1, "robot", "must start with 'RAFF"),
    ("unterminated string", 'RAFF t\nrobot r {\n path "abc\n base { } }', 3, None, "unterminated string"),
    ("unterminated comment", "RAFF t\n\n/* robot r {\n base { } }", 3, None, "unterminated comment"),
    ("no base", "RAFF t\n\nrobot r {\n}\n", 3, "robot r", "has no 'base'"),
    (
        "pred cycle",
        "RAFF t robot r { base { }\n frame 1 { pos {0 0 0} ori {0 0 0} pred 2 }\n"
        "frame 2 { pos {0 0 0} ori {0 0 0} pred 1 } }",
        2,
        "2",
        "pred cycle",
    ),
    (
        "link named as a frame",
        one_link("theta 0 r 0 alpha 0 d 1", 2).replace("}\n}\n", "}\n constraint { frame 1 link 1 }\n}\n"),
        5,
        "frame 1",
        "(1 is a link)",
    ),
    (
        "three elements",
        one_link("theta 0 r 0 alpha 0 d 1", 2).replace(
            "}\n}\n", "}\n constraint { link 1 sensor ( 0 )\n link 1 }\n}\n"
        ),
        6,
        "}",
        "needs exactly 2 elements, got 3",
    ),
    (
        "range and limits",
        one_link("theta 0 r 0 alpha 0 d 1", 2, "range { -1 1 }\n limits { -1 1 }"),
        5,
        "limits",
        "not both",
    ),
]


@pytest.mark.parametrize("name, text, line, token, words", BAD, ids=[b[0] for b in BAD])
def test_malformed_files_name_the_line_and_token(tmp_path, name, text, line, token, words):
    path = tmp_path / "bad.mad"
    path.write_text(text)
    with pytest.raises(MadError) as err:
        convert(path)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{path}:{line}: "), msg
    assert words in msg, msg
    if token is not None:
        assert f"found '{token}'" in msg, msg
    assert isinstance(err.value, KinematicsError) and isinstance(err.value, HumanoidStackError)


def test_error_in_a_thesis_file_names_its_line(tmp_path):
    """A typo in the shipped hybrid robot is reported at the line it is on."""
    lines = (KIN / "hybrid_planar.mad").read_text().splitlines()
    n = next(i for i, text in enumerate(lines) if "400.0" in text) + 1  # link 3's d
    lines[n - 1] = lines[n - 1].replace("400.0", "4OO.0")
    (tmp_path / "typo.mad").write_text("\n".join(lines) + "\n")
    with pytest.raises(MadError, match=rf"typo.mad:{n}: expected a number after 'd'; found '4OO.0'$"):
        convert(tmp_path / "typo.mad")


def test_several_robots_share_one_urdf(tmp_path):
    """Several robots in one file (Flückiger 1998, §4.1.2): one URDF, a root link `scene`, names prefixed."""
    p = tmp_path / "two.mad"
    arm = "robot {n} {{ base {{ pos {{ {x} 0 0 }} }} link 1 {{ parameters {{ theta 0 r 0 alpha 0 d 100 }} type 2 pred 0 limits {{ -90 90 }} }} frame 2 {{ pos {{ 50 0 0 }} ori {{ 0 0 0 }} pred 1 }} }}"
    p.write_text("RAFF two_arms\n" + arm.format(n="left", x=0) + "\n" + arm.format(n="right", x=1000) + "\n")
    urdf, side = convert(p)
    model = pin.buildModelFromXML(urdf)
    assert list(model.names[1:]) == ["left_joint1", "right_joint1"] and set(side["initial"]) == {
        "left_joint1",
        "right_joint1",
    }
    data = model.createData()
    pin.framesForwardKinematics(model, data, np.zeros(2))
    np.testing.assert_allclose(data.oMf[model.getFrameId("right_frame2")].translation, [1.15, 0, 0], atol=1e-12)
    np.testing.assert_allclose(data.oMf[model.getFrameId("left_frame2")].translation, [0.15, 0, 0], atol=1e-12)


def test_missing_file_is_a_mad_error(tmp_path):
    with pytest.raises(MadError, match="cannot read the MAD file"):
        convert(tmp_path / "none.mad")


# -- the command -------------------------------------------------------------------------------
def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "humanoid_stack", "mad2urdf", *args], capture_output=True, text=True, timeout=120
    )


def test_cli_writes_both_files_and_refuses_a_bad_file(tmp_path):
    r = _cli(str(KIN / "cross_delta.mad"), "--output-dir", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    urdf, side = tmp_path / "out" / "cross_delta.urdf", tmp_path / "out" / "cross_delta.kin.yaml"
    assert r.stdout.split() == [str(urdf), str(side)]
    assert urdf.read_text() == (KIN / "cross_delta.urdf").read_text()
    assert side.read_text() == (KIN / "cross_delta.kin.yaml").read_text()
    bad = tmp_path / "bad.mad"
    bad.write_text(one_link("theta 0 r 0 alpha 0 d x1", 2))
    r = _cli(str(bad), "--output-dir", str(tmp_path / "out2"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        f"humanoid-stack mad2urdf: error: {bad}:4: expected a number after 'd'; found 'x1'"
    ]
    assert not (tmp_path / "out2").exists()


# -- bounds: a file is read in time linear in its size, and nothing unbounded or non-finite passes
def chain(n: int, reverse: bool = True) -> str:
    """A serial chain of ``n`` links, declared from the tip to the base when ``reverse`` (every
    pred declared after its child: the worst case of a naive reference check)."""
    ids = range(n, 0, -1) if reverse else range(1, n + 1)
    links = "".join(f" link {i} {{ parameters {{ theta 0 r 0 alpha 0 d 10 }} type 2 pred {i - 1} }}\n" for i in ids)
    return f"RAFF chain\nrobot big {{\n base {{ }}\n{links}}}\n"


def test_a_5000_link_file_is_read_visiting_each_element_a_bounded_number_of_times(tmp_path, monkeypatch):
    """The pred chains are checked once each (an element known to reach the base ends a walk): the
    5,000-link chain declared tip first costs a few element look-ups per link, not one per link
    and ancestor (12.5 million, cubic time with the list of seen ids: 139 s), and converts."""
    from humanoid_control.kinematics import mad_parser

    n = 5000
    path = tmp_path / "big.mad"
    path.write_text(chain(n))
    calls = [0]
    look_up = mad_parser.MadRobot.element

    def counted(self, id_):
        calls[0] += 1
        return look_up(self, id_)

    monkeypatch.setattr(mad_parser.MadRobot, "element", counted)
    urdf, side = convert(path)
    assert calls[0] <= 4 * n, calls[0]
    # every link converted, parents first (a chain this deep is beyond what the URDF loaders take:
    # humanoid_model.urdf_description.MAX_DEPTH; the converter writes it all the same)
    assert urdf.count('type="continuous"') == n and len(side["initial"]) == n
    assert urdf.index('<joint name="joint1"') < urdf.index(f'<joint name="joint{n}"')


def test_more_links_than_the_bound_are_refused_at_the_first_one_over(tmp_path):
    from humanoid_control.kinematics.mad_parser import MAX_ELEMENTS

    path = tmp_path / "huge.mad"
    path.write_text(chain(MAX_ELEMENTS + 1, reverse=False))
    with pytest.raises(MadError, match=rf"huge.mad:{MAX_ELEMENTS + 4}: more than {MAX_ELEMENTS} links and frames"):
        convert(path)


@pytest.mark.parametrize(
    "params, words",
    [
        ("theta 0 r 0 alpha 0 d " + "1" * 5000, "expected a finite number of magnitude at most 1e+09 after 'd'"),
        ("theta 1e400 r 0 alpha 0 d 1", "expected a finite number of magnitude at most 1e+09 after 'theta'"),
        ("theta 0 r 0 alpha 0 d 2e9", "expected a finite number of magnitude at most 1e+09 after 'd'"),
    ],
    ids=["5000 digits", "1e400", "2e9"],
)
def test_a_number_that_is_not_finite_or_too_large_is_refused_not_written_as_inf(tmp_path, params, words):
    """A number of 5,000 digits reads as inf: it was converted to ``xyz="inf nan 0"`` with exit 0."""
    path = tmp_path / "big_number.mad"
    path.write_text(one_link(params, 2))
    with pytest.raises(MadError) as err:
        convert(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}:4: {words}") and "\n" not in msg and len(msg) < 400, msg


def test_an_id_of_thousands_of_digits_and_a_huge_length_unit_are_refused(tmp_path):
    path = tmp_path / "big_id.mad"
    path.write_text(one_link("theta 0 r 0 alpha 0 d 1", 2).replace("link 1", "link " + "7" * 5000))
    with pytest.raises(MadError, match=r"big_id.mad:4: expected an integer of at most 9 digits after 'link'"):
        convert(path)
    path.write_text(one_link("theta 0 r 0 alpha 0 d 1", 2))
    with pytest.raises(MadError, match=r"length_unit must be a number > 0 and <= 1000"):
        convert(path, length_unit=1e300)


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_cli_refuses_a_device_or_a_fifo_at_once_in_one_line(tmp_path, kind):
    """`mad2urdf /dev/zero` grew without bound and a FIFO blocked: both exit 2 at once, one line."""
    import os

    path = "/dev/zero"
    if kind == "fifo":
        path = str(tmp_path / "pipe.mad")
        os.mkfifo(path)
    r = _cli(path, "--output-dir", str(tmp_path / "out"))
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"humanoid-stack mad2urdf: error: {path}: {'a character device' if kind == 'device' else 'a FIFO (named pipe)'}"
        ", not a regular file: not read as a MAD file"
    ]
