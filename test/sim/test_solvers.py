"""Contact solvers (Chardonnet 2009, §3.1.2–3.1.4): analytic single contacts, cone isotropy, Newton
local convergence, residuals after every solve, agreement between solvers and with Pinocchio's
ADMM/PGS, warm start, impact restitution, budgets, LCP sizes (§3.1.6.2), Lemke's degenerate-pivot
guard on exactly tied ratio tests, bad input. Acceptance tests are marked `spec("000", ...)`."""

import math
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model.exceptions import SolverError
from humanoid_sim.delassus.cholesky import delassus_cholesky
from humanoid_sim.solvers import (
    DEFAULT_SOLVER,
    SOLVERS,
    ContactProblem,
    ContactSolver,
    SolverResult,
    SolverSettings,
    get_solver,
    residuals,
)
from humanoid_sim.solvers._local import newton_local
from humanoid_sim.solvers.lemke_lcp import lcp_matrices
from humanoid_sim.stages.contacts import ContactSet, contact_jacobian

G = 9.81  # our scenes' g [m/s²]; the expected values are recomputed from it
DT = 1e-3  # [s], the thesis's step (Chardonnet 2009, §3.1.6.1)
EXACT = ("nsgs_newton", "projection")
TIGHT = SolverSettings(
    max_iterations=5000, tol_rel=1e-7, tol_complementarity=1e-8, tol_penetration=1e-8
)  # tighter than the defaults (the bounds of acceptance test 000 B4)


def check_residuals(prob, res, s=TIGHT, exact=True):
    r = res.residuals
    assert r["complementarity"] <= s.tol_complementarity * 1.0001
    assert r["penetration"] <= s.tol_penetration * 1.0001
    assert r["cone"] <= max(s.tol_cone, 1e-12 * (1 + np.abs(res.impulses).max()))
    if exact:  # maximal dissipation on sliding contacts (acceptance test 000 B4: cos ≥ 0.999)
        assert r["dissipation"] <= 1e-6
        assert r["natural_map"] <= 1e-6 * (1 + np.abs(res.impulses).max())
    # the residuals reported are the true ones at the returned impulses
    again = residuals(prob, res.impulses)
    assert again["complementarity"] == pytest.approx(r["complementarity"], rel=1e-6, abs=1e-14)


# ---------------------------------------------------------------- the interface and the registry
def test_every_registered_solver_implements_the_interface():
    """Every registered solver is a `ContactSolver` under its registry name with the declared
    `solve(problem, warm_start=None, settings=None)`, and solves a small problem to the shared
    residual thresholds (SolverSettings defaults = the bounds of acceptance test 000 B4). Problem
    (impulse form, W = Λ of two coupled 0.5 kg points, our choice, so that every solver,
    `impact_lcp` and Pinocchio's included, applies): contact 0 sticks with f = −W₀₀⁻¹ v_free,0 =
    (0.5, −0.1, 0.05) N·s inside its cone (μ = 0.5), contact 1 separates."""
    import inspect

    assert set(SOLVERS) == {
        "nsgs_newton",
        "nsgs",
        "projection",
        "lemke_lcp",
        "impact_lcp",
        "pinocchio_admm",
        "pinocchio_pgs",
    }
    assert DEFAULT_SOLVER in SOLVERS
    with pytest.raises(TypeError):
        ContactSolver()  # the interface itself cannot be instantiated: solve is abstract
    coupling = np.diag([0.5, 0.3, 0.3])
    W = np.block([[2.0 * np.eye(3), coupling], [coupling, 2.0 * np.eye(3)]])
    prob = ContactProblem(W, [-1.0, 0.2, -0.1, 0.3, 0.1, -0.2], [0.5, 0.5])
    s = SolverSettings()
    for name, cls in SOLVERS.items():
        assert issubclass(cls, ContactSolver) and cls.name == name
        params = inspect.signature(cls.solve).parameters
        assert list(params) == ["self", "problem", "warm_start", "settings"], name
        assert params["warm_start"].default is None and params["settings"].default is None
        solver = get_solver(name)
        assert isinstance(solver, ContactSolver) and solver.name == name
        r = solver.solve(prob)
        assert isinstance(r, SolverResult) and r.solver == name and r.converged, name
        assert np.allclose(r.velocities, prob.W_eff @ r.impulses + prob.v_free, rtol=0, atol=1e-12)
        res = residuals(prob, r.impulses)
        assert res["complementarity"] <= s.tol_complementarity, name
        assert res["penetration"] <= s.tol_penetration, name
        assert res["cone"] <= s.tol_cone, name
        expect = [0.5, 0.0, 0.0] if name == "impact_lcp" else [0.5, -0.1, 0.05]  # impacts are frictionless
        assert np.allclose(r.impulses, expect + [0.0, 0.0, 0.0], rtol=0, atol=1e-6), name


# ---------------------------------------------------------------- single contact, analytic
W_POINT = np.diag([2.0, 2.0, 2.0]) * DT  # point of mass 0.5 kg: W = dt/m I
W_RAIL = np.diag([2.0, 2.0, 0.0]) * DT  # the same point on a rail that blocks t2: a singular block


