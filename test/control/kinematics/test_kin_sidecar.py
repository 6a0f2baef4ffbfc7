"""The kinematic sidecar (NAME.kin.yaml) and load_structure: every field checked with a one-line
message naming the file and the field; names checked against the URDF with a close-match hint;
limits (Flückiger 1998, §4.1.2.3: relative = initial + range, absolute replaces the URDF's);
the shipped HRP-2 structure (frames at the robot's contact locations, half-sitting, feet welded)."""

import numpy as np
import pytest
from support.kin_planar import write_parallelogram

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics import load_structure, parse_kin_sidecar
from humanoid_model import load_robot


def _error(tmp_path, extra="", replace=None):
    path = write_parallelogram(tmp_path, extra=extra)
    if replace:
        path.write_text(path.read_text().replace(*replace))
    with pytest.raises(KinematicsError) as info:
        load_structure(path)
    text = str(info.value)
    assert "\n" not in text and "planar.kin.yaml" in text
    return text


def test_planar_structure_loads(tmp_path):
    s = load_structure(write_parallelogram(tmp_path))
    assert s.model.nq == 6 and not s.floating and list(s.closures) == ["loop"]
    assert s.sources == {"tool": ["mouse", "none"]} and s.driven_frames() == {"tool": "mouse"}
    assert s.q0[s.joint_index("j5")[0]] == 0.5


@pytest.mark.parametrize(
    "extra, replace, words",
    [
        ("flaoting: true", None, ["unknown field 'flaoting'", "did you mean 'floating'"]),
        ("limits: {absolute: {j1: [1, 0]}}", None, ["limits.absolute.j1", "lower <= upper"]),
        ("limits: {absolut: {}}", None, ["limits.absolut", "did you mean 'absolute'"]),
        ("limits: {absolute: {j11: [0, 1]}}", None, ["limits.absolute.j11", "did you mean 'j1'"]),
        ("length_scale: -1", None, ["length_scale", "> 0"]),
        (None, ("parent: arm2", "parent: arm3"), ["frames[1].parent", "arm3", "did you mean 'arm2'"]),
        (None, ("xyz: [0.2, 0, 0]", "xyz: [0.2, .nan, 0]"), ["frames[1].xyz", "finite"]),
        (None, ("type: weld", "type: wled"), ["closures[0].type", "did you mean 'weld'"]),
        (None, ("frame_a: cut", "frame_a: cutt"), ["closures[0].frame_a", "did you mean 'cut'"]),
        (None, ("tool: [mouse, none]", "tol: [mouse]"), ["sources.tol", "did you mean 'tool'"]),
        (None, ("tool: [mouse, none]", "tool: []"), ["sources.tool", "non-empty"]),
        (None, ("j5: 0.5", "j55: 0.5"), ["initial.j55", "did you mean 'j5'"]),
        (None, ("j5: 0.5", "j5: 5.0"), ["initial.j5", "within the joint's limits"]),
        (None, ("j5: 0.5", "j5: yes"), ["initial.j5", "finite number"]),
        (None, ("urdf: planar.urdf", "urdf: planr.urdf"), ["field 'urdf'", "not found"]),
        (None, ("{name: tool,", "{name: cut,"), ["frames[1].name", "unique"]),
        ("limits: {absolute: {j1: [0, 1]}, relative: {j1: [0, 1]}}", None, ["limits.relative.j1", "once"]),
    ],
)
def test_sidecar_errors_name_file_field_and_value(tmp_path, extra, replace, words):
    text = _error(tmp_path, extra or "", replace)
    for w in words:
        assert w in text, text


def test_the_urdf_goes_through_the_validated_reader(tmp_path):
    """load_structure reads the URDF through humanoid_model's one validated reader, as every other
    path does: a negative mass in the sidecar's URDF is a one-line error naming the file and the
    link (Pinocchio alone builds that model without a word)."""
    path = write_parallelogram(tmp_path)
    urdf = tmp_path / "planar.urdf"
    urdf.write_text(urdf.read_text().replace('<mass value="1"/>', '<mass value="-1"/>', 1))
    with pytest.raises(KinematicsError) as info:
        load_structure(path)
    text = str(info.value)
    assert "\n" not in text and "field 'urdf'" in text and "mass must be >= 0" in text, text


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(KinematicsError, match="not found"):
        load_structure(tmp_path / "nothing.kin.yaml")
    with pytest.raises(KinematicsError, match="unknown kinematic structure 'hrp3'.*did you mean 'hrp2'"):
        load_structure("hrp3")
    (tmp_path / "e.kin.yaml").write_text("")
    with pytest.raises(KinematicsError, match="empty"):
        load_structure(tmp_path / "e.kin.yaml")
    with pytest.raises(KinematicsError, match="urdf"):
        parse_kin_sidecar({"floating": True})


