"""The world placements of a Pinocchio Data's joints (``data.oMi``) as one numpy view of
Pinocchio's own memory: ``oMi_view(data)``.

``data.oMi`` is a C++ vector of SE3 placements, each its rotation (3 × 3, column-major) then its
translation (3), twelve doubles with no padding, and Pinocchio's Python bindings give each
element's rotation and translation as numpy views of that memory. Reading every joint through
``data.oMi.tolist()`` and ``.homogeneous`` builds one Python object and one 4 × 4 array per joint
each step (about 10-40 µs on Talos's 34 joints); the view below reads the same doubles with one
strided copy. It is checked once against the elements' own views: when a Pinocchio build lays
the vector out otherwise, ``oMi_view`` returns None and the caller reads the elements.

The view aliases ``data``: it holds what the last forward kinematics on ``data`` wrote, and is
valid while ``data`` lives (the caller keeps a reference to it). `JointFrames` keeps the view of
the last Data it read, for a caller that reads one Data step after step: the simulator's collision
detector (`humanoid_sim.collision.detector`) and the planner's distance bounds
(`humanoid_planner.posture.constraints.environment_collision`).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = ["JointFrames", "oMi_view"]

_DOUBLES = 12  # one SE3: rotation (9, column-major), then translation (3)


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def oMi_view(data) -> tuple[np.ndarray, np.ndarray] | None:
    """(rotations (njoints, 3, 3), positions (njoints, 3)): views of ``data.oMi`` [m], or None
    when the vector's memory is not laid out as twelve contiguous doubles per joint (module
    docstring)."""
    elements = data.oMi.tolist()  # kept alive while their addresses are compared
    n = len(elements)
    if n == 0:
        return None
    rot0 = elements[0].rotation
    base = _address(rot0)
    step = 8 * _DOUBLES
    for j, e in enumerate(elements):
        R, p = e.rotation, e.translation
        if R.dtype != np.float64 or R.strides != (8, 24) or p.dtype != np.float64 or p.strides != (8,):
            return None
        if _address(R) != base + j * step or _address(p) != base + j * step + 72:
            return None
    # R[j][a, b] at double 12 j + a + 3 b (column-major), p[j][a] at double 12 j + 9 + a
    rotations = as_strided(rot0, shape=(n, 3, 3), strides=(step, 8, 24), writeable=False)
    positions = as_strided(elements[0].translation, shape=(n, 3), strides=(step, 8), writeable=False)
    for j, e in enumerate(elements):  # the same doubles as the elements' own views
        if not (np.array_equal(rotations[j], e.rotation) and np.array_equal(positions[j], e.translation)):
            return None
    return rotations, positions


class JointFrames:
    """``frames(data)``: `oMi_view` of ``data``, made once per Data (the last one read is kept, with
    a reference to it, so the view stays valid); None where `oMi_view` is (the caller then reads
    ``data.oMi``'s elements). Pickled without it (a copy reads its own Data again)."""

    def __init__(self):
        self._last = (None, None)  # (the Data last read, its view or None)

    def __call__(self, data) -> tuple[np.ndarray, np.ndarray] | None:
        read, view = self._last
        if read is not data:
            view = oMi_view(data)
            self._last = (data, view)
        return view

    def __getstate__(self):
        return {"_last": (None, None)}
