"""Free-dynamics stage of a World step: the velocity at the end of the step without contact
forces, q̇_free = q̇ + dt M̃⁻¹ (τ − b) (`humanoid_sim.stages.integrator.free_velocity`), from
``pin.crba``'s mass matrix (M̃: M plus the implicit PD damping dt·K_v in the model's armature)
and Pinocchio's Cholesky factor of it.

The thesis computes the free motion with the articulated-body algorithm; CRBA with a Cholesky
factor gives the same velocities to rounding, and the Delassus stage uses M̃ too
(docs/simulator.md, "One step")."""

from __future__ import annotations

import pinocchio as pin

from humanoid_sim.stages.integrator import free_velocity

__all__ = ["free"]


def free(world, q, v, tau):
    """(q̇_free (nv,) [m/s, rad/s], M̃ (nv, nv) with its entries in the lower triangle) of a step
    that starts at (q, v) under the generalised forces ``tau`` (nv,). Reads ``world.model``,
    ``world.data`` (after the kinematics stage), ``world.dt`` and ``world.flyers``; leaves
    ``data.M`` and its Cholesky factor in ``world.data``."""
    model, data = world.model, world.data
    pin.crba(model, data, q)
    vf = free_velocity(model, data, q, v, tau, world.dt, world.flyers)
    return vf, data.M.T  # crba fills the upper triangle: M.T holds it in the lower one
