"""The thesis's reference method (Flückiger 1998, §3.3.3, §3.4.3, eq. (3.22)-(3.31)): one
augmented Jacobian stacking every row (loops and commands at equal priority, eq. (3.24), (3.27)),
its SVD pseudo-inverse with small singular values zeroed (§5.5.3.3), and the loop errors fed back
with gain 1, one step per cycle:

    dq = J_aug^+ · (-e_aug),  σ_i^+ = 1/σ_i if σ_i > RCOND·σmax else 0

Units (docs/kinematics.md, "Units and weighting"): the rows are in metres (rotation rows times
the structure's ``length_scale`` [m/rad]) and the unknowns in radians (prismatic columns times
``length_scale``), so σ is in m/rad for every row and column and one relative threshold means the
same on every structure. The thesis gives no threshold (it zeroes values "close to 0", §5.5.3.3),
and in its mm/rad units a 1e-6 threshold drops feasible directions of the Cross-Delta (derived: the
thesis's method run on its cross.mad, Appendix B; condition number about 1e6); see `RCOND`. As in
the thesis there is no damping, no priority and no joint-limit handling (§3.4.3); the optional
``clamp`` clips the step at the limits (``limit_margin`` inside them) without re-solving. The per-task step bound of
`humanoid_control.kinematics.rows` applies.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_control.kinematics.prioritized import _report, checked_q, tasks_of
from humanoid_control.kinematics.rows import assemble

__all__ = ["solve", "RCOND"]

# (chosen) singular values at or below RCOND·σmax are zeroed. Exactly dependent rows (planar loops
# in 6-row blocks, as the thesis writes them, Flückiger 1998, §3.4.2.2) give σ ~ 1e-16·σmax from
# rounding: 1e-10 leaves 6 orders of margin above them, and keeps directions down to 1e-10·σmax,
# far below the Cross-Delta's smallest feasible ones (~1e-6·σmax even in the thesis's mm units,
# derived as above).
RCOND = 1e-10


def solve(structure, q, *tasks, rcond: float = RCOND, clamp: bool = False, limit_margin: float = 0.0):
    """One thesis cycle on the structure's closures and ``tasks`` (levels ignored). Returns
    ``(q_new, report)`` (`SolveReport`, its single level is 0). ``clamp``: the limited joints end
    within their limits, ``limit_margin`` [rad] or [m] inside them (as `PrioritizedSettings`'s)."""
    model = structure.model
    q = checked_q(structure, q, "svd solver")
    all_tasks = tasks_of(structure, tasks)
    structure.compute(q, com=any(t.needs_com for t in all_tasks))
    cs = structure.col_scale
    levels = assemble(structure, q, all_tasks, cs, flat=True)
    dq = np.zeros(model.nv)
    if levels:
        J, r = levels[0].J, levels[0].r
        U, s, Vt = np.linalg.svd(J, full_matrices=False)
        keep = s > rcond * (s[0] if s.size else 0.0)
        dq = Vt[keep].T @ ((U[:, keep].T @ r) / s[keep]) * cs
    if clamp and structure.lim_v.size:
        lq, lv = structure.lim_q, structure.lim_v
        lo, hi = structure.lower + limit_margin, structure.upper - limit_margin
        dq[lv] = np.clip(q[lq] + dq[lv], lo, hi) - q[lq]
    return pin.integrate(model, q, dq), _report(levels, dq, [], 0, "svd")
