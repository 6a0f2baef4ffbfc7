"""The default solver: strict priorities with damped least squares and joint-limit saturation.

Per cycle (one linearised step, as the thesis's, Flückiger 1998, §5.5.3), with the rows of
`humanoid_control.kinematics.rows` (consistent units, weights, gains, step bounds):

1. level 1, the structure's closures (and any level-1 task), is solved first: loops are hard
   constraints (the thesis stacks them with the commands at equal priority, §3.4.3, eq. (3.27),
   so an incompatible command opens the loops, §3.4.3.2);
2. each next level (2: commands, frame targets, CoM, driven joints; 3: posture / rest) is solved
   in the null space of the levels above: x_k = (J_k P)^+ (r_k - J_k dq), dq += x_k,
   P <- P - (J_k P)^+ (J_k P), with P the projector on the remaining null space (P = I at first);
3. damped least squares per level (the thesis only zeroes small singular values, §5.5.3.3): the
   singular values σ of J_k P are inverted as σ/(σ² + λ²) with λ² = λmax²·(1 - (σmin/ε)²) when
   the smallest σ above the rank tolerance is below ε, else λ = 0 (Chiaverini's rule: no damping,
   hence no tracking error, away from singularities); σ below ``rank_tolerance`` is a dependent
   direction, zeroed and left to the levels below;
4. joint limits (the thesis declares them, §4.1.2.3, but does not say how its solver enforces
   them): a joint whose step would cross a limit is saturated at the limit (a row "this joint
   moves exactly to its limit" inserted right after level 1) and the levels below level 1 solved
   again (at most ``max_clamp_iterations`` times, then the step is clipped). Chosen over a QP by measurement
   (docs/kinematics.md): no QP solver is installed in the project's environment, and the
   re-solve costs one more pass of the levels below level 1 only on the cycles that hit a limit.

Per cycle: one kinematics pass (`KinematicStructure.compute`), the rows of the tasks that are
evaluated in Python, then one compiled call (`humanoid_control.kinematics.hierarchy.cycle`) that
writes the rows of every frame constraint (welds, balls, frame targets:
`humanoid_control.kinematics.frame_rows`) and of the CoM and joint tasks
(`humanoid_control.kinematics.task_rows`) and makes steps 1-4 (the exact Cholesky routes and the
eigen-decomposition fallback: `hierarchy`'s docstring). What stays the same between cycles of one
task list is cached (`_Plan`); the report's levels and errors are built when first read.

    from humanoid_control.kinematics import prioritized, FrameTarget, ComTask, PostureTask
    q, report = prioritized.solve(s, q, hand, com, posture)
    report.level_residual, report.dexterity, report.joint_speeds(dt)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from operator import attrgetter

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics.closures import closure_gap, loops
from humanoid_control.kinematics.frame_rows import FrameConstraint, FrameRows
from humanoid_control.kinematics.hierarchy import cycle
from humanoid_control.kinematics.report import SolveReport
from humanoid_control.kinematics.rows import MAX_STEP_ANGULAR, MAX_STEP_LINEAR
from humanoid_control.kinematics.task_rows import TaskRows, compiled
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
    loop_tolerance [m] (5e-6, chosen: half the thesis's 0.01 mm loop gap, Flückiger 1998, §5.5.3.1):
        after the step (and the forced corrections), while the largest gap of the structure's
        loops (`closures.loops`: closures between two of its frames; rotations times the length
        scale) exceeds it, one more correction, at most `AUTO_CORRECTIONS`. The gap costs one forward
        kinematics (13 us on HRP-2's model). A weld to a world placement (a foot) is not a loop: its
        second-order error is corrected by the next cycle, as a target's (measured on HRP-2's
        benchmark: including the feet would correct half of the cycles and cost 1.75x). 0 disables it.
    limit_margin [rad] or [m] (0, chosen): the saturation bound stays this far inside the limits.
    """

    damping_threshold: float = 0.1
    damping_max: float = 0.1
    rank_tolerance: float = 1e-6
    clamp: bool = True
    max_clamp_iterations: int = 4
    limit_margin: float = 0.0
    loop_corrections: int = 0
    loop_tolerance: float = 5e-6

    def __post_init__(self):
        src, E = "prioritized settings", KinematicsError
        self.damping_threshold = finite_number(self.damping_threshold, src, "damping_threshold", 0.0, error=E)
        self.damping_max = finite_number(self.damping_max, src, "damping_max", 0.0, error=E)
        self.rank_tolerance = finite_number(self.rank_tolerance, src, "rank_tolerance", 0.0, strict=True, error=E)
        self.max_clamp_iterations = integer(self.max_clamp_iterations, src, "max_clamp_iterations", 0, error=E)
        self.limit_margin = finite_number(self.limit_margin, src, "limit_margin", 0.0, error=E)
        self.loop_corrections = integer(self.loop_corrections, src, "loop_corrections", 0, error=E)
        self.loop_tolerance = finite_number(self.loop_tolerance, src, "loop_tolerance", 0.0, error=E)


