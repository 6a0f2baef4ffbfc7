"""A point in an axis-aligned box of the world, the rows the contact planner's goal tasks share
(Escande 2008, §5.3.2.1: the goal is a task T_final, tested by the posture generator on
Q_s + T_final before a node is expanded; the thesis's stairs goal is "CoM inside a sphere",
§5.4.2, the chair's "y_pelvis > 2 m", §7.3.1, the glass's "a point of each thigh in a thin slab
on the seat", §7.4.1). One inequality row per finite bound (c <= 0, [m]): lo - p_a and p_a - hi for each
constrained axis a. ``x`` and ``y`` are required (a goal region is at least horizontal),
``z`` optional; an infinite bound (an open side, ``(2.0, inf)``) has no row. The members are
`com_region.ComRegion` (the CoM) and `point_region.PointRegion` (a body point).
"""

from __future__ import annotations

import numpy as np

from humanoid_planner.exceptions import PlanningError

from ..base import INEQUALITY, PostureConstraint

__all__ = ["BoxRegion"]


class BoxRegion(PostureConstraint):
    """Rows lo - p_a <= 0 and p_a - hi <= 0 for the finite bounds of ``x``, ``y`` and ``z``."""

    equations = "goal task T_final, Escande 2008, §5.3.2.1"

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
