"""The compiled prioritized step (`humanoid_control.kinematics.hierarchy.cycle`) against an
independent NumPy reference of the algorithm documented in `prioritized` (SVD of each level's
projected rows, Chiaverini damping, rank tolerance, projector P <- P - V·Vᵀ, regularised posture
level), on random levels that take each of the kernel's three routes: undamped (Cholesky),
damped full rank (inverse iteration + Cholesky) and rank deficient (eigen-decomposition), and
each of its posture-level routes (unit rows of one weight, unit rows of several weights, dense
rows)."""

import numpy as np
import pytest

from humanoid_control.kinematics.hierarchy import cycle, no_rows
from humanoid_control.kinematics.prioritized import DEFAULT, REST_REGULARISATION, _settings

NV = 12
# (chosen) agreement of the two computations, relative to the step: both are exact in exact
# arithmetic. Levels 1-2: observed ~1e-16 (Gram matrices of condition <= 1e3 here).
TOL = 1e-12
# With the posture level, regularised by μ² = REST_REGULARISATION² = 1e-6: observed up to 1.9e-13
# (both solve it in the projector's range; normal equations over all NV columns would amplify the
# rounding of Aᵀ·res outside that range by 1/μ²: 1e-9 to 4e-7 differences); a wrong damping,
# projector or weight differs by > 1e-2.
TOL_REST = 1e-11


def reference(levels, st=DEFAULT):
    """du for ``levels`` [(J, r)] by the documented algorithm, with SVDs (no limits). The posture
    level's regularised normal equations are solved in the null space of the levels above (Z, an
    orthonormal basis of it: x = Z·(BᵀB + μ²I)⁻¹·Bᵀ·res, B = J·Z)."""
    du, P, kept = np.zeros(NV), np.eye(NV), [np.zeros((0, NV))]
    for k, (J, r, level) in enumerate(levels):
        last = k == len(levels) - 1
        A, res = J @ P, r - J @ du
        if last and level >= 3:
            V = np.vstack(kept)
            Z = np.linalg.svd(V)[2][V.shape[0] :].T if V.shape[0] else np.eye(NV)
            B = J @ Z
            du += Z @ np.linalg.solve(B.T @ B + REST_REGULARISATION**2 * np.eye(Z.shape[1]), B.T @ res)
            break
        U, s, Vt = np.linalg.svd(A, full_matrices=False)
        keep = s > st.rank_tolerance
        if not keep.any():
            continue
        U, s, Vt = U[:, keep], s[keep], Vt[keep]
        smin, eps = s.min(), st.damping_threshold
        lam2 = 0.0 if smin >= eps else st.damping_max**2 * (1 - (smin / eps) ** 2)
        du += Vt.T @ ((s / (s**2 + lam2)) * (U.T @ res))
        P = P - Vt.T @ Vt
        kept.append(Vt)
    return du


def kernel(levels, st=DEFAULT):
    """du of `cycle` on the same levels (unit weights, gains and scales, no step bound, no limits)."""
    J = np.vstack([L[0] for L in levels])
    e = -np.concatenate([L[1] for L in levels])  # r = -gain·e
    m = J.shape[0]
    starts = np.cumsum([0] + [L[0].shape[0] for L in levels])
    none = np.zeros(0, np.int64)
    du, r, dq = np.empty(NV), np.empty(m), np.empty(NV)
    cycle(
        *no_rows(), J.copy(), e, np.ones(m), np.ones(len(levels)), np.ones(len(levels)), np.ones(m, bool),
        starts.astype(np.int64), starts.astype(np.int64), np.array([L[2] for L in levels], np.int64),
        np.ones(NV), np.array([1e9, 1e9]), np.zeros(NV), none, none, np.zeros(0), np.zeros(0),
        True, 4, _settings(st), none, du, r, dq,
    )  # fmt: skip
    return du