DEFAULT = PrioritizedSettings()
AUTO_CORRECTIONS = 2  # (chosen) at most this many loop corrections by `loop_tolerance` per cycle
# [m/rad] (chosen) Tikhonov term of the rest level's normal equations: biases the posture step by
# ~1e-6 relative (its singular values are ~0.5-1) and keeps Cholesky away from the null directions
REST_REGULARISATION = 1e-3
_BOUNDS = np.array([MAX_STEP_LINEAR, MAX_STEP_ANGULAR])


def tasks_of(structure, tasks) -> list:
    """The structure's closures followed by ``tasks`` (nested lists and tuples flattened)."""
    for t in tasks:
        if isinstance(t, _NESTED):
            break
    else:  # nothing nested: the usual case
        return [*structure.closures.values(), *tasks]
    flat = list(structure.closures.values())
    stack = list(tasks)[::-1]
    while stack:
        t = stack.pop()
        if isinstance(t, (list, tuple)):
            stack.extend(t[::-1])
        else:
            flat.append(t)
    return flat


def checked_q(structure, q, who: str) -> np.ndarray:
    """``q`` as a float vector of nq finite numbers, else `KinematicsError` (fast path first:
    a finite q·q means every entry is finite)."""
    a = np.asarray(q, dtype=float)
    if a.shape == structure.q0.shape and math.isfinite(a @ a):
        return a
    return finite_vector(q, structure.model.nq, f"{who} ({structure.name})", "q", error=KinematicsError)


_NESTED = (list, tuple)
_LEVEL = attrgetter("level")
_TASK_KEY = attrgetter("level", "weight", "gain")
_SETTINGS_KEY = attrgetter("rank_tolerance", "damping_threshold", "damping_max", "clamp", "max_clamp_iterations")
_PLANS: dict = {}  # {key: _Plan}, see `_plan`
_MAX_PLANS = 64  # (chosen) cached task lists; the cache is emptied beyond (a pilot uses a handful)


class _Plan:
    """What stays the same between the cycles of one task list: the tasks sorted by level
    (stable), their row slices, the kernel's constant arrays, the level groups, the frame
    constraints' `FrameRows` and the CoM and joint tasks' `TaskRows` (evaluated in the compiled
    call), and the other tasks (by ``evaluate``)."""

    def __init__(self, structure, tasks, st):
        self.order = order = sorted(tasks, key=_LEVEL)
        self.com = any(t.needs_com for t in order)
        self.slots, task_start, lev_start, lev_num, self.groups = [], [0], [], [], []
        a = 0
        for t in order:
            b = a + t.dim
            self.slots.append((t, a, b))
            if not lev_num or lev_num[-1] != t.level:
                lev_start.append(a), lev_num.append(t.level), self.groups.append([])
            self.groups[-1].append(t)
            task_start.append(b)
            a = b
        lev_start.append(a)
        self.m = a
        # the report's level spans, each with its tasks' row slices (`SolveReport._rows`)
        self.levels = [
            (int(lev_num[k]), lev_start[k], lev_start[k + 1], g, [x for x in self.slots if x[0] in g])
            for k, g in enumerate(self.groups)
        ]
        self.sat = np.zeros(structure.lim_v.size, np.int64)  # scratch of `cycle` (its outputs)
        self.du = np.empty(structure.model.nv)
        self.loops = loops(structure)  # the structure's loops (`closures.loops`) and `closure_gap`'s scratch
        self.gap_data = structure.model.createData() if self.loops else None
        self.const = (
            np.concatenate([t.row_scale for t in order], dtype=float),
            np.array([t.weight for t in order], float),
            np.array([t.gain for t in order], float),
            np.concatenate([t.linear for t in order], dtype=bool),
            np.array(task_start, np.int64),
            np.array(lev_start, np.int64),
            np.array(lev_num, np.int64),
            structure.col_scale,
            _BOUNDS,
        )
        self.limits = (bool(st.clamp), int(st.max_clamp_iterations), _settings(st))
        self.names = {v: n for n, (_, v) in structure._joint.items()}
        self.frame_rows = FrameRows(structure.model, [(t, a) for t, a, _ in self.slots if _batched(t)])
        self.task_rows = TaskRows([(t, a) for t, a, _ in self.slots if compiled(t)])
        self.others = [(t, a, b) for t, a, b in self.slots if not _batched(t) and not compiled(t)]

    def fill(self, q, data, J, e) -> None:
        """The rows J[a:b] and errors e[a:b] of the tasks evaluated in Python (``data`` computed at
        ``q``); the compiled call writes the others."""
        for t, a, b in self.others:
            e[a:b], J[a:b] = t.evaluate(q, data)