# pinocchio_pgs (the peer) is left out: on this block it stops unconverged at f_t1 = −250 N·s,
# outside the cone (measured with pin 4.1.0); that is Pinocchio's PGS, not our code
@pytest.mark.parametrize("name", EXACT + ("nsgs", "lemke_lcp", "pinocchio_admm"))
def test_a_contact_that_cannot_move_along_t2_sticks_and_slides_exactly(name):
    """A contact whose 3×3 Delassus block is singular (here the t2 row is zero: the point of mass
    0.5 kg rides a rail; on HRP-2 a self-contact between two links one or two joints apart) must
    not make the local solves divide by zero (a ZeroDivisionError in the step). Analytic answer,
    impulse form, W = dt/m diag(1, 1, 0): sticking, v_free = (−1, 0.2, 0), μ = 0.5 ⇒ f = (500, −100, 0)
    N·s, v = 0; sliding, v_free = (−1, 0.6, 0), μ = 0.2 ⇒ f = (500, −100, 0), v_t1 = 0.6 − 0.2 = 0.4 m/s
    (f_t2 = 0: f_t1 is on the cone's edge). The W_eff compliance on that block is 4e-12 (relative
    1e-9, `_conditioning`), far below the tolerance."""
    solver = get_solver(name)
    tol = 1e-4 if name.startswith("pinocchio") else 1e-7
    for v_free, mu, f, v in (
        ([-1.0, 0.2, 0.0], 0.5, [500.0, -100.0, 0.0], [0.0, 0.0, 0.0]),
        ([-1.0, 0.6, 0.0], 0.2, [500.0, -100.0, 0.0], [0.0, 0.4, 0.0]),
    ):
        r = solver.solve(ContactProblem(W_RAIL, v_free, [mu]), settings=TIGHT)
        assert np.allclose(r.impulses, f, rtol=tol, atol=tol * 500), (name, r.impulses)
        assert np.allclose(r.velocities, v, atol=1e-6), (name, r.velocities)


def test_regular_blocks_are_left_exactly_as_given_and_a_singular_one_gets_a_tiny_compliance():
    """W_eff is W itself (same object, same bits) when every contact block is invertible; a rank-2
    block gets 1e-9 tr(W_cc) on its three diagonal entries and its neighbours nothing."""
    W = np.block([[W_POINT, np.zeros((3, 3))], [np.zeros((3, 3)), W_POINT]])
    assert ContactProblem.trusted(W, np.zeros(6), np.array([0.5, 0.5])).W_eff is W
    W2 = np.block([[W_POINT, np.zeros((3, 3))], [np.zeros((3, 3)), W_RAIL]])
    eff = ContactProblem(W2, np.zeros(6), [0.5, 0.5]).W_eff
    np.testing.assert_array_equal(eff[:3, :3], W_POINT)
    np.testing.assert_allclose(np.diag(eff)[3:] - np.diag(W_RAIL), 1e-9 * np.trace(W_RAIL), rtol=1e-6)


@pytest.mark.parametrize("name", EXACT + ("nsgs", "lemke_lcp", "pinocchio_admm", "pinocchio_pgs"))
def test_single_contact_separating_and_sticking(name):
    solver = get_solver(name)
    sep = ContactProblem(W_POINT, [0.3, 0.1, -0.2], [0.5])
    r = solver.solve(sep, settings=TIGHT)
    assert np.allclose(r.impulses, 0.0, atol=1e-9)
    assert np.allclose(r.velocities, [0.3, 0.1, -0.2], atol=1e-9)
    # sticking: v_free = (−1, 0.2, −0.1) ⇒ f = −W⁻¹ v_free inside the cone (0.5·500 ≥ |(−100, 50)|)
    st = ContactProblem(W_POINT, [-1.0, 0.2, -0.1], [0.5])
    r = solver.solve(st, settings=TIGHT)
    tol = 1e-4 if name.startswith("pinocchio") else 1e-7
    assert np.allclose(r.impulses, [500.0, -100.0, 50.0], rtol=tol, atol=tol)
    assert np.allclose(r.velocities, 0.0, atol=1e-6)


@pytest.mark.parametrize("name", EXACT + ("nsgs", "pinocchio_admm", "pinocchio_pgs"))
def test_single_contact_sliding_known_direction(name):
    """Isotropic W: f_n = −v_n/W_nn, f_t = −μ f_n v̂_t, v_t = v_free,t − W_tt μ f_n v̂_t."""
    mu = 0.3
    vf = np.array([-1.0, 3.0, -4.0])  # tangential 5 m/s along (0.6, −0.8)
    prob = ContactProblem(W_POINT, vf, [mu])
    r = get_solver(name).solve(prob, settings=TIGHT)
    fn = 1.0 / (2 * DT)
    d = np.array([0.6, -0.8])
    tol = 1e-4 if name.startswith("pinocchio") else 1e-9
    assert r.impulses[0] == pytest.approx(fn, rel=tol)
    assert np.allclose(r.impulses[1:], -mu * fn * d, rtol=tol, atol=tol * fn)
    assert np.allclose(r.velocities[1:], (5.0 - 2 * DT * mu * fn) * d, rtol=tol)
    if name in EXACT:
        check_residuals(prob, r)


def anisotropic_sliding(seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(3, 3))
    W = A @ A.T + 0.5 * np.eye(3)
    vloc = np.array([-1.0, *rng.normal(scale=4.0, size=2)])
    return W, vloc


def sliding_reference(W, vloc, mu):
    """Brute-force sliding solution of one contact, independent of our solvers (acceptance test
    000 B5 allows a brute-force cone projection as the reference): on the cone's edge f(a) = f_n (1, −μ cos a, −μ sin a);
    v_n = 0 gives f_n(a) = −v_n,free / (W_n · (1, −μ cos a, −μ sin a)); the slip
    v_t = (W f(a) + v_free)_t must point along (cos a, sin a) (maximal dissipation). Scan a over
    [−π, π] (0.1° grid), bracket the sign changes of v_t × (cos a, sin a) and refine each with
    Brent's method to 1e-15 rad; keep the roots with f_n > 0 and forward slip. Returns them all."""
    from scipy.optimize import brentq

    def force(a):
        d = np.array([1.0, -mu * np.cos(a), -mu * np.sin(a)])
        return -vloc[0] / (W[0] @ d) * d

    def cross(a):
        v = W @ force(a) + vloc
        return v[1] * np.sin(a) - v[2] * np.cos(a)

    grid = np.linspace(-np.pi, np.pi, 3601)
    c = np.array([cross(a) for a in grid])
    out = []
    for i in np.flatnonzero(np.sign(c[:-1]) != np.sign(c[1:])):
        a = brentq(cross, grid[i], grid[i + 1], xtol=1e-15, rtol=1e-15, maxiter=200)
        f = force(a)
        v = W @ f + vloc
        if f[0] > 0 and v[1] * np.cos(a) + v[2] * np.sin(a) > 0:
            out.append(f)
    return out


