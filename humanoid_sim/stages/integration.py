"""Integration stage of a World step: the velocity after the contacts, q̇ᵗ⁺¹ = q̇_free + M̃⁻¹Jᵀ(dt f),
and the positions, qᵗ⁺¹ = qᵗ ⊕ dt q̇ᵗ⁺¹ with free flyers on R³ × SO(3)
(`humanoid_sim.stages.integrator`: `integrate`, `carry`; a split penetration correction of the
solve stage moves the positions only), then the momentum projection of the trees in free flight
(`humanoid_sim.stages.integrator.MomentumProjection`) and the actuators' applied torques."""

from __future__ import annotations

from humanoid_sim.stages.integrator import carry, integrate

__all__ = ["integration"]


def integration(world, q, v, vf, dv, dv_position, contacts, damp):
    """(qᵗ⁺¹, q̇ᵗ⁺¹) of a step that started at (q, v). vf (nv,): q̇_free; dv (nv,): the contacts'
    velocity change; dv_position: None, or the extra velocity change of the positions (solve
    stage); contacts: the step's `StepContacts`; damp: the actuation's implicit damping (actuators
    stage). Sets ``world.tau_applied`` (with a robot). Reads ``world.model``, ``world.dt``,
    ``world.flyers``, ``world.momentum``, ``world.tree_cols``, ``world.wrenches``,
    ``world.haptics``, ``world.grasps``, ``world.t`` and ``world.actuation``."""
    model, dt, flyers = world.model, world.dt, world.flyers
    vnew = vf + dv
    # a split penetration correction moves the positions only (`humanoid_sim.stages.solve`)
    vpos = vnew if dv_position is None else vnew + dv_position
    qnew = integrate(model, q, vpos, dt, flyers)
    carry(vnew, vpos, dt, flyers)  # in place (vnew is the step's own array): free flyers keep R v_lin
    momentum = world.momentum
    if momentum is not None and not (contacts.batch.m and len(world.tree_cols) == 1):
        pushed = world.wrenches.pushed_trees(world.t)
        haptics = world.haptics
        if haptics is not None and haptics.active:
            pushed |= haptics.trees
        grasps = world.grasps
        if grasps is not None and grasps.couplings:
            pushed |= grasps.trees
        free = momentum.free_trees(contacts.tree_a, contacts.tree_b, pushed)
        if free:
            vnew = momentum.project(free, q, v, qnew, vnew)
    actuation = world.actuation
    if actuation is not None:
        world.tau_applied = actuation.applied(damp, v, vnew)
    return qnew, vnew
