#!/usr/bin/env python3
"""Generate ``urdf/hrp2.urdf`` and ``urdf/hrp2.yaml`` (HRP-2 No.14 layout, 30 actuated joints).

Every number below carries the key of its public source as ``docs/references.md`` lists them
([HRP2-J1], [HRP2-R1], [HRP2-T1], [HRP2-S1], ..., or a thesis), "derived" with the computation,
or the word CHOSEN and the reason. ``urdf/README.md`` (section "HRP-2") tabulates the same numbers.
The URDF and YAML are generated files: edit this script and run

    .venv/bin/python urdf/hrp2_generate.py

Conventions (those of every public source): x forward, y left, z up; at the zero posture
every link frame is parallel to the world; joint origins are pure translations; the left side
mirrors the right (y -> -y; roll/yaw limits swap sign and order; COM y, Ixy, Iyz change sign).
Only the right side is written here; ``mirror_*`` builds the left side.
"""

from __future__ import annotations

import math
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEG = math.pi / 180.0

# ----------------------------------------------------------------------------- materials
# CHOSEN: colours only (HRP-2 "Promet" is light blue and silver; soles/grippers dark).
MATERIALS = {
    "hrp2_silver": (0.80, 0.81, 0.84, 1.0),
    "hrp2_blue": (0.30, 0.50, 0.85, 1.0),
    "hrp2_dark": (0.20, 0.20, 0.22, 1.0),
    "hrp2_visor": (0.10, 0.10, 0.12, 1.0),
}

# ----------------------------------------------------------------------------- inertial data
# (mass [kg], COM (x, y, z) [m] in the link frame, inertia about the COM with link-frame axes
#  (Ixx, Iyy, Izz, Ixy, Ixz, Iyz) [kg m^2]).  Right side; the left side is mirrored.
INERTIAL = {
    # [HRP2-J1] (JSK's HRP2JSKNTS URDF); its BODY, chest and legs are those of the standard hardware.
    "BODY": (15.0295, (-0.0144, 0.0000, 0.2201), (0.16103, 0.09528, 0.19191, -0.00000, 0.00071, -0.00000)),
    "CHEST_LINK0": (0.7864, (-0.0158, 0.0053, -0.0252), (0.00182, 0.00185, 0.00233, -0.00007, -0.00028, -0.00011)),
    "CHEST_LINK1": (11.5246, (-0.0290, 0.0072, 0.1210), (0.16048, 0.13685, 0.18167, -0.00136, -0.00414, 0.00388)),
    # [HRP2-R1] (the No.14 head of hpp-rbprm-robot-data).
    "HEAD_LINK0": (
        0.374766,
        (-0.00088, 0.00426, -0.00803),
        (0.00039945, 0.00022558, 0.00036246, -0.00000099, 0.00000226, -0.00001181),
    ),
    "HEAD_LINK1": (
        0.993355,
        (0.01299, 0.00009, 0.07876),
        (0.00539717, 0.00457493, 0.00590682, -0.00002165, 0.00069330, -0.00006372),
    ),
    # [HRP2-J1] legs LINK0-5 (JSK's toe link dropped).
    "RLEG_LINK0": (1.1685, (-0.0104, 0.0048, 0.0649), (0.00286, 0.00353, 0.00145, -0.00001, -0.00056, 0.00001)),
    "RLEG_LINK1": (0.8055, (-0.0004, -0.0261, -0.0029), (0.00127, 0.00051, 0.00132, 0.00001, 0.00000, 0.00007)),
    "RLEG_LINK2": (2.0763, (0.0035, -0.0779, -0.1517), (0.02620, 0.02492, 0.00376, -0.00004, 0.00057, 0.00067)),
    "RLEG_LINK3": (1.7476, (0.0180, -0.0579, -0.1384), (0.02233, 0.02251, 0.00455, -0.00009, -0.00225, -0.00075)),
    "RLEG_LINK4": (0.6538, (0.0083, -0.0013, -0.0024), (0.00028, 0.00079, 0.00086, -0.00001, 0.00001, -0.00000)),
    "RLEG_LINK5": (1.6388, (-0.0007, -0.0047, -0.0654), (0.00400, 0.00688, 0.00712, 0.00010, 0.00079, -0.00019)),
    # [HRP2-J1] arm LINK0-3.
    "RARM_LINK0": (0.8101, (-0.0099, 0.0465, -0.0002), (0.00221, 0.00184, 0.00345, -0.00030, 0.00000, 0.00005)),
    "RARM_LINK1": (1.0345, (-0.0106, -0.0120, -0.0095), (0.00122, 0.00172, 0.00161, 0.00028, 0.00009, 0.00012)),
    "RARM_LINK2": (1.5993, (-0.0054, -0.0048, -0.1669), (0.00973, 0.00970, 0.00135, -0.00005, -0.00020, 0.00014)),
    "RARM_LINK3": (0.7772, (-0.0000, -0.0162, -0.0627), (0.00233, 0.00212, 0.00056, 0.00000, -0.00000, 0.00015)),
}

