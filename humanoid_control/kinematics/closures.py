"""Loop closures (Flückiger 1998, §3.4.1.2, §3.4.2.2, §3.4.3.2): a weld (6-D) or a ball (3-D) between
two frames of one structure, or between a frame and a fixed world placement (a foot on the ground).

Errors are measured every cycle, so the loop never opens little by little (the thesis's error
feedback with gain 1, §3.4.3.2, eq. (3.29)-(3.31)). The rotation error is ``log6`` of the relative
placement (chosen: exact for any error), not the quaternion -> Euler angles of eq. (3.30) that the
thesis uses as a rotation vector, which hold only for small errors:
    weld:  e = log6(oMb⁻¹·oMa) = [v; ω] in frame a's axes, J = Jlog6 · (Jₐ - Ad(aMb)·J_b) (LOCAL),
    ball:  e = pₐ - p_b in the world, J = Jₐ[:3] - J_b[:3] (LOCAL_WORLD_ALIGNED).
The columns of the joints above the two branches' common ancestor cancel in the difference, as
the thesis's sweep stopping at the ancestor does (§3.4.2.2, eq. (3.26); §5.5.3.2).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_control.kinematics.frame_rows import POSE, POSITION, FrameConstraint

__all__ = ["Weld", "Ball", "make_closure", "closure_gap", "loops"]


class _Closure(FrameConstraint):
    level = 1

    def __init__(self, structure, name: str, frame_a: str, frame_b: str, anchor: pin.SE3 | None = None):
        self.name, self.frame_a, self.frame_b = name, frame_a, frame_b
        self.model = structure.model
        self.fa = structure.frame_id(frame_a, f"closure '{name}': frame_a")
        self.fb = None if structure.is_world(frame_b) else structure.frame_id(frame_b, f"closure '{name}': frame_b")
        self.anchor = None
        if self.fb is None:
            self.anchor = (anchor if anchor is not None else structure.placement(structure.q0, frame_a)).copy()

    @property
    def reference(self) -> pin.SE3:
        """The world anchor (a frame welded or balled to the world)."""
        return self.anchor


class Weld(_Closure):
    """6-D closure: frame a coincides with frame b (position and orientation); rows evaluated by
    `humanoid_control.kinematics.frame_rows` (``POSE``)."""

    dim = 6
    type = "weld"
    row_kind = POSE

    def __init__(self, structure, name, frame_a, frame_b, anchor=None):
        super().__init__(structure, name, frame_a, frame_b, anchor)
        L = structure.length_scale
        self.row_scale = np.array([1.0, 1.0, 1.0, L, L, L])
        self.linear = np.array([True, True, True, False, False, False])


class Ball(_Closure):
    """3-D closure (the thesis's "rotule", Flückiger 1998, Appendix A): the origins of a and b coincide;
    rows evaluated by `humanoid_control.kinematics.frame_rows` (``POSITION``)."""

    dim = 3
    type = "ball"
    row_kind = POSITION
    row_scale = np.ones(3)
    linear = np.ones(3, dtype=bool)


def make_closure(structure, name, kind, frame_a, frame_b, anchor=None):
    """A `Weld` (``kind`` "weld") or a `Ball` ("ball") of ``structure``."""
    return {"weld": Weld, "ball": Ball}[kind](structure, name, frame_a, frame_b, anchor)


def loops(structure) -> list:
    """The closures of ``structure`` between two of its frames: its kinematic loops (a weld or ball to
    a world placement, a foot on the ground, is not one)."""
    return [c for c in structure.closures.values() if c.fb is not None]


def closure_gap(structure, q, data, closures) -> float:
    """The largest error of ``closures`` (of ``structure``) at ``q`` [m]: the distance between the two
    frames' origins, and for a weld also their relative rotation angle times the structure's
    ``length_scale`` (``data``: a Pinocchio data of the structure's model, overwritten by the forward
    kinematics)."""
    if not closures:
        return 0.0
    pin.framesForwardKinematics(structure.model, data, q)
    worst = 0.0
    for c in closures:
        a = data.oMf[c.fa]
        b = c.anchor if c.fb is None else data.oMf[c.fb]
        worst = max(worst, float(np.linalg.norm(a.translation - b.translation)))
        if c.dim == 6:
            angle = float(np.linalg.norm(pin.log3(b.rotation.T @ a.rotation)))
            worst = max(worst, structure.length_scale * angle)
    return worst
