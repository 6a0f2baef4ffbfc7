"""The projection problem of the comparison with other inverse-kinematics libraries (LAAS HPP's
hpp-constraints, pink, placo: each solves it in a script of its own, outside this repository), in
the posture generator's terms, with the same random starts and the same library-independent
check, so `benchmarks/posture_solvers.py` and the tests measure what HPP's script ``bench_hpp.py``
measures:

- HRP-2 at half-sitting; both soles fixed in 6-D (a `StrongContact` per sole at its half-sitting
  frame), the CoM's x-y fixed at its half-sitting value (`ComPosition`), the point of frame
  ``LARM_FT`` at a target 0.2 m ahead of its half-sitting position (`FramePosition`); no criterion;
- starts: half-sitting plus seeded noise (joints +-0.15 rad clipped to the limits, base +-2 cm,
  roll-pitch-yaw +-0.05 rad; `random_start`, the draw order of the peers' ``random_start``);
- success: one check with plain Pinocchio (`check`): hand, soles and CoM x-y within 1 mm, sole
  rotations within 1 mrad, joints within their limits to 1e-4 rad.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from .constraints.com_position import ComPosition
from .constraints.frame_position import FramePosition
from .stance import contacts_at, stance_constraints

__all__ = ["CommonProblem", "random_start"]

HAND_FRAME = "LARM_FT"  # bench_hpp.py robot_spec("hrp2")
SOLE_FRAMES = ("LLEG_SOLE", "RLEG_SOLE")
HAND_OFFSET = (0.2, 0.0, 0.0)  # [m] the canonical target: 0.2 m ahead of the half-sitting hand
TOLERANCE, ROTATION_TOLERANCE, LIMIT_TOLERANCE = 1e-3, 1e-3, 1e-4  # [m], [rad], [rad] the peers' check


def random_start(model, q0, trial: int, seed: int = 1234) -> np.ndarray:
    """Half-sitting ``q0`` plus the peers' seeded noise for ``trial`` (module docstring)."""
    rng = np.random.default_rng(seed + trial)
    dj = rng.uniform(-0.15, 0.15, model.nq - 7)
    dp = rng.uniform(-0.02, 0.02, 3)
    drpy = rng.uniform(-0.05, 0.05, 3)
    q = np.array(q0, float)
    q[7:] = np.clip(q[7:] + dj, model.lowerPositionLimit[7:], model.upperPositionLimit[7:])
    q[:3] += dp
    R = pin.Quaternion(q0[3:7]).matrix() @ pin.rpy.rpyToMatrix(drpy)
    q[3:7] = pin.Quaternion(R).coeffs()
    return q


@dataclass
class CommonProblem:
    """The constraints of the common problem for ``robot`` (a `humanoid_model` robot) and its check."""

    robot: object
    floor: object  #: the planner surface the soles stand on (the flat scene's floor)

    def __post_init__(self):
        m = self.robot.model
        self.q0 = self.robot.q()
        d = m.createData()
        pin.framesForwardKinematics(m, d, self.q0)
        self.com_xy = pin.centerOfMass(m, d, self.q0)[:2].copy()
        self.hand_fid = m.getFrameId(HAND_FRAME)
        self.target = d.oMf[self.hand_fid].translation + HAND_OFFSET
        self.soles = {f: d.oMf[m.getFrameId(f)].copy() for f in SOLE_FRAMES}

    def constraints(self) -> list:
        """Strong contacts of both soles (6 equalities + 2 inequalities each), the CoM x-y, the hand."""
        m = self.robot.model
        feet = contacts_at(m, self.robot.contact_locations, self.q0, ["r_sole", "l_sole"], self.floor)
        cons = stance_constraints(m, self.robot.contact_locations, feet, stability=False)
        return cons + [ComPosition(m, self.com_xy), FramePosition(m, HAND_FRAME, self.target, name="hand")]

    def errors(self, q) -> dict:
        """The check's errors at ``q``: hand, soles (position [m], rotation [rad]), CoM x-y [m], limits [rad]."""
        m = self.robot.model
        d = m.createData()
        pin.framesForwardKinematics(m, d, q)
        com = pin.centerOfMass(m, d, q, False)
        feet = [self.soles[f].actInv(d.oMf[m.getFrameId(f)]) for f in SOLE_FRAMES]
        return {
            "hand": float(np.linalg.norm(d.oMf[self.hand_fid].translation - self.target)),
            "feet_pos": max(float(np.linalg.norm(M.translation)) for M in feet),
            "feet_rot": max(float(np.linalg.norm(pin.log3(M.rotation))) for M in feet),
            "com_xy": float(np.linalg.norm(com[:2] - self.com_xy)),
            "limits": float(
                max(0.0, np.max(m.lowerPositionLimit[7:] - q[7:]), np.max(q[7:] - m.upperPositionLimit[7:]))
            ),
        }

    def check(self, q) -> bool:
        """The peers' success test (module docstring)."""
        e = self.errors(q)
        return (
            max(e["hand"], e["feet_pos"], e["com_xy"]) <= TOLERANCE
            and e["feet_rot"] <= ROTATION_TOLERANCE
            and e["limits"] <= LIMIT_TOLERANCE
        )
