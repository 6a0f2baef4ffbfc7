"""Stacking constraint rows for the solvers: consistent units, weights, gains and step bounds.

Each constraint's rows are multiplied by its ``row_scale`` (rotation rows by the structure's
``length_scale`` [m/rad], so every row is in metres; docs/kinematics.md, "Units and weighting") and its
``weight``; the right-hand side is ``-gain·e``. The Jacobian's columns are multiplied by the
structure's ``col_scale`` (columns in metres by ``length_scale``), so the unknown is in radian
units and a minimum-norm step weighs a metre of prismatic motion like ``1/length_scale`` rad.

The right-hand side of one constraint is shortened to at most ``MAX_STEP_LINEAR`` [m] for its
position rows and ``MAX_STEP_ANGULAR`` [rad] for its rotation rows per cycle (before the unit
scaling): a target 3 m away is approached over several cycles along a straight line instead of
by one huge linearised step (the thesis injects the full error, Flückiger 1998, §3.4.3.2, which
suits the small loop gaps of its robots, a few millimetres).

"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Level", "assemble", "MAX_STEP_LINEAR", "MAX_STEP_ANGULAR"]

MAX_STEP_LINEAR = 0.05  # [m] (chosen) largest position correction asked of one task per cycle: 5 cm,
# 10x a hand's travel per cycle at 25 Hz and 12 cm/s (a fast teleoperated hand), so tracking is never clipped
MAX_STEP_ANGULAR = 0.25  # [rad] (chosen) largest rotation correction per cycle (about 14 deg), same reasoning


_FAST = min(MAX_STEP_LINEAR, MAX_STEP_ANGULAR) ** 2


@dataclass
class Level:
    """The stacked rows of one priority level: ``J`` (m, nv) and ``r`` (m,) in scaled units,
    ``errors`` {task name: raw e}, and the tasks."""

    level: int
    J: np.ndarray
    r: np.ndarray
    errors: dict
    tasks: list


def _clip(e: np.ndarray, linear: np.ndarray) -> np.ndarray:
    """``e`` with its position and rotation parts shortened to the per-cycle bounds."""
    if float(e @ e) <= _FAST:  # within both bounds: the usual case, no copy
        return e
    out = e.copy()
    for mask, bound in ((linear, MAX_STEP_LINEAR), (~linear, MAX_STEP_ANGULAR)):
        if mask.any():
            n = float(np.linalg.norm(e[mask]))
            if n > bound:
                out[mask] *= bound / n
    return out


def assemble(structure, q, tasks, col_scale, flat: bool = False) -> list[Level]:
    """The levels of ``tasks`` (constraints, evaluated on ``structure.data``, already computed
    at ``q``), in increasing level order (one level 0 holding everything when ``flat``). Rows are
    written into one preallocated array per level and scaled in one operation (the hot path)."""
    groups: dict[int, list] = {}
    for t in tasks:
        groups.setdefault(0 if flat else t.level, []).append(t)
    out = []
    data, nv = structure.data, structure.model.nv
    for level in sorted(groups):
        members = groups[level]
        m = sum(t.dim for t in members)
        J = np.empty((m, nv))
        e = np.empty(m)
        w = np.empty(m)
        g = np.empty(m)
        errors, a = {}, 0
        for t in members:
            b = a + t.dim
            e_t, J[a:b] = t.evaluate(q, data)
            e[a:b] = _clip(e_t, t.linear)
            errors[t.name] = e_t
            w[a:b] = t.row_scale * t.weight
            g[a:b] = t.gain
            a = b
        J *= w[:, None]
        J *= col_scale
        level_rows = Level(level, J, -(g * e * w), errors, members)
        out.append(level_rows)
    return out
