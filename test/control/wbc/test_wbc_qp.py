"""The whole-body QP's solver (`humanoid_control.wbc.qp.QPSolver`) on small QPs whose solutions are
derived by hand: a projection on a box, on a plane, on a slab, and an infeasible problem.

Tolerance: the solver is an active-set method (DAQP), exact to round-off, so a solution is
compared within 1e-9 on these problems of unit scale."""

import itertools

import numpy as np
import pytest

from humanoid_control.wbc.qp import QPSolver

INF = 1e20
TOL = 1e-9


def _projection(c, A=None, b=None, C=None, lo=None, up=None, box_lo=None, box_up=None):
    """The arguments of min ½‖x − c‖² (H = I, g = −c) with the given rows."""
    n = len(c)
    return (
        np.eye(n),
        -np.asarray(c, float),
        np.zeros((0, n)) if A is None else np.asarray(A, float),
        np.zeros(0) if b is None else np.asarray(b, float),
        np.zeros((0, n)) if C is None else np.asarray(C, float),
        np.zeros(0) if lo is None else np.asarray(lo, float),
        np.zeros(0) if up is None else np.asarray(up, float),
        np.full(n, -INF) if box_lo is None else np.asarray(box_lo, float),
        np.full(n, INF) if box_up is None else np.asarray(box_up, float),
    )


def test_a_projection_on_a_box_is_the_clipped_point():
    c = np.array([2.0, -3.0, 0.25, 0.9])
    res = QPSolver().solve(*_projection(c, box_lo=[-1, -1, -1, -1], box_up=[1, 1, 1, 1]))
    assert res.solved and res.status == "optimal"
    assert np.allclose(res.x, np.clip(c, -1, 1), rtol=0, atol=TOL)


def test_a_projection_on_a_plane_moves_the_point_along_the_planes_normal():
    rng = np.random.default_rng(0)
    c = rng.normal(size=5)
    n = rng.normal(size=5)
    b = 0.7
    res = QPSolver().solve(*_projection(c, A=n[None], b=[b]))
    expected = c - (n @ c - b) / (n @ n) * n  # the orthogonal projection
    assert res.solved
    assert np.allclose(res.x, expected, rtol=0, atol=TOL)


def test_a_point_inside_a_slab_is_its_own_projection():
    inside = np.array([0.5, 0.5])
    res = QPSolver().solve(*_projection(inside, C=[[1.0, 1.0]], lo=[0.0], up=[2.0]))
    assert res.solved
    assert np.allclose(res.x, inside, rtol=0, atol=TOL)


def test_a_hot_started_projection_on_a_slab_stops_on_its_nearest_face():
    qp = QPSolver()
    qp.solve(*_projection([0.5, 0.5], C=[[1.0, 1.0]], lo=[0.0], up=[2.0]))  # a first cycle inside
    res = qp.solve(*_projection([3.0, 1.0], C=[[1.0, 1.0]], lo=[0.0], up=[2.0]))
    assert res.solved
    assert np.allclose(res.x, [2.0, 0.0], rtol=0, atol=TOL)  # c − (4 − 2)/2 (1, 1)


def test_a_first_projection_on_a_slab_stops_on_its_nearest_face():
    # 0 <= x + y <= 2 and c = (3, 1) beyond the upper face by 2/√2: the projection is (2, 0)
    res = QPSolver().solve(*_projection([3.0, 1.0], C=[[1.0, 1.0]], lo=[0.0], up=[2.0]))
    assert res.solved
    assert np.allclose(res.x, [2.0, 0.0], rtol=0, atol=TOL)


def _brute_force(H, g, C, lo, up):
    """The minimiser of ½ xᵀHx + gᵀx with lo <= C x <= up: the best feasible KKT point over every
    choice of active rows (each row free, at its lower or at its upper bound)."""
    n, m = len(g), len(lo)
    best = None
    for active in itertools.product((0, 1, 2), repeat=m):
        rows = [i for i in range(m) if active[i]]
        rhs = np.array([lo[i] if active[i] == 1 else up[i] for i in rows])
        K = np.block([[H, C[rows].T], [C[rows], np.zeros((len(rows), len(rows)))]])
        x = np.linalg.solve(K, np.r_[-g, rhs])[:n]
        r = C @ x
        if np.all(r >= lo - 1e-9) and np.all(r <= up + 1e-9):
            value = 0.5 * x @ H @ x + g @ x
            if best is None or value < best[0]:
                best = (value, x)
    return best[1]


