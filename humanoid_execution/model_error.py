"""A robot model with wrong masses, for testing a controller's robustness to model error: every
body's mass and rotational inertia scaled by a random factor, its centre of mass kept.

    model = perturbed_masses(robot.model, error=0.1, seed=3)   # each mass within ±10 %
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_model.validation import finite_number, integer

__all__ = ["perturbed_masses"]


def perturbed_masses(model: pin.Model, error: float, seed: int) -> pin.Model:
    """A copy of ``model`` whose every body (a joint's inertia with mass > 0) has its mass and its
    rotational inertia multiplied by 1 + u, u uniform in [−error, error] (a body of the same shape
    and a wrong density), its centre of mass unchanged. ``seed`` fixes the draw."""
    error = finite_number(error, "model error", "error", minimum=0.0, maximum=0.9)
    rng = np.random.default_rng(integer(seed, "model error", "seed", minimum=0))
    out = pin.Model(model)
    for j in range(1, out.njoints):
        I = out.inertias[j]
        if I.mass <= 0:
            continue
        s = 1.0 + rng.uniform(-error, error)
        out.inertias[j] = pin.Inertia(I.mass * s, I.lever.copy(), I.inertia * s)
    return out
