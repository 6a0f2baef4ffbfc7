"""BIP sagittal parameter sets for the optimal gait generator (Chessé 2002).

Two sets are provided:

* ``"thesis"`` – *thesis-literal*: Table III-3 of Chessé 2002 (§III.3.2.2) with the thesis's own
  modelling simplifications (b_i kept only on the feet S1 and S6, I_i about the joint O_i including
  the rotor inertias, S6's (a6, b6) applied in its ankle->heel frame: the mass matrix (B.1)-(B.3) of
  Annex B and the potential of Annex C) plus the public foot geometry of [BIP-H] (heel-toe 0.29 m,
  ankle-heel 0.146 m).  Its mass matrix and gravity torques are those of Annex B and C (the model's
  acceptance tests, 003 A2-A4); the energy comparison with the thesis uses it.
* ``"urdf"`` – the HuMAnS data of [BIP-H] reduced to the sagittal plane (link masses, full COM
  offsets, centroidal inertia about the lateral axis) plus the reflected rotor inertia J N^2 as
  joint armature at walking postures (derived from [BIP-H]'s rotor inertias and gear ratios).

Lengths [m], masses [kg], inertias [kg m^2].
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from humanoid_model.exceptions import ConfigError

G = 9.81  # [m/s^2], the thesis's value (Chessé 2002, §I.3.3)


@dataclass(frozen=True)
class SagittalSegment:
    """One sagittal segment: mass [kg], COM (a, b) [m] in the frame (O, X toward the segment's
    distal point, Y = Z0 x X), inertia ``I_O`` about the proximal joint axis [kg m^2]."""

    mass: float
    a: float
    b: float
    I_O: float

    @property
    def I_c(self) -> float:
        """Centroidal inertia [kg m^2]."""
        return self.I_O - self.mass * (self.a**2 + self.b**2)


@dataclass(frozen=True)
class FootTriangle:
    """Foot triangle (ankle O, heel B1, toe B2), Chessé 2002, Fig. A-1."""

    l_pied: float  # heel-toe length [m]
    r_heel: float  # ankle-heel distance r6 [m]
    r_toe: float  # ankle-toe distance r1 = r7 [m]

    @property
    def alpha_p(self) -> float:
        """Angle at the ankle between ankle->heel and ankle->toe [rad]."""
        c = (self.r_heel**2 + self.r_toe**2 - self.l_pied**2) / (2 * self.r_heel * self.r_toe)
        return math.acos(c)

    @property
    def beta_p(self) -> float:
        """Angle at the heel [rad] (Chessé 2002, eq. (III.20b): acos((r6^2 + l^2 - r1^2)/(2 l r6)))."""
        c = (self.r_heel**2 + self.l_pied**2 - self.r_toe**2) / (2 * self.l_pied * self.r_heel)
        return math.acos(c)

    @property
    def gamma_p(self) -> float:
        """Angle at the toe [rad]."""
        return math.pi - self.alpha_p - self.beta_p

    @property
    def ankle_height(self) -> float:
        """Height of the ankle above the sole of a flat foot [m]."""
        return self.r_heel * math.sin(self.beta_p)

    @property
    def heel_to_ankle_x(self) -> float:
        """Horizontal heel -> ankle distance of a flat foot [m]."""
        return self.r_heel * math.cos(self.beta_p)


@dataclass(frozen=True)
class BipParams:
    """Sagittal BIP data by role: ``foot``/``shank``/``thigh`` of the root-side (rear/stance) leg and
    of the distal (front/swing) leg, the trunk, the foot geometry and the joint armature.

    Root-side leg segments are described from their lower joint (foot from the toe, shank from the
    ankle, thigh from the knee), distal-leg segments from their upper joint (thigh from the hip,
    shank from the knee, foot from the ankle), as in Table III-3.
    """

    name: str
    r_leg: float  # thigh = shank length [m]
    r1: float  # rear foot toe -> ankle length used by the DS root segment [m]
    foot_rear: SagittalSegment  # S1, frame toe -> ankle
    shank_rear: SagittalSegment  # S2, frame ankle -> knee
    thigh_rear: SagittalSegment  # S3, frame knee -> hip
    thigh_front: SagittalSegment  # S4, frame hip -> knee
    shank_front: SagittalSegment  # S5, frame knee -> ankle
    foot_front: SagittalSegment  # S6 (a, b) in the frame given by foot_front_frame
    foot_front_frame: str  # "heel" (thesis-literal: X6 = ankle->heel) or "toe" (ankle->toe)
    trunk: SagittalSegment  # S7, frame hip -> trunk COM direction
    foot: FootTriangle
    armature: dict = field(default_factory=lambda: {"ankle": 0.0, "knee": 0.0, "hip": 0.0})
    g: float = G

    @property
    def total_mass(self) -> float:
        return (
            self.foot_rear.mass
            + self.shank_rear.mass
            + self.thigh_rear.mass
            + self.thigh_front.mass
            + self.shank_front.mass
            + self.foot_front.mass
            + self.trunk.mass
        )

    def foot_front_toe_frame(self) -> tuple[float, float]:
        """(a, b) of the distal foot COM in its ankle->toe frame [m]."""
        a, b = self.foot_front.a, self.foot_front.b
        if self.foot_front_frame == "toe":
            return a, b
        al = self.foot.alpha_p  # ankle->toe = ankle->heel rotated by +alpha_p
        # vector in heel frame -> toe frame: rotate by -alpha_p
        return (a * math.cos(al) + b * math.sin(al), -a * math.sin(al) + b * math.cos(al))

    def foot_front_heel_frame(self) -> tuple[float, float]:
        """(a, b) of the distal foot COM in its ankle->heel frame [m]."""
        a, b = self.foot_front.a, self.foot_front.b
        if self.foot_front_frame == "heel":
            return a, b
        al = self.foot.alpha_p
        return (a * math.cos(al) - b * math.sin(al), a * math.sin(al) + b * math.cos(al))

    def scaled(self, inertia_scale: float = 1.0, trunk_scale: float = 1.0) -> BipParams:
        """Copy with reduced centroidal inertias (continuation in the inertias,
        Chessé 2002, §III.4): I_O = m (a^2 + b^2) + k I_c, masses and COMs unchanged; the trunk's
        factor is ``inertia_scale * trunk_scale``."""

        def sc(s: SagittalSegment, k: float) -> SagittalSegment:
            return SagittalSegment(s.mass, s.a, s.b, s.mass * (s.a**2 + s.b**2) + k * s.I_c)

        return replace(
            self,
            foot_rear=sc(self.foot_rear, inertia_scale),
            shank_rear=sc(self.shank_rear, inertia_scale),
            thigh_rear=sc(self.thigh_rear, inertia_scale),
            thigh_front=sc(self.thigh_front, inertia_scale),
            shank_front=sc(self.shank_front, inertia_scale),
            foot_front=sc(self.foot_front, inertia_scale),
            trunk=sc(self.trunk, inertia_scale * trunk_scale),
        )


# Public foot geometry, [BIP-H] (the foot's contact points): ankle 0.083 m above the sole, toe edge
# 0.170 m ahead, heel edge 0.120 m behind (foot length 0.290); ankle-toe hypot(0.170, 0.083) = 0.18918
# ('0.189'), ankle-heel hypot(0.120, 0.083) = 0.14591 ('0.146'). Exact values so that the URDF frames
# match.
PUBLIC_FOOT = FootTriangle(l_pied=0.290, r_heel=math.hypot(0.120, 0.083), r_toe=math.hypot(0.170, 0.083))


def thesis_params() -> BipParams:
    """Thesis-literal set: Table III-3 (Chessé 2002, §III.3.2.2), b_i neglected on S2..S5 and S7 as
    in the thesis's M and V (Annex B, Annex C), S6's (a6, b6) in the ankle->heel frame X6 that
    §III.3.2.1 defines (read literally), r1 = 0.188 from the table.

    Foot triangle: l_pied = 0.29 (the table's r6 = 0.29 is the heel-toe length of [BIP-H]'s foot,
    not an ankle-heel distance), ankle-heel 0.146 ([BIP-H]), ankle-toe = r1 = 0.188 of the table so
    that both feet are identical (r7 = r1, Fig. A-1); [BIP-H]'s 0.189 differs by 1 mm.
    """
    return BipParams(
        name="thesis",
        r_leg=0.410,
        r1=0.188,
        foot_rear=SagittalSegment(2.34, 0.143, 0.042, 0.1),
        shank_rear=SagittalSegment(6.11, 0.258, 0.0, 0.69),
        thigh_rear=SagittalSegment(10.9, 0.250, 0.0, 1.31),
        thigh_front=SagittalSegment(10.9, 0.160, 0.0, 1.02),
        shank_front=SagittalSegment(6.11, 0.152, 0.0, 0.72),
        foot_front=SagittalSegment(2.34, 0.045, -0.042, 0.07),
        foot_front_frame="heel",
        trunk=SagittalSegment(66.11, 0.391, 0.0, 18.99),
        foot=FootTriangle(l_pied=0.290, r_heel=0.146, r_toe=0.188),
    )


def _group(parts):
    """Combine (mass, x, z, iyy_centroidal) tuples into (mass, x, z, iyy about own COM)."""
    m = sum(p[0] for p in parts)
    x = sum(p[0] * p[1] for p in parts) / m
    z = sum(p[0] * p[2] for p in parts) / m
    i = sum(p[3] + p[0] * ((p[1] - x) ** 2 + (p[2] - z) ** 2) for p in parts)
    return m, x, z, i


def urdf_params() -> BipParams:
    """HuMAnS-derived sagittal set ([BIP-H] per-body masses, COMs and inertias; URDF axes, x forward, z up, link frames
    at the joint origin, zero posture = straight vertical legs).

    Segment frames: a along the segment (from the proximal joint toward the distal point), b along
    Y = Z0 x X.  In the x-z plane with the thesis's X0 = x and Y0 = z, a leg segment pointing down
    has X = (0, -1) and Y = (1, 0) (forward); pointing up X = (0, 1), Y = (-1, 0) (backward).
    Armature: constant walking-posture reflected rotor inertias, knee 0.65, hip 0.86, ankle pitch
    0.60 kg m^2 (derived from [BIP-H]: J N^2 at the walking postures' gear ratios).
    """
    # thigh 10.9 kg COM (-0.005, z -0.160) from the hip, iyy 0.1007 ([BIP-H])
    th_m, th_x, th_z, th_i = 10.9, -0.005, -0.160, 0.1007
    # shank 5.93 kg COM (-0.028, -0.152) from the knee, iyy 0.0683, plus the 0.18 kg cardan at the
    # ankle (0, -0.410) ([BIP-H])
    sh_m, sh_x, sh_z, sh_i = _group([(5.93, -0.028, -0.152, 0.0683), (0.18, 0.0, -0.410, 0.0)])
    # foot 2.34 kg COM (+0.019, -0.059) from the ankle, iyy 0.0210 ([BIP-H])
    ft_m, ft_x, ft_z, ft_i = 2.34, 0.019, -0.059, 0.0210
    # pelvis + trunk group about the hip line ([BIP-H]); hip-lever and cardan inertias 1e-4 (chosen:
    # [BIP-H] gives them ~0, a tiny positive inertia keeps the body valid), lumbar joint 0.128 above the
    # hip line ([BIP-H])
    tr_m, tr_x, tr_z, tr_i = _group(
        [
            (8.80, -0.068, -0.012, 0.0880),
            (3.20, -0.107, 0.029, 0.0207),
            (3.20, -0.107, 0.029, 0.0207),
            (0.70, -0.002, 0.034, 1e-4),
            (0.70, -0.002, 0.034, 1e-4),
            (1.05, -0.047, 0.128 - 0.025, 1e-4),
            (0.46, 0.046, 0.128, 1e-4),
            (48.00, -0.013, 0.128 + 0.405, 2.379),
        ]
    )
    L = 0.410
    foot = PUBLIC_FOOT
    # distances along / across segment frames
    # rear (root-side) leg, segments pointing up: X = (0,1), Y = (-1,0)
    #   shank from the ankle: COM at z_from_ankle = L + sh_z, x = sh_x -> a = L + sh_z, b = -sh_x
    shank_rear = SagittalSegment(sh_m, L + sh_z, -sh_x, sh_i + sh_m * ((L + sh_z) ** 2 + sh_x**2))
    thigh_rear = SagittalSegment(th_m, L + th_z, -th_x, th_i + th_m * ((L + th_z) ** 2 + th_x**2))
    # front (distal) leg, pointing down: X = (0,-1), Y = (1,0): a = -z, b = x
    thigh_front = SagittalSegment(th_m, -th_z, th_x, th_i + th_m * (th_z**2 + th_x**2))
    shank_front = SagittalSegment(sh_m, -sh_z, sh_x, sh_i + sh_m * (sh_z**2 + sh_x**2))
    # trunk pointing up: X = (0,1), Y = (-1,0)
    trunk = SagittalSegment(tr_m, tr_z, -tr_x, tr_i + tr_m * (tr_z**2 + tr_x**2))
    # foot in the ankle->toe frame: toe at (0.170, -0.083) from the ankle
    ex = np.array([0.170, -0.083]) / math.hypot(0.170, 0.083)
    ey = np.array([-ex[1], ex[0]])
    c = np.array([ft_x, ft_z])
    a6, b6 = float(c @ ex), float(c @ ey)
    foot_front = SagittalSegment(ft_m, a6, b6, ft_i + ft_m * (ft_x**2 + ft_z**2))
    # rear foot in the toe->ankle frame, origin at the toe
    toe = np.array([0.170, -0.083])
    ex1 = -toe / np.linalg.norm(toe)
    ey1 = np.array([-ex1[1], ex1[0]])
    c1 = c - toe
    foot_rear = SagittalSegment(ft_m, float(c1 @ ex1), float(c1 @ ey1), ft_i + ft_m * float(c1 @ c1))
    return BipParams(
        name="urdf",
        r_leg=L,
        r1=foot.r_toe,
        foot_rear=foot_rear,
        shank_rear=shank_rear,
        thigh_rear=thigh_rear,
        thigh_front=thigh_front,
        shank_front=shank_front,
        foot_front=foot_front,
        foot_front_frame="toe",
        trunk=trunk,
        foot=foot,
        armature={"ankle": 0.60, "knee": 0.65, "hip": 0.86},
    )


# what urdf_params lacks to describe the BIP URDF exactly (test/planner/gait/test_gait_generated_model.py): the
# YAML's armature of the sagittal joints (urdf/bip.yaml) and the 0.18 kg ankle cardan, which the URDF
# hangs under the ankle pitch joint (it turns with the foot once the ankle roll is locked) with
# iyy = 1e-4 kg m^2 (urdf/bip.urdf); its COM is on the ankle axis, so only that inertia moves
YAML_ARMATURE = {"hip": 0.65, "knee": 0.24, "ankle": 0.60}  # [kg m^2] urdf/bip.yaml
CARDAN_IYY = 1e-4  # [kg m^2] r_ankle_cardan / l_ankle_cardan, urdf/bip.urdf


def urdf_exact_params() -> BipParams:
    """`urdf_params` made to describe the BIP URDF exactly (the comment above): the hand-written
    models then equal the generated ones and the URDF's Pinocchio model to 1e-9."""
    p = urdf_params()

    def plus(s: SagittalSegment) -> SagittalSegment:
        return SagittalSegment(s.mass, s.a, s.b, s.I_O + CARDAN_IYY)

    return replace(
        p, name="urdf-exact", armature=dict(YAML_ARMATURE), foot_rear=plus(p.foot_rear), foot_front=plus(p.foot_front)
    )


PARAMETER_SETS = {"thesis": thesis_params, "urdf": urdf_params}


def get_params(name: str = "thesis") -> BipParams:
    """Parameter set by name ("thesis" or "urdf")."""
    try:
        return PARAMETER_SETS[name]()
    except KeyError:
        raise ConfigError(
            f"gait parameters: field 'params' has unknown value {name!r}; expected one of {sorted(PARAMETER_SETS)}"
        ) from None
