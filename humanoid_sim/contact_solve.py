"""Solve stage: the frictional contact problem of every collision group (spec
../shared/spec/000_chardonnet.md §2.6–2.8, eq. 3.25–3.26) with the World's solver.

Per group (`humanoid_sim.delassus.GroupSystem`): the free velocity gets the contacts' gap terms
(`humanoid_sim.contacts.gap_term`) and the joint-limit rows' (`humanoid_sim.joint_limits`:
μ = 0, unit compliance on their tangential rows); the solve starts from last step's forces
(`humanoid_sim.warm_start`); contacts without a previous match start from the frictionless
solution of the group (normal forces only), so that a hyperstatic contact set does not lock in
internal tangential forces produced by the order of a cold Gauss–Seidel sweep (spec §4.2, B1).
The solver returns forces f [N] (W = dt Λ); the velocity change M̃⁻¹Jᵀ (dt f) goes to ``dv``.
Convergence, iterations and residual maxima go to the step statistics
(`humanoid_sim.step_stats`).
"""

from __future__ import annotations

import numpy as np

from humanoid_sim.solvers import ContactProblem

__all__ = ["ContactSolve"]

SOURCE = "world step"  # names the problems in solver errors


class ContactSolve:
    """The solve stage (module docstring). solver: a `humanoid_sim.solvers` solver; settings: its
    `SolverSettings` or None; dt [s]."""

    def __init__(self, solver, settings, dt: float):
        self.solver, self.settings, self.dt = solver, settings, float(dt)

    def __call__(self, systems, contacts, warm, limits, limit_warm, dv, stats):
        """Solve every group of a step. contacts: the `humanoid_sim.contacts.StepContacts`;
        warm: (forces (m, 3), hit (m,), any new) from `humanoid_sim.warm_start.WarmStart.lookup`
        (None without contacts); limits: the `LimitRows` or None and limit_warm their previous
        forces; dv (nv,): velocity change, accumulated [m/s]; stats: a `StepStats`.

        Returns (contact forces (m, 3) [N] in the contact frames, limit-row forces (k,) [N·m] or
        None, solver iterations of the step)."""
        solver, settings = self.solver, self.settings
        b = contacts.batch
        forces = None if contacts.single else np.zeros((b.m, 3))
        f_limits = None
        iterations = 0
        single = contacts.single
        for s in systems:
            idx, nc = s.index, s.nc
            vfree = s.v_free
            mu = b.mu[idx]
            comp = None
            if nc:
                vfree[0 : 3 * nc : 3] += contacts.gap[idx]
            wg = warm[0][idx].reshape(-1) if nc else np.zeros(0)
            if s.limits:
                k = limits.k
                vfree[3 * nc :: 3] += limits.gap
                mu = np.concatenate([mu, np.zeros(k)])
                comp = np.zeros(s.J.shape[0])
                comp[3 * nc + 1 :: 3] = 1.0  # tangential rows of a limit: no Jacobian, no force
                comp[3 * nc + 2 :: 3] = 1.0
                wl = np.zeros(3 * k)
                wl[0::3] = limit_warm
                wg = np.concatenate([wg, wl])
            if nc and (warm[2] if single else np.count_nonzero(warm[1][idx]) < nc):  # any contact new
                new = ~warm[1][idx]
                p0 = ContactProblem.trusted(s.W, vfree, np.zeros(mu.shape[0]), compliance=comp, source=SOURCE)
                f0 = solver.solve(p0, settings=settings).impulses
                rows = np.repeat(np.concatenate([new, np.zeros(mu.shape[0] - nc, bool)]), 3)
                wg[rows] = f0[rows]
            prob = ContactProblem.trusted(s.W, vfree, mu, compliance=comp, source=SOURCE)
            res = solver.solve(prob, warm_start=wg, settings=settings)
            f = res.impulses
            iterations += int(res.iterations)
            stats.record_solve(res)
            if single:  # one group holds every contact (and nothing else writes forces)
                forces = f[: 3 * nc].reshape(-1, 3).copy()
            elif nc:
                forces[idx] = f[: 3 * nc].reshape(-1, 3)
            if s.limits:
                f_limits = f[3 * nc :: 3]
            if s.group.cols.shape[0] == dv.shape[0]:  # the group spans every column, in order
                dv += self.dt * (s.X @ f)
            else:
                dv[s.group.cols] += self.dt * (s.X @ f)
        return (np.zeros((0, 3)) if forces is None else forces), f_limits, iterations
