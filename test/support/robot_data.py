"""The humanoids of the optional ``robots`` extra (example-robot-data, pinned in requirements.txt):
`erd_robot(rel)` is the path of ``robots/REL`` in its installed share folder, or None when the
extra is not installed (the tests that need it skip): `humanoid_model.paths.example_robot`."""

from __future__ import annotations

from humanoid_model.paths import example_robot as erd_robot

__all__ = ["TALOS", "TALOS_SRDF", "G1", "erd_robot"]

TALOS = "talos_data/robots/talos_reduced.urdf"
TALOS_SRDF = "talos_data/srdf/talos.srdf"
G1 = "g1_description/urdf/g1_29dof_rev_1_0.urdf"