@pytest.mark.spec("000", "B5")
@pytest.mark.parametrize("seed", range(6))
def test_newton_local_solver_converges_quadratically(seed):
    """The Alart–Curnier Newton solver (Chardonnet 2009, Algorithm 2): random SPD W_ii, sliding regime:
    ‖φ‖ < 1e-10 (relative) in ≤ 10 Newton steps from the stick guess, quadratic near the
    solution, and the solution agrees with a reference to 1e-8: the brute-force edge-of-cone
    root (`sliding_reference`, unique here) and our projection solver (tol_rel 1e-13), both to
    1e-8 absolute [N·s per unit W] and relative to max|f| (measured agreement with the brute force:
    ≤ 1.1e-15 relative)."""
    W, vloc = anisotropic_sliding(seed)
    mu = 0.3
    f_stick = -np.linalg.solve(W, vloc)
    assert np.hypot(*f_stick[1:]) > mu * f_stick[0]  # really sliding
    g = f_stick.copy()
    g[0] = max(g[0], 0.0)
    g[1:] *= mu * g[0] / np.hypot(*g[1:])
    if g[0] == 0.0:  # same rule as the solver: frictionless normal force as the guess
        g = np.array([-vloc[0] / W[0, 0], 0.0, 0.0])
    hist = np.full(40, np.nan)
    f, v, it = newton_local(W, vloc, mu, g, 1e-14, 30, hist)
    h = hist[: it + 1]
    scale = np.linalg.norm(vloc) / W[0, 0]
    k10 = np.nonzero(h < 1e-10 * scale)[0]
    assert k10.size and k10[0] <= 10
    e = h[: k10[0] + 1] / scale
    close = [(a, b) for a, b in zip(e[:-1], e[1:]) if a < 1e-5]
    assert close, e
    for a, b in close:  # quadratic: e_{k+1} ≤ C e_k² (C = 1000, our choice; linear would be ~a/10)
        assert b <= 1000 * a * a + 1e-16
    (brute,) = sliding_reference(W, vloc, mu)  # one sliding solution (the law's is unique for SPD W)
    prob = ContactProblem(W, vloc, [mu])
    proj = get_solver("projection").solve(prob, settings=SolverSettings(max_iterations=20000, tol_rel=1e-13))
    for ref in (brute, proj.impulses):
        err = np.abs(f - ref).max()
        assert err <= 1e-8 and err <= 1e-8 * np.abs(ref).max(), err
    r = residuals(prob, f)
    assert r["dissipation"] < 1e-9 and r["slip_force"] < 1e-9 * np.abs(f).max()


# ---------------------------------------------------------------- cone isotropy
BOX = dict(mass=1.0, size=(0.2, 0.2, 0.1), mu=0.4)  # 1 kg box, μ = 0.4 (the thesis's μ, §3.1.6.1); sizes chosen


@pytest.fixture(scope="module")
def box_problem(box_on_floor):
    """W (dt Λ) and the contact map of a box resting on the floor at its 4 bottom corners
    (frames n = z, t1 = x, t2 = y), from a Pinocchio free-flyer and our Delassus
    (`conftest.box_on_floor`; contact points at the CoM height z = 0 of the body frame)."""
    return box_on_floor(0.0, mass=BOX["mass"], size=BOX["size"], dt=DT)


def box_accel(bp, solver, F, settings=None):
    """One step from rest with horizontal force F at the CoM: returns the CoM acceleration (3,)."""
    v_body = np.zeros(6)
    v_body[:3] = DT * (np.array([F[0], F[1], -bp["m"] * G]) / bp["m"])
    prob = ContactProblem(bp["W"], bp["J"] @ v_body, np.full(4, BOX["mu"]))
    r = get_solver(solver).solve(prob, settings=settings)
    v1 = v_body + bp["MinvJt"] @ (DT * r.impulses)
    return v1[:3] / DT, r, prob


ANGLES = np.deg2rad(22.5 * np.arange(16))


@pytest.mark.spec("000", "B2")
def test_cone_isotropy_exact_cone(box_problem):
    """The exact Coulomb cone, no facets (Chardonnet 2009, §3.1.4.2): 5 N in 16 directions gives
    |a| = (5 − μ m g)/m = 1.076 m/s² (g = 9.81) ± 1 %, direction within 0.5°; 3.5 N sticks."""
    expect = (5.0 - BOX["mu"] * BOX["mass"] * G) / BOX["mass"]
    assert expect == pytest.approx(1.076, abs=5e-4)
    for name in ("nsgs_newton", "projection"):
        for th in ANGLES:
            d = np.array([np.cos(th), np.sin(th)])
            a, r, prob = box_accel(box_problem, name, 5.0 * d, TIGHT)
            assert r.converged
            check_residuals(prob, r)
            assert np.hypot(*a[:2]) == pytest.approx(expect, rel=1e-2)
            assert abs(a[2]) < 1e-6
            ang = np.degrees(np.arccos(np.clip(a[:2] @ d / np.hypot(*a[:2]), -1, 1)))
            assert ang < 0.5
            a, r, _ = box_accel(box_problem, name, 3.5 * d, TIGHT)
            assert np.abs(a).max() * DT < 1e-7  # stays: |Δv| over the step ≪ 1e-4 m/s


