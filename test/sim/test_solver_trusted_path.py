"""The solve stage's one-call path (`ContactSolver.solve_trusted`; the Gauss–Seidel family's
compiled `_gs.run_gs_trusted`) gives what `solve` gives on `ContactProblem.trusted`, bit for bit,
and falls back to the checked problem where that path does not apply."""

import numpy as np
import pytest

from humanoid_model.exceptions import SolverError
from humanoid_sim.solvers import SOLVERS, ContactProblem, SolverSettings, get_solver
from humanoid_sim.solvers._gs import GaussSeidelSolver

DT = 1e-3
GAUSS_SEIDEL = tuple(n for n, c in SOLVERS.items() if issubclass(c, GaussSeidelSolver))


def problem(seed, m=8, singular=False):
    """W = dt Λ of a random SPD Λ (a light body), approaching contacts with random tangential
    velocities; ``singular``: the last contact's block gets a zero t2 row and column (a contact
    that cannot move along t2, whose block `_conditioning` makes invertible)."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(3 * m, 3 * m + 6))
    W = DT * (A @ A.T / (3 * m) + 0.2 * np.eye(3 * m))
    if singular:
        W[-1, :] = 0.0
        W[:, -1] = 0.0
    vf = rng.normal(size=3 * m) * 0.05
    vf[0::3] -= 0.03
    return W, vf, np.full(m, 0.5), rng.uniform(0.0, 5.0, 3 * m)


def test_the_family_is_the_three_sweep_solvers():
    assert set(GAUSS_SEIDEL) == {"nsgs_newton", "nsgs", "projection"}


@pytest.mark.parametrize("name", [*GAUSS_SEIDEL, "lemke_lcp", "pinocchio_admm"])
@pytest.mark.parametrize("singular", [False, True])
def test_solve_trusted_gives_solve_bit_for_bit(name, singular):
    """Warm-started and cold, default and tight settings, with a regular and a singular block:
    the same forces, velocities, iterations, convergence and residuals as `solve`."""
    solver = get_solver(name)
    tight = SolverSettings(tol_rel=1e-10, max_iterations=300)
    for seed in range(3):
        W, vf, mu, warm = problem(seed, singular=singular)
        for settings in (None, tight):
            for start in (None, warm):
                ref = solver.solve(ContactProblem.trusted(W, vf, mu), warm_start=start, settings=settings)
                got = solver.solve_trusted(W, vf, mu, start, settings)
                np.testing.assert_array_equal(got.impulses, ref.impulses)
                np.testing.assert_array_equal(got.velocities, ref.velocities)
                assert (got.iterations, got.converged, got.solver) == (ref.iterations, ref.converged, ref.solver)
                assert got.residuals == ref.residuals and got.extra == ref.extra


def test_the_compiled_path_leaves_its_inputs_as_they_were():
    W, vf, mu, warm = problem(4, singular=True)
    before = [a.copy() for a in (W, vf, mu, warm)]
    get_solver("nsgs_newton").solve_trusted(W, vf, mu, warm)
    for a, b in zip((W, vf, mu, warm), before, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("bad", ["W", "v_free"])
def test_a_non_finite_problem_is_refused_naming_the_field_and_the_source(bad):
    W, vf, mu, _ = problem(5)
    (W if bad == "W" else vf)[4] = np.nan
    with pytest.raises(SolverError, match=rf"world step: field '{bad}'.*finite"):
        get_solver("nsgs_newton").solve_trusted(W, vf, mu, source="world step")


def test_compliance_and_a_time_budget_take_the_checked_path_with_the_same_answer():
    """The compiled path has neither: `ContactSolver.solve_trusted` then builds the problem."""
    W, vf, mu, warm = problem(6)
    solver = get_solver("nsgs_newton")
    comp = np.full(vf.shape[0], 1e-6)
    ref = solver.solve(ContactProblem.trusted(W, vf, mu, compliance=comp), warm_start=warm)
    got = solver.solve_trusted(W, vf, mu, warm, None, comp)
    np.testing.assert_array_equal(got.impulses, ref.impulses)
    budget = SolverSettings(time_budget=10.0)
    ref = solver.solve(ContactProblem.trusted(W, vf, mu), warm_start=warm, settings=budget)
    got = solver.solve_trusted(W, vf, mu, warm, budget)
    np.testing.assert_array_equal(got.impulses, ref.impulses)
    assert got.converged and got.iterations == ref.iterations