# JSK wrist links as stand-ins for the No.14 wrist (chosen: its own are not public): JSK LINK4 (wrist
# yaw) and JSK LINK5 (wrist roll) frames coincide ([HRP2-J1]: J4, J5 at zero offset), so both are
# lumped into our RARM_LINK4 (wrist yaw body carrying the wrist-pitch actuator) with the parallel-axis
# theorem. The No.14 wrist-pitch output (RARM_LINK5) is the hand below the wrist F/T sensor.
JSK_WRIST_LINK4 = (0.3285, (-0.0084, 0.0000, 0.0472), (0.00084, 0.00106, 0.00034, -0.00000, -0.00014, -0.00000))
JSK_WRIST_LINK5 = (0.4608, (0.0036, -0.0018, -0.0066), (0.00026, 0.00029, 0.00030, -0.00000, -0.00001, 0.00001))

# Hand: the wrist F/T sensor reads 7.55 N = 0.770 kg below it (Chardonnet 2009, §5.1.2.5).
HAND_TOTAL_MASS = 7.55 / 9.81  # = 0.7696 kg; Chardonnet 2009, §5.1.2.5. Palm/jaw split CHOSEN (below).
JAW_MASS = 0.12  # CHOSEN: a 1-DOF jaw of ~0.02 x 0.06 x 0.07 m aluminium/plastic with its linkage.

# ----------------------------------------------------------------------------- kinematics
HIP_Y = 0.060  # [HRP2-J1]: BODY -> hip-yaw axis, lateral
THIGH = 0.300  # [HRP2-J1]; derived too: with SHANK_Z it reproduces [HRP2-S1]'s 0.648702 (HALF_SITTING_BASE_Z)
SHANK_Z = 0.300  # [HRP2-J1], checked as THIGH: knee -> ankle pitch (vertical)
SHANK_Y = 0.035  # [HRP2-J1]: knee -> ankle lateral offset (outward)
ANKLE_H = 0.105  # [HRP2-K1], [HRP2-J2], [HRP2-S2], [HRP2-R2], [HRP2-M1]: ankle axes -> sole
CHEST_XYZ = (0.032, 0.0, 0.3507)  # [HRP2-R1], [HRP2-J1]
NECK_XYZ = (-0.007, 0.0, 0.2973)  # [HRP2-R1], [HRP2-J1]
SHOULDER_XYZ = (0.008, -0.280, 0.181)  # [HRP2-J1], right side
UPPER_ARM = 0.250  # [HRP2-J1]: shoulder -> elbow
FOREARM = 0.250  # [HRP2-J1]: elbow -> wrist, here the No.14 wrist yaw ([HRP2-T1] joint roles)
PALM_CONTACT = 0.1075  # [HRP2-R2]: hand contact 0.1075 below the wrist-pitch joint
# Gripper jaw hinge: the No.14 gripper geometry is not public. CHOSEN: hinge about x on the inner side of
# the palm (+y for the right hand, like [HRP2-J1]'s thumb side), 0.04 below the wrist pitch axis, so that
# the closed jaw ends flush with the palm face at PALM_CONTACT.
JAW_HINGE = (0.0, 0.040, -0.040)

# Sole: the [HRP2-K1] foot outline, a 0.23 x 0.13 m box centred 15 mm forward and 10 mm outward of
# the ankle projection (Escande 2008, §5.4.2: "about 24 cm by 14 cm").
SOLE_X = (-0.100, 0.130)  # [HRP2-K1]
SOLE_Y = (-0.075, 0.055)  # [HRP2-K1], right foot: outer -0.075, inner +0.055
SOLE_T = 0.020  # CHOSEN: sole-plate thickness (not public); only the box height.

# Sensors.
ANKLE_FT_XYZ = (0.0, 0.0, -ANKLE_H)  # [HRP2-S2], [HRP2-J2]: ankle F/T frame 0.105 below the ankle axes
# CHOSEN 0.07: the No.14 value is not public; the variants put it 0.06-0.09 below the wrist
# ([HRP2-J2]: 0.077 for JSK's, [HRP2-D1]: 0.087 for HRP2-DRC).
WRIST_FT_XYZ = (0.0, 0.0, -0.070)
WRIST_FT_YAW = math.pi / 2  # Chardonnet 2009, §5.1.2.2, [HRP2-O2]: sensor rotated ~90 deg about z w.r.t. the hand
IMU_XYZ = (-0.13, 0.0, 0.118)  # [HRP2-S2], [HRP2-J5]: accelerometer/gyrometer on CHEST_LINK1

