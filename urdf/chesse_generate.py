#!/usr/bin/env python3
"""Generate ``urdf/rabbit.urdf`` and ``urdf/five_bar.urdf``: the two other planar mechanisms of
Chessé 2002 (besides BIP), for the optimal-gait generator (docs/gait.md, "RABBIT and the bilateral
five-bar").

    .venv/bin/python urdf/chesse_generate.py

Every number is Table III-2 (RABBIT) or Table III-1 (the five-bar) of Chessé 2002, or CHOSEN here
(named in capitals below, with the reason). Both robots move in the sagittal plane of the URDF
(x forward, z up); their joints turn about the y axis.

What the tables leave open and how it is read here (urdf/README.md, section "RABBIT and the
five-bar"):

* the end a "COM distance" and an inertia are measured from: the segment's upper joint (tibia from
  the knee, thigh from the hip, trunk from the hip). The inertia is about that joint (the thesis's
  I_i are about the joint axis O_i, Chessé 2002, §I.3.3): read as centroidal values, the trunk's
  2.22 kg m² would exceed m (l/2)^2 = 1.95 kg m², the largest centroidal inertia 20 kg can have on a
  0.625 m segment; with the inertia about one end and the COM distance from the other the tibia's
  centroidal inertia would be negative. The URDF carries the centroidal inertia I - m d^2 about y.
* the five-bar's base length L = O1O5 and RABBIT's trunk angle are not robot data: the gait
  module chooses them (humanoid_planner.gait.chesse_robots); the five-bar's O5 frame on the base
  is placed at the chosen L (BASE_LENGTH).
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent

# ---- RABBIT, Chessé 2002, Table III-2: (length [m], mass [kg], COM distance [m], inertia [kg m^2])
RABBIT = {
    "tibia": (0.4, 3.2, 0.127, 0.1),
    "thigh": (0.4, 6.8, 0.163, 0.25),
    "trunk": (0.625, 20.0, 0.2, 2.22),
}
# ---- the bilateral five-bar, Chessé 2002, Table III-1: bars S1-S4 and the point load S5 at O3
BAR = (0.4, 2.0, 0.2, 0.107)  # length, mass, COM distance, inertia about the joint end
LOAD_MASS = 5.0  # [kg] S5, a point load at O3 (the end of S2)
BASE_LENGTH = 0.4  # [m] L = O1O5: CHOSEN (the thesis does not give it): one bar length
# joint ranges [rad], effort [N m], velocity [rad/s]: CHOSEN (the thesis gives none): RABBIT's knees
# do not hyperextend and flex up to 90 deg, its hips turn 90 deg either side of the trunk; the
# five-bar's joints turn freely; efforts and speeds wide enough not to bind the thesis's motions
RABBIT_KNEE = (0.0, 1.5708)
RABBIT_HIP = (-1.5708, 1.5708)
RABBIT_EFFORT = 200.0
BAR_RANGE = (-3.1416, 3.1416)
BAR_EFFORT = 100.0
VELOCITY = 10.0
WIDTH = {"tibia": 0.05, "thigh": 0.06, "trunk": 0.2, "bar": 0.03}  # [m] display boxes (CHOSEN)


def _f(x: float) -> str:
    return f"{x:.10g}"


def _inertial(mass: float, com_z: float, inertia_joint: float, com_d: float, note: str, com_x: float = 0.0) -> str:
    """An <inertial> of a planar segment: the COM at (com_x, 0, com_z), the inertia about y the
    centroidal value I_joint - m d^2 (``inertia_joint`` about the joint axis, COM at distance d);
    a thin segment along its axis (z, or x when ``com_x`` is set): 0 about that axis, the
    centroidal value about the two others."""
    i_c = inertia_joint - mass * com_d**2
    ixx, izz = (0.0, i_c) if com_x else (i_c, 0.0)
    return (
        f"    <!-- {note}; centroidal iyy = {_f(inertia_joint)} - {_f(mass)} * {_f(com_d)}^2 (derived) -->\n"
        f"    <inertial>\n"
        f'      <origin xyz="{_f(com_x)} 0 {_f(com_z)}" rpy="0 0 0"/>\n'
        f'      <mass value="{_f(mass)}"/>\n'
        f'      <inertia ixx="{_f(ixx)}" iyy="{_f(i_c)}" izz="{_f(izz)}" ixy="0" ixz="0" iyz="0"/>\n'
        f"    </inertial>\n"
    )


def _box(size, xyz, material) -> str:
    s, o = " ".join(_f(v) for v in size), " ".join(_f(v) for v in xyz)
    return (
        f'    <visual><origin xyz="{o}" rpy="0 0 0"/><geometry><box size="{s}"/></geometry>'
        f'<material name="{material}"/></visual>\n'
    )


def _joint(name, kind, parent, child, xyz, limits=None, effort=0.0, axis="0 1 0") -> str:
    o = " ".join(_f(v) for v in xyz)
    text = f'  <joint name="{name}" type="{kind}">\n    <parent link="{parent}"/>\n    <child link="{child}"/>\n'
    text += f'    <origin xyz="{o}" rpy="0 0 0"/>\n'
    if kind == "revolute":
        lo, hi = limits
        text += f'    <axis xyz="{axis}"/>\n'
        text += f'    <limit lower="{_f(lo)}" upper="{_f(hi)}" effort="{_f(effort)}" velocity="{_f(VELOCITY)}"/>\n'
    return text + "  </joint>\n"


def rabbit_text() -> str:
    lt, mt, dt, it = RABBIT["tibia"]
    lf, mf, df, i_f = RABBIT["thigh"]
    lk, mk, dk, ik = RABBIT["trunk"]
    out = [
        '<?xml version="1.0"?>\n',
        "<!--\n",
        "  RABBIT, the five-body foot-less planar biped of Chessé 2002 (§III.3.1, Table III-2), written by\n",
        "  urdf/chesse_generate.py (edit the script, not this file). Trunk, two thighs, two tibias; hips\n",
        "  coaxial at the trunk's origin; each tibia ends in a point foot. Frames: x forward, z up, joints\n",
        "  about y (hip pitch + = extension, knee + = flexion, as BIP). Zero posture: legs straight down,\n",
        "  trunk upright. Sources of every number: the comments below and urdf/README.md.\n",
        "-->\n",
        '<robot name="rabbit">\n',
        '  <material name="rabbit_grey"><color rgba="0.6 0.6 0.62 1"/></material>\n',
        '  <material name="rabbit_blue"><color rgba="0.2 0.35 0.7 1"/></material>\n',
        '  <link name="torso">\n',
        _inertial(
            mk, dk, ik, dk, f"Table III-2 trunk: length {lk}, mass {mk}, COM {dk} above the hip, I {ik} about the hip"
        ),
        _box((WIDTH["trunk"], WIDTH["trunk"], lk), (0, 0, lk / 2), "rabbit_grey"),
        "  </link>\n",
        '  <link name="head"/>\n',
        "  <!-- the top of the trunk, Table III-2 length 0.625 m -->\n",
        _joint("head_frame", "fixed", "torso", "head", (0, 0, lk)),
    ]
    for side in ("l", "r"):
        out += [
            f'  <link name="{side}_thigh">\n',
            _inertial(
                mf,
                -df,
                i_f,
                df,
                f"Table III-2 thigh: length {lf}, mass {mf}, COM {df} below the hip, I {i_f} about the hip",
            ),
            _box((WIDTH["thigh"], WIDTH["thigh"], lf), (0, 0, -lf / 2), "rabbit_blue"),
            "  </link>\n",
            f'  <link name="{side}_tibia">\n',
            _inertial(
                mt,
                -dt,
                it,
                dt,
                f"Table III-2 tibia: length {lt}, mass {mt}, COM {dt} below the knee, I {it} about the knee",
            ),
            _box((WIDTH["tibia"], WIDTH["tibia"], lt), (0, 0, -lt / 2), "rabbit_blue"),
            "  </link>\n",
            f'  <link name="{side}_foot"/>\n',
            "  <!-- coaxial hips at the trunk's origin (Chessé 2002, §III.3.1); range, effort, velocity CHOSEN -->\n",
            _joint(f"{side}_hip", "revolute", "torso", f"{side}_thigh", (0, 0, 0), RABBIT_HIP, RABBIT_EFFORT),
            f"  <!-- Table III-2 thigh length {lf}; range, effort, velocity CHOSEN -->\n",
            _joint(
                f"{side}_knee", "revolute", f"{side}_thigh", f"{side}_tibia", (0, 0, -lf), RABBIT_KNEE, RABBIT_EFFORT
            ),
            f"  <!-- the point foot at the tibia's end, Table III-2 tibia length {lt} -->\n",
            _joint(f"{side}_foot_frame", "fixed", f"{side}_tibia", f"{side}_foot", (0, 0, -lt)),
        ]
    out.append("</robot>\n")
    return "".join(out)


def five_bar_text() -> str:
    lb, mb, db, ib = BAR
    out = [
        '<?xml version="1.0"?>\n',
        "<!--\n",
        "  The bilateral planar five-bar of Chessé 2002 (§III.2, Table III-1), written by\n",
        "  urdf/chesse_generate.py (edit the script, not this file). Four bars S1-S4 from O1 on the base,\n",
        "  the point load S5 at O3, the loop closed on the base at O5 (a URDF is a tree: the closure\n",
        "  O5' = O5 is the gait module's, the frames o5 and s4_end mark its two sides). All five joints\n",
        "  are actuated; joints about -y, so a joint angle is the thesis's relative angle (counter-clockwise\n",
        "  in the x-z plane seen from -y). Zero posture: the bars in line along +x.\n",
        "-->\n",
        '<robot name="five_bar">\n',
        '  <material name="bar_grey"><color rgba="0.6 0.6 0.62 1"/></material>\n',
        '  <material name="bar_orange"><color rgba="0.9 0.5 0.1 1"/></material>\n',
        '  <link name="base"/>\n',
        '  <link name="o5"/>\n',
        f"  <!-- O5 on the base at L = {BASE_LENGTH} m from O1: CHOSEN (Table III-1 has no base length) -->\n",
        _joint("o5_frame", "fixed", "base", "o5", (BASE_LENGTH, 0, 0)),
    ]
    parent = "base"
    for i in range(1, 5):
        where = "on the base" if i == 1 else f"Table III-1 bar length {lb}"
        note = f"Table III-1 S{i}: length {lb}, mass {mb}, COM {db} from the joint, I {ib} about the joint"
        out += [
            f'  <link name="s{i}">\n',
            _inertial(mb, 0.0, ib, db, note, com_x=db),
            _box((lb, WIDTH["bar"], WIDTH["bar"]), (lb / 2, 0, 0), "bar_grey"),
            "  </link>\n",
            f"  <!-- O{i}: {where}; range, effort, speed CHOSEN -->\n",
            _joint(f"o{i}", "revolute", parent, f"s{i}", (0 if i == 1 else lb, 0, 0), BAR_RANGE, BAR_EFFORT, "0 -1 0"),
        ]
        parent = f"s{i}"
    out += [
        '  <link name="load">\n',
        f"    <!-- Table III-1 S5: a {_f(LOAD_MASS)} kg point load at O3 -->\n",
        "    <inertial>\n",
        '      <origin xyz="0 0 0" rpy="0 0 0"/>\n',
        f'      <mass value="{_f(LOAD_MASS)}"/>\n',
        '      <inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/>\n',
        "    </inertial>\n",
        '    <visual><geometry><sphere radius="0.04"/></geometry><material name="bar_orange"/></visual>\n',
        "  </link>\n",
        "  <!-- S5 carried at O3, the end of S2 (Chessé 2002, §III.2) -->\n",
        _joint("load_frame", "fixed", "s2", "load", (lb, 0, 0)),
        '  <link name="s4_end"/>\n',
        f"  <!-- O5', the free end of S4 (bar length {lb}), which the closure brings onto O5 -->\n",
        _joint("s4_end_frame", "fixed", "s4", "s4_end", (lb, 0, 0)),
        "</robot>\n",
    ]
    return "".join(out)


FILES = {"rabbit.urdf": rabbit_text, "five_bar.urdf": five_bar_text}

if __name__ == "__main__":
    for name, text in FILES.items():
        (HERE / name).write_text(text())
        print(f"wrote {HERE / name}")
