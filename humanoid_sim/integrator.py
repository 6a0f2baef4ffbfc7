"""Integration stage (spec ../shared/spec/000_chardonnet.md §2.9): semi-implicit (symplectic)
Euler on the configuration Lie group.

    free step    M̃ (q̇_free − q̇ᵗ) = dt (τ − b(q, q̇ᵗ))            (M̃ = M + dt·K_v: implicit PD damping)
    contacts     q̇ᵗ⁺¹ = q̇_free + M̃⁻¹ Jᵀ (dt f)                   (eq. 3.20)
    positions    qᵗ⁺¹ = qᵗ ⊕ dt q̇ᵗ⁺¹                             (`pin.integrate`)

Deviation from the thesis (documented as the spec asks, §2.9 note): the thesis uses explicit
Euler; positions here use the post-contact velocity q̇ᵗ⁺¹ (semi-implicit), otherwise resting
bodies sink by one step of gravity velocity per step. `pin.integrate` keeps free-flyer and
spherical-joint quaternions on the unit sphere (exponential map), spec §2.12.

Momentum projection (our addition, `World(momentum_projection=True)`): the scheme above does not
conserve the spatial momentum of a free-floating tree exactly (A(q) M⁻¹ b ≠ 0 gives an O(dt²)
drift per step: 1e-3 relative after 1 s for a spinning HRP-2). For a tree in free flight (no
contact, no applied wrench in the step) the World corrects the tree's base velocity after the
position update so that its momentum about the world origin equals the start-of-step value plus
the gravity impulse; joint velocities are untouched. Trees in contact are never projected.
"""
from __future__ import annotations

import numpy as np
import pinocchio as pin

__all__ = ["free_velocity", "integrate"]


def free_velocity(model, data, q, v, tau, dt):
    """q̇_free = q̇ + dt M̃⁻¹ (τ − b). Uses (and leaves) ``data.M`` (upper triangle, from
    ``pin.crba``; the model's armature holds dt·K_v) and its Pinocchio Cholesky factor."""
    b = pin.nonLinearEffects(model, data, q, v)
    pin.cholesky.decompose(model, data)
    return v + dt * pin.cholesky.solve(model, data, tau - b)


def integrate(model, q, v, dt):
    """qᵗ⁺¹ = q ⊕ dt v on the Lie group, quaternions renormalised to machine precision."""
    return pin.integrate(model, q, v * dt)
