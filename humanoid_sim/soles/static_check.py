"""The sole compression a World holds, against a static FEM solve of the same load (HRP-2
stands with a sole compression that matches a static FEM solve of the same load to 1 %;
docs/soles.md "In the simulator").

For each sole of a world with FEM soles, at its state after the last step: the ground forces on its
nodes (`FemSoles.node_forces`, what the contact solve put there) are applied to the uncondensed,
Dirichlet-reduced stiffness K^r U = F (`CondensedSole.solve_full`, eqs 4.10–4.11: no surface or
contact condensation, an independent path); the static FEM sink of each loaded node (its vertical
displacement, world axes) is compared with how far the rigid foot has moved that node's undeformed
position below the ground (z = 0). A coupling that condensed, rotated or updated wrongly gives two
different numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

__all__ = ["SoleSink", "sole_sinks", "LOADED"]

LOADED = 1e-3  # a node carrying more than this fraction of its sole's largest normal force is loaded (chosen)


@dataclass
class SoleSink:
    """One sole: ``depth`` (k,) [m] how far the rigid foot put its loaded nodes' undeformed
    positions below z = 0; ``sink`` (k,) [m] the static FEM compression of those nodes under the
    same node forces; ``force`` (3,) [N] the ground force on the sole, world axes."""

    name: str
    depth: np.ndarray
    sink: np.ndarray
    force: np.ndarray

    @property
    def relative_error(self) -> float:
        """max |depth − sink| / max |sink| over the loaded nodes."""
        return float(np.abs(self.depth - self.sink).max() / np.abs(self.sink).max())


def sole_sinks(world) -> list[SoleSink]:
    """`SoleSink` of each FEM sole of ``world`` (flat ground at z = 0) after its last step."""
    data = world.model.createData()
    pin.forwardKinematics(world.model, data, world.q)
    out = []
    for s, F in zip(world.soles.soles, world.soles.node_forces(world.last.forces, world.last.frames), strict=True):
        mesh = s.sole.mesh
        F_all = np.zeros((mesh.n_nodes, 3))
        F_all[mesh.surface_nodes] = F
        U = s.sole.solve_full(F_all)[mesh.surface_nodes]  # independent path: K^r U = F, no condensation
        oMi = data.oMi[s.joint]
        R, p = oMi.rotation @ s.jR, oMi.translation + oMi.rotation @ s.jp
        loaded = F[:, 2] > LOADED * F[:, 2].max()
        depth = -(p + s.X[loaded] @ R.T)[:, 2]  # how far the rigid foot put the undeformed nodes below z = 0
        sink = (U[loaded] @ R.T)[:, 2]  # the static FEM compression of those nodes under the same forces
        out.append(SoleSink(s.spec.name, depth, sink, F.sum(axis=0) @ R.T))
    return out