def _random_qp(rng, n=4, m=3):
    L = rng.normal(size=(n, n))
    C = rng.normal(size=(m, n))
    return L @ L.T + np.eye(n), rng.normal(size=n) * 3, C, -rng.uniform(0.1, 1, m), rng.uniform(0.1, 1, m)


def _solve(qp, H, g, C, lo, up):
    n = len(g)
    return qp.solve(H, g, np.zeros((0, n)), np.zeros(0), C, lo, up, np.full(n, -INF), np.full(n, INF))


def test_a_slowly_changing_qp_hot_started_each_cycle_is_solved_to_its_minimiser():
    # a controller's sequence: the same rows, the cost's gradient moving a little each cycle, each
    # solve hot-started from the last one's active set
    rng = np.random.default_rng(1)
    H, g, C, lo, up = _random_qp(rng)
    qp = QPSolver()
    errors, hot, cold = [], 0, 0
    for k in range(300):
        gk = g + 3.0 * np.sin(0.05 * k) * np.array([1.0, -1.0, 0.5, 0.2])
        res = _solve(qp, H, gk, C, lo, up)
        assert res.solved
        errors.append(np.abs(res.x - _brute_force(H, gk, C, lo, up)).max())
        hot += res.iterations
        cold += _solve(QPSolver(), H, gk, C, lo, up).iterations
    assert max(errors) < TOL
    assert hot < cold / 2  # the last active set is mostly this cycle's


def test_random_qps_solved_by_a_fresh_solver_are_their_brute_force_minimisers():
    rng = np.random.default_rng(0)
    errors = []
    for _ in range(200):
        problem = _random_qp(rng)
        res = _solve(QPSolver(), *problem)
        assert res.solved
        errors.append(np.abs(res.x - _brute_force(*problem)).max())
    assert max(errors) < TOL


def test_an_infeasible_problem_is_reported_unsolved():
    # x0 = 1 and x0 <= 0
    res = QPSolver().solve(*_projection([0.0, 0.0], A=[[1.0, 0.0]], b=[1.0], box_up=[0.0, INF]))
    assert not res.solved
    assert res.status == "infeasible"


def test_an_active_set_per_problem_size_is_kept_and_reset_forgets_them():
    qp = QPSolver()
    r1 = qp.solve(*_projection([2.0, 0.0], box_lo=[-1, -1], box_up=[1, 1]))
    r2 = qp.solve(*_projection([0.0, 0.0, 5.0], A=[[0.0, 0.0, 1.0]], b=[1.0]))
    r3 = qp.solve(*_projection([-4.0, 0.5], box_lo=[-1, -1], box_up=[1, 1]))  # the first size again
    assert np.allclose(r1.x, [1.0, 0.0], atol=TOL)
    assert np.allclose(r2.x, [0.0, 0.0, 1.0], atol=TOL)
    assert np.allclose(r3.x, [-1.0, 0.5], atol=TOL)  # the kept active set does not hold it back
    assert len(qp._active) == 2
    qp.reset()
    assert not qp._active


@pytest.mark.parametrize("seed", [1, 2])
def test_random_box_qps_satisfy_the_kkt_conditions(seed):
    rng = np.random.default_rng(seed)
    n = 6
    L = rng.normal(size=(n, n))
    H = L @ L.T + np.eye(n)
    g = rng.normal(size=n) * 5
    lo, up = -np.ones(n), np.ones(n)
    res = QPSolver().solve(H, g, np.zeros((0, n)), np.zeros(0), np.zeros((0, n)), np.zeros(0), np.zeros(0), lo, up)
    x = res.x
    assert res.solved and np.all(x >= lo - TOL) and np.all(x <= up + TOL)
    grad = H @ x + g  # stationarity: the gradient pushes outwards only at an active bound
    free = (x > lo + 1e-4) & (x < up - 1e-4)
    assert np.allclose(grad[free], 0.0, atol=1e-4)
    assert np.all(grad[x >= up - 1e-4] <= 1e-4) and np.all(grad[x <= lo + 1e-4] >= -1e-4)
