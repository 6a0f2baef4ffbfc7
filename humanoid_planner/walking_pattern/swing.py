"""Swing-foot profiles, τ = t / t_ss in [0, 1] (docs/walking.md "Swing feet"):

* ``smooth`` (this generator's default): the horizontal path follows the quintic minimum-jerk
  timing s(τ) = 10τ³ - 15τ⁴ + 6τ⁵ (zero velocity and acceleration at lift-off and touch-down) and
  the height h·sin²(πτ) (zero at both ends with zero vertical velocity, apex h at mid-swing);
* ``walkgen`` (the thesis's generator, Stasse et al. 2008, in Chardonnet 2009, §4.4.2, as its public
  walkGenJrl source of 2005-2007 defines it): the height is the quartic 16τ²(1 - τ)² through 0 at
  both ends with zero velocity and h at mid-swing, and the horizontal path the cubic 3u² - 2u³ over
  the middle ``WALKGEN_MODULATION`` of the single support, u = (τ - (1 - m)/2)/m clipped to [0, 1]
  (the foot lifts and lands vertically: zero horizontal velocity at both ends). It lands with
  32h/t_ss² of vertical deceleration, against 2π²h/t_ss² for ``smooth``.
"""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

__all__ = ["swing_profile", "swing_path", "SWING_STYLES", "WALKGEN_MODULATION"]

#: fraction of the single support during which the walkGenJrl generator moves the swing foot horizontally
#: (its ``m_ModulationSupportCoefficient``, the "vertical landing" of its 2005 change log)
WALKGEN_MODULATION = 0.9


def _smooth(tau):
    return tau**3 * (10.0 - 15.0 * tau + 6.0 * tau * tau), np.sin(np.pi * tau) ** 2


def _walkgen(tau):
    u = np.clip((tau - 0.5 * (1.0 - WALKGEN_MODULATION)) / WALKGEN_MODULATION, 0.0, 1.0)
    return u * u * (3.0 - 2.0 * u), 16.0 * tau * tau * (1.0 - tau) ** 2


SWING_STYLES = {"smooth": _smooth, "walkgen": _walkgen}


def swing_profile(tau, style: str = "smooth") -> tuple[np.ndarray, np.ndarray]:
    """(horizontal fraction, height fraction) for ``tau`` in [0, 1] (clipped), ``style`` in
    `SWING_STYLES`; both fractions are 0 at τ = 0, the horizontal one 1 at τ = 1, the height's
    apex 1 at τ = 1/2."""
    if style not in SWING_STYLES:
        raise PlanningError(f"walk: field 'swing' must be one of {', '.join(SWING_STYLES)}; value {style!r}")
    return SWING_STYLES[style](np.clip(np.asarray(tau, float), 0.0, 1.0))


def swing_path(a, b, tau, height: float) -> np.ndarray:
    """(n, 3) positions [m] of a sole swinging from ``a`` (3,) to ``b`` (3,) at ``tau`` (n,) in
    [0, 1] with the ``smooth`` profile: horizontally by the quintic progress, vertically a sin² lift
    of ``height`` [m] on top of the height change, which the same quintic makes over the first half
    of the swing going up and over the second half going down (the sole clears a riser's edge
    before passing over it; a contact plan's dynamic motion, `humanoid_planner.motion.dynamic`)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    tau = np.clip(np.asarray(tau, float), 0.0, 1.0)
    s, h = swing_profile(tau)
    rise = swing_profile(2 * tau if b[2] >= a[2] else 2 * tau - 1)[0]
    out = a + s[:, None] * (b - a)
    out[:, 2] = a[2] + rise * (b[2] - a[2]) + height * h
    return out
