"""Pre-contact: can the contact point come within ``distance`` of the surface plane?
Eq. (3.40)-(3.43), Escande 2008, §3.4.1, as printed: the direction rows stay equalities (the
thesis notes they could be relaxed, §6.1.3; not done here).

Rows:
0  (P^W - E) . n_E - d <= 0   (3.40)  [m]
1  d_P^W . n_E = 0            (3.41)  [-]
2  b_P^W . n_E = 0            (3.42)
3  -n_P^W . n_E <= 0          (3.43)
"""

from __future__ import annotations

from humanoid_planner.exceptions import PlanningError

from ..base import EQUALITY, INEQUALITY
from ..frames import EnvironmentFrame, RobotContactFrame
from .contact_constraint import ContactConstraint
from .light_contact import plane_rows

__all__ = ["PreContact"]


class PreContact(ContactConstraint):
    """The 4 constraints of a pre-contact within ``distance`` [m] (d of (3.40), >= 0) of the plane."""

    dim = 4
    kinds = (INEQUALITY, EQUALITY, EQUALITY, INEQUALITY)
    equations = "(3.40)-(3.43), Escande 2008, §3.4.1"

    def __init__(
        self, model, robot_frame: RobotContactFrame, env_frame: EnvironmentFrame, distance: float, name="pre_contact"
    ):
        if not distance >= 0.0:
            raise PlanningError(f"pre-contact {name!r}: field 'distance' must be >= 0 [m]; value {distance}")
        super().__init__(model, robot_frame, env_frame, name)
        self.distance = float(distance)

    def evaluate(self, q, data):
        c, J = plane_rows(self.model, data, self.fid, self.robot_frame, self.env_frame)
        c[0] -= self.distance
        return c, J
