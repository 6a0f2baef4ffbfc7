"""Goal task: the centre of mass in an axis-aligned box of the world (`box_region`; the
thesis's stairs goal "CoM inside a sphere", Escande 2008, §5.4.2). Rows [m]: one inequality per
finite bound; Jacobian: Pinocchio's CoM Jacobian (``needs_com``).
"""

from __future__ import annotations

from .box_region import BoxRegion

__all__ = ["ComRegion"]


class ComRegion(BoxRegion):
    """G_x in [x0, x1], G_y in [y0, y1] (and G_z in ``z``) [m] (world)."""

    needs_com = True

    def __init__(self, model, x, y, z=None, name: str = "goal_com_region"):
        self.model, self.name = model, name
        self._box(x, y, z)
        self.x, self.y = self.bounds.get("x"), self.bounds.get("y")

    def evaluate(self, q, data):
        return self._S @ data.com[0] - self._o, self._S @ data.Jcom
