"""The bounded 1-DOF joints of a model: their configuration and tangent indices and position
limits, the joint bounds (3.1) of Escande 2008, §3.1, that the posture problem, the solvers, the
criteria and the joint-limit constraint read. Joints with infinite limits (continuous joints) and
the free-flyer are not bounded.
"""

from __future__ import annotations

import weakref

import numpy as np

__all__ = ["bounded_joints"]


_CACHE: dict = {}  # id(model) -> (weakref to it, its limits, the result): the model's joint table is read once


def bounded_joints(model):
    """``(idx_q, idx_v, lower, upper)`` arrays of the 1-DOF joints with finite limits (cached per
    model while its position limits are unchanged: reading the joint table costs ~0.1 ms)."""
    lo_all, hi_all = model.lowerPositionLimit, model.upperPositionLimit
    hit = _CACHE.get(id(model))
    if hit is not None and hit[0]() is model and np.array_equal(hit[1], lo_all) and np.array_equal(hit[2], hi_all):
        return tuple(a.copy() for a in hit[3])
    nq, nv = np.array(model.nqs), np.array(model.nvs)
    iq, iv = np.array(model.idx_qs), np.array(model.idx_vs)
    one = (nq == 1) & (nv == 1)
    one[0] = False  # the universe
    iq, iv = iq[one], iv[one]
    lo, hi = lo_all[iq], hi_all[iq]
    ok = np.isfinite(lo) & np.isfinite(hi)
    out = (iq[ok].astype(int), iv[ok].astype(int), lo[ok].copy(), hi[ok].copy())
    key = id(model)
    ref = weakref.ref(model, lambda _: _CACHE.pop(key, None))
    _CACHE[key] = (ref, lo_all.copy(), hi_all.copy(), out)
    return tuple(a.copy() for a in out)
