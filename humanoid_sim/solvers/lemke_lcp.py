"""`lemke_lcp`: polyhedral friction cone with k facets (default 8) as an LCP solved by Lemke
(spec ../shared/spec/000_chardonnet.md §2.8 eqs 2.33–2.35, AMELIFLCP of §2.19), and the
frictionless LCP (`settings.frictionless=True`).

Unknowns z = (f_n (m), β (k m), λ (m)); tangential force f_t = Σ_i β_i d_i with
d_i = (cos 2πi/k, sin 2πi/k) in (t1, t2): an INNER polygon of the Coulomb disk (exact along
the d_i, μ cos(π/k) between them). Rows:
    w_n = N v ≥ 0 ⊥ f_n;   w_β = Dᵀ v_t + λ e ≥ 0 ⊥ β;   w_λ = μ f_n − eᵀ β ≥ 0 ⊥ λ,
with v = W f + v_free, i.e. M = [[BᵀWB, [0; E]], [[diag μ, −Eᵀ], 0]], q = (Bᵀ v_free, 0).
Size per contact 1 + k + 1 (67 contacts → 670 with 8 facets, spec §2.8 L1493)."""
import time

import numpy as np

from ._lemke import lemke
from .base import SolverResult, SolverSettings, register, residuals


def lcp_matrices(problem, facets):
    """(M, q, B): the LCP of the polyhedral problem and B mapping (f_n, β) to f (3m)."""
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
        E[c * k:(c + 1) * k, c] = 1.0
    Mm[m: m + k * m, m + k * m:] = E
    Mm[m + k * m:, :m] = np.diag(problem.mu)
    Mm[m + k * m:, m: m + k * m] = -E.T
    q = np.zeros(n)
    q[: m + k * m] = B.T @ problem.v_free
    return Mm, q, B


def lcp_residuals(M, q, z):
    w = M @ z + q
    return {"lcp_complementarity": float(np.max(np.abs(z * w), initial=0.0)),
            "lcp_feasibility": float(max(np.max(-w, initial=0.0), np.max(-z, initial=0.0)))}


@register("lemke_lcp")
class LemkeLCP:
    def solve(self, problem, warm_start=None, settings=None):
        """warm_start is ignored (pivoting methods restart from the basis of w)."""
        s = settings or SolverSettings()
        t0 = time.perf_counter()
        m = problem.m
        if s.frictionless:
            N = problem.W_eff[0::3, 0::3]
            Mm, q = np.ascontiguousarray(N), problem.v_free[0::3].copy()
            z, status, piv = lemke(Mm, q, 50 * m + 100)
            f = np.zeros(3 * m)
            f[0::3] = z
        else:
            Mm, q, B = lcp_matrices(problem, s.facets)
            z, status, piv = lemke(Mm, q, 50 * q.shape[0] + 100)
            f = B @ z[: B.shape[1]]
        v = problem.W_eff @ f + problem.v_free
        res = residuals(problem, f, v)
        res.update(lcp_residuals(Mm, q, z))
        return SolverResult(f, v, int(piv), res, status == 0, time.perf_counter() - t0, self.name,
                            {"status": int(status), "lcp_size": int(q.shape[0])})
