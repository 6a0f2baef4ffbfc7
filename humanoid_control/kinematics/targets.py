"""Frame targets: a frame follows an ABSOLUTE target placement (6-D pose, 3-D position or 3-D
orientation), the thesis's sensor-following rows (Flückiger 1998, §3.4.2.1, eq. (3.24)) measured
against an absolute target every cycle, so increments integrated by an input device never drift
(the thesis integrates them open loop, §3.4.3.1 and §5.5.3.1). An input node accumulates its
increments into the target (`FrameTarget.move`) and the solver closes the gap.

    pose:         e = log6(T⁻¹·M) (frame axes), J = Jlog6 · J_LOCAL
    position:     e = p - p*, J = J_LOCAL_WORLD_ALIGNED[:3]
    orientation:  e = log3(R*ᵀ·R), J = Jlog3 · J_LOCAL[3:]
With ``first_order=True`` a pose or orientation target has the thesis's first-order rows (J = J_LOCAL,
J_LOCAL[3:]; `frame_rows`): a command along directions the frame cannot move in (out of a planar
robot's plane, along the left null space of its Jacobian) then moves nothing, exactly, as in the
thesis (Flückiger 1998, §6.3.1); with the exact rows it moves the joints at second order. The exact
rows converge quadratically on large errors: they are the default.
A NaN or infinite target is refused with a `KinematicsError` (the solver keeps its last target).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics.frame_rows import (
    ORIENTATION,
    ORIENTATION_FIRST_ORDER,
    POSE,
    POSE_FIRST_ORDER,
    POSITION,
    FrameConstraint,
)
from humanoid_model.validation import finite_rows, finite_vector

__all__ = ["FrameTarget", "MODES", "moved"]

MODES = {"pose": 6, "position": 3, "orientation": 3}
_KIND = {"pose": POSE, "position": POSITION, "orientation": ORIENTATION}
_FIRST_ORDER = {"pose": POSE_FIRST_ORDER, "position": POSITION, "orientation": ORIENTATION_FIRST_ORDER}


class FrameTarget(FrameConstraint):
    """Frame ``frame`` of ``structure`` follows ``target`` (a ``pin.SE3``; for ``position`` a (3,)
    point [m] also works, for ``orientation`` a (3, 3) rotation). Default target: the frame's
    placement at the structure's initial configuration. Rows evaluated by
    `humanoid_control.kinematics.frame_rows`; ``first_order``: the thesis's first-order rows (module
    docstring)."""

    def __init__(
        self, structure, frame: str, target=None, mode: str = "pose", weight=1.0, level=2, gain=1.0, first_order=False
    ):
        if mode not in MODES:
            raise KinematicsError(
                f"frame target '{frame}': field 'mode' must be one of {', '.join(MODES)}; value {mode!r}"
            )
        self.name, self.mode, self.dim = frame, mode, MODES[mode]
        self.first_order = bool(first_order)
        self.row_kind = (_FIRST_ORDER if self.first_order else _KIND)[mode]
        self.level, self.weight, self.gain = int(level), float(weight), float(gain)
        self.model = structure.model
        self.fid = self.fa = structure.frame_id(frame, f"frame target '{frame}'")
        L = structure.length_scale
        self.row_scale = {
            "pose": np.array([1, 1, 1, L, L, L], float),
            "position": np.ones(3),
            "orientation": np.full(3, L),
        }[mode]
        self.linear = {"pose": np.arange(6) < 3, "position": np.ones(3, bool), "orientation": np.zeros(3, bool)}[mode]
        self.target = structure.placement(structure.q0, frame)
        if target is not None:
            self.set_target(target)

    def set_target(self, target) -> None:
        """Replace the target (``pin.SE3``, or a point / rotation for the 3-D modes); refuses
        NaN/inf with a `KinematicsError` and keeps the previous target."""
        src, M = f"frame target '{self.name}'", self.target.copy()
        if isinstance(target, pin.SE3):
            finite_rows(target.homogeneous, 4, src, "target", rows=4, error=KinematicsError)
            M = target.copy()
        elif self.mode == "orientation":
            M.rotation = finite_rows(target, 3, src, "target", rows=3, error=KinematicsError)
        else:
            M.translation = finite_vector(target, 3, src, "target", error=KinematicsError)  # a pose keeps its rotation
        self.target = M

    def move(self, twist, frame: str = "world") -> None:
        """Apply an increment [dx dy dz, drx dry drz] ([m], [rad]) to the target: ``world`` axes
        about the target's origin (LOCAL_WORLD_ALIGNED, see `moved`) or ``tool`` axes
        (`moved`)."""
        self.target = moved(self.target, twist, frame, f"frame target '{self.name}'")

    @property
    def reference(self) -> pin.SE3:
        """The target placement (the rows compare the frame with it)."""
        return self.target


def moved(target: pin.SE3, twist, frame: str = "world", source: str = "frame target") -> pin.SE3:
    """``target`` moved by the increment [dx dy dz, drx dry drz] ([m], [rad]): in ``world`` axes
    about its origin (LOCAL_WORLD_ALIGNED; chosen over eq. (3.28) of Flückiger 1998, which turns
    world-axis rotations about the world origin) or in its own ``tool`` axes. A
    non-finite increment or another frame is a `KinematicsError` naming ``source``."""
    v = finite_vector(twist, 6, source, "twist", error=KinematicsError)
    if frame == "tool":
        return target * pin.exp6(pin.Motion(v))
    if frame == "world":
        return pin.SE3(pin.exp3(v[3:]) @ target.rotation, target.translation + v[:3])
    raise KinematicsError(f"{source}: field 'frame' must be world or tool; value {frame!r}")
