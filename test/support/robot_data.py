"""The humanoids of the optional ``robots`` extra (example-robot-data, pinned in requirements.txt):
`erd_robot(rel)` is the path of ``robots/REL`` in its installed share folder, or None when the
extra is not installed (the tests that need it skip)."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

TALOS = "talos_data/robots/talos_reduced.urdf"
TALOS_SRDF = "talos_data/srdf/talos.srdf"
G1 = "g1_description/urdf/g1_29dof_rev_1_0.urdf"


def erd_robot(rel: str) -> Path | None:
    """``robots/REL`` of example-robot-data, or None without the extra (or without that file)."""
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(dist.locate_file(f"cmeel.prefix/share/example-robot-data/robots/{rel}"))
    return path if path.is_file() else None