# ----------------------------------------------------------------------------- limits
# (lower_deg, upper_deg, velocity [rad/s], effort [N m]); right side. Ranges: [HRP2-T1] (No.14);
# velocity and effort: [HRP2-J1] <limit> attributes; chest yaw effort 151.1 from [HRP2-R1] (No.14).
LIMITS = {
    "RLEG_JOINT0": (-45, 30, 3.54108, 86.2),
    "RLEG_JOINT1": (-35, 20, 3.80952, 175.4),
    "RLEG_JOINT2": (-125, 42, 4.42233, 151.4),
    "RLEG_JOINT3": (-2, 150, 3.98010, 168.3),
    "RLEG_JOINT4": (-75, 42, 5.07937, 131.6),
    "RLEG_JOINT5": (-20, 35, 9.14286, 73.1),
    "CHEST_JOINT0": (-45, 45, 4.40217, 151.1),
    "CHEST_JOINT1": (-5, 60, 2.39630, 278.9),
    "HEAD_JOINT0": (-45, 45, 6.87679, 9.6),
    "HEAD_JOINT1": (-30, 45, 6.87679, 9.6),
    "RARM_JOINT0": (-180, 60, 4.17044, 160.3),
    "RARM_JOINT1": (-95, 10, 2.41920, 100.4),
    "RARM_JOINT2": (-92, 92, 4.15699, 48.7),
    "RARM_JOINT3": (-137, 2, 2.23776, 108.5),
    "RARM_JOINT4": (-92, 92, 4.72794, 13.9),
    "RARM_JOINT5": (-92, 92, 2.77088, 16.02),  # [HRP2-J1] J6 (JSK's wrist pitch) velocity/effort
    # Gripper: [HRP2-T1] gives +-1 rad (maybe a placeholder); velocity/effort of [HRP2-J1]'s thumb joint.
    "RARM_JOINT6": (-1.0 / DEG, 1.0 / DEG, 4.72794, 13.9),
}

# ----------------------------------------------------------------------------- postures
HALF_SITTING_BASE_Z = 0.648702  # [HRP2-S1], [HRP2-W2]; derived check: 0.105 + 0.3 cos26 + 0.3 cos24
ZERO_BASE_Z = ANKLE_H + THIGH + SHANK_Z  # derived: 0.705 with straight legs
HALF_SITTING_DEG = {  # [HRP2-S1], [HRP2-W1], [HRP2-W2]; right side (left mirrored for roll/yaw)
    "RLEG_JOINT0": 0,
    "RLEG_JOINT1": 0,
    "RLEG_JOINT2": -26,
    "RLEG_JOINT3": 50,
    "RLEG_JOINT4": -24,
    "RLEG_JOINT5": 0,
    "CHEST_JOINT0": 0,
    "CHEST_JOINT1": 0,
    "HEAD_JOINT0": 0,
    "HEAD_JOINT1": 0,
    "RARM_JOINT0": 15,
    "RARM_JOINT1": -10,
    "RARM_JOINT2": 0,
    "RARM_JOINT3": -30,
    "RARM_JOINT4": 0,
    "RARM_JOINT5": 0,
    "RARM_JOINT6": 10,  # gripper 10 deg: [HRP2-W1], [HRP2-W2]
}

