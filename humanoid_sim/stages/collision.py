"""Collision stage of a World step: the point contacts within the activation margin, each
shape's margin widened to the distance it can travel in the step (speculative activation,
`humanoid_sim.stages.impacts.SweptMargins`), found by the world's
`humanoid_sim.collision.detector.CollisionDetector` (broad and narrow phase), plus the contacts
of the FEM soles' surface nodes when the soles are deformable
(`humanoid_sim.soles.world_coupling.FemSoles.add_contacts`)."""

from __future__ import annotations

__all__ = ["collision"]


def collision(world, vf):
    """(the step's `humanoid_sim.collision.batch.ContactBatch`, the joints' world rotations
    (k, 3, 3) and positions (k, 3) [m]) for the free velocity ``vf`` (nv,). Reads
    ``world.data`` (after the kinematics stage), ``world.detector``, ``world.sweeps`` and
    ``world.soles``."""
    data, detector = world.data, world.detector
    R, p = detector.joint_placements(data)
    sweep = world.sweeps(data.J, p, vf)
    batch = detector.detect(R, p, sweep)
    soles = world.soles
    if soles is not None:
        batch = soles.add_contacts(batch, R, p, sweep)
    return batch, R, p
