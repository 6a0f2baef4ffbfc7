"""Swing-foot profile: the horizontal path follows the quintic minimum-jerk timing
s(τ) = 10τ³ - 15τ⁴ + 6τ⁵ (zero velocity and acceleration at lift-off and touch-down) and the
height h·sin²(πτ) = h(1 - cos 2πτ)/2 (zero at both ends with zero vertical velocity, apex h at
mid-swing), τ = t / t_ss in [0, 1]."""

from __future__ import annotations

import numpy as np

__all__ = ["swing_profile"]


def swing_profile(tau) -> tuple[np.ndarray, np.ndarray]:
    """(horizontal fraction s(τ), height fraction sin²(πτ)) for ``tau`` in [0, 1] (clipped)."""
    tau = np.clip(np.asarray(tau, float), 0.0, 1.0)
    s = tau**3 * (10.0 - 15.0 * tau + 6.0 * tau * tau)
    return s, np.sin(np.pi * tau) ** 2
