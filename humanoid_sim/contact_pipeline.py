"""The contacts, Delassus and solve stages of a World step in compiled code, for the common world:
one mobile tree (the robot alone), whose contacts therefore form one collision group.

`World._step` runs `contact_pipeline` in place of `humanoid_sim.stages.contacts.contacts`,
`humanoid_sim.stages.delassus.delassus` and `humanoid_sim.stages.solve.solve` when the step has
contacts and needs nothing of those stages besides the kernels below: no joint-limit rows, no
restitution (`humanoid_sim.stages.impacts`), a solver of the Gauss–Seidel family
(`humanoid_sim.solvers._gs.GaussSeidelSolver`) without a time budget. The kernels call the
stages' own kernels in the stages' order on the same arrays:

1. `contact_system`: `stages.contacts._prep` (frames, joints, warm-start keys, local points, gap
   terms), `stages.warm_start._warm` (last step's forces), `stages.contacts._rel_jac` (J),
   `delassus.cholesky._factor_copy` and `_chol_delassus` (M̃⁻¹Jᵀ and Λ), W = dt Λ and J q̇_free;
2. `contact_solve`: `stages.solve._add_gap_terms`, the frictionless start of new contacts,
   `solvers._gs.gs_trusted`, dv = dt M̃⁻¹Jᵀ f (`stages.solve._add_scaled`) and
   `stages.warm_start._sorted_by_key` (the next warm start).

Without FEM soles both run as one call, `fused_contact_solve`; with them the soles' compliance is
coupled into W and J q̇_free between the two (`FemSoles.couple`, eq. (4.21) of Chardonnet 2009,
§4.3.4, as the Delassus stage does) and their displacements follow the solve (`FemSoles.update`).
The products J q̇_free and M̃⁻¹Jᵀ f are `np.dot` in the kernels, the BLAS matrix-vector product the
stages' `@` calls, so the step's results are the same to the last bit (`test_contact_pipeline.py`).
What crossed back to Python between some ten compiled calls (each returned array boxed, each
`GroupSystem`, `ContactProblem` and index built) now stays in compiled code (docs/simulator.md,
"Performance").

A kernel returns status 0 with nothing solved when the step needs what only the stages do: a
mass matrix whose factor is not positive definite (the Delassus stage raises its error), a
penetration whose correction asks for a split solve (`humanoid_sim.stages.solve`), a NaN or inf in
W or J q̇_free (the solver's checks name it). `contact_pipeline` then returns None and the World
runs the three stages, which start from the same inputs (nothing has been written yet).

Timing: the step statistics charge the pipeline's time to the solve stage; the contacts and
Delassus stages then read 0 for that step.
"""

from __future__ import annotations

from time import perf_counter

import numpy as np
from numba import njit

from humanoid_sim.delassus.cholesky import _chol_delassus, _factor_copy
from humanoid_sim.delassus.group import GroupSystem
from humanoid_sim.solvers._gs import _DEFAULTS, GaussSeidelSolver, _result, _tolerances, gs_trusted
from humanoid_sim.stages.contacts import BETA, StepContacts, _prep, _rel_jac
from humanoid_sim.stages.solve import _add_gap_terms, _add_scaled
from humanoid_sim.stages.warm_start import _sorted_by_key, _warm

__all__ = ["contact_pipeline", "contact_solve", "contact_system", "fused_contact_solve", "pipeline_applies"]


@njit(cache=True)
def contact_system(
    geom_joint, geom_tree, ga, gb, bs, points, normals, R, p, n_mobile, n_static, gaps, dt, beta,
    pk, pl, pf, warm_tol, warm_enabled, Jw, masks, cols, M, lam, v_free,
):  # fmt: skip
    """The contacts and Delassus stages' kernels (module docstring, 1 and 2). Arguments: `_prep`'s,
    `_warm`'s (last step's sorted keys, local points and forces), `_rel_jac`'s and the factor's (M̃
    with its entries in its lower triangle, the dof parents) and q̇_free (nv,).

    Returns (whether the factor is positive definite; frames (m, 3, 3), the integer rows (5, m),
    local points (m, 3), gap terms (m,) [m/s], the most negative gap [m], the warm start (m, 3)
    [N], its hit mask (m,), whether a contact is new; J (3m, nv), Λ, W = dt Λ (3m, 3m), M̃⁻¹Jᵀ
    (nv, 3m), J q̇_free (3m,) [m/s]); the last five are empty when the factor is not."""
    frames, ints, local, cgap, gmin = _prep(
        geom_joint, geom_tree, ga, gb, bs, points, normals, R, p, n_mobile, n_static, gaps, dt, beta
    )
    warm, hit, any_new = _warm(pk, pl, pf, ints[4], local, warm_tol, warm_enabled)
    J = _rel_jac(Jw, masks, frames, points, ints[0], ints[1], cols)
    H, ok = _factor_copy(M, lam)
    if not ok:
        e = np.empty((0, 0))
        return ok, frames, ints, local, cgap, gmin, warm, hit, any_new, J, e, e, e, np.empty(0)
    Lam, X = _chol_delassus(H, lam, np.ascontiguousarray(J.T))
    return ok, frames, ints, local, cgap, gmin, warm, hit, any_new, J, Lam, dt * Lam, X, np.dot(J, v_free)