# ----------------------------------------------------------------------------- geometry
# Shapes: (kind, size, centre xyz, rpy, material, collide). kind "box" size (sx, sy, sz);
# "cylinder" size (radius, length) along the shape's z (rpy turns it). All CHOSEN from the
# link lengths above and the overall figures (height 1.54 m [HRP2-N1], width 0.62 m [HRP2-N1], depth
# 0.355 m as commonly quoted from Kaneko et al., ICRA 2004) unless noted: primitives, since the
# official meshes are not public.
HALF_PI = math.pi / 2
# derived: 1.539 m (the height commonly quoted from Kaneko et al. 2004) - 1.353 m (the neck joint above
# the ground at the zero posture) = head top above the neck joint
HEAD_TOP = 0.186
SHAPES = {
    "BODY": [  # waist up to the chest joint (0.3507), two boxes: the back one's bottom 0.075 above
        # the hip axes (x -0.12..0), the front one's 0.17 (x 0..0.10), so the thighs clear it over
        # the hip pitch's whole flexion (-125 deg, the [HRP2-T1] limit; the thighs' boxes' near corners
        # sweep the waist's front-lower edge from -100 deg on): sitting, rising from a seat, a crouch
        ("box", (0.12, 0.26, 0.27), (-0.060, 0.0, 0.210), (0, 0, 0), "hrp2_silver", True),
        ("box", (0.10, 0.26, 0.175), (0.050, 0.0, 0.2575), (0, 0, 0), "hrp2_silver", True),
    ],
    "CHEST_LINK0": [  # yaw stage: visual only (inside the waist/chest envelopes)
        ("cylinder", (0.06, 0.04), (0.0, 0.0, -0.02), (0, 0, 0), "hrp2_dark", False),
    ],
    "CHEST_LINK1": [  # torso with the back-pack computer; top stops below the neck (0.2973). Two boxes:
        # the lower front is cut away so the chest clears the waist up to the 60 deg pitch limit.
        ("box", (0.32, 0.40, 0.185), (-0.035, 0.0, 0.1925), (0, 0, 0), "hrp2_blue", True),
        ("box", (0.195, 0.30, 0.085), (-0.0975, 0.0, 0.0575), (0, 0, 0), "hrp2_blue", True),
    ],
    "HEAD_LINK0": [
        ("cylinder", (0.03, 0.03), (0.0, 0.0, 0.0), (0, 0, 0), "hrp2_dark", False),
    ],
    "HEAD_LINK1": [  # head top at HEAD_TOP above the neck
        ("box", (0.19, 0.16, HEAD_TOP - 0.020), (0.005, 0.0, (HEAD_TOP + 0.020) / 2), (0, 0, 0), "hrp2_silver", True),
        ("box", (0.02, 0.13, 0.05), (0.10, 0.0, 0.085), (0, 0, 0), "hrp2_visor", False),
    ],
    "RLEG_LINK0": [  # hip-yaw motor above the hip ([HRP2-J1] COM z +0.065): visual only, in the waist's back box
        ("cylinder", (0.04, 0.10), (-0.040, 0.0, 0.06), (0, 0, 0), "hrp2_dark", False),
    ],
    "RLEG_LINK1": [  # hip roll/pitch cross: visual only
        ("cylinder", (0.045, 0.10), (0.0, 0.0, 0.0), (0, HALF_PI, 0), "hrp2_dark", False),
    ],
    "RLEG_LINK2": [  # thigh, offset outward like its COM ([HRP2-J1] y -0.078)
        ("box", (0.12, 0.11, 0.20), (0.0, -0.030, -0.160), (0, 0, 0), "hrp2_blue", True),
    ],
    "RLEG_LINK3": [  # shank + knee cap (cylinder along y at the knee axis)
        ("box", (0.11, 0.10, 0.20), (0.0025, -0.030, -0.150), (0, 0, 0), "hrp2_blue", True),
        ("cylinder", (0.055, 0.10), (0.0, -0.020, 0.0), (HALF_PI, 0, 0), "hrp2_silver", True),
    ],
    "RLEG_LINK4": [  # ankle pitch/roll cross: visual only
        ("cylinder", (0.035, 0.08), (0.0, 0.0, 0.0), (HALF_PI, 0, 0), "hrp2_dark", False),
    ],
    "RLEG_LINK5": [  # ankle block + sole plate ([HRP2-K1] outline)
        ("box", (0.10, 0.09, 0.060), (0.0, -0.005, -0.055), (0, 0, 0), "hrp2_silver", True),
        (
            "box",
            (SOLE_X[1] - SOLE_X[0], SOLE_Y[1] - SOLE_Y[0], SOLE_T),
            ((SOLE_X[0] + SOLE_X[1]) / 2, (SOLE_Y[0] + SOLE_Y[1]) / 2, -ANKLE_H + SOLE_T / 2),
            (0, 0, 0),
            "hrp2_dark",
            True,
        ),
    ],
    "RARM_LINK0": [  # shoulder-pitch motor housing between chest and arm ([HRP2-J1] COM y +0.0465)
        ("cylinder", (0.045, 0.07), (0.0, 0.045, 0.0), (HALF_PI, 0, 0), "hrp2_dark", False),
    ],
    "RARM_LINK1": [
        ("cylinder", (0.045, 0.09), (0.0, 0.0, 0.0), (0, HALF_PI, 0), "hrp2_dark", False),
    ],
    "RARM_LINK2": [  # upper arm, outer edge at |y| = 0.28 + 0.03 = 0.31 -> width 0.62 ([HRP2-N1])
        ("box", (0.08, 0.07, 0.17), (0.0, 0.005, -0.125), (0, 0, 0), "hrp2_blue", True),
    ],
    "RARM_LINK3": [  # forearm (flat faces for the forearm contact)
        ("box", (0.08, 0.07, 0.17), (0.0, 0.005, -0.115), (0, 0, 0), "hrp2_blue", True),
        ("cylinder", (0.04, 0.09), (0.0, 0.0, 0.0), (HALF_PI, 0, 0), "hrp2_silver", False),
    ],
    "RARM_LINK4": [  # wrist yaw/pitch block: visual only
        ("cylinder", (0.035, 0.06), (0.0, 0.0, 0.0), (HALF_PI, 0, 0), "hrp2_dark", False),
    ],
    "RARM_LINK5": [  # hand (palm) below the wrist pitch axis, bottom face at PALM_CONTACT ([HRP2-R2])
        (
            "box",
            (0.08, 0.06, PALM_CONTACT - 0.030),
            (0.0, 0.0, -(PALM_CONTACT + 0.030) / 2),
            (0, 0, 0),
            "hrp2_dark",
            True,
        ),
    ],
    "RARM_LINK6": [  # gripper jaw, hangs from JAW_HINGE down to the palm face
        (
            "box",
            (0.06, 0.016, PALM_CONTACT + JAW_HINGE[2]),
            (0.0, 0.0, -(PALM_CONTACT + JAW_HINGE[2]) / 2),
            (0, 0, 0),
            "hrp2_silver",
            True,
        ),
    ],
}

