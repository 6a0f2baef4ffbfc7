"""Joint tasks: direct mode (the thesis's link panel, a joint driven by a slider while the loops
stay closed, Flückiger 1998, §3.4.3.3 and §6.1.2.1) at level 2, and the posture ("rest") task at
level 3 that takes the redundancy the commands leave (the thesis has no secondary objective).

    e = q_j - q*_j  [rad] or [m],  J = the unit rows of those joints' velocity indices
Only 1-DOF joints with one configuration value (revolute, prismatic) are accepted.
"""

from __future__ import annotations

import numpy as np

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics.base import Constraint
from humanoid_model.validation import finite_vector

__all__ = ["JointTask", "PostureTask"]


class JointTask(Constraint):
    """Joints ``targets`` {name: value} driven to their values ([rad] or [m])."""

    def __init__(self, structure, targets: dict, weight=1.0, level=2, gain=1.0, name="joints"):
        self.name, self.weight, self.level, self.gain = name, float(weight), int(level), float(gain)
        if not targets:
            raise KinematicsError(
                f"joint task '{name}': field 'targets' must name at least one joint; value {targets!r}"
            )
        names = list(targets)
        self.joints = names
        idx = [structure.joint_index(j, f"joint task '{name}'") for j in names]
        self.iq = np.array([i for i, _ in idx])
        self.iv = np.array([v for _, v in idx])
        self.dim = len(names)
        self.J = np.zeros((self.dim, structure.model.nv))
        self.J[np.arange(self.dim), self.iv] = 1.0
        self.row_scale = np.where(structure.prismatic_v[self.iv], 1.0, structure.length_scale)
        self.linear = structure.prismatic_v[self.iv].copy()
        self.target = np.zeros(self.dim)
        self.set_target(list(targets.values()))

    def set_target(self, values) -> None:
        """New values in the order of ``joints`` (finite, else `KinematicsError`)."""
        self.target = finite_vector(values, self.dim, f"joint task '{self.name}'", "target", error=KinematicsError)

    def evaluate(self, q, data):
        return q[self.iq] - self.target, self.J


class PostureTask(JointTask):
    """Every 1-DOF joint toward ``q_ref`` (full configuration; default the initial one), level 3.

    ``gain`` 0.1 (chosen): the rest posture is approached by a tenth of the gap per cycle. At full
    gain it fights a stretched arm reaching for a target out of reach: its null-space steps move
    the hand at second order and the hand task pulls back, a limit cycle of 0.03-0.4 rad per
    cycle; at 0.1 the arm settles (steps < 0.015 rad, hand still within 0.02 mm) (docs/kinematics.md)."""

    def __init__(self, structure, q_ref=None, weight=1.0, level=3, gain=0.1, name="posture"):
        q_ref = structure.q0 if q_ref is None else np.asarray(q_ref, float)
        targets = {j: q_ref[structure.joint_index(j, name)[0]] for j in structure.joint_names}
        super().__init__(structure, targets, weight=weight, level=level, gain=gain, name=name)
