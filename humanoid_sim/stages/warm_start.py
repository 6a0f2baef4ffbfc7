"""Warm start of the contact solve from the previous step (our addition, docs/simulator.md).

A contact of this step reuses the force of the previous step's contact with the same body pair
(the pair key of `humanoid_sim.stages.contacts.StepContacts.keys`) whose point on body A (in A's joint
frame) is nearest, within ``WARM_MATCH``: coal returns patch vertices in no fixed order, so
contacts are matched by position, not by rank. Contacts without a match are *new*; the solve
stage starts them from the frictionless solution (`humanoid_sim.stages.solve`).

`WarmStart` is the memory between steps: the previous step's keys, forces and local points,
sorted by key for the binary-search match.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["WarmStart", "WARM_MATCH"]

WARM_MATCH = 2e-3  # [m] a contact point within 2 mm of last step's (same pair) reuses its force (chosen)


@njit(cache=True)
def _match(pk, pl, keys, local, tol):
    """Per contact, the index of the previous contact with the same key and the nearest local
    point closer than ``tol`` [m], or −1 (``pk`` sorted)."""
    out = np.full(keys.shape[0], -1, np.int64)
    lo = np.searchsorted(pk, keys, side="left")
    hi = np.searchsorted(pk, keys, side="right")
    for k in range(keys.shape[0]):
        best, jb = tol, -1
        for j in range(lo[k], hi[k]):
            d = np.sqrt((pl[j, 0] - local[k, 0]) ** 2 + (pl[j, 1] - local[k, 1]) ** 2 + (pl[j, 2] - local[k, 2]) ** 2)
            if d < best:
                best, jb = d, j
        out[k] = jb
    return out


@njit(cache=True)
def _warm(pk, pl, pf, keys, local, tol, enabled):
    """Warm-start forces (m, 3) from last step's sorted keys / local points / forces, the hit
    mask (m,) and whether any contact is new (`_match` map)."""
    m = keys.shape[0]
    warm = np.zeros((m, 3))
    hit = np.zeros(m, np.bool_)
    if pk.shape[0] == 0:
        return warm, hit, m > 0
    idx = _match(pk, pl, keys, local, tol)
    any_new = False
    for k in range(m):
        if idx[k] >= 0:
            hit[k] = True
            if enabled:
                for i in range(3):
                    warm[k, i] = pf[idx[k], i]
        else:
            any_new = True
    return warm, hit, any_new


@njit(cache=True)
def _sorted_by_key(keys, forces, local):
    order = np.argsort(keys, kind="mergesort")  # stable, as np.argsort(kind="stable")
    return keys[order], forces[order], local[order]


class WarmStart:
    """Contact forces of the previous step, matched to this step's contacts (module docstring).

    enabled: False keeps the matching (new contacts are still detected) but starts every solve
    from zero forces (the cold-start reference of acceptance test 000 B6)."""

    def __init__(self, enabled: bool = True, tol: float = WARM_MATCH):
        self.enabled = bool(enabled)
        self.tol = float(tol)
        self.forget()

    def forget(self):
        """No previous contacts (every contact of the next step is new)."""
        self.keys = np.zeros(0, np.int64)
        self.forces = np.zeros((0, 3))
        self.local = np.zeros((0, 3))

    def lookup(self, keys, local):
        """(forces (m, 3) [N] in the contact frames, hit (m,) bool, any contact new) for this
        step's contacts (``keys`` (m,), ``local`` (m, 3) from `humanoid_sim.stages.contacts`)."""
        return _warm(self.keys, self.local, self.forces, keys, local, self.tol, self.enabled)

    def remember(self, keys, forces, local):
        """This step's contacts and their forces, for the next step."""
        if keys.shape[0]:
            self.keys, self.forces, self.local = _sorted_by_key(keys, forces, local)
        else:
            self.keys = np.zeros(0, np.int64)
