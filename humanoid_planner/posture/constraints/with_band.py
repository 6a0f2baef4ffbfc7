"""A constraint's rows, then its equality rows relaxed to a band, |c_i| <= band, as `base.BAND`
inequalities c_i - band <= 0 and -c_i - band <= 0, from one evaluation of the constraint: the
thesis's fast-fail rule (Escande 2008, §3.2.1: since FSQP's phase-1 failures are cheap, an equality
g_i = 0 is also written as an inequality band, so that an infeasible problem fails early): the
solver's phase 1, which sees inequalities only, then needs the contacts within the band too, and a
transition or a light contact that cannot be held stops there instead of stalling in phase 2; its
phase 2 leaves the band rows out (they are implied by the equality rows; `solver.two_phase`, "Band
rows"). The contact planner wraps every call's constraints so
(`humanoid_planner.contact.feasibility`). One evaluation serves both the rows and the band (a
separate `relaxed.Relaxed` copy would evaluate every contact twice per iterate).
"""

from __future__ import annotations

import numpy as np

from ..base import BAND, EQUALITY, INEQUALITY, PostureConstraint

__all__ = ["WithBand"]


class WithBand(PostureConstraint):
    """``inner``'s rows (same kinds, same name), then |c_i| <= ``band`` for its equality rows as
    `posture.base.BAND` inequalities: c_i - band <= 0 and -c_i - band <= 0 (module docstring;
    the solver's phase 2 leaves them out, they are implied by the equality rows)."""

    def __init__(self, inner: PostureConstraint, band: float = 1e-3):
        self.inner, self.band = inner, float(band)
        self.name, self.needs_com, self.equations = inner.name, inner.needs_com, inner.equations
        self._eq = inner.equality_mask
        n_eq = int(self._eq.sum())
        self.dim = inner.dim + 2 * n_eq
        self.kinds = tuple(EQUALITY if e else INEQUALITY for e in self._eq) + (BAND,) * (2 * n_eq)
        rows = np.flatnonzero(self._eq)
        # out = sign * inner[index] + offset: the rows as they are, then +c_i - band and -c_i - band
        self._index = np.concatenate([np.arange(inner.dim), rows, rows])
        self._sign = np.concatenate([np.ones(inner.dim + n_eq), -np.ones(n_eq)])
        self._offset = np.concatenate([np.zeros(inner.dim), np.full(2 * n_eq, -self.band)])

    def evaluate(self, q, data):
        c, J = self.inner.evaluate(q, data)
        return self._sign * c[self._index] + self._offset, self._sign[:, None] * J[self._index]