@pytest.mark.spec("002", "A17")
def test_sidecar_relative_and_absolute_limits(tmp_path):
    """Relative limits (the MAD ``range``) are about the initial value; absolute ones replace the
    URDF's (Flückiger 1998, §4.1.2.3)."""
    extra = "limits: {absolute: {j6: [-2.0, 0.25]}, relative: {j5: [-0.1, 0.3]}}"
    s = load_structure(write_parallelogram(tmp_path, extra=extra))
    lo, hi = s.model.lowerPositionLimit, s.model.upperPositionLimit
    i5, i6, i1 = (s.joint_index(j)[0] for j in ("j5", "j6", "j1"))
    assert (lo[i5], hi[i5]) == pytest.approx((0.4, 0.8), abs=1e-15)
    assert (lo[i6], hi[i6]) == (-2.0, 0.25)
    assert (lo[i1], hi[i1]) == (-3.0, 3.0)  # the URDF's
    k = list(s.lim_q).index(i5)
    assert (s.lower[k], s.upper[k]) == pytest.approx((0.4, 0.8))


def test_initial_value_on_a_limit_is_accepted(tmp_path):
    """MacDac's joints 3 and 4 start exactly at a limit (macdac.mad, Flückiger 1998, Appendix B)."""
    s = load_structure(write_parallelogram(tmp_path, extra="limits: {absolute: {j5: [0.5, 1.0]}}"))
    assert s.q0[s.joint_index("j5")[0]] == 0.5


def test_hrp2_structure_frames_are_the_robot_contact_locations():
    s = load_structure("hrp2")
    robot = load_robot("hrp2")
    assert s.floating and s.model.nq == robot.model.nq and set(s.closures) == {"r_foot", "l_foot"}
    assert np.allclose(s.q0, robot.q("half-sitting"))
    for frame in ("r_sole", "l_sole", "r_hand", "l_hand"):
        c = robot.contact_locations[frame]
        f = s.model.frames[s.frame_id(frame)]
        body = s.model.frames[s.model.getFrameId(c.body)]
        local = body.placement.actInv(f.placement)
        assert f.parentJoint == body.parentJoint
        assert np.allclose(local.translation, c.point) and np.allclose(local.rotation, np.eye(3))
        assert np.allclose(local.rotation @ [0, 0, 1], c.normal)
    for foot in ("r_sole", "l_sole"):  # on the ground, flat
        M = s.placement(s.q0, foot)
        assert abs(M.translation[2]) < 1e-3 and np.allclose(M.rotation, np.eye(3), atol=1e-9)
    assert s.sources == {"r_hand": ["none", "mouse"], "l_hand": ["none", "mouse"]} and s.driven_frames() == {}


def test_a_structure_of_urdf_text_takes_the_texts_joints_and_the_sidecars_frames_and_posture():
    """`load_structure(name, urdf_text=...)` (the pilot's robot from /robot_description): the
    sidecar's frames, closures and initial posture applied to the given URDF text, whose joint
    limits are the ones used (a limit edited in the text shows), not the file's."""
    import pinocchio as pin

    robot = load_robot("hrp2")
    text = robot.urdf_text
    joint = "HEAD_JOINT1"
    tag = f'<joint name="{joint}"'
    start = text.index(tag)
    limit = text.index("<limit", start)
    end = text.index("/>", limit)
    text = text[:limit] + '<limit lower="-0.1" upper="0.25" effort="10" velocity="1"' + text[end:]
    from_file, from_text = load_structure("hrp2"), load_structure("hrp2", urdf_text=text)
    assert list(from_text.closures) == list(from_file.closures) == ["r_foot", "l_foot"]
    assert [f.name for f in from_text.model.frames] == [f.name for f in from_file.model.frames]
    assert np.allclose(from_text.q0, from_file.q0)  # hrp2.kin.yaml's initial: half-sitting of urdf/hrp2.yaml
    i = from_text.model.joints[from_text.model.getJointId(joint)].idx_q
    assert from_text.model.upperPositionLimit[i] == pytest.approx(0.25)
    assert from_file.model.upperPositionLimit[i] != pytest.approx(0.25)
    assert pin.neutral(from_text.model).shape == (37,)
