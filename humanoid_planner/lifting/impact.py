"""The impact of the dynamic box lift, designed so that the feet do not move (Chardonnet 2009,
§5.2.1.2–§5.2.1.3, eqs. (5.9)–(5.14), after Arisumi et al. 2007).

At the end of the preliminary motion the robot, moving, locks its arms on the box at rest: the two
become one rigid body (the thesis's third assumption) that then turns about the foot centre B as an
inverted pendulum (§5.2.1.2) until its centre of mass A stands above B, at rest. The impact is
designed so that B is the centre of percussion: the merged body's velocity at B is zero just after
the impact, so the floor takes no impulse and the feet stay put.

The frame is the sagittal plane, x forward, z up; a planar angle or moment is positive from x to z.
Momenta are conserved through the impact (no external impulse, §5.2.1.3): with the robot's mass m_r,
centre of mass D, velocity v_r and angular momentum h_r about D before, and the box (m_o, centre of
mass C) at rest,

    m_s v_s⁺ = m_r v_r⁻                                  (linear momentum; m_s = m_r + m_o)
    I_s ω_s⁺ = h_r⁻ + (D − A) × m_r v_r⁻                 (5.9)–(5.10), about the merged centre A

(`locked_impact`). The thesis's (5.10), I_r ω̄_r = I_s ω̄_s⁺ + r̄_ACx m_o v̄_rz⁻, is the second line
for a rigid robot (h_r = I_r ω_r) moving along the lift direction z̄, using m_r r̄_AD + m_o r̄_AC = 0.

`design_impact` inverts these. The pendulum after the impact (§5.2.1.2) must bring A from its lean θ₀
(from the vertical through B) to the top with no speed left: ½ I_B ω_s⁺² = m_s g l (1 − cos θ₀), with
l = |BA| and I_B = I_s + m_s l². Its angular momentum about B is then L_B = I_B ω_s⁺ (5.12)–(5.13).
B has zero velocity (5.11) when A moves perpendicular to BA at l ω_s⁺: this is the lift direction
z̄, and the perpendicular from B to it meets it at F = A, so |r̄_BF| = l. The robot's velocity before
the impact is then v_r⁻ = m_s v_s⁺ / m_r along z̄, and its angular momentum h_r⁻ follows from the
second line ((5.14) with I_r ω̄_r = h_r⁻).

Deviation: the thesis's robot is one rigid body before the impact (I_r ω_r); ours may move its joints
(the hands stay on the box while the body moves), so the design gives its angular momentum about its
centre of mass, h_r⁻, which a joint motion can meet exactly, and the locked body's inertia I_s at the
impact posture.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humanoid_planner.exceptions import PlanningError

__all__ = ["ImpactDesign", "cross", "design_impact", "locked_impact"]

G = 9.81  # [m/s^2]


def cross(a, b) -> float:
    """The planar cross product a × b = a_x b_z − a_z b_x (positive from x to z)."""
    return float(a[0] * b[1] - a[1] * b[0])


def _composite(m_r, c_r, i_r, m_o, c_o, i_o):
    """(m_s, A, I_s): the merged body's mass, centre of mass and inertia about it."""
    c_r, c_o = np.asarray(c_r, float), np.asarray(c_o, float)
    m_s = m_r + m_o
    a = (m_r * c_r + m_o * c_o) / m_s
    i_s = i_r + m_r * float((c_r - a) @ (c_r - a)) + i_o + m_o * float((c_o - a) @ (c_o - a))
    return m_s, a, i_s


def locked_impact(m_r, c_r, v_r, h_r, m_o, c_o, i_s) -> tuple[np.ndarray, np.ndarray, float]:
    """The merged body's (centre of mass A, its velocity v_s⁺, angular velocity ω_s⁺) just after a
    robot (mass m_r, centre of mass c_r, velocity v_r, angular momentum h_r about c_r) locks onto a
    body at rest (mass m_o, centre of mass c_o); ``i_s``: the merged body's inertia about A (module
    docstring)."""
    c_r, c_o, v_r = (np.asarray(x, float) for x in (c_r, c_o, v_r))
    m_s = m_r + m_o
    a = (m_r * c_r + m_o * c_o) / m_s
    return a, m_r * v_r / m_s, (h_r + cross(c_r - a, m_r * v_r)) / i_s


@dataclass(frozen=True)
class ImpactDesign:
    """The impact that leaves the foot centre at rest and the pendulum's swing to the top (module
    docstring). Positions [m] in the sagittal plane; ``direction``: the lift direction z̄ (unit);
    ``lean``: θ₀ [rad], A ahead of B; ``omega``: ω_s⁺ [rad/s]; ``momentum``: L_B [kg m²/s];
    ``robot_velocity``: v_r⁻ [m/s] along z̄ (the robot's centre of mass); ``robot_momentum``: h_r⁻
    [kg m²/s] about it; ``inertia``: I_s [kg m²]; ``arm``: l [m]."""

    pivot: np.ndarray
    com: np.ndarray
    mass: float
    inertia: float
    arm: float
    lean: float
    direction: np.ndarray
    omega: float
    momentum: float
    robot_velocity: float
    robot_momentum: float


def design_impact(m_r, c_r, i_r, m_o, c_o, i_o, pivot, g: float = G) -> ImpactDesign:
    """The impact of a robot (mass m_r [kg], centre of mass c_r [m], inertia i_r [kg m²] about it, as
    locked at the impact posture) on a box at rest (m_o, c_o, i_o) that leaves ``pivot`` (the foot
    centre B) at rest and brings the merged centre of mass to rest above it (module docstring)."""
    for name, value in (("robot mass", m_r), ("box mass", m_o), ("robot inertia", i_r), ("box inertia", i_o)):
        if not np.isfinite(value) or value < 0 or (name == "robot mass" and value == 0):
            raise PlanningError(f"design_impact: the {name} must be a finite number >= 0 (> 0 for the robot); {value}")
    m_s, a, i_s = _composite(m_r, c_r, i_r, m_o, c_o, i_o)
    b = np.asarray(pivot, float)
    r = a - b
    arm = float(np.hypot(*r))
    lean = float(np.arctan2(r[0], r[1]))
    if not 0.0 < lean < np.pi / 2:
        raise PlanningError(
            f"design_impact: the merged centre of mass must stand ahead of the foot centre and above it to "
            f"swing back over it; it leans {np.degrees(lean):.1f} deg from the vertical through the foot centre"
        )
    i_b = i_s + m_s * arm * arm
    omega = float(np.sqrt(2.0 * m_s * g * arm * (1.0 - np.cos(lean)) / i_b))
    direction = np.array([-r[1], r[0]]) / arm  # A's velocity under a rotation of +omega about B
    v_s = arm * omega * direction
    v_r = m_s * v_s / m_r
    h_r = i_s * omega - cross(np.asarray(c_r, float) - a, m_r * v_r)
    return ImpactDesign(b, a, m_s, i_s, arm, lean, direction, omega, i_b * omega, float(v_r @ direction), h_r)