# ----------------------------------------------------------------------------- tree
# (joint, parent, child, origin xyz in parent, axis)
TREE_RIGHT_LEG = [
    ("RLEG_JOINT0", "BODY", "RLEG_LINK0", (0.0, -HIP_Y, 0.0), "z"),
    ("RLEG_JOINT1", "RLEG_LINK0", "RLEG_LINK1", (0.0, 0.0, 0.0), "x"),
    ("RLEG_JOINT2", "RLEG_LINK1", "RLEG_LINK2", (0.0, 0.0, 0.0), "y"),
    ("RLEG_JOINT3", "RLEG_LINK2", "RLEG_LINK3", (0.0, 0.0, -THIGH), "y"),
    ("RLEG_JOINT4", "RLEG_LINK3", "RLEG_LINK4", (0.0, -SHANK_Y, -SHANK_Z), "y"),
    ("RLEG_JOINT5", "RLEG_LINK4", "RLEG_LINK5", (0.0, 0.0, 0.0), "x"),
]
TREE_TRUNK = [
    ("CHEST_JOINT0", "BODY", "CHEST_LINK0", CHEST_XYZ, "z"),
    ("CHEST_JOINT1", "CHEST_LINK0", "CHEST_LINK1", (0.0, 0.0, 0.0), "y"),
    ("HEAD_JOINT0", "CHEST_LINK1", "HEAD_LINK0", NECK_XYZ, "z"),
    ("HEAD_JOINT1", "HEAD_LINK0", "HEAD_LINK1", (0.0, 0.0, 0.0), "y"),
]
TREE_RIGHT_ARM = [
    ("RARM_JOINT0", "CHEST_LINK1", "RARM_LINK0", SHOULDER_XYZ, "y"),
    ("RARM_JOINT1", "RARM_LINK0", "RARM_LINK1", (0.0, 0.0, 0.0), "x"),
    ("RARM_JOINT2", "RARM_LINK1", "RARM_LINK2", (0.0, 0.0, 0.0), "z"),
    ("RARM_JOINT3", "RARM_LINK2", "RARM_LINK3", (0.0, 0.0, -UPPER_ARM), "y"),
    ("RARM_JOINT4", "RARM_LINK3", "RARM_LINK4", (0.0, 0.0, -FOREARM), "z"),
    ("RARM_JOINT5", "RARM_LINK4", "RARM_LINK5", (0.0, 0.0, 0.0), "y"),
    ("RARM_JOINT6", "RARM_LINK5", "RARM_LINK6", JAW_HINGE, "x"),
]
AXES = {"x": (1, 0, 0), "y": (0, 1, 0), "z": (0, 0, 1), "-x": (-1, 0, 0)}
# The left gripper turns about -x: [HRP2-S1], [HRP2-W1], [HRP2-W2] give the same half-sitting gripper
# value (10 deg) on both sides, i.e. the same value opens both mirrored jaws. CHOSEN; the range
# ([HRP2-T1]: +-1 rad) is
# symmetric, so limits are unaffected.
MIRRORED_AXIS = {"RARM_JOINT6": "-x"}


# ----------------------------------------------------------------------------- helpers
def box_inertia(m, sx, sy, sz):
    """Solid box about its centre: (Ixx, Iyy, Izz, 0, 0, 0) [kg m^2]."""
    return (m * (sy * sy + sz * sz) / 12, m * (sx * sx + sz * sz) / 12, m * (sx * sx + sy * sy) / 12, 0.0, 0.0, 0.0)


def _tensor(i):
    ixx, iyy, izz, ixy, ixz, iyz = i
    return [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]


def combine(*parts):
    """Lump rigid parts (mass, com, inertia6) expressed in one frame (parallel-axis theorem)."""
    m = sum(p[0] for p in parts)
    c = [sum(p[0] * p[1][k] for p in parts) / m for k in range(3)]
    total = [[0.0] * 3 for _ in range(3)]
    for mi, ci, ii in parts:
        t = _tensor(ii)
        d = [ci[k] - c[k] for k in range(3)]
        dd = sum(x * x for x in d)
        for a in range(3):
            for b in range(3):
                total[a][b] += t[a][b] + mi * ((dd if a == b else 0.0) - d[a] * d[b])
    return m, tuple(c), (total[0][0], total[1][1], total[2][2], total[0][1], total[0][2], total[1][2])


def _hand_inertials():
    """Palm (RARM_LINK5) and jaw (RARM_LINK6): uniform boxes of the collision shapes (CHOSEN)."""
    palm_box = SHAPES["RARM_LINK5"][0]
    jaw_box = SHAPES["RARM_LINK6"][0]
    m_palm = HAND_TOTAL_MASS - JAW_MASS
    palm = (m_palm, palm_box[2], box_inertia(m_palm, *palm_box[1]))
    jaw = (JAW_MASS, jaw_box[2], box_inertia(JAW_MASS, *jaw_box[1]))
    return palm, jaw


INERTIAL["RARM_LINK4"] = combine(JSK_WRIST_LINK4, JSK_WRIST_LINK5)
INERTIAL["RARM_LINK5"], INERTIAL["RARM_LINK6"] = _hand_inertials()


def mirror_name(name):
    return name.replace("RLEG", "LLEG").replace("RARM", "LARM").replace("r_", "l_")


def mirror_xyz(v):
    return (v[0], -v[1], v[2])


def mirror_inertial(entry):
    m, c, i = entry
    ixx, iyy, izz, ixy, ixz, iyz = i
    return m, mirror_xyz(c), (ixx, iyy, izz, -ixy, ixz, -iyz)


def mirror_limits(axis, lim):
    lo, hi, vel, eff = lim
    if axis in ("x", "z"):  # roll / yaw: swap sign and order (the sources' mirror convention)
        lo, hi = -hi, -lo
    return lo, hi, vel, eff


