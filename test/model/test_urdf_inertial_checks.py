"""URDF checks that urdfdom makes: an ``<inertial>`` needs ``<mass>`` and ``<inertia>``
with its six entries, the principal moments satisfy the triangle inequality, a ``<robot>``
without links is an "empty robot", ``<dynamics>`` values are >= 0. Each is a one-line
`ModelError` from the one reader (`humanoid_model.urdf_description.read_urdf`) naming the link
or joint and the value; the shipped robots still load.
"""

import pytest

from humanoid_model.exceptions import ModelError
from humanoid_model.urdf_description import available_robots, read_urdf, resolve_robot_path

FULL = 'ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"'


def _robot(inertial="", joint_extra=""):
    return (
        f'<robot name="r"><link name="base"/><link name="arm"><inertial>{inertial}</inertial></link>'
        f'<joint name="j" type="continuous"><parent link="base"/><child link="arm"/>{joint_extra}</joint></robot>'
    )


BAD = [
    (_robot(f"<inertia {FULL}/>"), "<link name='arm'> <inertial>: missing <mass value='...'>"),
    (_robot('<mass value="1"/>'), "<link name='arm'> <inertial>: missing <inertia"),
    (
        _robot('<mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/>'),
        "<link name='arm'> <inertial> <inertia>: missing attribute(s) ixy, ixz, iyz",
    ),
    (
        # principal moments 1, 1, 3: 3 > 1 + 1 (a rod would need 0, 1, 1 at most)
        _robot('<mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3"/>'),
        "<link name='arm'> <inertial> <inertia>: the inertia tensor (ixx=1.0, iyy=1.0, izz=3.0, ixy=0.0, ixz=0.0, "
        "iyz=0.0) violates the triangle inequality: principal moment 3 > 1 + 1",
    ),
    ('<robot name="empty"/>', "<robot name='empty'> is an empty robot: it declares no <link>"),
    (
        _robot(f'<mass value="1"/><inertia {FULL}/>', '<dynamics damping="-0.1"/>'),
        "<joint name='j'> <dynamics damping='-0.1'>: must be >= 0",
    ),
    (
        _robot(f'<mass value="1"/><inertia {FULL}/>', '<dynamics friction="x"/>'),
        "friction='x' is not a list of numbers",
    ),
]


@pytest.mark.parametrize("text, expected", BAD)
def test_bad_inertials_and_empty_robot_are_one_line_model_errors(text, expected):
    with pytest.raises(ModelError) as e:
        read_urdf(text)
    msg = str(e.value)
    assert expected in msg and msg.startswith("<urdf string>: ") and "\n" not in msg, msg
    assert "cycle" not in msg


def test_triangle_inequality_uses_principal_moments_not_diagonal():
    """A rotated thin rod (principal 0, 1, 1) passes even when its diagonal alone would not:
    diag(0.5, 0.5, 1) with ixy = 0.5 has principal moments 0, 1, 1."""
    ok = _robot('<mass value="1"/><inertia ixx="0.5" ixy="0.5" ixz="0" iyy="0.5" iyz="0" izz="1"/>')
    assert read_urdf(ok).links["arm"].inertial.mass == 1.0
    bad = _robot('<mass value="1"/><inertia ixx="0.5" ixy="0.5" ixz="0" iyy="0.5" iyz="0" izz="1.1"/>')
    with pytest.raises(ModelError, match="violates the triangle inequality: principal moment 1.1 > 0 \\+ 1"):
        read_urdf(bad)


def test_flat_plate_rounded_to_6_digits_passes_and_a_1e_4_violation_does_not():
    """A flat plate sits on the bound (Izz = Ixx + Iyy); written with 6 digits it may exceed it by
    ~1e-6 relative and must still load (TRIANGLE_RTOL = 1e-5); 1e-4 over is an error."""
    plate = _robot(
        '<mass value="1"/><inertia ixx="0.0123457" ixy="0" ixz="0" iyy="0.0234568" iyz="0" izz="0.0358026"/>'
    )
    assert read_urdf(plate).links["arm"].inertial is not None
    over = _robot('<mass value="1"/><inertia ixx="0.0123457" ixy="0" ixz="0" iyy="0.0234568" iyz="0" izz="0.0358061"/>')
    with pytest.raises(ModelError, match="violates the triangle inequality"):
        read_urdf(over)


def test_a_zero_tensor_with_round_off_passes_and_a_placeholder_tensor_does_not():
    """iCub's head in example-robot-data: all entries 0 but ixz = 2.4e-35 (principal moments
    ±2.4e-35): a massless link, within the PSD test's absolute floor (1e-12 kg m²), loads.
    ANYmal's and HyQ's base placeholder, every entry 1e-6 (principal 3e-6, 0, 0), is no rigid
    body and stays refused."""
    zero = _robot('<mass value="0"/><inertia ixx="0.0" ixy="0.0" ixz="2.40741e-35" iyy="0.0" iyz="0.0" izz="0.0"/>')
    assert read_urdf(zero).links["arm"].inertial.mass == 0.0
    ones = 'ixx="1e-06" ixy="1e-06" ixz="1e-06" iyy="1e-06" iyz="1e-06" izz="1e-06"'
    with pytest.raises(ModelError, match="violates the triangle inequality: principal moment 3e-06"):
        read_urdf(_robot(f'<mass value="1"/><inertia {ones}/>'))


def test_dynamics_tag_is_read_with_defaults_zero():
    text = _robot(f'<mass value="1"/><inertia {FULL}/>', '<dynamics damping="0.3" friction="1.5"/>')
    j = read_urdf(text).joints[0]
    assert (j.damping, j.friction) == (0.3, 1.5)
    j0 = read_urdf(_robot(f'<mass value="1"/><inertia {FULL}/>')).joints[0]
    assert (j0.damping, j0.friction) == (0.0, 0.0)


def test_shipped_robots_still_load():
    for name in available_robots():
        assert read_urdf(resolve_robot_path(name)).links