@njit(cache=True)
def contact_solve(
    W, X, vfree, cgap, gmin, warm, hit, any_new, keys, local, dt,
    mu, split_gap, split_speed, mode, max_iter, tol_rel, tol_comp, tol_pen, tol_cone, newton_tol, newton_maxit,
    accel, stall_sweeps, stall_gain, dv, stats, res_out,
):  # fmt: skip
    """The solve stage's kernels (module docstring, 3) on `contact_system`'s outputs (W and J q̇_free
    with the FEM soles' compliance when they have one; ``vfree`` gets the gap terms in place), the
    contacts' keys and local points, μ (m,), the split thresholds of `ContactSolve` (gap [m], speed
    [m/s]), `gs_trusted`'s settings, and the outputs dv (nv,) (zeros in, dt M̃⁻¹Jᵀ f out), stats (8,)
    and res_out (7,) (`gs_trusted`'s).

    Returns (status: 1 solved, 0 left to the stages; forces f (m, 3) [N], the contact velocities
    v = W f + J q̇_free (3m,) [m/s], then this step's contacts sorted by key for the next warm
    start: keys, forces, local points)."""
    m = cgap.shape[0]
    n = 3 * m
    v = np.empty(n)
    fail = (0, warm, v, np.empty(0, np.int64), np.empty((0, 3)), np.empty((0, 3)))
    deepest = _add_gap_terms(vfree, cgap, gmin < split_gap)
    if deepest < -split_speed:
        return fail
    f = warm.reshape(n).copy()
    if any_new:  # new contacts start from the group's frictionless solution
        f0 = np.zeros(n)
        st0, v0, o0 = np.zeros(8), np.empty(n), np.empty(7)
        if not gs_trusted(
            mode, W, vfree, np.zeros(m), f0, max_iter, tol_rel, tol_comp, tol_pen, tol_cone, newton_tol, newton_maxit,
            st0, accel, v0, o0, stall_sweeps, stall_gain,
        ):  # fmt: skip
            return fail
        for c in range(m):
            if not hit[c]:
                for r in range(3):
                    f[3 * c + r] = f0[3 * c + r]
    if not gs_trusted(
        mode, W, vfree, mu, f, max_iter, tol_rel, tol_comp, tol_pen, tol_cone, newton_tol, newton_maxit,
        stats, accel, v, res_out, stall_sweeps, stall_gain,
    ):  # fmt: skip
        return fail
    forces = f.reshape(m, 3).copy()
    _add_scaled(dv, dt, np.dot(X, f))
    ks, fs, ls = _sorted_by_key(keys, forces, local)
    return 1, forces, v, ks, fs, ls


@njit(cache=True)
def fused_contact_solve(
    geom_joint, geom_tree, ga, gb, bs, points, normals, R, p, n_mobile, n_static, gaps, dt, beta,
    pk, pl, pf, warm_tol, warm_enabled, Jw, masks, cols, M, lam, v_free,
    mu, split_gap, split_speed, mode, max_iter, tol_rel, tol_comp, tol_pen, tol_cone, newton_tol, newton_maxit,
    accel, stall_sweeps, stall_gain, dv, stats, res_out,
):  # fmt: skip
    """`contact_system` then `contact_solve` (their arguments in order, ``dt`` once), for a world
    without FEM soles: one call, nothing boxed between them. Returns (status: 1 solved, 0 left to
    the stages; frames, integer rows, local points, gap terms, the most negative gap, then
    `contact_solve`'s forces, velocities and sorted keys, forces and local points)."""
    ok, frames, ints, local, cgap, gmin, warm, hit, any_new, J, Lam, W, X, vfree = contact_system(
        geom_joint, geom_tree, ga, gb, bs, points, normals, R, p, n_mobile, n_static, gaps, dt, beta,
        pk, pl, pf, warm_tol, warm_enabled, Jw, masks, cols, M, lam, v_free,
    )  # fmt: skip
    if not ok:
        z = np.empty(0, np.int64)
        return 0, frames, ints, local, cgap, gmin, warm, np.empty(0), z, np.empty((0, 3)), np.empty((0, 3))
    status, forces, v, ks, fs, ls = contact_solve(
        W, X, vfree, cgap, gmin, warm, hit, any_new, ints[4], local, dt,
        mu, split_gap, split_speed, mode, max_iter, tol_rel, tol_comp, tol_pen, tol_cone, newton_tol, newton_maxit,
        accel, stall_sweeps, stall_gain, dv, stats, res_out,
    )  # fmt: skip
    return status, frames, ints, local, cgap, gmin, forces, v, ks, fs, ls


