"""The ordered container N of generated stances (Escande 2008, §5.3.2.2: a
red-black tree under the total order of `stance.StanceMetric`; ``add`` fails when an "equal"
stance is there).

Stances are grouped by (card, ind) (the first keys of the order), and within a group kept sorted
by p_s (lexicographic) with `bisect`. The epsilon test is not transitive, so a near-duplicate
need not be a neighbour in the sorted list; every s' with ||A (p_s - p_s')|| <= eps has
|x_1 - x_1'| <= eps (a_x = 1), so ``find`` bisects the window x_1 ± eps and tests every stance in
it: no duplicate is missed, in O(log n + window). (A tree ordered by ≺ alone, as the thesis's,
only compares with the stances met on the search path.)
"""

from __future__ import annotations

import bisect

from .stance import Stance, StanceMetric

__all__ = ["StanceRegistry"]


class StanceRegistry:
    """Stances under ``metric``; ``add(s)`` is False when an equal stance is already in."""

    def __init__(self, metric: StanceMetric | None = None):
        self.metric = metric or StanceMetric()
        self._groups: dict[tuple, tuple[list, list]] = {}  # ind -> (sorted p tuples, stances)
        self._size = 0

    def __len__(self):
        return self._size

    def find(self, s: Stance) -> Stance | None:
        """An equal stance in the container, or None."""
        group = self._groups.get(s.ind)
        if group is None:
            return None
        keys, stances = group
        x1 = float(s.p[0])
        lo = bisect.bisect_left(keys, (x1 - self.metric.eps,))
        hi = bisect.bisect_right(keys, (x1 + self.metric.eps, float("inf")))
        for t in stances[lo:hi]:
            if self.metric.equal(s, t):
                return t
        return None

    def __contains__(self, s: Stance) -> bool:
        return self.find(s) is not None

    def add(self, s: Stance) -> bool:
        """Insert ``s`` unless an equal stance is there (then False)."""
        if self.find(s) is not None:
            return False
        keys, stances = self._groups.setdefault(s.ind, ([], []))
        k = tuple(s.p)
        i = bisect.bisect_left(keys, k)
        keys.insert(i, k)
        stances.insert(i, s)
        self._size += 1
        return True

    def ordered(self) -> list[Stance]:
        """Every stance in increasing order (card, ind, p_s)."""
        out = []
        for ind in sorted(self._groups, key=lambda k: (len(k), k)):
            out.extend(self._groups[ind][1])
        return out
