"""A constraint with its equality rows relaxed to a band, |c_i| <= band, i.e. two inequality rows
c_i - band <= 0 and -c_i - band <= 0 (inequality rows are kept).

Used by the pre-contact test (001_escande.md:305): the posture generator's phase 1 looks at the
inequalities only (`posture.solver.two_phase`), so with the stance's contacts as equalities a floating
robot "reaches" any surface in phase 1 (HRP-2 on two feet met a ceiling 2.5 m up in phase 1,
and failed only in phase 2 after a line search). With the stance relaxed to a band, phase 1 sees
the stance too, and an unreachable pair fails there, the cheap failure the thesis builds the
pre-contact test on (:85). A relaxation: it rejects nothing the exact problem accepts.
``band`` 1e-3 [m, or - for unit-vector products] (chosen: the phase-1 slack of `posture.solver.two_phase`).

`WithBand` keeps the exact rows and adds the band rows, from one evaluation of the constraint:
the thesis's fast-fail rule (001_escande.md:85, thesis L736, L752: "wrap nonlinear equalities
g_i = 0 with inequality bands so infeasible problems fail early"): phase 1, which sees
inequalities only, then needs the contacts within the band too, and a transition or a light
contact that cannot be held stops there instead of stalling in phase 2. (It replaced a second
`Relaxed` copy with ``keep_inequalities=False`` next to the exact constraint, which evaluated
every contact twice per iterate.)
"""

from __future__ import annotations

import numpy as np

from humanoid_planner.posture.base import BAND, EQUALITY, INEQUALITY, PostureConstraint

__all__ = ["Relaxed", "WithBand"]


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
