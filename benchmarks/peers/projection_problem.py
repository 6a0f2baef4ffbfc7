"""The common IK problem (`ik_problem`) in the posture generator's terms, for our projection
(`humanoid_planner.posture.NewtonProjector`) in ``benchmarks/posture_solvers.py --projection`` and
in the tests:

- both soles fixed in 6-D: a `StrongContact` per sole at its half-sitting frame on the floor;
- the CoM's x-y fixed at its half-sitting value (`ComPosition`);
- the point of frame ``LARM_FT`` at the canonical target (`FramePosition`); no criterion;
- the starts (`ik_problem.random_start`) and the success test (`ik_problem.Check`) are the peers'.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchmarks.peers import ik_problem
from humanoid_planner.posture.constraints.com_position import ComPosition
from humanoid_planner.posture.constraints.frame_position import FramePosition
from humanoid_planner.posture.stance import contacts_at, stance_constraints

__all__ = ["CommonProblem"]


@dataclass
class CommonProblem:
    """The constraints of the common problem for ``robot`` (a `humanoid_model` robot) and its check."""

    robot: object
    floor: object  #: the planner surface the soles stand on (the flat scene's floor)

    def __post_init__(self):
        m = self.robot.model
        self.q0 = self.robot.q()
        self.target = ik_problem.canonical_target(m, self.q0)
        self._check = ik_problem.Check(m, self.q0, self.target)
        self.com_xy = self._check.com_xy

    def constraints(self) -> list:
        """Strong contacts of both soles (6 equalities + 2 inequalities each), the CoM x-y, the hand."""
        m = self.robot.model
        feet = contacts_at(m, self.robot.contact_locations, self.q0, ["r_sole", "l_sole"], self.floor)
        cons = stance_constraints(m, self.robot.contact_locations, feet, stability=False)
        return cons + [
            ComPosition(m, self.com_xy),
            FramePosition(m, ik_problem.HAND_FRAME, self.target, name="hand"),
        ]

    def errors(self, q: np.ndarray) -> dict:
        """The check's errors at ``q``: hand, soles (position [m], rotation [rad]), CoM x-y [m], limits [rad]."""
        return self._check.errors(q)

    def check(self, q: np.ndarray) -> bool:
        """The peers' success test (`ik_problem.Check`)."""
        return self._check.ok(q)
