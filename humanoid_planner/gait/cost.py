"""Penalised running cost of the optimal gait problem (Chessé 2002, eq. (III.21), with the exterior
penalties of eq. (II.14)).

l_r = 1/2 mu_c sum xi_i (gamma_i u_i)^2            (torques)
    + 1/2 mu_f sum xi_j (gamma_j F_j)^2            (released contact forces, DS)
    + 1/2 r_d gamma10 |B1B1'|^2 + 1/2 r_a delta^2   (closure and flattening, DS; exterior penalties)
    + 1/2 r_h sum (h_k^+ / s_k)^2                  (joint range, joint velocity, anti-collision)

Only r_d = 150 is published (Chessé 2002, §III.3.2.8); the thesis gives no other weight, scaling or
limit, so everything else in :class:`Weights` is our choice, documented field by field.  One weight
set serves every phase.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

# largest rate of the DS front-toe force with the contact extension [N/s] (chosen, docs/gait.md): the
# toe may take the robot's whole weight (1028 N) within half of the 0.17 s DS, 1028 / 0.085 = 12.1e3;
# it replaces the 6 N cap, which forbids steps under ~0.4 m (the body moves past the heel while the
# toe may push 6 N only) and with which the 0.4 m step needs 400 N m torques
TOE_FORCE_RATE = 12000.0


@dataclass(frozen=True)
class Weights:
    """Weights, scalings, limits (all chosen unless cited)."""

    mu_c: float = 1.0  # torque weight (chosen; only the ratio mu_c/mu_f matters)
    mu_f: float = 1.0  # contact-force weight (chosen)
    xi_tau: tuple = (1.0,) * 6  # per-joint cursors xi_i (chosen uniform)
    xi_f: tuple = (1.0, 1.0, 1.0)
    gamma_tau: float = 1.0 / 100.0  # [1/(N m)]: 100 N m ~ the scale of the joint torques (chosen)
    gamma_f: float = 1.0 / 1000.0  # [1/N]: 1000 N ~ the robot's weight, 1028 N (chosen)
    r_d: float = 150.0  # closure penalty factor (Chessé 2002, §III.3.2.8)
    gamma10: float = 2.0e4  # closure scaling [1/m^2] (chosen, docs/gait.md): with r_d = 150 the
    # cyclic DS closes to 0.37 mm, the thesis's 0.3 mm (Chessé 2002, §III.3.2.8); 1e4 leaves 1.03 mm
    # in the pre-stop DS with the toe-force rate bound, over the 1 mm of acceptance test 003 A9
    r_a: float = 15.0  # flattening penalty factor [1/rad^2] (chosen, docs/gait.md)
    r_h: float = 1.0e3  # inequality penalty factor (Chessé 2002, §II.3.5: '10^2-10^3')
    s_angle: float = 0.01  # h scaling [rad]: 1e3 (h/0.01)^2 (chosen)
    s_vel: float = 0.1  # [rad/s]
    s_dist: float = 0.01  # [m]
    tau_max: float = 400.0  # |u_i| <= 400 N m (chosen, see docs/gait.md: the thesis's gait
    # data need > 150 N m at the stance ankle)
    toe_force_max: float | None = 6.0  # DS front-toe force 0 <= FB2 <= 6 N: the thesis-faithful box
    # (our reading of the thesis's "NB2 saturated at 6 N", Chessé 2002, §III.3.2.8, as a saturation
    # level of the toe force u8; the PMP's box); with enforce_contacts the toe-force rate bound replaces
    # it (below); None disables it
    toe_contact_eps: float | None = 1.0e-4  # [N m] complementarity of the DS front toe:
    # height(toe) * FB2 <= eps at every node when enforce_contacts (a force only where the toe
    # touches: FB2 = 0 during flattening, Chessé 2002, §II.4.2); 1e-4 N m allows at most 0.1 N at
    # 1 mm above the ground (1e-4 of the weight, 1028 N; chosen, docs/gait.md); None disables it
    toe_force_rate: float | None = TOE_FORCE_RATE  # [N/s] with enforce_contacts: |dFB2/dt| <=
    # rate between DS nodes instead of the 6 N cap (the toe lands without an impact, its force
    # rising from 0 continuously; docs/gait.md); None: the cap toe_force_max instead
    ss_toe_min: float = 6.0  # SS stance toe NB2 >= 6 N (our reading of "NB2 saturated at 6 N", §III.3.2.8)
    ss_heel_min: float = 1.0  # SS stance heel NB1 >= 1 N (strict unilaterality with a 1 N
    # margin, chosen; unilaterality NB1 > 0, Chessé 2002, §III.3.2.6)
    enforce_contacts: bool = False  # extension: friction cones and rear/stance unilaterality as
    # NLP constraints (the thesis only checks them afterwards)
    friction: float = 0.25  # friction coefficient of the NLP cones when enforce_contacts
    # (chosen: margin under the thesis's 0.3, Chessé 2002, §III.3.2.8)
    friction_check: float = 0.3  # bound of the a-posteriori check (tangential / normal < 0.3, §III.3.2.8)
    # joint ranges in URDF signs (the mechanical ranges of [BIP-H]: hip pitch -75..20 deg, knee 0..90 deg,
    # ankle pitch +-45 deg) and velocity limits (chosen, no public source gives BIP's: above a human's
    # walking peaks, hip 5, knee 7, ankle 6 rad/s)
    limits: dict = field(
        default_factory=lambda: {
            "hip_pitch": (math.radians(-75.0), math.radians(20.0)),
            "knee": (0.0, math.radians(90.0)),
            "ankle_pitch": (math.radians(-45.0), math.radians(45.0)),
        }
    )
    vel_limits: dict = field(default_factory=lambda: {"hip_pitch": 5.0, "knee": 7.0, "ankle_pitch": 6.0})

    def with_(self, **kw) -> Weights:
        return replace(self, **kw)

    def toe_force_cap(self) -> float | None:
        """The DS toe-force upper bound [N] of this weight set: the thesis's box `toe_force_max`,
        unless the contact extension's rate bound `toe_force_rate` replaces it."""
        return None if (self.enforce_contacts and self.toe_force_rate is not None) else self.toe_force_max

    def torque_w(self):
        """Diagonal W entries mu_c xi_i gamma_i^2 for the torques."""
        return [self.mu_c * x * self.gamma_tau**2 for x in self.xi_tau]

    def force_w(self):
        return [self.mu_f * x * self.gamma_f**2 for x in self.xi_f]
