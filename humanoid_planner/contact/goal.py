"""Goal tasks of the planner (001_escande.md §5.3: the goal is a task T_final, tested by the
posture generator on Q_s + T_final before a node is expanded; the thesis's stairs goal is "CoM
inside a sphere", :419, the chair's "y_pelvis > 2 m", :425, the glass's "a point of each thigh in
a thin slab on the seat", :426). `ComRegion` keeps the CoM, `PointRegion` a body point, inside an
axis-aligned box: one inequality row per finite bound (c <= 0, [m]): lo - p_a and p_a - hi for
each constrained axis a. ``x`` and ``y`` are required (the horizontal region of the first
version), ``z`` optional; an infinite bound (an open side, ``(2.0, inf)``) has no row.
"""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture.base import INEQUALITY, PostureConstraint
from humanoid_planner.posture.kinematics import frame_id, point_jacobian

__all__ = ["ComRegion", "PointRegion"]


class _BoxRows(PostureConstraint):
    """Rows lo - p_a <= 0 and p_a - hi <= 0 for the finite bounds of ``x``, ``y`` and ``z``."""

    equations = "goal task T_final, 001_escande.md:253"

    def _box(self, x, y, z):
        rows, offsets = [], []
        self.bounds = {}
        for axis, b in enumerate((x, y, z)):
            if b is None:
                continue
            lo, hi = map(float, b)
            if not lo < hi or np.isnan(lo) or np.isnan(hi):
                raise PlanningError(f"{self.name}: field '{'xyz'[axis]}' must be an increasing interval [m]; {b}")
            self.bounds["xyz"[axis]] = (lo, hi)
            e = np.eye(3)[axis]
            if np.isfinite(lo):
                rows.append(-e), offsets.append(-lo)
            if np.isfinite(hi):
                rows.append(e), offsets.append(hi)
        if not rows:
            raise PlanningError(f"{self.name}: the region must bound at least one axis; {self.bounds}")
        self._S, self._o = np.array(rows), np.array(offsets)
        self.dim = len(rows)
        self.kinds = (INEQUALITY,) * self.dim

    @property
    def centre(self) -> np.ndarray:
        """The (x, y) centre of the region [m] (finite x and y bounds)."""
        return np.array([sum(self.bounds["x"]) / 2, sum(self.bounds["y"]) / 2])


class ComRegion(_BoxRows):
    """G_x in [x0, x1], G_y in [y0, y1] (and G_z in ``z``) [m] (world)."""

    needs_com = True

    def __init__(self, model, x, y, z=None, name: str = "goal_com_region"):
        self.model, self.name = model, name
        self._box(x, y, z)
        self.x, self.y = self.bounds.get("x"), self.bounds.get("y")

    def evaluate(self, q, data):
        return self._S @ data.com[0] - self._o, self._S @ data.Jcom


class PointRegion(_BoxRows):
    """A point fixed in frame ``frame`` (``point`` [m] in it) in the box ``x`` × ``y`` (× ``z``) [m]
    (world); ``None`` for an axis leaves it free."""

    def __init__(self, model, frame: str, point, x, y, z=None, name: str | None = None):
        self.name = name or f"goal_region:{frame}"
        self.model = model
        self.fid = frame_id(model, frame, PlanningError)
        self.point = np.asarray(point, float).reshape(3)
        self._box(x, y, z)

    def evaluate(self, q, data):
        p, J = point_jacobian(self.model, data, self.fid, self.point)
        return self._S @ p - self._o, self._S @ J
