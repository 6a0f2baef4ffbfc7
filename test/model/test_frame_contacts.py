"""Contact locations found from a URDF's sole and hand frames when no sidecar declares them
(`humanoid_model.frame_contacts`): the sole plane is the sole frame's, the hull the face of the
foot geometry that touches it (computed here from the box sizes of the test URDF; wider geometry
above the face left out), or the documented default without foot geometry; hands at their palm frames; a sidecar's ``contacts:`` win."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model.contact_location import SOLE_CONTACT_BAND
from humanoid_model.frame_contacts import DEFAULT_HAND, DEFAULT_SOLE
from humanoid_model.robot import load_robot

INERTIAL = '<inertial><mass value="{m}"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
FOOT_BOX = (0.24, 0.12, 0.04)  # [m] the foot's collision box
FOOT_BOX_AT = (0.03, 0.0, -0.04)  # its centre in the foot link
SOLE_AT = (0.01, 0.0, -0.06)  # the sole frame in the foot link: on the box's bottom face


ANKLE_PLATE = (0.30, 0.16, 0.01)  # [m] a plate wider than the sole, 2 mm above its face
ANKLE_PLATE_AT = (0.03, 0.0, -0.053)


def _urdf(foot_geometry: bool = True, palms: bool = True, sole_yaw: float = 0.0, plate: bool = False) -> str:
    box = " ".join(map(str, FOOT_BOX))
    at = " ".join(map(str, FOOT_BOX_AT))
    plate_geo = (
        f'<collision><origin xyz="{" ".join(map(str, ANKLE_PLATE_AT))}"/>'
        f'<geometry><box size="{" ".join(map(str, ANKLE_PLATE))}"/></geometry></collision>'
    )
    sole = " ".join(map(str, SOLE_AT))
    parts = [
        f'<link name="pelvis">{INERTIAL.format(m=10)}<collision><geometry><box size="0.2 0.3 0.1"/></geometry></collision></link>'
    ]
    for side, y in (("left", 0.1), ("right", -0.1)):
        geo = (
            f'<collision><origin xyz="{at}"/><geometry><box size="{box}"/></geometry></collision>'
            + (plate_geo if plate else "")
            if foot_geometry
            else ""
        )
        parts.append(
            f"""<joint name="{side}_hip" type="revolute"><parent link="pelvis"/><child link="{side}_leg"/>
              <origin xyz="0 {y} -0.05"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="50" velocity="5"/></joint>
            <link name="{side}_leg">{INERTIAL.format(m=2)}</link>
            <joint name="{side}_ankle" type="revolute"><parent link="{side}_leg"/><child link="{side}_foot"/>
              <origin xyz="0 0 -0.5"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="50" velocity="5"/></joint>
            <link name="{side}_foot">{INERTIAL.format(m=1)}{geo}</link>
            <joint name="{side}_sole_fix" type="fixed"><parent link="{side}_foot"/><child link="{side}_sole_link"/>
              <origin xyz="{sole}" rpy="0 0 {sole_yaw}"/></joint>
            <link name="{side}_sole_link"/>"""
        )
        if palms:
            parts.append(
                f"""<joint name="{side}_shoulder" type="revolute"><parent link="pelvis"/><child link="{side}_arm"/>
                  <origin xyz="0 {1.5 * y} 0.3"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="50" velocity="5"/></joint>
                <link name="{side}_arm">{INERTIAL.format(m=1)}</link>
                <joint name="{side}_palm_fix" type="fixed"><parent link="{side}_arm"/><child link="{side}_palm"/>
                  <origin xyz="0 0 -0.4" rpy="3.141592653589793 0 0"/></joint>
                <link name="{side}_palm"/>"""
            )
    return f'<?xml version="1.0"?><robot name="framed">{"".join(parts)}</robot>'


def _load(tmp_path, text, sidecar=None):
    path = tmp_path / "framed.urdf"
    path.write_text(text)
    if sidecar is not None:
        (tmp_path / "framed.yaml").write_text(sidecar)
    return load_robot(path)


def test_soles_lie_on_the_sole_frames_with_the_foot_box_extent(tmp_path):
    robot = _load(tmp_path, _urdf())
    assert {"l_sole", "r_sole"} <= set(robot.contact_locations)
    for side in ("l", "r"):
        c = robot.contact_locations[f"{side}_sole"]
        assert c.body == f"{'left' if side == 'l' else 'right'}_foot" and c.kind == "sole"
        np.testing.assert_allclose(c.point, SOLE_AT, atol=1e-12)
        np.testing.assert_allclose(c.normal, [0, 0, 1], atol=1e-12)
        lo, hi = c.hull.min(axis=0), c.hull.max(axis=0)
        expect_lo = np.array(FOOT_BOX_AT) - np.array(FOOT_BOX) / 2
        expect_hi = np.array(FOOT_BOX_AT) + np.array(FOOT_BOX) / 2
        np.testing.assert_allclose(lo[:2], expect_lo[:2], atol=1e-9)
        np.testing.assert_allclose(hi[:2], expect_hi[:2], atol=1e-9)
        np.testing.assert_allclose(c.hull[:, 2], SOLE_AT[2], atol=1e-12)  # the box's bottom face


def test_geometry_above_the_sole_face_does_not_widen_the_sole(tmp_path):
    """A foot whose geometry is wider 2 mm above its face (a rounded mesh's upper contour, an
    ankle plate) stands on its face alone: the hull is the face's, not the geometry's extent."""
    assert ANKLE_PLATE_AT[2] - ANKLE_PLATE[2] / 2 - SOLE_AT[2] == pytest.approx(2 * SOLE_CONTACT_BAND)
    robot = _load(tmp_path, _urdf(plate=True))
    for side in ("l", "r"):
        c = robot.contact_locations[f"{side}_sole"]
        np.testing.assert_allclose(np.ptp(c.hull, axis=0)[:2], FOOT_BOX[:2], atol=1e-9)
        np.testing.assert_allclose(c.hull[:, 2], SOLE_AT[2], atol=1e-12)


def test_a_turned_sole_frame_turns_the_tangent_and_the_rectangle(tmp_path):
    robot = _load(tmp_path, _urdf(sole_yaw=np.pi / 2))
    c = robot.contact_locations["l_sole"]
    np.testing.assert_allclose(c.tangent, [0, 1, 0], atol=1e-12)  # the frame's x is the foot's y
    extent = c.hull.max(axis=0) - c.hull.min(axis=0)
    np.testing.assert_allclose(extent[:2], FOOT_BOX[:2], atol=1e-9)  # the same box, in the foot's axes


def test_sole_frames_without_foot_geometry_get_the_default_rectangle(tmp_path):
    robot = _load(tmp_path, _urdf(foot_geometry=False))
    c = robot.contact_locations["r_sole"]
    extent = c.hull.max(axis=0) - c.hull.min(axis=0)
    np.testing.assert_allclose(extent[:2], DEFAULT_SOLE, atol=1e-12)
    np.testing.assert_allclose(c.hull.mean(axis=0), SOLE_AT, atol=1e-12)


def test_hands_sit_at_the_palm_frames_pushing_along_their_z_out_of_the_palm(tmp_path):
    robot = _load(tmp_path, _urdf())
    data = robot.model.createData()
    q = robot.q("zero")
    pin.framesForwardKinematics(robot.model, data, q)
    for side, name in (("l", "left"), ("r", "right")):
        c = robot.contact_locations[f"{side}_hand"]
        assert c.kind == "hand" and c.body == f"{name}_arm"
        palm = data.oMf[robot.model.getFrameId(f"{name}_palm")]
        body = data.oMf[robot.model.getFrameId(c.body)]
        np.testing.assert_allclose(body.act(c.point), palm.translation, atol=1e-12)
        np.testing.assert_allclose(body.rotation @ c.normal, -palm.rotation[:, 2], atol=1e-12)
        np.testing.assert_allclose(body.rotation @ c.normal, [0, 0, 1], atol=1e-12)  # z out of the palm: down
        assert np.ptp(c.hull, axis=0).max() == pytest.approx(DEFAULT_HAND)
    armless = tmp_path / "armless"
    armless.mkdir()
    assert "l_hand" not in _load(armless, _urdf(palms=False)).contact_locations


def test_a_sidecar_with_contacts_wins_and_one_without_keeps_the_found_ones(tmp_path):
    declared = """contacts:
  l_sole: {body: left_foot, point: [0, 0, -0.06], normal: [0, 0, 1], tangent: [1, 0, 0],
           hull: [[-0.1, -0.05, -0.06], [0.1, -0.05, -0.06], [0.1, 0.05, -0.06], [-0.1, 0.05, -0.06]]}
