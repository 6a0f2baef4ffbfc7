"""Solve stage: the frictional contact problem of every collision group (Chardonnet
2009, §3.1.2–3.1.4, eqs. (3.25)–(3.26)) with the World's solver.

Per group (`humanoid_sim.delassus.group.GroupSystem`): the free velocity gets the contacts' gap
terms (`humanoid_sim.stages.contacts.gap_term`) and the joint-limit rows'
(`humanoid_sim.stages.joint_limits`: μ = 0, unit compliance on their tangential rows); the solve
starts from last step's forces (`humanoid_sim.stages.warm_start`); contacts without a previous match
start from the frictionless solution of the group (normal forces only), so that a hyperstatic
contact set does not lock in internal tangential forces produced by the order of a cold Gauss–Seidel
sweep (the thesis's four-legged table, Chardonnet 2009, §2.3.2). The solver returns forces f [N] (W
= dt Λ); the velocity change M̃⁻¹Jᵀ (dt f) goes to ``dv``. Convergence, iterations and residual
maxima go to the step statistics (`humanoid_sim.step_stats`).

Split penetration correction (our addition, the thesis has no gap term, Chardonnet 2009,
§2.5.2.3): the β·gap/dt term of a penetration (`humanoid_sim.stages.contacts.gap_term`) asks for a
separating velocity, which the body keeps after it has left the surface: a penetration d throws
the body back at β d/dt (4 m/s after 2 cm at 1 ms) even with e = 0. When a group's
correction asks for more than ``split_speed`` on some row, the group is solved twice: the
*physical* problem with the penetration terms cut to 0 (v_n⁺ ≥ 0: the approach stops, nothing
pushes out), whose forces, velocities, statistics and warm start are the step's, and the
*positional* problem with the full terms, warm-started from the physical forces, whose extra
velocity change moves the positions only (returned as ``dv_position``; the World integrates
q with q̇ + dv_position and keeps q̇). The penetration is still removed by β per step, and no
kinetic energy comes from it. The World's ``split_speed`` is the impact speed
(`humanoid_sim.stages.impacts.impact_speed`, 2|g|dt: 2 cm/s at 1 ms), the speed no resting contact
needs: gravity adds |g|dt per step, and resting contacts on curved or rolling bodies settle
at corrections of that order (a can lying on a table: 5–8 µm deep, 1–1.6 cm/s), which one
solve keeps. The speed such a correction can leave is below 2|g|dt (a 20 µm hop at 1 ms).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from humanoid_sim.stages.contacts import BETA

__all__ = ["solve", "ContactSolve"]

SOURCE = "world step"  # names the problems in solver errors


@njit(cache=True)
def _add_gap_terms(vfree, gap, deep):
    """vfree's normal rows += the contacts' gap terms (in place, as vfree[0:3 nc:3] += gap); returns
    gap.min() when ``deep`` (some contact of the step needs a split), else 0."""
    for i in range(gap.shape[0]):
        vfree[3 * i] += gap[i]
    return gap.min() if deep else 0.0


@njit(cache=True)
def _add_scaled(dv, dt, u):
    """dv += dt u (in place, as numpy's dv += dt * u: the product rounded, then the sum)."""
    for i in range(dv.shape[0]):
        dv[i] += dt * u[i]


@njit(cache=True)
def _limit_rows(vfree, nc, mu_c, warm_c, lim_gap, lim_warm):
    """A group with joint-limit rows after its nc contacts: vfree's limit normal rows += their gap
    terms (in place), and (μ (nc + k,): the contacts' then 0, the warm start (3 nc + 3 k,): the
    contacts' forces then each limit's previous force on its normal row, the smallest limit gap
    term) — the numpy expressions of `ContactSolve.__call__` in one compiled call."""
    k = lim_gap.shape[0]
    for i in range(k):
        vfree[3 * nc + 3 * i] += lim_gap[i]
    mu = np.zeros(nc + k)
    mu[:nc] = mu_c
    wg = np.zeros(3 * (nc + k))
    for i in range(nc):
        for r in range(3):
            wg[3 * i + r] = warm_c[i, r]
    for i in range(k):
        wg[3 * nc + 3 * i] = lim_warm[i]
    return mu, wg, lim_gap.min()


class ContactSolve:
    """The solve stage (module docstring). solver: a `humanoid_sim.solvers` solver; settings: its
    `SolverSettings` or None; dt [s]; split_speed: the largest penetration correction β|gap|/dt
    [m/s, rad/s for limit rows] solved in one pass (module docstring)."""

    def __init__(self, solver, settings, dt: float, split_speed: float):
        self.solver, self.settings, self.dt = solver, settings, float(dt)
        self.split_speed = float(split_speed)
        self._split_gap = -self.split_speed * self.dt / BETA  # [m] the contact gap whose term is −split_speed
        self.splits = 0  # groups solved twice (split penetration correction) since construction
        self._compliance: dict = {}  # (nc, k) -> the compliance rows of a group with k limits (read only)

    def __call__(self, systems, contacts, warm, limits, limit_warm, dv, stats):
        """Solve every group of a step. contacts: the `humanoid_sim.stages.contacts.StepContacts`;
        warm: (forces (m, 3), hit (m,), any new) from `humanoid_sim.stages.warm_start.WarmStart.lookup`
        (None without contacts); limits: the `LimitRows` or None and limit_warm their previous
        forces; dv (nv,): velocity change, accumulated [m/s]; stats: a `StepStats`.

        Returns (contact forces (m, 3) [N] in the contact frames, limit-row forces (k,) [N·m] or
        None, solver iterations of the step, dv_position: None, or (nv,) the velocity change
        [m/s] the positions get on top of ``dv`` (split penetration correction))."""
        solver, settings = self.solver, self.settings
        b = contacts.batch
        forces = None if contacts.single else np.zeros((b.m, 3))
        f_limits = None
        iterations = 0
        single = contacts.single
        dv_position = None
        for s in systems:
            idx, nc = s.index, s.nc
            vfree = s.v_free
            mu = b.mu[idx]
            comp = None
            deepest = 0.0  # most negative gap term of the group (a penetration's correction)
            gap = contacts.gap[idx] if nc else np.zeros(0)
            if nc:  # deepest: only when some contact of the step needs a split
                deepest = _add_gap_terms(vfree, gap, contacts.min_gap < self._split_gap)
            if s.limits:
                k = limits.k
                mu, wg, lim_min = _limit_rows(
                    vfree, nc, mu, warm[0][idx] if nc else np.zeros((0, 3)), limits.gap, limit_warm
                )
                deepest = min(deepest, lim_min)
                comp = self._compliance.get((nc, k))
                if comp is None:
                    comp = np.zeros(s.J.shape[0])
                    comp[3 * nc + 1 :: 3] = 1.0  # tangential rows of a limit: no Jacobian, no force
                    comp[3 * nc + 2 :: 3] = 1.0
                    self._compliance[(nc, k)] = comp
            else:
                wg = warm[0][idx].reshape(-1) if nc else np.zeros(0)
            v_position = None
            if deepest < -self.split_speed:  # split: the physical problem without the push-out terms
                v_position = vfree
                vfree = vfree.copy()
                vfree[0::3] -= np.minimum(np.concatenate([gap, limits.gap]) if s.limits else gap, 0.0)
            if nc and (warm[2] if single else np.count_nonzero(warm[1][idx]) < nc):  # any contact new
                new = ~warm[1][idx]
                zero = np.zeros(mu.shape[0])
                f0 = solver.solve_trusted(s.W, vfree, zero, None, settings, comp, SOURCE).impulses
                rows = np.repeat(np.concatenate([new, np.zeros(mu.shape[0] - nc, bool)]), 3)
                wg[rows] = f0[rows]
            res = solver.solve_trusted(s.W, vfree, mu, wg, settings, comp, SOURCE)
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
                _add_scaled(dv, self.dt, s.X @ f)  # dv += dt (X f), X f by BLAS as before
            else:
                dv[s.group.cols] += self.dt * (s.X @ f)
            if v_position is not None:
                extra = solver.solve_trusted(s.W, v_position, mu, f, settings, comp, SOURCE).impulses - f
                if dv_position is None:
                    dv_position = np.zeros(dv.shape[0])
                dv_position[s.group.cols] += self.dt * (s.X @ extra)
                self.splits += 1
        return (np.zeros((0, 3)) if forces is None else forces), f_limits, iterations, dv_position


def solve(world, systems, contacts, warm, limits):
    """The solve stage of a World step: the impacts (`humanoid_sim.stages.impacts.Impacts`, only
    when some body has restitution), then the frictional problem of every group (the world's
    `ContactSolve`), whose forces the joint-limit rows, the warm start and the FEM soles keep for
    the next step. systems: the delassus stage's `GroupSystem` list; contacts: the `StepContacts`;
    warm: its warm start; limits: the `LimitRows` or None.

    Returns (contact forces (m, 3) [N] in the contact frames, solver iterations, dv (nv,) the
    velocity change of the contacts [m/s], dv_position: None or the extra velocity change of the
    positions, `ContactSolve`). Reads ``world.model``, ``world.step_stats``, ``world.impacts``,
    ``world.limits``, ``world.solve``, ``world.warm_start`` and ``world.soles``."""
    stats = world.step_stats
    dv = np.zeros(world.model.nv)
    if world.impacts is not None:
        world.impacts(systems, contacts.batch, dv, stats)
    joint_limits = world.limits
    limit_warm = np.array(joint_limits.warm(limits)) if limits is not None else None
    forces, f_limits, iterations, dv_position = world.solve(systems, contacts, warm, limits, limit_warm, dv, stats)
    if limits is not None:
        joint_limits.remember(limits, f_limits)
    world.warm_start.remember(contacts.keys, forces, contacts.local)
    soles = world.soles
    if soles is not None:
        soles.update(forces, contacts)  # U_c, U_n (eq. 4.22)
    return forces, iterations, dv, dv_position