def _levels(rng, sigma_min_1=None, dependent=False):
    """Level 1 (4 rows), level 2 (3 rows), posture (NV unit rows of one weight). ``sigma_min_1``:
    level 1's smallest singular value; ``dependent``: level 2's third row a combination of its
    others."""
    J1 = rng.normal(size=(4, NV))
    if sigma_min_1 is not None:
        U, s, Vt = np.linalg.svd(J1, full_matrices=False)
        s = np.linspace(1.0, sigma_min_1, 4)
        J1 = U @ np.diag(s) @ Vt
    J2 = rng.normal(size=(3, NV))
    if dependent:
        J2[2] = 0.5 * J2[0] - 2.0 * J2[1]
    J3 = np.eye(NV) * 0.8
    return [(J1, rng.normal(size=4) * 0.01, 1), (J2, rng.normal(size=3) * 0.01, 2), (J3, rng.normal(size=NV), 3)]


@pytest.mark.parametrize(
    "case, sigma_min_1, dependent",
    [
        ("undamped", 0.5, False),  # every σ > ε = 0.1: Cholesky route
        ("damped", 0.04, False),  # level 1's σmin = 0.04 < ε: λ² = λmax²(1 - 0.16), inverse iteration
        ("rank deficient", 0.5, True),  # level 2 has a zero σ: eigen-decomposition route
        ("damped and rank deficient", 0.02, True),
    ],
)
def test_kernel_matches_the_svd_reference(case, sigma_min_1, dependent):
    rng = np.random.default_rng(3)
    for _ in range(5):
        levels = _levels(rng, sigma_min_1, dependent)
        ref, got = reference(levels[:2]), kernel(levels[:2])
        assert np.linalg.norm(got - ref) <= TOL * max(1.0, np.linalg.norm(ref)), case
        J3, r3, _ = levels[2]
        for posture in (
            J3,  # one weight: the step is P·g/(c + μ²)
            np.diag(rng.choice([0.0, 0.8, 0.8, 1.7], NV))[np.r_[0:3, 4:NV]],  # unit rows, zero columns, two
            # weights: the k×k system of the columns whose weight differs from the first
            rng.normal(size=(NV, NV)),  # dense rows: normal equations over every column (NV rows: no
            # direction of P's range left to μ² alone, whose rounding both would amplify by 1/μ²)
        ):
            lv = levels[:2] + [(posture, r3[: posture.shape[0]], 3)]
            ref, got = reference(lv), kernel(lv)
            assert np.linalg.norm(got - ref) <= TOL_REST * max(1.0, np.linalg.norm(ref)), case


def test_damping_changes_the_step():
    """The damped route is not the undamped one: with σmin = 0.04 the damped step differs from
    the plain pseudo-inverse step by more than 1 % (so the comparison above can fail)."""
    rng = np.random.default_rng(5)
    levels = _levels(rng, 0.04)[:1]
    J, r, _ = levels[0]
    plain = np.linalg.pinv(J) @ r
    got = kernel(levels)
    assert np.linalg.norm(got - plain) > 0.01 * np.linalg.norm(plain)
    assert np.linalg.norm(got - reference(levels)) <= TOL * np.linalg.norm(plain)


def test_the_tests_and_the_solver_share_one_compiled_cycle():
    """`no_rows` gives the solver's argument types (Pinocchio's column-major Jacobians included):
    another type would compile `cycle` a second time (about a minute on a fresh 2-core machine)."""
    numba = pytest.importorskip("numba")
    from humanoid_control.kinematics import ComTask, FrameTarget, PostureTask, load_structure
    from humanoid_control.kinematics.prioritized import _plan, tasks_of

    s = load_structure("hrp2")
    plan = _plan(s, tasks_of(s, (FrameTarget(s, "r_hand"), ComTask(s), PostureTask(s))), DEFAULT)
    s.compute(s.q0, com=True)
    solver = (*plan.frame_rows.inputs(s.data), *plan.task_rows.inputs(s.data))
    assert [numba.typeof(a) for a in no_rows()] == [numba.typeof(a) for a in solver]