def _batched(t) -> bool:
    """Whether task ``t``'s rows come from `FrameRows` (a frame constraint that keeps its
    compiled ``evaluate``)."""
    return isinstance(t, FrameConstraint) and type(t).evaluate is FrameConstraint.evaluate


def _plan(structure, tasks, st) -> _Plan:
    """The cached `_Plan` of ``tasks``, rebuilt whenever a task's level, weight or gain, the
    settings or the length scale changed (they are part of the key)."""
    key = (structure, structure.length_scale, _SETTINGS_KEY(st), tuple(tasks), tuple(map(_TASK_KEY, tasks)))
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        plan = _PLANS[key] = _Plan(structure, tasks, st)
    return plan


def solve(structure, q, *tasks, settings: PrioritizedSettings | None = None) -> tuple[np.ndarray, SolveReport]:
    """One cycle: the structure's closures (level 1) and ``tasks`` by level. Returns the new
    configuration and a `SolveReport`. A NaN configuration is refused (`KinematicsError`); an
    unreachable target is not an error: its residual stays in the report. One kinematics pass
    (`KinematicStructure.compute`), the rows of the tasks evaluated in Python, then one compiled
    call for the other rows and the step (`humanoid_control.kinematics.hierarchy.cycle`)."""
    st = settings or DEFAULT
    model = structure.model
    q = checked_q(structure, q, "solver")
    all_tasks = tasks_of(structure, tasks)
    if not all_tasks:
        structure.compute(q)
        return q.copy(), _report([], np.zeros(model.nv), [], 0, "prioritized")
    plan = _plan(structure, all_tasks, st)
    data = structure.compute(q, com=plan.com)
    J, e, r, dq = np.empty((plan.m, model.nv)), np.empty(plan.m), np.empty(plan.m), np.empty(model.nv)
    if plan.others:
        plan.fill(q, data, J, e)
    lo, hi, margin = structure.lower, structure.upper, st.limit_margin
    if margin:
        lo, hi = lo + margin, hi - margin
    sat = plan.sat
    if sat.size != structure.lim_v.size:  # the limits were re-read (`refresh_limits`)
        sat = plan.sat = np.zeros(structure.lim_v.size, np.int64)
    nsat, iterations = cycle(
        *plan.frame_rows.inputs(data), *plan.task_rows.inputs(data), J, e, *plan.const, q, structure.lim_q,
        structure.lim_v, lo, hi, *plan.limits, sat, plan.du, r, dq,
    )  # fmt: skip
    saturated = [plan.names.get(i, str(i)) for i in sat[:nsat].tolist()] if nsat else []
    q_new = pin.integrate(model, q, dq)
    auto = AUTO_CORRECTIONS if st.loop_tolerance and plan.loops else 0
    if structure.closures and (st.loop_corrections or auto):
        once = replace(st, loop_corrections=0, loop_tolerance=0.0)
        corrected = st.loop_corrections
        for _ in range(st.loop_corrections):
            q_new, _ = solve(structure, q_new, settings=once)
        for _ in range(auto):
            if closure_gap(structure, q_new, plan.gap_data, plan.loops) <= st.loop_tolerance:
                break
            q_new, _ = solve(structure, q_new, settings=once)
            corrected += 1
        if corrected:
            dq = pin.difference(model, q, q_new)
    return q_new, SolveReport(
        dq=dq, saturated=saturated, clamp_iterations=iterations if nsat else 0, solver="prioritized",
        _lazy=(plan.levels, J, r, e),
    )  # fmt: skip


def _settings(st: PrioritizedSettings) -> np.ndarray:
    """(rank_tolerance², ε², λmax², REST_REGULARISATION²) for `hierarchy.cycle`."""
    return np.array([st.rank_tolerance**2, st.damping_threshold**2, st.damping_max**2, REST_REGULARISATION**2])


def _report(levels, dq, saturated, iterations, name) -> SolveReport:
    """The `SolveReport` of one cycle (``levels``: `rows.Level` list; ``saturated``: joint names)."""
    return SolveReport(
        dq=dq,
        saturated=saturated,
        clamp_iterations=iterations if saturated else 0,
        solver=name,
        _J_rows=[lev.J for lev in levels if lev.level <= 2],
        _levels=levels,
    )
