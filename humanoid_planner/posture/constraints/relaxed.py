"""A constraint with its equality rows relaxed to a band, |c_i| <= band, i.e. two inequality rows
c_i - band <= 0 and -c_i - band <= 0 (inequality rows are kept unless ``keep_inequalities`` is
False).

Used by the contact planner's pre-contact test (Escande 2008, §6.1.3): the posture generator's phase
1 looks at the inequalities only (`solver.two_phase`), so with the stance's contacts as equalities a
floating robot "reaches" any surface in phase 1 (HRP-2 on two feet meets a ceiling 2.5 m up in phase
1, and fails only in phase 2 after a line search). With the stance relaxed to a band, phase 1 sees
the stance too, and an unreachable pair fails there, the cheap failure the thesis builds the
pre-contact test on (Escande 2008, §3.2.1). A relaxation: it rejects nothing the exact problem
accepts. ``band`` 1e-3 [m, or - for unit-vector products] (chosen: the phase-1 slack of
`solver.two_phase`). `with_band.WithBand` keeps the exact rows and adds the band rows.
"""

from __future__ import annotations

import numpy as np

from ..base import INEQUALITY, PostureConstraint

__all__ = ["Relaxed"]


class Relaxed(PostureConstraint):
    """``inner`` with |c_i| <= ``band`` for its equality rows (and its inequality rows unless
    ``keep_inequalities`` is False)."""

    def __init__(self, inner: PostureConstraint, band: float = 1e-3, keep_inequalities: bool = True):
        self.inner, self.band = inner, float(band)
        self.keep = bool(keep_inequalities)
        self.name = f"{'relaxed' if self.keep else 'band'}:{inner.name}"
        self.needs_com = inner.needs_com
        self.equations = inner.equations
        self._eq = inner.equality_mask
        n_eq = int(self._eq.sum())
        self.dim = inner.dim + n_eq if self.keep else 2 * n_eq
        self.kinds = (INEQUALITY,) * self.dim

    def evaluate(self, q, data):
        c, J = self.inner.evaluate(q, data)
        e = self._eq
        if self.keep:
            rows = np.concatenate([np.where(e, c - self.band, c), -c[e] - self.band])
            return rows, np.vstack([J, -J[e]])
        return np.concatenate([c[e] - self.band, -c[e] - self.band]), np.vstack([J[e], -J[e]])
