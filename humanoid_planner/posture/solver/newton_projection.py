"""Projection onto the constraints without a criterion: Newton steps of minimum norm from a start
configuration, the way the thesis interpolates a plan (q^{i,j} = argmin ||q - p^{i,j}||^2 over the
stance's manifold, Escande 2008, §7.1.2, (7.1)-(7.2), warm-started from the previous solution)
and the way LAAS HPP projects (its ConfigProjector in hpp-constraints: Newton with line search
and joint-bound saturation). docs/posture_generator.md "Projection".

Each iteration, at q (one kinematics pass, `kinematics.update`):

1. rows: every equality, and every inequality currently violated (c_i > 0), asked to reach 0;
2. step: dv = -J^T (J J^T + lambda I)^-1 c, the least-norm solution of J dv = -c in the tangent
   space (lambda = ``damping`` times the largest diagonal entry of J J^T: a regularisation that
   keeps the step finite at singular configurations, 1e-10 chosen: 1e-5 of the 1e-6 tolerance
   on a unit residual);
3. joint bounds (3.1) by saturation: a joint the full step would push through a bound is moved
   onto the bound and its column removed, and the step of the other joints recomputed for the
   remaining residual (at most ``saturation_passes`` passes);
4. line search on the merit sum of squared violations: halve the step until it decreases (at
   most ``line_search_steps`` halvings).

It stops with SUCCESS when the largest violation is <= ``tolerance``, NO_PROGRESS when the line
search cannot decrease the merit, MAX_ITERATIONS after ``max_iterations``. The minimum-norm
step keeps q close to the start (the first-order solution of (7.2) around it), the reason this,
not SLSQP with a distance criterion, is the projection of the motion generator: it needs no QP.

Numbers chosen: ``tolerance`` 1e-6 as `two_phase.PostureSolverSettings` (m, or dimensionless);
``max_iterations`` 40, HPP's maxIterProjection in the peer's script; ``line_search_steps`` 10
(a step of 1/1024 that does not decrease the merit means a stationary point of it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_planner.exceptions import PlanningError

from ..joint_bounds import bounded_joints
from ..kinematics import update
from .blas_threads import single_threaded
from .call_log import CallLog, notify
from .outcome import Outcome, PostureResult

__all__ = ["NewtonProjectionSettings", "NewtonProjector", "newton_project"]


@dataclass
class NewtonProjectionSettings:
    """Settings of `newton_project` (defaults and reasons in the module docstring)."""

    tolerance: float = 1e-6
    max_iterations: int = 40
    damping: float = 1e-10
    line_search_steps: int = 10
    saturation_passes: int = 4


class NewtonProjector:
    """The projection onto ``constraints`` (a `PostureConstraint` list) for ``model``, built once and
    run from any start (`run`): what HPP's ConfigProjector is to its applyConstraints."""

    def __init__(self, model, constraints, settings: NewtonProjectionSettings | None = None):
        self.model, self.data = model, model.createData()
        self.settings = settings or NewtonProjectionSettings()
        self.constraints = list(constraints)
        extended = [c.name for c in self.constraints if c.n_extra]
        if extended:
            raise PlanningError(f"projection: field 'constraints' must not have extended variables; {extended}")
        self.needs_com = any(c.needs_com for c in self.constraints)
        self.equality = np.concatenate([c.equality_mask for c in self.constraints])
        self.dim = len(self.equality)
        self.slices, i = [], 0
        for c in self.constraints:
            self.slices.append(slice(i, i + c.dim))
            i += c.dim
        self.bounds = bounded_joints(model)

    def _at(self, q):
        update(self.model, self.data, q, com=self.needs_com)
        c = np.empty(self.dim)
        J = np.empty((self.dim, self.model.nv))
        for con, s in zip(self.constraints, self.slices):
            c[s], J[s] = con.evaluate(q, self.data)
        viol = np.where(self.equality, np.abs(c), np.maximum(c, 0.0))
        return c, J, viol

    def run(self, q0, log: CallLog | None = None, label: str = "projection") -> PostureResult:
        """Project ``q0`` (nq,) (module docstring); recorded like `two_phase.solve`'s calls (`call_log`)."""
        cpu = time.process_time()
        with single_threaded():
            out = self._run(q0)
        out.cpu_time = time.process_time() - cpu
        notify(out, label, log)
        return out

    def _run(self, q0) -> PostureResult:
        s = self.settings
        start = time.perf_counter()
        idx_q, idx_v, lo, hi = self.bounds
        q = np.array(q0, float)
        q[idx_q] = np.clip(q[idx_q], lo, hi)
        c, J, viol = self._at(q)
        merit = float(viol @ viol)
        outcome, message, it = Outcome.MAX_ITERATIONS, f"{s.max_iterations} iterations", 0
        while True:
            if viol.max(initial=0.0) <= s.tolerance:
                outcome, message = Outcome.SUCCESS, ""
                break
            if it == s.max_iterations:
                break
            it += 1
            active = self.equality | (c > 0.0)
            dv = _step(J[active], -c[active], q, idx_q, idx_v, lo, hi, s)
            alpha = 1.0
            for _ in range(s.line_search_steps + 1):
                q_new = pin.integrate(self.model, q, alpha * dv)
                q_new[idx_q] = np.clip(q_new[idx_q], lo, hi)
                trial = self._at(q_new)
                m_new = float(trial[2] @ trial[2])
                if m_new < merit:
                    break
                alpha *= 0.5
            else:
                outcome, message = Outcome.NO_PROGRESS, f"line search: no decrease of the violation {viol.max():.3g}"
                break
            q, merit = q_new, m_new
            c, J, viol = trial
        worst = float(viol.max(initial=0.0))
        by = {con.name: float(viol[sl].max(initial=0.0)) for con, sl in zip(self.constraints, self.slices)}
        return PostureResult(
            outcome, q, worst, worst <= s.tolerance, 0.0, 0, it, time.perf_counter() - start, message, by
        )


def newton_project(
    model,
    constraints,
    q0,
    settings: NewtonProjectionSettings | None = None,
    log: CallLog | None = None,
    label: str = "projection",
) -> PostureResult:
    """Project ``q0`` (nq,) onto ``constraints`` (a `PostureConstraint` list) and the joint bounds
    by minimum-norm Newton steps (module docstring): `NewtonProjector` built and run once. Never raises
    for an unsatisfiable request. The call is recorded like `two_phase.solve`'s (`call_log`)."""
    return NewtonProjector(model, constraints, settings).run(q0, log, label)


def _step(J, r, q, idx_q, idx_v, lo, hi, s: NewtonProjectionSettings) -> np.ndarray:
    """The least-norm dv with J dv = r, the joints that would cross a bound saturated (module docstring)."""
    nv = J.shape[1]
    dv = np.zeros(nv)
    free = np.ones(nv, bool)
    room_hi, room_lo = hi - q[idx_q], lo - q[idx_q]  # the allowed increments of the bounded joints
    for _ in range(s.saturation_passes + 1):
        Jf = J[:, free]
        G = Jf @ Jf.T
        G.flat[:: len(G) + 1] += s.damping * max(float(G.diagonal().max(initial=0.0)), 1.0)
        step = np.zeros(nv)
        step[free] = Jf.T @ np.linalg.solve(G, r - J @ dv)
        trial = dv + step
        over = free[idx_v] & ((trial[idx_v] > room_hi + 1e-12) | (trial[idx_v] < room_lo - 1e-12))
        if not over.any():
            return trial
        j = idx_v[over]
        dv[j] = np.where(trial[j] > room_hi[over], room_hi[over], room_lo[over])
        free[j] = False
    return dv + step * free
