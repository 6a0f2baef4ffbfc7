"""Per-joint limits the bridge enforces: position (URDF), velocity (URDF), acceleration (chosen).

A URDF gives no acceleration limit, so `A_MAX_DEFAULT` applies to every joint unless the caller
gives its own (``JointLimits.from_robot(robot, a_max_default=..., a_max={"JOINT": ...})``; a real
robot's datasheet value should replace it). A URDF velocity limit of 0 means "not given"
(as in `humanoid_sim.runtime.commands`): that joint's velocity is then unbounded, and `validate` says so
in its notes. A continuous joint has infinite position limits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from humanoid_control.exceptions import BridgeError
from humanoid_model.validation import did_you_mean

__all__ = ["JointLimits", "A_MAX_DEFAULT"]

# [rad/s² or m/s²] (chosen) acceleration limit of every joint when the caller gives none. The URDF
# has none, and the motor rule effort / joint inertia (CRBA diagonal at the default posture) gives
# meaningless values (HRP-2: 107 rad/s² at the chest, 75 000 rad/s² at the wrist), so a fixed, slow
# value is used: 10 rad/s² lets a joint reach 1 rad/s in 0.1 s, enough for arm and posture motions.
# It refuses dynamic motions on purpose: the BIP cyclic gait of `humanoid-stack gait` reaches
# 187 rad/s² between its samples (docs/bridge.md), and is sent with `retime`, at reduced speed, or
# with the robot's datasheet limits given as ``a_max``.
A_MAX_DEFAULT = 10.0


@dataclass
class JointLimits:
    """``names`` (n); ``lower``, ``upper`` [rad] or [m]; ``v_max`` [rad/s] (inf: none);
    ``a_max`` [rad/s²] (inf: none); arrays of n values in ``names`` order."""

    names: list[str]
    lower: np.ndarray
    upper: np.ndarray
    v_max: np.ndarray
    a_max: np.ndarray

    def __post_init__(self):
        self.names = list(self.names)
        n = len(self.names)
        for field in ("lower", "upper", "v_max", "a_max"):
            a = np.asarray(getattr(self, field), dtype=float).reshape(-1)
            if a.shape[0] != n:
                raise BridgeError(f"joint limits: field '{field}' has {a.shape[0]} values for {n} joints")
            setattr(self, field, a)
        self.index = {name: i for i, name in enumerate(self.names)}

    @classmethod
    def from_robot(cls, robot, a_max_default: float = A_MAX_DEFAULT, a_max: Mapping[str, float] | None = None):
        """The limits of ``robot`` (a `humanoid_model.robot.Robot`): URDF positions and velocities
        (a velocity limit <= 0, URDF's "not given", becomes inf), ``a_max_default`` for every joint
        and the per-joint values of ``a_max`` {joint: value} on top."""
        names = robot.joint_names
        v = np.asarray(robot.v_max, dtype=float)
        acc = np.full(len(names), float(a_max_default))
        for name, value in (a_max or {}).items():
            if name not in names:
                raise BridgeError(
                    f"joint limits: field 'a_max' names unknown joint '{name}'{did_you_mean(name, names)}"
                )
            acc[names.index(name)] = float(value)
        if not np.all(acc > 0):
            raise BridgeError(f"joint limits: field 'a_max' must be > 0; value {acc.min():g}")
        return cls(names, robot.q_lower, robot.q_upper, np.where(v > 0, v, np.inf), acc)