def mirror_shape(shape):
    kind, size, xyz, rpy, mat, col = shape
    return kind, size, mirror_xyz(xyz), rpy, mat, col  # all rotations used are y-symmetric


def mirror_sole_y(y):
    return -y


# ----------------------------------------------------------------------------- model assembly
def build():
    links = {}  # name -> (inertial, shapes)
    joints = []  # (name, parent, child, xyz, axis, limits)
    for link in ("BODY", "CHEST_LINK0", "CHEST_LINK1", "HEAD_LINK0", "HEAD_LINK1"):
        links[link] = (INERTIAL[link], SHAPES[link])
    for j, parent, child, xyz, axis in TREE_TRUNK:
        joints.append((j, parent, child, xyz, axis, LIMITS[j]))
    for tree in (TREE_RIGHT_LEG, TREE_RIGHT_ARM):
        for j, parent, child, xyz, axis in tree:
            links[child] = (INERTIAL[child], SHAPES[child])
            joints.append((j, parent, child, xyz, axis, LIMITS[j]))
            lchild = mirror_name(child)
            links[lchild] = (mirror_inertial(INERTIAL[child]), [mirror_shape(s) for s in SHAPES[child]])
            laxis = MIRRORED_AXIS.get(j, axis)
            joints.append(
                (mirror_name(j), mirror_name(parent), lchild, mirror_xyz(xyz), laxis, mirror_limits(laxis, LIMITS[j]))
            )
    return links, joints


def sensor_frames():
    """(frame link, parent link, xyz, rpy) of the massless fixed sensor / sole frames."""
    frames = []
    for side, sgn in (("R", 1.0), ("L", -1.0)):
        frames.append((f"{side}LEG_FT", f"{side}LEG_LINK5", ANKLE_FT_XYZ, (0.0, 0.0, 0.0)))
        frames.append((f"{side}ARM_FT", f"{side}ARM_LINK5", WRIST_FT_XYZ, (0.0, 0.0, sgn * WRIST_FT_YAW)))
        sole_c = ((SOLE_X[0] + SOLE_X[1]) / 2, sgn * (SOLE_Y[0] + SOLE_Y[1]) / 2, -ANKLE_H)
        frames.append((f"{side}LEG_SOLE", f"{side}LEG_LINK5", sole_c, (0.0, 0.0, 0.0)))
    frames.append(("IMU", "CHEST_LINK1", IMU_XYZ, (0.0, 0.0, 0.0)))
    return frames


def f(x):
    """Compact decimal text of a float (no -0)."""
    s = f"{x:.9g}"
    return "0" if s in ("-0", "0") else s


def v3(v):
    return " ".join(f(x) for x in v)


def urdf_text():
    links, joints = build()
    out = [
        '<?xml version="1.0"?>',
        "<!-- GENERATED by urdf/hrp2_generate.py: edit the script, not this file. -->",
        "<!-- HRP-2 (Kawada/AIST), LAAS No.14 layout: 30 actuated revolute joints. Approximate model",
        "     assembled from public data (docs/references.md): kinematics [HRP2-J1], [HRP2-R1],",
        "     [HRP2-T1], [HRP2-S1]; inertias of JSK's public HRP2JSKNTS model (start-jsk/rtmros_tutorials,",
        "     EPL) for BODY, chest, legs and arms [HRP2-J1], No.14 head [HRP2-R1], hand mass",
        "     Chardonnet 2009, §5.1.2.5. Sources per number: urdf/README.md. -->",
        '<robot name="hrp2">',
    ]
    for name, rgba in MATERIALS.items():
        out.append(f'  <material name="{name}"><color rgba="{v3(rgba)}"/></material>')
    for name, (inertial, shapes) in links.items():
        m, c, i = inertial
        ixx, iyy, izz, ixy, ixz, iyz = i
        out.append(f'  <link name="{name}">')
        out.append(
            f'    <inertial><origin xyz="{v3(c)}" rpy="0 0 0"/><mass value="{f(m)}"/>'
            f'<inertia ixx="{f(ixx)}" ixy="{f(ixy)}" ixz="{f(ixz)}" iyy="{f(iyy)}" iyz="{f(iyz)}" '
            f'izz="{f(izz)}"/></inertial>'
        )
        for k, (kind, size, xyz, rpy, mat, collide) in enumerate(shapes):
            geom = (
                f'<box size="{v3(size)}"/>'
                if kind == "box"
                else f'<cylinder radius="{f(size[0])}" length="{f(size[1])}"/>'
            )
            origin = f'<origin xyz="{v3(xyz)}" rpy="{v3(rpy)}"/>'
            out.append(
                f'    <visual name="{name}_v{k}">{origin}<geometry>{geom}</geometry><material name="{mat}"/></visual>'
            )
            if collide:
                out.append(f'    <collision name="{name}_c{k}">{origin}<geometry>{geom}</geometry></collision>')
        out.append("  </link>")
    for name, parent, child, xyz, axis, (lo, hi, vel, eff) in joints:
        out.append(
            f'  <joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{v3(xyz)}" rpy="0 0 0"/><axis xyz="{v3(AXES[axis])}"/>'
            f'<limit lower="{f(lo * DEG)}" upper="{f(hi * DEG)}" velocity="{f(vel)}" effort="{f(eff)}"/>'
            f"</joint>"
        )
    out.append("  <!-- Massless sensor and sole frames (fixed joints). -->")
    for frame, parent, xyz, rpy in sensor_frames():
        out.append(f'  <link name="{frame}"/>')
        out.append(
            f'  <joint name="{frame}_JOINT" type="fixed"><parent link="{parent}"/><child link="{frame}"/>'
            f'<origin xyz="{v3(xyz)}" rpy="{v3(rpy)}"/></joint>'
        )
    out.append("</robot>")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- YAML