@pytest.mark.spec("000", "B2")
def test_cone_isotropy_lemke_facets_anisotropy(box_problem):
    """Lemke with an inner k-facet polygon: exact along the facet directions, friction
    μ f_n cos(π/k) midway between them. 4 facets: 45° gives 5 − 3.924 cos 45° = 2.225 m/s²;
    8 facets: 22.5° gives 5 − 3.924 cos 22.5° = 1.375; spread(4) > spread(8) > 1 % of exact."""
    spreads = {}
    for k in (4, 8):
        s = SolverSettings(facets=k)
        mags = []
        for th in ANGLES:
            a, r, prob = box_accel(box_problem, "lemke_lcp", 5.0 * np.array([np.cos(th), np.sin(th)]), s)
            assert r.converged and r.extra["lcp_size"] == 4 * (k + 2)
            assert r.residuals["lcp_complementarity"] < 1e-9 and r.residuals["lcp_feasibility"] < 1e-9
            mags.append(np.hypot(*a[:2]))
        mags = np.array(mags)
        fric = BOX["mu"] * BOX["mass"] * G
        facet_dir = np.isclose(np.mod(np.degrees(ANGLES), 360 / k), 0)
        assert np.allclose(mags[facet_dir], 5.0 - fric, rtol=1e-2)
        mid = np.isclose(np.mod(np.degrees(ANGLES), 360 / k), 180 / k)
        assert np.allclose(mags[mid], 5.0 - fric * np.cos(np.pi / k), rtol=1e-2)
        spreads[k] = mags.max() - mags.min()
    assert spreads[4] > spreads[8] > 0.01 * (5.0 - BOX["mu"] * G)