"""
    robot = _load(tmp_path, _urdf(), sidecar=declared)
    assert set(robot.contact_locations) == {"l_sole"}
    np.testing.assert_allclose(robot.contact_locations["l_sole"].point, [0, 0, -0.06])
    other = tmp_path / "other"
    other.mkdir()
    robot = _load(other, _urdf(), sidecar="default_posture: zero\n")
    assert {"l_sole", "r_sole", "l_hand", "r_hand"} == set(robot.contact_locations)


SPHERES = ((-0.05, 0.025), (-0.05, -0.025), (0.12, 0.03), (0.12, -0.03))  # [m] G1's ankle spheres' x, y
SPHERE_Z, SPHERE_R = -0.03, 0.005  # [m] their centres' height in the ankle link, their radius


def test_a_foot_on_contact_spheres_stands_on_their_bottom_poles(tmp_path):
    """Without sole frames the sole is the face the lowest geometry stands on: four contact spheres
    (G1's ankle links) give the quadrilateral of their bottom poles, not the spheres' bounding box
    (5 mm wider on every side: the controller's forces there tipped G1's feet)."""
    spheres = "".join(
        f'<collision><origin xyz="{x} {y} {SPHERE_Z}"/><geometry><sphere radius="{SPHERE_R}"/></geometry></collision>'
        for x, y in SPHERES
    )
    parts = [f'<link name="pelvis">{INERTIAL.format(m=10)}</link>']
    for side, y in (("left", 0.1), ("right", -0.1)):
        parts.append(
            f"""<joint name="{side}_hip" type="revolute"><parent link="pelvis"/><child link="{side}_ankle_link"/>
              <origin xyz="0 {y} -0.5"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="50" velocity="5"/></joint>
            <link name="{side}_ankle_link">{INERTIAL.format(m=1)}{spheres}</link>"""
        )
    robot = _load(tmp_path, f'<?xml version="1.0"?><robot name="spheres">{"".join(parts)}</robot>')
    for side in ("l", "r"):
        c = robot.contact_locations[f"{side}_sole"]
        assert sorted(map(tuple, np.round(c.hull[:, :2], 12))) == sorted(SPHERES)
        np.testing.assert_allclose(c.hull[:, 2], SPHERE_Z - SPHERE_R, atol=1e-12)
