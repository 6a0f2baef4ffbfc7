"""Goal tasks of the planner (001_escande.md §5.3: the goal is a task T_final, tested by the
posture generator on Q_s + T_final before a node is expanded; the thesis's stairs goal is "CoM
inside a sphere", :419). `ComRegion` is the CoM's horizontal projection inside an axis-aligned
rectangle: 4 inequality rows (c <= 0, [m]), x0 - G_x, G_x - x1, y0 - G_y, G_y - y1;
`PointRegion` the same for a body point (a foot's contact point: "the feet in a region")."""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture.base import INEQUALITY, PostureConstraint
from humanoid_planner.posture.kinematics import frame_id, point_jacobian

__all__ = ["ComRegion", "PointRegion"]


class ComRegion(PostureConstraint):
    """G_x in [x0, x1] and G_y in [y0, y1] [m] (world)."""

    dim = 4
    kinds = (INEQUALITY,) * 4
    needs_com = True
    equations = "goal task T_final, 001_escande.md:253"

    def __init__(self, model, x, y, name: str = "goal_com_region"):
        if not (x[0] < x[1] and y[0] < y[1]):
            raise PlanningError(f"{name}: fields 'x', 'y' must be increasing intervals [m]; {x}, {y}")
        self.model = model
        self.x, self.y = tuple(map(float, x)), tuple(map(float, y))
        self.name = name
        self._S = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, -1.0], [0.0, 1.0]])
        self._o = np.array([-self.x[0], self.x[1], -self.y[0], self.y[1]])

    @property
    def centre(self) -> np.ndarray:
        return np.array([sum(self.x) / 2, sum(self.y) / 2])

    def evaluate(self, q, data):
        return self._S @ data.com[0][:2] - self._o, self._S @ data.Jcom[:2]


class PointRegion(PostureConstraint):
    """A point fixed in frame ``frame`` (``point`` [m] in it) with its horizontal projection in
    [x0, x1] × [y0, y1] [m] (world): 4 inequality rows like `ComRegion`."""

    dim = 4
    kinds = (INEQUALITY,) * 4
    equations = "goal task T_final, 001_escande.md:253"

    def __init__(self, model, frame: str, point, x, y, name: str | None = None):
        self.name = name or f"goal_region:{frame}"
        if not (x[0] < x[1] and y[0] < y[1]):
            raise PlanningError(f"{self.name}: fields 'x', 'y' must be increasing intervals [m]; {x}, {y}")
        self.model = model
        self.fid = frame_id(model, frame)
        self.point = np.asarray(point, float).reshape(3)
        self._S = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, -1.0], [0.0, 1.0]])
        self._o = np.array([-x[0], x[1], -y[0], y[1]], float)

    def evaluate(self, q, data):
        p, J = point_jacobian(self.model, data, self.fid, self.point)
        return self._S @ p[:2] - self._o, self._S @ J[:2]
