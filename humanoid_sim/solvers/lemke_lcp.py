"""`lemke_lcp`: polyhedral friction cone with k facets (default 8) as an LCP solved by Lemke
(Chardonnet 2009, eqs. (2.33)–(2.35) of §2.4.2.1; AMELIFLCP of Table 5.1, §5.3), and the
frictionless LCP (`settings.frictionless=True`).

Unknowns z = (f_n (m), β (k m), λ (m)); tangential force f_t = Σ_i β_i d_i with
d_i = (cos 2πi/k, sin 2πi/k) in (t1, t2): an INNER polygon of the Coulomb disk (exact along
the d_i, μ cos(π/k) between them). Rows:
    w_n = N v ≥ 0 ⊥ f_n;   w_β = Dᵀ v_t + λ e ≥ 0 ⊥ β;   w_λ = μ f_n − eᵀ β ≥ 0 ⊥ λ,
with v = W f + v_free, i.e. M = [[BᵀWB, [0; E]], [[diag μ, −Eᵀ], 0]], q = (Bᵀ v_free, 0).
Size per contact 1 + k + 1 (67 contacts → 670 with 8 facets, Chardonnet 2009, §3.1.6.2)."""

import time

import numpy as np

from ._lemke import lcp_residuals, normal_lcp, solve_lcp
from .base import ContactSolver, SolverResult, SolverSettings, residuals


def lcp_matrices(problem, facets):
    """(M, q, B): the LCP of the polyhedral problem with `facets` facets per cone (module
    docstring) and B (3m, m + k m) mapping (f_n, β) to f."""
    m, k = problem.m, int(facets)
    ang = 2.0 * np.pi * np.arange(k) / k
    B = np.zeros((3 * m, m + k * m))
    idx = np.arange(m)
    B[3 * idx, idx] = 1.0
    for i in range(k):
        B[3 * idx + 1, m + idx * k + i] = np.cos(ang[i])
        B[3 * idx + 2, m + idx * k + i] = np.sin(ang[i])
    n = m + k * m + m
    Mm = np.zeros((n, n))
    Mm[: m + k * m, : m + k * m] = B.T @ problem.W_eff @ B
    E = np.zeros((k * m, m))
    for c in range(m):
        E[c * k : (c + 1) * k, c] = 1.0
    Mm[m : m + k * m, m + k * m :] = E
    Mm[m + k * m :, :m] = np.diag(problem.mu)
    Mm[m + k * m :, m : m + k * m] = -E.T
    q = np.zeros(n)
    q[: m + k * m] = B.T @ problem.v_free
    return Mm, q, B


class LemkeLCP(ContactSolver):
    """Polyhedral-cone (or frictionless) LCP by Lemke (module docstring)."""

    name = "lemke_lcp"

    def solve(self, problem, warm_start=None, settings=None):
        """See `ContactSolver.solve`; warm_start is ignored (pivoting methods restart from the
        basis of w). Uses `settings.facets` and `settings.frictionless`; iterations = pivots;
        residuals add `lcp_complementarity` and `lcp_feasibility`; `extra` has Lemke's `status`
        (0 solved, 1 ray termination, 2 pivot cap) and `lcp_size`."""
        s = settings or SolverSettings()
        t0 = time.perf_counter()
        if s.frictionless:
            q = problem.v_free[0::3].copy()
            f, z, Mm, status, piv = normal_lcp(problem, q)
        else:
            Mm, q, B = lcp_matrices(problem, s.facets)
            z, status, piv = solve_lcp(Mm, q)
            f = B @ z[: B.shape[1]]
        v = problem.W_eff @ f + problem.v_free
        res = residuals(problem, f, v)
        res.update(lcp_residuals(Mm, q, z))
        return SolverResult(
            f,
            v,
            int(piv),
            res,
            status == 0,
            time.perf_counter() - t0,
            self.name,
            {"status": int(status), "lcp_size": int(q.shape[0])},
        )