# ---------------------------------------------------------------- random feasible problems
def random_problem(seed, m=12, mu=0.5):
    """Full-rank SPD W (scaled like dt Λ of a light body), approaching contacts with random
    tangential velocities: sticking, sliding and separating contacts mixed."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(3 * m, 3 * m + 6))
    W = DT * (A @ A.T / (3 * m) + 0.2 * np.eye(3 * m))
    vf = rng.normal(size=3 * m) * 0.05
    vf[0::3] -= 0.03
    return ContactProblem(W, vf, np.full(m, mu))


@pytest.fixture(scope="module")
def random_solutions():
    out = []
    for seed in range(4):
        prob = random_problem(seed)
        out.append((prob, {n: get_solver(n).solve(prob, settings=TIGHT) for n in SOLVERS if n != "impact_lcp"}))
    return out


def test_residuals_after_every_solve_exact_solvers(random_solutions):
    for prob, res in random_solutions:
        for name in EXACT:
            assert res[name].converged
            check_residuals(prob, res[name])
        assert res["nsgs"].converged  # sticking/normal law exact, sliding only approximately
        check_residuals(prob, res["nsgs"], exact=False)
        kinds = res["nsgs_newton"].impulses.reshape(-1, 3)
        assert res["nsgs_newton"].residuals["sliding_contacts"] > 0 and np.any(kinds[:, 0] == 0)


def test_solvers_agree_with_each_other_and_pinocchio(random_solutions):
    for prob, res in random_solutions:
        ref = res["nsgs_newton"]
        scale_v = np.abs(prob.v_free).max()
        scale_f = np.abs(ref.impulses).max()
        assert np.allclose(res["projection"].impulses, ref.impulses, atol=1e-6 * scale_f)
        for name in ("pinocchio_admm", "pinocchio_pgs"):  # Pinocchio stops at its own ~1e-6 criteria
            assert np.allclose(res[name].velocities, ref.velocities, atol=1e-4 * scale_v), name
            assert np.allclose(res[name].impulses, ref.impulses, atol=1e-3 * scale_f), name


@pytest.mark.parametrize("name", EXACT)
def test_a_frictionless_contact_moving_apart_is_solved_with_no_force_and_a_zero_natural_map(name):
    """μ = 0 (a joint-limit row, a frictionless pair): the cone is the half-line t = 0, n ≥ 0, and
    a negative normal projects to 0 (the test nt ≤ μ n alone reads 0 ≤ −0 there and kept it)."""
    from humanoid_sim.solvers._residuals import natural_map, proj_cone

    out = np.empty(3)
    proj_cone(np.array([-2.0, 0.0, 0.0]), 0.0, out)
    assert np.all(out == 0.0)
    proj_cone(np.array([2.0, 0.5, 0.0]), 0.0, out)
    assert np.array_equal(out, [2.0, 0.0, 0.0])
    W = np.diag([0.8, 0.8, 0.8])  # [m/s per N]
    prob = ContactProblem(W, np.array([6.5, 0.0, 0.0]), np.array([0.0]))  # moving apart at 6.5 m/s
    res = get_solver(name).solve(prob, settings=TIGHT)
    assert np.all(res.impulses == 0.0)
    assert res.residuals["natural_map"] == 0.0
    assert natural_map(W, np.array([0.0]), res.impulses, res.velocities) == 0.0


def test_lemke_frictionless_matches_gauss_seidel_with_zero_friction():
    prob = random_problem(7, mu=0.0)
    lem = get_solver("lemke_lcp").solve(prob, settings=SolverSettings(frictionless=True))
    gs = get_solver("nsgs_newton").solve(prob, settings=TIGHT)
    assert lem.converged
    fn = lem.impulses[0::3]
    assert np.all(lem.impulses[1::3] == 0) and np.all(fn >= 0)
    assert np.allclose(fn, gs.impulses[0::3], atol=1e-7 * fn.max())
    # and Lemke with facets at μ = 0.5 is close to the exact cone (inner 8-gon: ≤ 1 − cos 22.5° = 7.6 %)
    p5 = random_problem(1)
    lem8 = get_solver("lemke_lcp").solve(p5)
    ex = get_solver("nsgs_newton").solve(p5, settings=TIGHT)
    assert lem8.converged
    assert np.linalg.norm(lem8.velocities - ex.velocities) <= 0.1 * np.linalg.norm(ex.velocities)


@pytest.mark.spec("000", "A4")
def test_lcp_problem_size_67_contacts():
    """Chardonnet 2009, §3.1.6.2: 67 contacts → 201 unknowns exact cone, 670 with 8 facets (1 + k + 1
    per contact)."""
    prob = ContactProblem(np.eye(201), -np.ones(201), np.full(67, 0.4))
    M, q, B = lcp_matrices(prob, 8)
    assert prob.v_free.shape[0] == 201 and M.shape == (670, 670) and q.shape == (670,)


# ---------------------------------------------------------------- Lemke's degenerate-pivot guard
def duplicated_box_problem(box_on_floor, F=(0.0, 0.0)):
    """The `BOX` of `conftest.box_on_floor` on its 4 bottom corners (z = −c/2), each given twice
    (8 contacts, W of rank 6 in 24 rows: every ratio test ties exactly); one step from rest under
    gravity and the horizontal force F [N]. Returns (problem, M⁻¹Jᵀ, body velocity before contact)."""
    mass, size = BOX["mass"], BOX["size"]
    bp = box_on_floor(-size[2] / 2, copies=2, mass=mass, size=size, dt=DT)
    v_body = np.zeros(6)
    v_body[:3] = DT * np.array([F[0] / mass, F[1] / mass, -G])
    return ContactProblem(bp["W"], bp["J"] @ v_body, np.full(8, BOX["mu"])), bp["MinvJt"], v_body


@pytest.mark.parametrize(
    "settings",
    [SolverSettings(frictionless=True), SolverSettings(facets=4), SolverSettings(facets=8)],
    ids=["frictionless", "4 facets", "8 facets"],
)
def test_lemke_terminates_on_exactly_degenerate_ties(settings, box_on_floor):
    """Lemke's degenerate-pivot guard (on the LCP of Chardonnet 2009, eqs. (2.33)–(2.35))
    terminates with a complementary solution that carries the weight and stops the box."""
    prob, MinvJt, v_body = duplicated_box_problem(box_on_floor)
    r = get_solver("lemke_lcp").solve(prob, settings=settings)
    assert r.converged and r.extra["status"] == 0
    assert r.residuals["lcp_complementarity"] < 1e-12 and r.residuals["lcp_feasibility"] < 1e-12
    fn = r.impulses[0::3]
    assert np.all(fn >= -1e-12)
    assert fn.sum() == pytest.approx(BOX["mass"] * G, rel=1e-9)  # the weight
    v1 = v_body + MinvJt @ (DT * r.impulses)  # W = dt Λ: the solution is in forces [N]
    assert np.linalg.norm(v1) < 1e-12  # the box stops


def test_lemke_degenerate_sliding_along_a_facet(box_on_floor):
    """The same duplicated contacts, 5 N pulling along x (a facet direction of both the 4- and
    8-facet cones): the box slides at (F − μ m g)/m exactly, as the exact cone gives."""
    prob, MinvJt, v_body = duplicated_box_problem(box_on_floor, F=(5.0, 0.0))
    for k in (4, 8):
        r = get_solver("lemke_lcp").solve(prob, settings=SolverSettings(facets=k))
        assert r.converged and r.residuals["lcp_complementarity"] < 1e-12
        a = (v_body + MinvJt @ (DT * r.impulses))[:3] / DT
        assert a[0] == pytest.approx((5.0 - BOX["mu"] * BOX["mass"] * G) / BOX["mass"], rel=1e-9)
        assert abs(a[1]) < 1e-9 and abs(a[2]) < 1e-9


def test_compliance_is_added_to_the_diagonal():
    prob = random_problem(2, m=3)
    pc = ContactProblem(prob.W_eff, prob.v_free, prob.mu, compliance=[1e-3, 2e-3, 0.0])
    assert np.allclose(pc.W_eff - prob.W_eff, np.diag(np.repeat([1e-3, 2e-3, 0.0], 3)))
    r = get_solver("nsgs_newton").solve(pc, settings=TIGHT)
    check_residuals(pc, r)


# ---------------------------------------------------------------- warm start and budgets
@pytest.fixture(scope="module")
def hrp2_standing():
    """HRP-2 half-sitting, 8 sole corners, W = dt Λ and the free velocity of one step from rest."""
    from humanoid_model import load_robot
    from humanoid_sim.stages.contacts import contacts_from_locations

    robot = load_robot("hrp2")
    model, data = robot.model, robot.model.createData()
    q = robot.q("half-sitting")
    cs = contacts_from_locations(robot, data, q, ["r_sole", "l_sole"])
    J = contact_jacobian(model, data, cs, q)
    Lam, MinvJt = delassus_cholesky(model, data, q, J)
    v = np.zeros(model.nv)
    a_free = pin.aba(model, data, q, v, np.zeros(model.nv))
    # a next-step-like change of v_free: the same step with small random joint torques (±0.1 N·m,
    # our choice: the step-to-step change of a robot standing still) added, i.e.
    # v_free' = v_free + J dt M⁻¹ τ (kinematically consistent). With ±5-20 N·m the problems
    # change so much that the warm start no longer helps (measured, see docs/solvers.md).
    tau = np.zeros(model.nv)
    tau[6:] = np.random.default_rng(0).uniform(-0.1, 0.1, model.nv - 6)
    dv = pin.aba(model, data, q, v, tau) - a_free
    return dict(W=DT * Lam, J=J, vfree=J @ (DT * a_free), vfree1=J @ (DT * (a_free + dv)), m=cs.m)


def test_warm_start_reduces_iterations(hrp2_standing):
    """Solve, then solve a perturbed next problem cold and warm (same true-residual thresholds)."""
    hs = hrp2_standing
    mu = np.full(hs["m"], 0.983)  # measured foot–floor μ (Chardonnet 2009, §5.1.2.1)
    p0 = ContactProblem(hs["W"], hs["vfree"], mu)
    r0 = get_solver("nsgs_newton").solve(p0, settings=TIGHT)
    assert r0.converged
    check_residuals(p0, r0)
    assert r0.impulses[0::3].sum() > 0  # the robot is carried
    p1 = ContactProblem(hs["W"], hs["vfree1"], mu)
    for name in ("nsgs_newton", "nsgs", "projection"):
        cold = get_solver(name).solve(p1, settings=TIGHT)
        warm = get_solver(name).solve(p1, warm_start=r0.impulses, settings=TIGHT)
        assert cold.converged and warm.converged
        assert warm.iterations < cold.iterations, name
        # warm-started at its own solution, a solver stops at once
        again = get_solver(name).solve(p1, warm_start=warm.impulses, settings=TIGHT)
        assert again.converged and again.iterations <= 1


@pytest.mark.parametrize("active_set", [False, True])
def test_budget_exceeded_returns_best_iterate(hrp2_standing, active_set):
    hs = hrp2_standing
    p = ContactProblem(hs["W"], hs["vfree"], np.full(hs["m"], 0.4))
    start = residuals(p, np.zeros(3 * hs["m"]))
    solver = get_solver("nsgs_newton", active_set=active_set)
    # with the active-set step this problem is solved in 3 sweeps, so only a 1-sweep budget
    # binds (the time budget runs whole chunks of 4 sweeps: tested on the plain iteration)
    budgets = (
        (SolverSettings(max_iterations=1),)
        if active_set
        else (SolverSettings(max_iterations=2), SolverSettings(time_budget=0.0, max_iterations=1000))
    )
    for s in budgets:
        r = solver.solve(p, settings=s)
        assert not r.converged
        assert 1 <= r.iterations <= (s.max_iterations if s.time_budget is None else 1000)
        assert np.all(np.isfinite(r.impulses))
        assert r.residuals["natural_map"] < start["natural_map"]
        assert r.residuals["penetration"] < start["penetration"]
    full = solver.solve(p, settings=TIGHT)
    # so the budgets above really cut it short
    assert full.converged and full.iterations > (1 if active_set else 4)


def test_a_stalled_iteration_stops_early_with_what_the_spent_budget_returns():
    """A hyperstatic rigid foot: 5 contacts on one sole (W of rank 6), a problem saved from HRP-2
    climbing the stairs in closed loop, where the natural-map residual stays at about twice the
    tolerance for the whole 500-sweep budget. The stall rule (`SolverSettings.stall_sweeps`)
    stops it after at most two windows, with the same velocities and residual as the spent budget."""
    d = np.load(Path(__file__).parent / "data" / "hyperstatic_foot.npz")
    p = ContactProblem(d["W"], d["v_free"], d["mu"])
    assert np.linalg.matrix_rank(p.W) == 6  # one rigid body
    solver = get_solver("nsgs_newton")
    spent = solver.solve(p, warm_start=d["warm_start"], settings=SolverSettings(stall_sweeps=0))
    stalled = solver.solve(p, warm_start=d["warm_start"])
    assert not spent.converged and spent.iterations == SolverSettings().max_iterations
    assert not stalled.converged and stalled.iterations <= 2 * SolverSettings().stall_sweeps
    assert stalled.residuals["natural_map"] <= spent.residuals["natural_map"] * (1 + 1e-6)
    assert np.abs(stalled.velocities - spent.velocities).max() < 1e-12  # [m/s]


@pytest.mark.parametrize("name", ["nsgs", "nsgs_newton", "projection"])
def test_the_stall_rule_leaves_a_converging_solve_as_it_was(hrp2_standing, name):
    """HRP-2 standing (8 corners, hyperstatic too) solved to the tight thresholds: the same sweeps
    and the same impulses, bit for bit, with and without the stall rule."""
    hs = hrp2_standing
    p = ContactProblem(hs["W"], hs["vfree"], np.full(hs["m"], 0.4))
    on = get_solver(name).solve(p, settings=TIGHT)
    off = get_solver(name).solve(p, settings=TIGHT.with_(stall_sweeps=0))
    assert on.converged and off.converged
    assert on.iterations == off.iterations
    assert np.array_equal(on.impulses, off.impulses)


# ---------------------------------------------------------------- impact
@pytest.mark.spec("000", "B7")
@pytest.mark.parametrize("e", [0.5, 0.0])
def test_impact_restitution_sphere_drop(e):
    """The impact LCP (Chardonnet 2009, eq. (3.7)): drop from 0.5 m, impact speed
    √(2 g h) (g = 9.81 → 3.132 m/s); e = 0.5 gives 1.566 m/s ± 1 %, e = 0 no rebound."""
    r_s, mass = 0.05, 1.0  # solid sphere r 0.05 m, 1 kg (chosen)
    model = pin.Model()
    j = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "ball")
    model.appendBodyToJoint(j, pin.Inertia.FromSphere(mass, r_s), pin.SE3.Identity())
    data = model.createData()
    q = pin.neutral(model)
    q[2] = r_s
    # a slightly spinning ball with a little horizontal velocity: impact is frictionless
    v = np.array([0.2, 0.0, -np.sqrt(2 * G * 0.5), 0.0, 1.0, 0.0])
    cs = ContactSet.make([j], [[0, 0, 0]], [[0, 0, 1.0]])
    J = contact_jacobian(model, data, cs, q)
    Lam, MinvJt = delassus_cholesky(model, data, q, J)
    prob = ContactProblem(Lam, J @ v, [0.4], restitution=[e])
    r = get_solver("impact_lcp").solve(prob)
    assert r.converged
    v_plus = v + MinvJt @ r.impulses
    vn = (J @ v_plus)[0]
    assert r.velocities[0] == pytest.approx(vn, rel=1e-12, abs=1e-12)
    if e > 0:
        assert vn == pytest.approx(e * np.sqrt(2 * G * 0.5), rel=1e-2)
        assert vn == pytest.approx(1.566, rel=1e-2)
    else:
        assert abs(vn) < 1e-6
    assert np.allclose(v_plus[[0, 1, 3, 4, 5]], v[[0, 1, 3, 4, 5]])  # no friction impulse


def test_impact_separating_contact_gets_no_impulse():
    W = np.eye(6) * 0.5
    prob = ContactProblem(W, [-2.0, 0, 0, 1.0, 0, 0], [0.5, 0.5], restitution=[1.0, 1.0])
    r = get_solver("impact_lcp").solve(prob)
    assert r.impulses[0] == pytest.approx(8.0) and r.impulses[3] == 0.0
    assert r.velocities[0] == pytest.approx(2.0) and r.velocities[3] == pytest.approx(1.0)


# ---------------------------------------------------------------- bad input
def test_bad_input_raises_solver_error():
    W = np.eye(3)
    with pytest.raises(SolverError, match="mu"):
        ContactProblem(W, [0, 0, 0], [-0.1])
    with pytest.raises(SolverError, match="W"):
        ContactProblem(np.eye(6), [0, 0, 0], [0.1])
    with pytest.raises(SolverError, match="NaN"):
        ContactProblem(W, [np.nan, 0, 0], [0.1])
    with pytest.raises(SolverError, match="restitution"):
        ContactProblem(W, [0, 0, 0], [0.1], restitution=[1.5])
    with pytest.raises(SolverError, match="compliance"):
        ContactProblem(W, [0, 0, 0], [0.1], compliance=[-1.0])
    with pytest.raises(SolverError, match="nsgs_newton"):
        get_solver("gauss")


# ---------------------------------------------------------------- verified active-set step
def test_active_set_step_same_solution_fewer_sweeps(hrp2_standing):
    """nsgs_newton with and without the sticking-block step (docs/solvers.md, "Verified active-set steps") on the
    hyperstatic standing problem: both meet the same tight thresholds, the step is used and
    saves sweeps, and the contact velocities and the carried weight agree."""
    hs = hrp2_standing
    mu = np.full(hs["m"], 0.983)  # measured foot–floor μ (Chardonnet 2009, §5.1.2.1)
    for vf in (hs["vfree"], hs["vfree1"]):
        p = ContactProblem(hs["W"], vf, mu)
        fast = get_solver("nsgs_newton").solve(p, settings=TIGHT)
        plain = get_solver("nsgs_newton", active_set=False).solve(p, settings=TIGHT)
        assert fast.converged and plain.converged
        check_residuals(p, fast)
        assert fast.extra["stick_steps"] >= 1 and plain.extra["stick_steps"] == 0
        assert fast.iterations < plain.iterations
        # the plain iteration stops at TIGHT's 1e-7 relative change: agreement to that order
        assert fast.impulses[0::3].sum() == pytest.approx(plain.impulses[0::3].sum(), rel=1e-7)
        assert np.allclose(fast.velocities, plain.velocities, atol=TIGHT.tol_penetration)
        # the step's solution is exact to rounding: all contacts carry load and stick (v = 0)
        assert np.all(fast.impulses[0::3] > 0)
        assert np.abs(fast.velocities).max() < 1e-12


def test_stick_step_minimum_norm_correction(hrp2_standing):
    """From a perturbed sticking iterate, the step solves v = 0 on every contact with a
    correction in range(W): the workless (internal) force component of the iterate is kept."""
    from humanoid_sim.solvers._active_set import STICK_ROUNDS, stick_step
    from humanoid_sim.solvers._residuals import natural_map

    hs = hrp2_standing
    W, vf = hs["W"], hs["vfree"]
    # μ = 5 (our choice): every contact strictly inside its cone, so no reclassification
    # happens and the correction is exactly the minimum-norm one
    mu = np.full(hs["m"], 5.0)
    p = ContactProblem(W, vf, mu)
    ref = get_solver("nsgs_newton").solve(p, settings=TIGHT)
    F = ref.impulses.reshape(-1, 3)
    assert np.all(np.hypot(F[:, 1], F[:, 2]) < 0.5 * mu * F[:, 0])  # strictly sticking
    f = ref.impulses + 1e-3 * F[:, 0].max() * np.random.default_rng(3).standard_normal(W.shape[0])
    v = W @ f + vf
    merit = natural_map(W, mu, f, v)
    fnew, vnew = np.empty_like(f), np.empty_like(f)
    acc, mnew = stick_step(W, vf, mu, f, v, merit, True, STICK_ROUNDS, fnew, vnew)
    assert acc and mnew < 1e-9 * merit
    assert np.abs(vnew).max() < 1e-12 * np.abs(v).max()
    lam, U = np.linalg.eigh(W)
    null = U[:, lam < 1e-10 * lam.max()]
    assert null.shape[1] >= W.shape[0] - 2 * 6  # two rigid soles: rank ≤ 12, hyperstatic
    d = fnew - f
    assert np.linalg.norm(null.T @ d) < 1e-9 * np.linalg.norm(d)
    # it is only accepted when it improves the natural-map residual
    acc, m0 = stick_step(W, vf, mu, f, v, 0.0, True, STICK_ROUNDS, fnew, vnew)
    assert not acc and m0 == 0.0


def test_reduced_solve_of_a_full_rank_block_is_the_exact_solution(hrp2_standing):
    """A full-rank reduced block (the FEM soles': W_rigid plus a positive-definite compliance,
    docs/soles.md) takes the full-rank path (the pivoted factor, two triangular solves): its
    correction solves Pᵀ W P y = −Pᵀ v, with P built by hand (sticking contacts: unit vectors;
    a contact on its cone boundary: e_n + μ d), as numpy's dense solve does, to 1e-10."""
    from humanoid_sim.solvers._active_set import _reduced_solve

    hs = hrp2_standing
    rng = np.random.default_rng(5)
    n = hs["W"].shape[0]
    G = rng.standard_normal((n, n))
    W = hs["W"] + 1e-3 * np.abs(hs["W"]).max() * (G @ G.T / n + np.eye(n))  # + an SPD compliance
    mu = np.full(hs["m"], 0.5)
    f = np.tile([100.0, 10.0, -20.0], hs["m"])
    v = W @ f + hs["vfree"]
    kind = np.ones(hs["m"], np.int64)
    kind[[1, 4]] = 2  # two contacts move along their cone-boundary direction only
    fnew = np.empty(n)
    assert _reduced_solve(W, mu, f, v, kind, fnew)
    cols = []
    for c in range(hs["m"]):
        if kind[c] == 1:
            cols += [np.eye(n)[3 * c + r] for r in range(3)]
        else:
            b = np.zeros(n)
            b[3 * c : 3 * c + 3] = [1.0, mu[c] * 10.0 / np.hypot(10, 20), mu[c] * -20.0 / np.hypot(10, 20)]
            cols.append(b)
    P = np.array(cols).T
    y = np.linalg.solve(P.T @ W @ P, -P.T @ v)
    assert np.abs((fnew - f) - P @ y).max() < 1e-10 * np.abs(P @ y).max()