def _rect(axis_fixed, value, ranges):
    """Four corners of an axis-aligned rectangle in the plane coord[axis_fixed] = value."""
    (a, (a0, a1)), (b, (b0, b1)) = ranges
    pts = []
    for u, w in ((a0, b0), (a1, b0), (a1, b1), (a0, b1)):
        p = [0.0, 0.0, 0.0]
        p[axis_fixed] = value
        p[a], p[b] = u, w
        pts.append(p)
    return pts


def _box_bounds(shape):
    _, size, c, _, _, _ = shape
    return [(c[k] - size[k] / 2, c[k] + size[k] / 2) for k in range(3)]


def contacts_right():
    """Contact locations (Escande 2008, §5.3.1.1: the quintuple) of the right side, from the shapes."""
    out = {}
    # sole: bottom face of the [HRP2-K1] sole box; point at the sole centre
    sole = _box_bounds(SHAPES["RLEG_LINK5"][1])
    z = -ANKLE_H
    out["r_sole"] = dict(
        body="RLEG_LINK5",
        kind="sole",
        normal=[0, 0, 1],
        tangent=[1, 0, 0],
        hull=_rect(2, z, ((0, sole[0]), (1, sole[1]))),
    )
    # hand extremity: bottom face of the palm box ([HRP2-R2] palm contact 0.1075 below the wrist)
    palm = _box_bounds(SHAPES["RARM_LINK5"][0])
    out["r_hand"] = dict(
        body="RARM_LINK5",
        kind="hand",
        normal=[0, 0, 1],
        tangent=[1, 0, 0],
        hull=_rect(2, palm[2][0], ((0, palm[0]), (1, palm[1]))),
    )
    # hand side: outer face of the palm (the jaw is on the inner side), normal into the hand
    out["r_hand_side"] = dict(
        body="RARM_LINK5",
        kind="hand_side",
        normal=[0, 1, 0],
        tangent=[0, 0, -1],
        hull=_rect(1, palm[1][0], ((0, palm[0]), (2, palm[2]))),
    )
    # knee: front face of the shank box just below the knee (kneeling), normal backward
    shank = _box_bounds(SHAPES["RLEG_LINK3"][0])
    out["r_knee"] = dict(
        body="RLEG_LINK3",
        kind="knee",
        normal=[-1, 0, 0],
        tangent=[0, 0, -1],
        hull=_rect(0, shank[0][1], ((1, shank[1]), (2, (-0.13, shank[2][1])))),
    )
    # thigh: back face of the thigh box (sitting), normal forward
    thigh = _box_bounds(SHAPES["RLEG_LINK2"][0])
    out["r_thigh"] = dict(
        body="RLEG_LINK2",
        kind="thigh",
        normal=[1, 0, 0],
        tangent=[0, 0, -1],
        hull=_rect(0, thigh[0][0], ((1, thigh[1]), (2, thigh[2]))),
    )
    # forearm: the face that is underneath when the elbow is bent 90 deg (-x), normal forward
    fore = _box_bounds(SHAPES["RARM_LINK3"][0])
    out["r_forearm"] = dict(
        body="RARM_LINK3",
        kind="forearm",
        normal=[1, 0, 0],
        tangent=[0, 0, -1],
        hull=_rect(0, fore[0][0], ((1, fore[1]), (2, fore[2]))),
    )
    for c in out.values():
        hull = c["hull"]
        c["point"] = [sum(p[k] for p in hull) / len(hull) for k in range(3)]
    return out


def mirror_contact(c):
    m = dict(c)
    m["body"] = mirror_name(c["body"])
    m["normal"] = list(mirror_xyz(c["normal"]))
    m["tangent"] = list(mirror_xyz(c["tangent"]))
    m["point"] = list(mirror_xyz(c["point"]))
    m["hull"] = [list(mirror_xyz(p)) for p in c["hull"]]
    return m


# the sagittal joints of the planar model: hip, knee, ankle pitch of each leg
SAGITTAL = [f"{leg}LEG_JOINT{k}" for leg in "RL" for k in (2, 3, 4)]


