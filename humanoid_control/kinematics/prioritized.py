"""The default solver: strict priorities with damped least squares and joint-limit saturation.

Per cycle (one linearised step, as the thesis's, 002_fluckiger.md:219), with the rows of
`humanoid_control.kinematics.rows` (consistent units, weights, gains, step bounds):

1. level 1, the structure's closures (and any level-1 task), is solved first: loops are hard
   constraints (the gap of 002_fluckiger.md:661; the thesis mixes them with the commands,
   002_fluckiger.md:212, so an incompatible command opens the loops);
2. each next level (2: commands, frame targets, CoM, driven joints; 3: posture / rest) is solved
   in the null space of the levels above: x_k = (J_k Z)^+ (r_k - J_k dq), dq += Z x_k, Z <- Z N_k,
   with Z an orthonormal basis of the remaining null space (from the SVD of each level);
3. damped least squares per level (the gap of 002_fluckiger.md:660): the singular values σ of
   J_k Z are inverted as σ/(σ² + λ²) with λ² = λmax²·(1 - (σmin/ε)²) when the smallest σ above
   the rank tolerance is below ε, else λ = 0 (Chiaverini's rule: no damping, hence no tracking
   error, away from singularities); σ below ``rank_tolerance`` is a dependent direction, zeroed
   and left to the levels below;
4. joint limits (the gap of 002_fluckiger.md:659, the thesis's enforcement being unknown,
   002_fluckiger.md:222): a joint whose step would cross a limit is saturated at the limit, its
   column removed, and the whole hierarchy solved again with the others (at most
   ``max_clamp_iterations`` times, then the step is clipped). Chosen over a QP by measurement
   (docs/kinematics.md): no QP solver is installed in the project's environment, and the
   re-solve costs one more SVD pass only on the cycles that hit a limit.

    from humanoid_control.kinematics import prioritized, FrameTarget, ComTask, PostureTask
    q, report = prioritized.solve(s, q, hand, com, posture)
    report.level_residual, report.dexterity, report.joint_speeds(dt)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pinocchio as pin
from scipy.linalg import lapack

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics.report import SolveReport
from humanoid_control.kinematics.rows import Level, assemble
from humanoid_model.validation import finite_number, finite_vector, integer

__all__ = ["PrioritizedSettings", "solve", "tasks_of"]


@dataclass
class PrioritizedSettings:
    """damping_threshold ε [m/rad] (0.1, chosen): damping starts when the smallest singular value
        of a level falls below it. Measured on HRP-2 (feet welded, hands, CoM, posture): the
        levels' smallest σ stay >= 0.11 m/rad along the 20 cm square (no damping there, so no
        tracking error); reaching for a target 3 m away they fall to 0.018 (feet: legs stretched)
        and 0.001 (hand). With ε = λmax = 0.02, 0.05 or 0.08 the stretched arm kept a limit cycle
        of 0.03-0.4 rad per cycle; with 0.1 it settles (docs/kinematics.md).
    damping_max λmax [m/rad] (0.1, chosen): the damping at σ = 0; bounds the gain σ/(σ²+λ²) by
        1/(2λ) = 5 rad per metre of error, i.e. at most 0.25 rad per cycle with the 5 cm step bound.
    rank_tolerance [m/rad] (1e-6, chosen): singular values below it are dependent directions.
        They come from the Gram matrix, whose rounding (~1e-16·σmax²) resolves σ down to ~3e-8
        m/rad on HRP-2; the smallest genuine σ seen are 0.06 (thesis robots, consistent units)
        and 0.001 (HRP-2's stretched arm).
    clamp: saturate joints at their limits (True); max_clamp_iterations (4, chosen).
    loop_corrections (0, chosen): after the step, this many extra Newton steps on the closures
        alone (the loops' second-order gap: the hybrid robot's 10 mm tool step leaves 0.0125 mm,
        one correction < 1e-6 mm; each costs one more kinematics pass and SVD).
    limit_margin [rad] or [m] (0, chosen): the saturation bound stays this far inside the limits.
    """

    damping_threshold: float = 0.1
    damping_max: float = 0.1
    rank_tolerance: float = 1e-6
    clamp: bool = True
    max_clamp_iterations: int = 4
    limit_margin: float = 0.0
    loop_corrections: int = 0

    def __post_init__(self):
        src, E = "prioritized settings", KinematicsError
        self.damping_threshold = finite_number(self.damping_threshold, src, "damping_threshold", 0.0, error=E)
        self.damping_max = finite_number(self.damping_max, src, "damping_max", 0.0, error=E)
        self.rank_tolerance = finite_number(self.rank_tolerance, src, "rank_tolerance", 0.0, strict=True, error=E)
        self.max_clamp_iterations = integer(self.max_clamp_iterations, src, "max_clamp_iterations", 0, error=E)
        self.limit_margin = finite_number(self.limit_margin, src, "limit_margin", 0.0, error=E)
        self.loop_corrections = integer(self.loop_corrections, src, "loop_corrections", 0, error=E)


DEFAULT = PrioritizedSettings()
# [m/rad] (chosen) Tikhonov term of the rest level's normal equations: biases the posture step by
# ~1e-6 relative (its singular values are ~0.5-1) and keeps Cholesky away from the null directions
REST_REGULARISATION = 1e-3


def tasks_of(structure, tasks) -> list:
    """The structure's closures followed by ``tasks`` (nested lists and tuples flattened)."""
    flat = list(structure.closures.values())
    stack = list(tasks)[::-1]
    while stack:
        t = stack.pop()
        if isinstance(t, (list, tuple)):
            stack.extend(t[::-1])
        else:
            flat.append(t)
    return flat


def _hierarchy(levels, st, start=None):
    """The prioritised step du (nv,) in scaled units. Each level's singular values come from the
    eigen-decomposition of its Gram matrix A·Aᵀ (m x m, m <= 14 rows on HRP-2: LAPACK dsyev,
    3-5x faster here than an SVD of A), the step is Aᵀ·U·diag(1/(σ²+λ²))·Uᵀ·r (= V σ/(σ²+λ²) Uᵀ r)
    and the null space is kept as the projector P <- P - V·Vᵀ, V = Aᵀ·U/σ. A last level >= 3
    (posture, rest) is solved by its regularised normal equations (Cholesky, `REST_REGULARISATION`).

    Returns ``(du, after_first)``: ``after_first`` = (du, P) after the first level, from which a
    re-solve with saturated joints starts (``start``) instead of decomposing level 1 again."""
    nv = levels[0].J.shape[1]
    du, P = (np.zeros(nv), None) if start is None else (start[0].copy(), start[1])
    after_first = None
    tol2 = st.rank_tolerance**2
    for k, lev in enumerate(levels):
        last = k == len(levels) - 1
        r = lev.r - lev.J @ du
        A = lev.J if P is None else lev.J @ P
        if last and lev.level >= 3:
            H = A.T @ A
            H.flat[:: nv + 1] += REST_REGULARISATION**2
            c, _ = lapack.dpotrf(H, lower=1)
            x, _ = lapack.dpotrs(c, A.T @ r, lower=1)
            du += x
            break
        w, U, info = lapack.dsyev(A @ A.T)
        keep = w > tol2
        if keep.any():
            w, U = w[keep], U[:, keep]
            smin2, eps2 = w[0], st.damping_threshold**2
            lam2 = 0.0 if smin2 >= eps2 else st.damping_max**2 * (1.0 - smin2 / eps2)
            du += A.T @ (U @ ((U.T @ r) / (w + lam2)))
            if not last:
                V = (A.T @ U) / np.sqrt(w)
                P = (np.eye(nv) if P is None else P) - V @ V.T
        if k == 0:
            after_first = (du.copy(), P)
    return du, after_first


def checked_q(structure, q, who: str) -> np.ndarray:
    """``q`` as a float vector of nq finite numbers, else `KinematicsError` (fast path first)."""
    a = np.asarray(q, dtype=float)
    if a.shape == (structure.model.nq,) and np.isfinite(a).all():
        return a
    return finite_vector(q, structure.model.nq, f"{who} ({structure.name})", "q", error=KinematicsError)


def _with_saturation(levels, rows, targets, nv):
    """``levels`` with the saturated joints' rows (velocity indices ``rows``, steps ``targets``
    in scaled units) inserted right after level 1: the loops keep priority over the limits,
    the limits over the commands."""
    if not rows:
        return levels
    J = np.zeros((len(rows), nv))
    J[np.arange(len(rows)), rows] = 1.0
    sat = Level(1, J, np.array(targets, float), {}, [])
    k = 1 if levels and levels[0].level == 1 else 0
    return levels[:k] + [sat] + levels[k:]


def solve(structure, q, *tasks, settings: PrioritizedSettings | None = None) -> tuple[np.ndarray, SolveReport]:
    """One cycle: the structure's closures (level 1) and ``tasks`` by level. Returns the new
    configuration and a `SolveReport`. A NaN configuration is refused (`KinematicsError`); an
    unreachable target is not an error: its residual stays in the report."""
    st = settings or DEFAULT
    model = structure.model
    q = checked_q(structure, q, "solver")
    all_tasks = tasks_of(structure, tasks)
    structure.compute(q, com=any(t.needs_com for t in all_tasks))
    cs = structure.col_scale
    levels = assemble(structure, q, all_tasks, cs)
    nv = model.nv
    du = np.zeros(nv)
    saturated, iterations = [], 0
    lq, lv = structure.lim_q, structure.lim_v
    lo, hi = structure.lower + st.limit_margin, structure.upper - st.limit_margin
    if levels:
        rows, targets = [], []
        first = levels[0].level == 1 and len(levels) > 1  # level 1 is solved once, re-solves start after it
        for it in range(st.max_clamp_iterations + 1):
            iterations = it
            if it == 0:
                du, start = _hierarchy(levels, st)
            elif first:
                du, _ = _hierarchy(_with_saturation(levels, rows, targets, nv)[1:], st, start)
            else:
                du, _ = _hierarchy(_with_saturation(levels, rows, targets, nv), st)
            if not st.clamp or lv.size == 0:
                break
            qn = q[lq] + du[lv] * cs[lv]
            over = np.flatnonzero((qn > hi) | (qn < lo))
            over = [k for k in over if lv[k] not in rows]
            if not over:
                break
            for k in over:
                rows.append(int(lv[k]))
                targets.append((min(max(qn[k], lo[k]), hi[k]) - q[lq[k]]) / cs[lv[k]])
        saturated = rows
        if st.clamp and lv.size:  # what still crosses (the loops needed it) is clipped
            qn = q[lq] + du[lv] * cs[lv]
            du[lv] = (np.clip(qn, np.minimum(lo, q[lq]), np.maximum(hi, q[lq])) - q[lq]) / cs[lv]
    dq = du * cs
    q_new = pin.integrate(model, q, dq)
    if st.loop_corrections and structure.closures:
        once = replace(st, loop_corrections=0)
        for _ in range(st.loop_corrections):
            q_new, _ = solve(structure, q_new, settings=once)
        dq = pin.difference(model, q, q_new)
    return q_new, _report(structure, levels, dq, saturated, iterations, "prioritized")


def _report(structure, levels, dq, saturated, iterations, name) -> SolveReport:
    errors = {}
    for lev in levels:
        errors.update(lev.errors)
    aug = [lev.J for lev in levels if lev.level <= 2]
    names = {structure.joint_index(n)[1]: n for n in structure.joint_names} if saturated else {}
    return SolveReport(
        errors=errors,
        dq=dq,
        saturated=[names.get(i, str(i)) for i in saturated],
        clamp_iterations=iterations if saturated else 0,
        solver=name,
        _J_rows=aug,
        _levels=levels,
    )
