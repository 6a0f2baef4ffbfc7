"""The box on the floor under the hands' force: the four conditions of the dynamic lift's preliminary
motion (Chardonnet 2009, §5.2.1.5, eqs. (5.19)–(5.22), after Arisumi et al. 2007).

While the robot leans forward to build its momentum, the box stays on the floor and the hands push
and pull on it; the box must neither slide, tip back, tip forward nor leave the floor before the
impact (§4.16, F1: "the hand force satisfies (5.19)–(5.22) with margin ≥ 0 at every step of the
preliminary motion"). `hold_margins` gives the four margins of a hand force, each ≥ 0 exactly when
its condition holds; a run's hand forces give one row each.

The frame is the sagittal plane: x horizontal, away from the robot, z up from the floor; the box's
near bottom edge (edge 1, towards the robot) at x = 0 and its far edge (edge 2) at x = d_o; moments
about the lateral axis, positive from x to z. The hands' force on the box (both hands together) is
f_h = (f_hx, f_hz) [N], applied at (x_h, z_h) [m], with the moment τ_h [N·m]; the box's mass m_o
[kg] has its centre of mass at x_o; μ_o is the box–floor friction.

    slip          (5.19)  μ_o (m_o g − f_hz) − |f_hx|                       [N]
    tip back      (5.20)  −τ_e1 = −(τ_h − m_o g x_o + f_hz x_h − f_hx z_h)   [N·m]
    tip forward   (5.21)  τ_e2 = τ_h + m_o g (d_o − x_o) − f_hz (d_o − x_h) − f_hx z_h   [N·m]
    lift-off      (5.22)  m_o g − f_hz                                        [N]

τ_e1 and τ_e2 are the applied moments about the two bottom edges: the floor's reaction balances
them with its normal force N = m_o g − f_hz at its centre of pressure x_c, so that −τ_e1 = N x_c and
τ_e2 = N (d_o − x_c): the box tips when x_c would leave [0, d_o]. Deviation: the thesis writes
(5.19) as f_hx < μ_o (m_o g − f_hz), a push away from the robot; `hold_margins` bounds |f_hx|, so a
pull is bounded too (the floor's friction holds either way).

The thesis's box (§5.2.1.6, §4.16): 4.5 kg, μ_o = 0.4, d_o = 0.3 m, the hands at z_h = 0.495 m,
its centre of mass at the height of the grasp point, and "z_o = 0.15 m", read here as the centre of
mass's x_o = d_o / 2 (a uniform box: no z_o enters (5.19)–(5.22), and the thesis gives no other
horizontal position). `THESIS_BOX` holds these.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humanoid_planner.exceptions import PlanningError

__all__ = ["Box", "THESIS_BOX", "THESIS_HAND_HEIGHT", "MARGINS", "hold_margins"]

G = 9.81  # [m/s^2]
MARGINS = ("slip", "tip back", "tip forward", "lift-off")  #: the columns of `hold_margins`, (5.19)–(5.22)


@dataclass(frozen=True)
class Box:
    """A box on the floor (module docstring): mass m_o [kg], box–floor friction μ_o, depth d_o [m]
    along x, centre of mass x_o [m] from its near bottom edge."""

    mass: float
    friction: float
    depth: float
    com_x: float

    def __post_init__(self):
        for name in ("mass", "depth"):
            if not np.isfinite(getattr(self, name)) or getattr(self, name) <= 0:
                raise PlanningError(f"box: {name} must be a finite number > 0; value {getattr(self, name)}")
        if not np.isfinite(self.friction) or self.friction < 0:
            raise PlanningError(f"box: friction must be a finite number >= 0; value {self.friction}")
        if not 0.0 <= self.com_x <= self.depth:
            raise PlanningError(f"box: com_x must lie on the box, in [0, {self.depth}] m; value {self.com_x}")


THESIS_BOX = Box(mass=4.5, friction=0.4, depth=0.3, com_x=0.15)  #: Chardonnet 2009, §5.2.1.6 (module docstring)
THESIS_HAND_HEIGHT = 0.495  #: z_h [m], Chardonnet 2009, §5.2.1.6


def hold_margins(box: Box, f_h, tau_h, x_h, z_h, g: float = G) -> np.ndarray:
    """(..., 4) the margins of (5.19)–(5.22) (`MARGINS`: slip [N], tip back and tip forward
    [N·m], lift-off [N]) of the hands' force f_h (..., 2) = (f_hx, f_hz) [N] and moment tau_h (...)
    [N·m] applied at (x_h, z_h) (...) [m] (module docstring); each ≥ 0 exactly when its condition
    holds. Broadcasts over the leading axes (a run's samples)."""
    f_h = np.asarray(f_h, float)
    if f_h.shape[-1:] != (2,):
        raise PlanningError(f"hold_margins: f_h must have 2 components (f_hx, f_hz) last; shape {f_h.shape}")
    fx, fz = f_h[..., 0], f_h[..., 1]
    tau_h, x_h, z_h = (np.asarray(a, float) for a in (tau_h, x_h, z_h))
    weight = box.mass * g
    tau_e1 = tau_h - weight * box.com_x + fz * x_h - fx * z_h  # (5.20)
    tau_e2 = tau_h + weight * (box.depth - box.com_x) - fz * (box.depth - x_h) - fx * z_h  # (5.21)
    return np.stack(np.broadcast_arrays(box.friction * (weight - fz) - np.abs(fx), -tau_e1, tau_e2, weight - fz), -1)