def _textbook_pivoted_cholesky(A, tol):
    """The pivoted Cholesky of the stick step written as its textbook loop (plain Python floats,
    IEEE order): at step j the first row with the largest remaining diagonal above tol is the
    pivot; L[a, j] = (A[a, p] − Σ_l L[a, l] L[p, l]) / L[p, j], the terms subtracted in order."""
    k = A.shape[0]
    d = [float(A[a, a]) for a in range(k)]
    L = [[0.0] * k for _ in range(k)]
    used, piv = [False] * k, []
    for j in range(k):
        p, dp = -1, tol
        for a in range(k):
            if not used[a] and d[a] > dp:
                p, dp = a, d[a]
        if p < 0:
            break
        used[p] = True
        piv.append(p)
        ljj = math.sqrt(dp)
        for a in range(k):
            if not used[a]:
                s = float(A[a, p])
                for l in range(j):
                    s -= L[a][l] * L[p][l]
                L[a][j] = s / ljj
                d[a] -= L[a][j] * L[a][j]
        L[p][j] = ljj
    return piv, np.array(L), np.array(d)


@pytest.mark.parametrize(
    "k, rank, ties", [(96, 96, False), (48, 12, False), (24, 24, True), (30, 9, True), (5, 0, False)]
)
def test_the_stick_steps_pivoted_cholesky_is_the_textbook_loop_to_the_bit(k, rank, ties):
    """`_pivoted_cholesky` (rows moved to the front, column-major, four columns a pass) gives the
    textbook loop's pivots, factor and remaining diagonals to the last bit: full rank (the FEM
    soles' blocks), rank-deficient (hyperstatic rigid contacts), with exactly equal diagonals
    (symmetric contact layouts: ties go to the lowest row) and a zero matrix (no pivot)."""
    from humanoid_sim.solvers._active_set import STICK_PIVOT_TOL, _pivoted_cholesky

    rng = np.random.default_rng(k + rank)
    G = rng.standard_normal((k, rank))
    A = G @ G.T
    if ties:  # repeat a block: the same diagonal entries at several rows
        b = k // 3
        A[b : 2 * b, b : 2 * b] = A[:b, :b]
        A[2 * b : 3 * b, 2 * b : 3 * b] = A[:b, :b]
    tol = STICK_PIVOT_TOL * max(np.diag(A).max(), 1.0)
    d = np.diag(A).copy()
    L = np.full((k, k), np.nan)  # every entry is written
    piv = np.empty(k, np.int64)
    r = _pivoted_cholesky(A, d, tol, L, piv)
    piv_ref, L_ref, d_ref = _textbook_pivoted_cholesky(A, tol)
    assert r == len(piv_ref) and (r == rank or ties)
    assert piv[:r].tolist() == piv_ref
    assert np.array_equal(L, L_ref) and np.array_equal(d, d_ref)