def pipeline_applies(world) -> bool:
    """Whether `contact_pipeline` may run for ``world`` at all (module docstring): one mobile tree
    with the robot (rigid or FEM soles), a Gauss–Seidel solver without a time budget. The per-step
    conditions (contacts, no joint-limit rows, no restitution) are `contact_pipeline`'s."""
    solver, settings = world.solve.solver, world.solve.settings or _DEFAULTS
    return (
        len(world.tree_cols) == 1
        and world.delassus.robot is not None
        and isinstance(solver, GaussSeidelSolver)
        and settings.time_budget is None
    )


def contact_pipeline(world, batch, oMi_R, oMi_p, M, vf):
    """The contacts, Delassus and solve stages of a step in compiled code (module docstring), for a
    world where `pipeline_applies` and a step with contacts, no restitution and no active
    joint-limit rows (the caller checks those): one call, or with FEM soles `contact_system`, the
    soles' coupling (`FemSoles.couple`), `contact_solve` and the soles' update. Returns (the
    `StepContacts`, forces (m, 3) [N], solver iterations, dv (nv,) [m/s]) as the stages would, or
    None when the step is left to them. Updates the warm start and the step statistics' solve record."""
    stage, warm_start, solve, soles = world.contacts, world.warm_start, world.solve, world.soles
    settings = solve.settings or _DEFAULTS
    solver = solve.solver
    if settings.time_budget is not None:  # settings changed since `pipeline_applies`: the solve's chunks
        return None
    t0 = perf_counter()
    m, dt = batch.m, stage.dt
    dv = np.zeros(world.model.nv)
    stats, o = np.zeros(8), np.empty(7)
    system = (
        stage.geom_joint, stage.geom_tree, batch.geom_a, batch.geom_b, batch.b_static, batch.points, batch.normals,
        oMi_R, oMi_p, stage.n_mobile, stage.n_static, batch.gaps, dt, BETA,
        warm_start.keys, warm_start.local, warm_start.forces, warm_start.tol, warm_start.enabled,
        world.data.J, world.masks, world.tree_cols[0], M, world.delassus.robot.lam, vf,
    )  # fmt: skip
    sweeps_args = (
        batch.mu, solve._split_gap, solve.split_speed, solver.mode, settings.max_iterations, *_tolerances(settings),
        solver.accel, settings.stall_sweeps, settings.stall_gain, dv, stats, o,
    )  # fmt: skip
    if soles is None:
        ok, frames, ints, local, cgap, gmin, forces, v, keys, fs, ls = fused_contact_solve(*system, *sweeps_args)
        if not ok:
            return None
        cs = StepContacts(batch, frames, *ints, local, cgap, stage.one_group(m), gmin, True)
    else:
        ok, frames, ints, local, cgap, gmin, warm, hit, new, J, Lam, W, X, vfree = contact_system(*system)
        if not ok:
            return None
        cs = StepContacts(batch, frames, *ints, local, cgap, stage.one_group(m), gmin, True)
        # W += T K_c⁻¹ Tᵀ/dt, v_free −= T U_c/dt (eq. 4.21), as the Delassus stage couples them
        soles.couple([GroupSystem(cs.groups[0], slice(None), m, J, X, Lam, W, vfree, False)], cs)
        ok, forces, v, keys, fs, ls = contact_solve(
            W, X, vfree, cgap, gmin, warm, hit, new, ints[4], local, dt, *sweeps_args
        )
        if not ok:
            return None
    warm_start.keys, warm_start.forces, warm_start.local = keys, fs, ls
    st = stats.tolist()
    sweeps = int(st[0])
    res = _result(solver.name, forces.reshape(-1), v, o, st, sweeps, bool(st[1]), int(st[7]), t0)
    world.step_stats.record_solve(res)
    if soles is not None:
        soles.update(forces, cs)  # U_c, U_n (eq. 4.22)
    return cs, forces, sweeps, dv
