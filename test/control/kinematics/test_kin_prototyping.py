"""Rapid prototyping (Flückiger 1998, §1.1.3 and §4.2.3: "120 lines of very simple text" describe
the hybrid robot): a new 7-joint, 1-loop robot is written as a text description of at most ~120
lines and loads without recompilation.

Two descriptions of the same new robot (not one of the thesis's): a MAD file (the thesis's
format, converted by `humanoid_control.kinematics.mad`) and a hand-written URDF + sidecar. The
robot is the hybrid robot's topology with new dimensions: branch A = links 1-2-3 (500, 400 mm)
carrying a 300 mm tool link 4, branch B = links 5-6-7 (500, 400, 400 mm) from link 1, the loop
closing link 7 on frame 8 of link 3 (a weld). Its geometry closes exactly at the initial angles:
both branch tips are at (900, 0) mm with their x axes at -60 deg (hand-computed below), so a
solver that mis-reads a parameter starts with a gap. Checked: line counts, 7 joints, a loop
Jacobian of rank 3 (planar weld) hence 7 - 3 = 4 DOF, and direct-mode driving keeps the loop
closed (< 0.01 mm, the direct-mode bound of acceptance test 002 A7) with the passive joints
moving.
"""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.kinematics import JointTask, load_structure, prioritized
from humanoid_control.kinematics.mad import write_converted

pytestmark = pytest.mark.spec("002", "A21")

MAX_LINES = 120  # Flückiger 1998, §4.2.3


def _link(i, pred, theta, d):
    return f"""  link {i} {{
    parameters {{ theta {theta} r 0 alpha 0 d {d} }}
    type 2
    pred {pred}
    range {{ -170 170 }}
  }}
"""


MAD = (
    "// new7r.mad: a new planar 7R robot with one loop (rapid prototyping, Flückiger 1998)\n"
    "RAFF prototype\nsensor 0 { }\nsensor 1 { type spaceball }\n"
    "robot new7r {\n  base { }\n"
    + _link(1, 0, 0, 0)
    + _link(2, 1, 60, 500)
    + _link(3, 2, -120, 400)
    + _link(4, 3, 0, 400)
    + _link(5, 1, -60, 500)
    + _link(6, 5, 120, 400)
    + _link(7, 6, -120, 400)
    + "  frame 8 { pos { 400 0 0 } ori { 0 0 0 } pred 3 }\n"
    + "  frame 9 { pos { 300 0 0 } ori { 0 0 0 } pred 4 }\n"
    + "  constraint { link 7 frame 8 }\n"
    + "  constraint { frame 9 sensor ( 0 1 ) }\n}\n"
)

_J = '  <joint name="j{i}" type="revolute"><parent link="l{p}"/><child link="l{i}"/>\n'
_O = '    <origin xyz="{d} 0 0" rpy="0 0 {t}"/><axis xyz="0 0 1"/>\n'
_L = '    <limit lower="-2.967" upper="2.967" effort="0" velocity="0"/></joint>\n'
JOINTS = [(1, 0, 0, 0), (2, 1, 0.5, 60), (3, 2, 0.4, -120), (4, 3, 0.4, 0), (5, 1, 0.5, -60), (6, 5, 0.4, 120)]
JOINTS += [(7, 6, 0.4, -120)]
URDF = (
    '<?xml version="1.0"?>\n<robot name="new7r">\n'
    + "".join(f'  <link name="l{i}"/>\n' for i in range(8))
    + "".join((_J + _O + _L).format(i=i, p=p, d=d, t=np.radians(t)) for i, p, d, t in JOINTS)
    + "</robot>\n"
)
SIDECAR = """urdf: new7r.urdf
frames:
  - {name: frame8, parent: l3, xyz: [0.4, 0, 0], rpy: [0, 0, 0]}
  - {name: tool, parent: l4, xyz: [0.3, 0, 0], rpy: [0, 0, 0]}
closures:
  - {name: loop, type: weld, frame_a: l7, frame_b: frame8}
sources:
  tool: [none, mouse]
"""


def _check(s):
    """7 joints, 4 DOF, closed at the start, and the loop stays closed in direct mode."""
    assert len(s.joint_names) == 7 and s.model.nq == 7
    loop = next(iter(s.closures.values()))
    data = s.compute(s.q0)
    e, J = loop.evaluate(s.q0, data)
    assert np.linalg.norm(e) < 1e-9  # the hand-computed geometry closes (a misread parameter opens it)
    assert np.linalg.matrix_rank(J, tol=1e-9) == 3  # planar weld: 3 independent rows -> 7 - 3 = 4 DOF
    j2 = s.joint_names[1]
    i2 = s.joint_index(j2)[0]
    slider, q = JointTask(s, {j2: s.q0[i2]}), s.q0.copy()
    for k in range(20):
        slider.set_target([s.q0[i2] + 0.005 * (k + 1)])
        q, _ = prioritized.solve(s, q, slider)
        d = s.model.createData()
        pin.framesForwardKinematics(s.model, d, q)
        a, b = d.oMf[s.frame_id(loop.frame_a)], d.oMf[s.frame_id(loop.frame_b)]
        assert np.linalg.norm(a.translation - b.translation) < 1e-5  # [m]: 0.01 mm
    assert abs(q[i2] - s.q0[i2] - 0.1) < 1e-3
    moved = np.abs(q - s.q0) > 1e-3
    assert moved.sum() >= 4  # the driven joint and the loop's passive joints


def test_new_robot_as_a_mad_file(tmp_path):
    assert len(MAD.splitlines()) <= MAX_LINES
    (tmp_path / "new7r.mad").write_text(MAD)
    _, sidecar = write_converted(tmp_path / "new7r.mad", tmp_path / "out")
    _check(load_structure(sidecar))


def test_new_robot_as_urdf_and_sidecar(tmp_path):
    assert len(URDF.splitlines()) + len(SIDECAR.splitlines()) <= MAX_LINES
    (tmp_path / "new7r.urdf").write_text(URDF)
    (tmp_path / "new7r.kin.yaml").write_text(SIDECAR)
    _check(load_structure(tmp_path / "new7r.kin.yaml"))