def yaml_text():
    def num(x):
        return f(round(x, 9))

    def vec(v):
        return "[" + ", ".join(num(x) for x in v) + "]"

    lines = [
        "# GENERATED by urdf/hrp2_generate.py: edit the script, not this file.",
        "# HRP-2 (No.14 layout) postures, contact locations and sensors. Format: DEVELOPERS.md.",
        "# The source of every number (keys of docs/references.md): urdf/README.md.",
        "postures:",
        "  # [HRP2-S1], [HRP2-W1], [HRP2-W2]: legs 0/0/-26/50/-24/0 deg, arms 15/-+10/0/-30/0/0 deg,",
        "  # gripper 10 deg ([HRP2-W1], [HRP2-W2]); base z 0.648702 ([HRP2-S1]) puts the soles on z = 0.",
        "  half-sitting:",
        f"    base: [0, 0, {num(HALF_SITTING_BASE_Z)}, 0, 0, 0, 1]",
        "    joints:",
    ]
    links, joints = build()
    for name, _parent, _child, _xyz, axis, _lim in joints:
        rname = name.replace("LLEG", "RLEG").replace("LARM", "RARM")
        deg = HALF_SITTING_DEG[rname]
        if name != rname and axis in ("x", "z"):
            deg = -deg
        lines.append(f"      {name}: {num(deg * DEG)}")
    lines += [
        "  # all joints zero (straight legs, arms down); base z 0.705 = 0.105 + 0.300 + 0.300 (derived)",
        "  # puts the soles on z = 0.",
        "  zero:",
        f"    base: [0, 0, {num(ZERO_BASE_Z)}, 0, 0, 0, 1]",
        "    joints: {}",
        "default_posture: half-sitting",
        "",
        "# Contact locations (Escande 2008, §5.3.1.1): body, point, inward normal (pointing into the",
        "# robot body), tangent, convex hull of the contact surface, all in the body frame [m]. Faces of",
        "# the collision boxes of hrp2.urdf (chosen); soles: the [HRP2-K1] outline 0.23 x 0.13 m.",
        "contacts:",
    ]
    right = contacts_right()
    for name, c in right.items():
        for nm, cc in ((name, c), (mirror_name(name), mirror_contact(c))):
            lines.append(f"  {nm}:")
            lines.append(f"    body: {cc['body']}")
            lines.append(f"    kind: {cc['kind']}")
            lines.append(f"    point: {vec(cc['point'])}")
            lines.append(f"    normal: {vec(cc['normal'])}")
            lines.append(f"    tangent: {vec(cc['tangent'])}")
            lines.append("    hull: [" + ", ".join(vec(p) for p in cc["hull"]) + "]")
    lines += [
        "",
        "# Sensors. A force/torque sensor reads the wrench transmitted through the",
        "# parent joint of `body` (i.e. what `body` and the links beyond it exert on the rest of the robot),",
        "# expressed in `frame`. Wrists: body = hand (RARM_LINK5 + jaw, 0.770 kg below the sensor,",
        "# Chardonnet 2009, §5.1.2.5). Ankles: body = foot; the frame is at sole level ([HRP2-S2], [HRP2-J2]).",
        "sensors:",
        "  force_torque:",
        "    r_ankle: {frame: RLEG_FT, body: RLEG_LINK5}",
        "    l_ankle: {frame: LLEG_FT, body: LLEG_LINK5}",
        "    r_wrist: {frame: RARM_FT, body: RARM_LINK5}",
        "    l_wrist: {frame: LARM_FT, body: LARM_LINK5}",
        "  imu: {frame: IMU, body: CHEST_LINK1}",
        "",
        "# Sagittal model (load_robot(..., planar=True), the gait generator's planar biped, docs/gait.md):",
        "# every joint but the legs' pitch joints locked at the default posture's angles.",
        "planar:",
        "  locked_joints: [" + ", ".join(n for n, *_ in joints if n not in SAGITTAL) + "]",
        "  sagittal_joints: [" + ", ".join(SAGITTAL) + "]",
        "",
        "# Massless frames at the sole centres ([HRP2-K1] outline centre, 0.105 below the ankle axes).",
        "frames:",
        "  r_sole: RLEG_SOLE",
        "  l_sole: LLEG_SOLE",
        "",
        "# Deformable FEM soles (docs/soles.md), used when a scene sets robot.soles: fem: the thesis's",
        "# 22 x 13 x 2 cm block, E = 3 MPa, nu = 0.4 (Chardonnet 2009, §4.4 and §4.4.1), fastened under",
        "# the contact location (top face at its point, x along its tangent). resolution [m] per axis",
        "# x, y, z (chosen): 3 x 3 x 2 cells, 16 ground nodes per sole (the size benchmarks/standing.py",
        "# measures; a finer mesh is one value here, at the cost of more contact nodes per step).",
        "soles:",
        "  r_sole: {contact: r_sole, length: 0.22, width: 0.13, resolution: [0.074, 0.044, 0.01],",
        "           layers: [{thickness: 0.02, E: 3.0e+6, nu: 0.4}]}",
        "  l_sole: {contact: l_sole, length: 0.22, width: 0.13, resolution: [0.074, 0.044, 0.01],",
        "           layers: [{thickness: 0.02, E: 3.0e+6, nu: 0.4}]}",
    ]
    return "\n".join(lines) + "\n"


def main():
    (HERE / "hrp2.urdf").write_text(urdf_text())
    (HERE / "hrp2.yaml").write_text(yaml_text())
    print(f"wrote {HERE / 'hrp2.urdf'} and {HERE / 'hrp2.yaml'}")


if __name__ == "__main__":
    main()
