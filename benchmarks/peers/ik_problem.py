"""The common IK problem: one whole-body inverse-kinematics problem on HRP-2 that our kinematic
solver, our posture generator's projection and other libraries (pink, HPP) solve, so that their
numbers compare.

- Robot: HRP-2 (``urdf/hrp2.urdf``) with a free flyer, at half-sitting (``urdf/hrp2.yaml``,
  ``postures: half-sitting``).
- Constraints: both soles (``LLEG_SOLE``, ``RLEG_SOLE``) fixed in 6-D at their half-sitting
  placements, the CoM's x-y fixed at its half-sitting value, the point of frame ``LARM_FT`` at a
  target (position only, orientation free).
- A, IK steps: ``EPISODES`` episodes of ``STEPS`` steps, each from half-sitting with the hand sent
  ``REACH`` = 0.2 m away in a seeded random direction (`directions`, seed 7, x >= 0).
- C, projections: ``STARTS`` starts, half-sitting plus seeded noise (`random_start`: joints
  +-0.15 rad clipped to the limits, base +-2 cm, roll-pitch-yaw +-0.05 rad; seed 1234 + trial), to
  the canonical target (`canonical_target`: the half-sitting hand 0.2 m further along x); a
  stepping solver gets at most ``MAX_STEPS`` steps.
- Success: one check with plain Pinocchio, whatever the solver (`Check`): hand, soles and CoM x-y
  within 1 mm, sole rotations within 1 mrad, joints within their limits to 1e-4 rad.

This module imports numpy, pinocchio and yaml only (nothing of this repository), so that the
peers' runners (``ik_pink.py``, ``projection_hpp.py``) load it in their own virtual environments.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin
import yaml

ROOT = Path(__file__).resolve().parents[2]
URDF = ROOT / "urdf" / "hrp2.urdf"
SIDECAR = ROOT / "urdf" / "hrp2.yaml"
POSTURE = "half-sitting"
SOLE_FRAMES = ("LLEG_SOLE", "RLEG_SOLE")
HAND_FRAME = "LARM_FT"
REACH = 0.2  # [m] the hand's target distance from its half-sitting position
EPISODES, STEPS, DIRECTION_SEED = 20, 50, 7
STARTS, MAX_STEPS, START_SEED = 100, 200, 1234
JOINT_NOISE, BASE_NOISE, RPY_NOISE = 0.15, 0.02, 0.05  # [rad], [m], [rad] the starts' uniform noise
TOLERANCE, ROTATION_TOLERANCE, LIMIT_TOLERANCE = 1e-3, 1e-3, 1e-4  # [m], [rad], [rad] the check


def load_model(urdf: Path = URDF) -> tuple[pin.Model, np.ndarray]:
    """HRP-2's Pinocchio model with a free flyer and its half-sitting configuration ``q0``."""
    model = pin.buildModelFromUrdf(str(urdf), pin.JointModelFreeFlyer())
    return model, half_sitting(model)


def half_sitting(model: pin.Model, sidecar: Path = SIDECAR) -> np.ndarray:
    """The half-sitting configuration of ``model`` from the robot's sidecar (base, then joints by name)."""
    posture = yaml.safe_load(Path(sidecar).read_text())["postures"][POSTURE]
    q = pin.neutral(model)
    q[:7] = posture["base"]
    for joint, value in posture["joints"].items():
        q[model.joints[model.getJointId(joint)].idx_q] = value
    return q


def hand_position(model: pin.Model, q0: np.ndarray) -> np.ndarray:
    """The point of ``HAND_FRAME`` at ``q0`` (3,) [m]."""
    data = model.createData()
    pin.framesForwardKinematics(model, data, q0)
    return data.oMf[model.getFrameId(HAND_FRAME)].translation.copy()


def canonical_target(model: pin.Model, q0: np.ndarray) -> np.ndarray:
    """The projections' target: the half-sitting hand ``REACH`` further along x (3,) [m]."""
    return hand_position(model, q0) + np.array([REACH, 0.0, 0.0])


def directions(n: int = EPISODES, seed: int = DIRECTION_SEED) -> list[np.ndarray]:
    """``n`` seeded unit directions with x >= 0, one per episode of part A."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        d = rng.normal(size=3)
        d[0] = abs(d[0])
        out.append(d / np.linalg.norm(d))
    return out


def random_start(model: pin.Model, q0: np.ndarray, trial: int, seed: int = START_SEED) -> np.ndarray:
    """Start ``trial`` of part C: ``q0`` plus seeded noise (joints, then base position, then
    roll-pitch-yaw; every solver draws them in this order)."""
    rng = np.random.default_rng(seed + trial)
    dj = rng.uniform(-JOINT_NOISE, JOINT_NOISE, model.nq - 7)
    dp = rng.uniform(-BASE_NOISE, BASE_NOISE, 3)
    drpy = rng.uniform(-RPY_NOISE, RPY_NOISE, 3)
    q = np.array(q0, dtype=float)
    q[7:] = np.clip(q[7:] + dj, model.lowerPositionLimit[7:], model.upperPositionLimit[7:])
    q[:3] += dp
    rotation = pin.Quaternion(q0[3:7]).matrix() @ pin.rpy.rpyToMatrix(drpy)
    q[3:7] = pin.Quaternion(rotation).coeffs()
    return q


class Check:
    """The success test for a hand ``target``, with plain Pinocchio on ``model`` (any model of
    HRP-2's URDF with a free flyer: the frames are found by name): the soles and the CoM x-y are
    compared with their values at ``q0``."""

    def __init__(self, model: pin.Model, q0: np.ndarray, target):
        self.model, self.data = model, model.createData()
        self.soles = [model.getFrameId(f) for f in SOLE_FRAMES]
        self.hand = model.getFrameId(HAND_FRAME)
        pin.framesForwardKinematics(model, self.data, q0)
        self.placements = [self.data.oMf[f].copy() for f in self.soles]
        self.com_xy = pin.centerOfMass(model, self.data, q0)[:2].copy()
        self.target = np.array(target, dtype=float)

    def errors(self, q: np.ndarray) -> dict:
        """Hand, sole position [m] and rotation [rad] (worst sole), CoM x-y [m], worst limit excess [rad]."""
        m, d = self.model, self.data
        pin.framesForwardKinematics(m, d, q)
        com = pin.centerOfMass(m, d, q, False)
        moved = [M.actInv(d.oMf[f]) for f, M in zip(self.soles, self.placements)]
        excess = max(0.0, np.max(m.lowerPositionLimit[7:] - q[7:]), np.max(q[7:] - m.upperPositionLimit[7:]))
        return {
            "hand": float(np.linalg.norm(d.oMf[self.hand].translation - self.target)),
            "feet_pos": max(float(np.linalg.norm(M.translation)) for M in moved),
            "feet_rot": max(float(np.linalg.norm(pin.log3(M.rotation))) for M in moved),
            "com_xy": float(np.linalg.norm(com[:2] - self.com_xy)),
            "limits": float(excess),
        }

    def ok(self, q: np.ndarray) -> bool:
        """Whether ``q`` meets every constraint within the check's tolerances."""
        e = self.errors(q)
        return (
            max(e["hand"], e["feet_pos"], e["com_xy"]) <= TOLERANCE
            and e["feet_rot"] <= ROTATION_TOLERANCE
            and e["limits"] <= LIMIT_TOLERANCE
        )


def percentile(values, p: float = 50.0) -> float:
    """The ``p``-th percentile of ``values`` (the median by default), nan when empty (no success)."""
    return float(np.percentile(values, p)) if len(values) else float("nan")