def test_active_set_newton_step_on_sliding_contacts(hrp2_standing):
    """Base pushed at (0.3, 0.1, 0) m/s, μ = 0.4 (the thesis's, §3.1.6.1): every corner slides. The global
    Newton step (docs/solvers.md, "Verified active-set steps") is used and accepted, and the result meets the same tight
    thresholds, maximal dissipation included, in fewer sweeps than the plain iteration."""
    hs = hrp2_standing
    vf = hs["vfree"] + hs["J"][:, :6] @ np.array([0.3, 0.1, 0.0, 0.0, 0.0, 0.0])
    p = ContactProblem(hs["W"], vf, np.full(hs["m"], 0.4))
    fast = get_solver("nsgs_newton").solve(p, settings=TIGHT)
    plain = get_solver("nsgs_newton", active_set=False).solve(p, settings=TIGHT)
    assert fast.converged and plain.converged
    check_residuals(p, fast)
    assert fast.residuals["sliding_contacts"] == hs["m"]
    assert fast.extra["stick_steps"] >= 1
    assert fast.iterations < plain.iterations
    check_residuals(p, plain)
    assert np.allclose(fast.velocities, plain.velocities, atol=1e-6)


def test_trusted_problem_equals_validated_problem():
    """The simulator's hot-path constructor builds the same problem, and still rejects NaN."""
    rng = np.random.default_rng(3)
    m = 5
    A = rng.normal(size=(3 * m, 3 * m))
    W, v, mu = A @ A.T, rng.normal(size=3 * m), np.full(m, 0.7)
    for comp in (None, np.full(3 * m, 1e-3)):
        full, fast = ContactProblem(W, v, mu, compliance=comp), ContactProblem.trusted(W, v, mu, compliance=comp)
        for name in ("W_eff", "v_free", "mu"):
            np.testing.assert_array_equal(getattr(full, name), getattr(fast, name))
        assert fast.m == m and fast.restitution is None
    with pytest.raises(SolverError, match="NaN or inf"):
        ContactProblem.trusted(W, np.full(3 * m, np.nan), mu)
