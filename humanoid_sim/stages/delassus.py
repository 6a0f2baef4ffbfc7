"""Delassus stage of a World step: per collision group the relative Jacobian J (contacts, then the
robot's joint-limit rows), M̃⁻¹Jᵀ, W = dt J M̃⁻¹ Jᵀ and J q̇_free, as one
`humanoid_sim.delassus.group.GroupSystem` (the world's `GroupDelassus`), then, with FEM soles,
their compliance coupled into W and v_free (eq. 4.21,
`humanoid_sim.soles.world_coupling.FemSoles.couple`)."""

from __future__ import annotations

__all__ = ["delassus"]


def delassus(world, contacts, limits, M, vf) -> list:
    """The step's `GroupSystem` list. contacts: the contacts stage's `StepContacts`; limits: its
    `LimitRows` or None; M: M̃ with its entries in the lower triangle (free stage); vf (nv,):
    q̇_free. Reads ``world.delassus``, ``world.data`` (``J``) and ``world.soles``."""
    systems = world.delassus.systems(contacts, limits, world.data.J, M, vf)
    soles = world.soles
    if soles is not None:
        soles.couple(systems, contacts)  # W += T K_c⁻¹ Tᵀ/dt, v_free −= T U_c/dt (eq. 4.21)
    return systems
